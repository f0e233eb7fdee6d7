//! The decision interface (what the algorithmic modules see → what they decide) and its learned
//! implementation: Controller, memory interface and Bus (MODEL §2 steps 2, 3, 5).

use crate::config::Config;
use crate::memory::MemoryDecision;
use crate::params::{Block, Layout, Params};

/// What the algorithmic modules see before the memory step.
#[derive(Debug, Clone, Copy)]
pub struct Observation<'a> {
    /// c_ic: Input → Controller.
    pub input_controller: &'a [f32],
    /// c_im: Input → Memory.
    pub input_memory: &'a [f32],
    /// c_b_{t-1}: last step's Bus output (one-hot), zeros at step 1.
    pub bus_prev: &'a [f32],
    /// c_a_{t-1}: last step's ALU feedback, zeros at step 1.
    pub alu_prev: &'a [f32],
    /// c_m_{t-1}: control words read last step, all heads concatenated.
    pub read_prev: &'a [f32],
}

/// The Bus's choice: the ALU operation and its margin (MODEL §5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BusDecision {
    pub op: usize,
    /// `clip((p1/p2 − 1)/m_max, 0, 1)` on the Bus softmax; 1 for a scripted decision.
    pub margin: f32,
}

/// Anything that drives the algorithmic side of the NHC: the learned modules or a task's
/// scripted solution. Both see only the control stream. `Dec` is what the memory interface
/// decides for the memory module in use (the NHC's [`MemoryDecision`] by default).
///
/// A step is [`Policy::control`] then, after the memory step, [`Policy::bus`]; what passes from
/// one to the other is c_c, held by the machine. Every step starts from a fresh decision and
/// c_c = 0, so nothing a policy leaves unset carries over from the step before.
pub trait Policy<Dec = MemoryDecision> {
    /// Called once before the first step of every run (a policy with state across steps, like
    /// the DNC's LSTM, resets it here).
    fn begin(&mut self) {}
    /// Controller and memory interface (MODEL §2 steps 2–3): c_c and the memory decision, from
    /// what the modules see.
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut Dec);
    /// Bus (MODEL §2 step 5): the ALU operation from c_ib, this step's c_c and the control
    /// words read, c_m.
    fn bus(&mut self, input_bus: &[f32], c_c: &[f32], read_now: &[f32]) -> BusDecision;
}

impl<Dec, P: Policy<Dec> + ?Sized> Policy<Dec> for Box<P> {
    fn begin(&mut self) {
        (**self).begin()
    }
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut Dec) {
        (**self).control(obs, c_c, out)
    }
    fn bus(&mut self, input_bus: &[f32], c_c: &[f32], read_now: &[f32]) -> BusDecision {
        (**self).bus(input_bus, c_c, read_now)
    }
}

/// Margin penalty threshold m_max (MODEL §5).
pub const MARGIN_MAX: f32 = 0.1;

/// The learned algorithmic modules on a θ, with scratch buffers (no state crosses a step).
#[derive(Debug, Clone)]
pub struct Learned {
    params: Params,
    layout: Layout,
    x_c: Vec<f32>,
    x_m: Vec<f32>,
    x_b: Vec<f32>,
    scratch: Vec<f32>,
    logits: Vec<f32>,
}

impl Learned {
    pub fn new(params: Params) -> Self {
        let c = params.config().clone();
        let widest = [c.write_heads * c.word, c.read_heads * c.word, c.read_heads * c.read_modes()]
            .into_iter()
            .max()
            .unwrap_or(0);
        Learned {
            x_c: vec![0.0; c.controller_inputs()],
            x_m: vec![0.0; c.memory_inputs()],
            x_b: vec![0.0; c.bus_inputs()],
            scratch: vec![0.0; widest],
            logits: vec![0.0; c.ops],
            layout: Layout::new(&c),
            params,
        }
    }
    pub fn params(&self) -> &Params {
        &self.params
    }
    pub fn config(&self) -> &Config {
        self.params.config()
    }
}

/// Index of the largest entry, ties to the lowest index (MODEL §3, "Determinism").
#[inline]
pub fn argmax(x: &[f32]) -> usize {
    let mut best = 0;
    for (k, v) in x.iter().enumerate().skip(1) {
        if *v > x[best] {
            best = k;
        }
    }
    best
}

/// Margin of the winner `op` over the runner-up on softmax probabilities:
/// p1/p2 = exp(z1 − z2) (MODEL §5).
#[inline]
pub fn margin(logits: &[f32], op: usize) -> f32 {
    let runner_up = logits
        .iter()
        .enumerate()
        .filter(|&(k, _)| k != op)
        .map(|(_, v)| *v)
        .fold(f32::NEG_INFINITY, f32::max);
    if runner_up == f32::NEG_INFINITY {
        return 1.0;
    }
    let ratio = (logits[op] - runner_up).exp();
    let m = (ratio - 1.0) / MARGIN_MAX;
    // NaN (logits that overflowed) counts as no margin.
    if m.is_nan() { 0.0 } else { m.clamp(0.0, 1.0) }
}

#[inline]
pub(crate) fn concat(out: &mut [f32], parts: &[&[f32]]) {
    let mut k = 0;
    for p in parts {
        out[k..k + p.len()].copy_from_slice(p);
        k += p.len();
    }
}

impl Policy for Learned {
    /// Controller `c_c = tanh(W_c x_c + b_c)` and the memory interface on `x_m = [c_im; c_c]`.
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut MemoryDecision) {
        let (theta, l) = (self.params.theta(), &self.layout);
        let c = self.params.config();
        let bus_prev: &[f32] = if c.bus_feedback { obs.bus_prev } else { &[] };
        let alu_prev: &[f32] = if c.alu_feedback > 0 { obs.alu_prev } else { &[] };
        concat(&mut self.x_c, &[obs.input_controller, bus_prev, alu_prev, obs.read_prev]);
        l.controller.apply(theta, &self.x_c, c_c);
        c_c.iter_mut().for_each(|v| *v = v.tanh());
        concat(&mut self.x_m, &[obs.input_memory, c_c]);
        let x = &self.x_m;

        l.write.apply(theta, x, &mut out.write);
        if c.previous_update {
            l.prev_write.apply(theta, x, &mut out.prev_write);
            l.prev_erase.apply(theta, x, &mut out.prev_erase);
            out.prev_erase.iter_mut().for_each(|v| *v = 1.0 / (1.0 + (-*v).exp()));
            let g = &mut self.scratch[..c.read_heads];
            l.prev_gate.apply(theta, x, g);
            out.prev_gate.iter_mut().zip(g.iter()).for_each(|(o, v)| *o = *v > 0.0);
        }
        let modes = c.read_modes();
        let m = &mut self.scratch[..c.read_heads * modes];
        l.read_mode.apply(theta, x, m);
        for (j, row) in m.chunks_exact(modes).enumerate() {
            out.read_modes[j] = c.read_mode(argmax(row));
        }
        if c.free_gates {
            let f = &mut self.scratch[..c.write_heads];
            l.free_write.apply(theta, x, f);
            out.free_write.iter_mut().zip(f.iter()).for_each(|(o, v)| *o = *v > 0.0);
            let f = &mut self.scratch[..c.read_heads];
            l.free_read.apply(theta, x, f);
            out.free_read.iter_mut().zip(f.iter()).for_each(|(o, v)| *o = *v > 0.0);
        }
    }

    /// Bus `c_b = onehot(W_b [c_ib; c_c; c_m] + b_b)`.
    fn bus(&mut self, input_bus: &[f32], c_c: &[f32], read_now: &[f32]) -> BusDecision {
        bus_decision(
            &self.layout.bus,
            self.params.theta(),
            &mut self.x_b,
            &mut self.logits,
            &[input_bus, c_c, read_now],
        )
    }
}

/// The ALU operation as the argmax of `block` applied to the concatenated `parts`, with its
/// margin (MODEL §5); `x` and `logits` are scratch.
pub(crate) fn bus_decision(
    block: &Block,
    theta: &[f32],
    x: &mut [f32],
    logits: &mut [f32],
    parts: &[&[f32]],
) -> BusDecision {
    concat(x, parts);
    block.apply(theta, x, logits);
    let op = argmax(logits);
    BusDecision { op, margin: margin(logits, op) }
}
