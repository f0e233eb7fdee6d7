//! The DNC's controller (one LSTM layer), interface and output layer on a θ (Graves et al.,
//! Nature 2016, Methods: "Controller network", "Interface parameters"), in the NHC's place: the
//! Input's signals go where the NHC's modules take them (c_ic to the controller, c_im to the
//! interface, c_ib to the output layer), and the output layer chooses the ALU operation.

use super::addressing::{oneplus, sigmoid, softmax};
use super::memory::DncDecision;
use crate::config::Config;
use crate::params::{Block, Params};
use crate::policy::{BusDecision, Observation, Policy, bus_decision, concat};

/// Where each block lives in θ: the LSTM's four gates `W_{i,f,s,o} [χ_t; h_{t−1}] + b`
/// (rows in that order, H each), the interface `ξ_t = W_ξ [c_im; h_t] + b_ξ`, and the output
/// `y_t = W_y [c_ib; h_t; r_t] + b_y` (the DNC's `W_y h_t + W_r r_t`, with c_ib as the NHC's Bus
/// has it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DncLayout {
    pub lstm: Block,
    pub interface: Block,
    pub output: Block,
}

impl DncLayout {
    /// `c.controller` is the LSTM's hidden size H; χ_t = [c_ic; c_b_{t−1}; c_a_{t−1}; r_{t−1}].
    pub fn new(c: &Config) -> Self {
        let h = c.controller;
        let lstm = Block::after(0, 4 * h, c.controller_inputs() + h);
        let xi = DncDecision::interface_size(c.word, c.read_heads);
        let interface = Block::after(lstm.end(), xi, c.memory_inputs());
        let output = Block::after(interface.end(), c.ops, c.bus_inputs());
        DncLayout { lstm, interface, output }
    }
    /// |θ|.
    pub fn len(&self) -> usize {
        self.output.end()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The blocks with their names, in θ order.
    pub fn named(&self) -> [(&'static str, Block); 3] {
        [
            ("LSTM gates (W_i, W_f, W_s, W_o, biases)", self.lstm),
            ("interface (W_ξ, b_ξ)", self.interface),
            ("output layer (W_y, W_r, b_y)", self.output),
        ]
    }
}

/// The learned DNC on a θ. Unlike the NHC's modules it carries state across steps (the LSTM's
/// h and s), reset by [`Policy::begin`] at the start of every run.
#[derive(Debug, Clone)]
pub struct DncLearned {
    params: Params,
    layout: DncLayout,
    /// [χ_t; h_{t−1}].
    x: Vec<f32>,
    gates: Vec<f32>,
    h: Vec<f32>,
    s: Vec<f32>,
    x_m: Vec<f32>,
    xi: Vec<f32>,
    x_b: Vec<f32>,
    logits: Vec<f32>,
}

impl DncLearned {
    pub fn new(params: Params) -> Self {
        let c = params.config().clone();
        let layout = DncLayout::new(&c);
        DncLearned {
            x: vec![0.0; layout.lstm.cols],
            gates: vec![0.0; layout.lstm.rows],
            h: vec![0.0; c.controller],
            s: vec![0.0; c.controller],
            x_m: vec![0.0; c.memory_inputs()],
            xi: vec![0.0; layout.interface.rows],
            x_b: vec![0.0; c.bus_inputs()],
            logits: vec![0.0; c.ops],
            layout,
            params,
        }
    }
    pub fn params(&self) -> &Params {
        &self.params
    }
}

/// Parses ξ_t into the decision with the DNC's nonlinearities: keys and the write vector as they
/// are, strengths by oneplus, erase vector and gates by σ, read modes by softmax (Methods,
/// "Interface parameters"). `out` must have the sizes of ξ_t: `xi.len()` is
/// [`DncDecision::interface_size`] of `word` and `out`'s read heads. Public so that the soft DNC
/// (crate nhc-dnc) can be checked against it.
pub fn parse_interface(xi: &[f32], word: usize, out: &mut DncDecision) {
    let r = out.read_strengths.len();
    let mut rest = xi;
    let mut take = |n: usize| {
        let (head, tail) = rest.split_at(n);
        rest = tail;
        head
    };
    out.read_keys.copy_from_slice(take(r * word));
    for (o, v) in out.read_strengths.iter_mut().zip(take(r)) {
        *o = oneplus(*v);
    }
    out.write_key.copy_from_slice(take(word));
    out.write_strength = oneplus(take(1)[0]);
    for (o, v) in out.erase.iter_mut().zip(take(word)) {
        *o = sigmoid(*v);
    }
    out.write.copy_from_slice(take(word));
    for (o, v) in out.free_gates.iter_mut().zip(take(r)) {
        *o = sigmoid(*v);
    }
    out.allocation_gate = sigmoid(take(1)[0]);
    out.write_gate = sigmoid(take(1)[0]);
    for m in out.read_modes.iter_mut() {
        m.copy_from_slice(take(3));
        softmax(m);
    }
}

impl Policy<DncDecision> for DncLearned {
    fn begin(&mut self) {
        self.h.fill(0.0);
        self.s.fill(0.0);
    }

    /// LSTM `i, f, o = σ(W [χ_t; h_{t−1}] + b)`, `s_t = f ∘ s_{t−1} + i ∘ tanh(W_s [χ_t; h_{t−1}] + b_s)`,
    /// `h_t = o ∘ tanh(s_t)` (Methods, "Controller network"; c_c = h_t), then ξ_t.
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut DncDecision) {
        let theta = self.params.theta();
        let c = self.params.config();
        let bus_prev: &[f32] = if c.bus_feedback { obs.bus_prev } else { &[] };
        let alu_prev: &[f32] = if c.alu_feedback > 0 { obs.alu_prev } else { &[] };
        concat(&mut self.x, &[obs.input_controller, bus_prev, alu_prev, obs.read_prev, &self.h]);
        self.layout.lstm.apply(theta, &self.x, &mut self.gates);
        let hs = self.h.len();
        let (i, rest) = self.gates.split_at(hs);
        let (f, rest) = rest.split_at(hs);
        let (g, o) = rest.split_at(hs);
        for k in 0..hs {
            self.s[k] = sigmoid(f[k]) * self.s[k] + sigmoid(i[k]) * g[k].tanh();
            self.h[k] = sigmoid(o[k]) * self.s[k].tanh();
        }
        c_c.copy_from_slice(&self.h);
        concat(&mut self.x_m, &[obs.input_memory, &self.h]);
        self.layout.interface.apply(theta, &self.x_m, &mut self.xi);
        parse_interface(&self.xi, c.word, out);
    }

    /// Output layer `y_t = W_y [c_ib; h_t; r_t] + b_y`; the ALU operation is its argmax.
    fn bus(&mut self, input_bus: &[f32], c_c: &[f32], read_now: &[f32]) -> BusDecision {
        bus_decision(
            &self.layout.output,
            self.params.theta(),
            &mut self.x_b,
            &mut self.logits,
            &[input_bus, c_c, read_now],
            self.params.config().margin,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interface_is_parsed_in_the_dnc_order() {
        let (w, r) = (2, 1);
        let n = DncDecision::interface_size(w, r);
        assert_eq!(n, 2 + 1 + 2 + 1 + 2 + 2 + 1 + 1 + 1 + 3);
        let xi: Vec<f32> = (0..n).map(|k| k as f32 / 10.0).collect();
        let mut d = DncDecision::new(w, r);
        parse_interface(&xi, w, &mut d);
        assert_eq!(d.read_keys, [0.0, 0.1]);
        assert!((d.read_strengths[0] - oneplus(0.2)).abs() < 1e-6);
        assert_eq!(d.write_key, [0.3, 0.4]);
        assert!((d.write_strength - oneplus(0.5)).abs() < 1e-6);
        assert!((d.erase[1] - sigmoid(0.7)).abs() < 1e-6);
        assert_eq!(d.write, [0.8, 0.9]);
        assert!((d.free_gates[0] - sigmoid(1.0)).abs() < 1e-6);
        assert!((d.allocation_gate - sigmoid(1.1)).abs() < 1e-6);
        assert!((d.write_gate - sigmoid(1.2)).abs() < 1e-6);
        let z: f32 = [1.3f32, 1.4, 1.5].iter().map(|v| v.exp()).sum();
        assert!((d.read_modes[0][2] - 1.5f32.exp() / z).abs() < 1e-6);
    }
}
