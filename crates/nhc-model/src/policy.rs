//! The decision interface (what the algorithmic modules see → what they decide) and its learned
//! implementation: Controller, memory interface and Bus (MODEL §2 steps 2, 3, 5).

use crate::config::{Config, Margin};
use crate::memory::MemoryDecision;
use crate::params::{Block, Layout, Params, Stacked};

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

impl BusDecision {
    /// The argmax of the Bus's logits and its margin read as `rule` says (MODEL §5).
    #[inline]
    pub fn from_logits(logits: &[f32], rule: Margin) -> Self {
        let op = argmax(logits);
        let margin = match rule {
            Margin::Probabilities => margin(logits, op),
            Margin::Raw => raw_margin(logits, op),
        };
        BusDecision { op, margin }
    }
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

/// The learned algorithmic modules on a θ: the Controller, the memory interface and the Bus, each
/// as one [`Stacked`] product over its input (the memory interface's blocks all read x_m), with
/// output buffers (no state crosses a step).
#[derive(Debug, Clone)]
pub struct Learned {
    params: Params,
    controller: Stacked,
    interface: Stacked,
    bus: Stacked,
    /// Where each block's rows start in the memory interface's output.
    rows: InterfaceRows,
    c_c: Vec<f32>,
    y: Vec<f32>,
    logits: Vec<f32>,
}

/// The memory interface's output `[v; v̂; ê; ĝ; m; f_w; f_r]`: where each part starts.
#[derive(Debug, Clone, Copy)]
struct InterfaceRows {
    prev_write: usize,
    prev_erase: usize,
    prev_gate: usize,
    read_mode: usize,
    free_write: usize,
    free_read: usize,
}

impl Learned {
    pub fn new(params: Params) -> Self {
        let l = Layout::new(params.config());
        let theta = params.theta();
        let blocks =
            [l.write, l.prev_write, l.prev_erase, l.prev_gate, l.read_mode, l.free_write, l.free_read];
        let mut starts = blocks.iter().scan(0, |r, b| {
            *r += b.rows;
            Some(*r)
        });
        let mut next = || starts.next().unwrap_or(0);
        let rows = InterfaceRows {
            prev_write: next(),
            prev_erase: next(),
            prev_gate: next(),
            read_mode: next(),
            free_write: next(),
            free_read: next(),
        };
        let (controller, interface, bus) = (
            Stacked::new(theta, &[l.controller]),
            Stacked::new(theta, &blocks),
            Stacked::new(theta, &[l.bus]),
        );
        Learned {
            c_c: controller.output(),
            y: interface.output(),
            logits: bus.output(),
            controller,
            interface,
            bus,
            rows,
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
    let runner_up = runner_up(logits, op);
    if runner_up == f32::NEG_INFINITY {
        return 1.0;
    }
    let ratio = (logits[op] - runner_up).exp();
    let m = (ratio - 1.0) / MARGIN_MAX;
    // NaN (logits that overflowed) counts as no margin.
    if m.is_nan() { 0.0 } else { m.clamp(0.0, 1.0) }
}

/// The largest logit but `op`'s (−∞ for a one-op Bus).
#[inline]
fn runner_up(logits: &[f32], op: usize) -> f32 {
    logits.iter().enumerate().filter(|&(k, _)| k != op).map(|(_, v)| *v).fold(f32::NEG_INFINITY, f32::max)
}

/// Margin of the winner `op` over the runner-up on the raw logits, `clip((z1/z2 − 1)/m_max, 0, 1)`
/// ([`Margin::Raw`]): full when only the winner is positive, none when neither is.
#[inline]
pub fn raw_margin(logits: &[f32], op: usize) -> f32 {
    let runner_up = runner_up(logits, op);
    let z1 = logits[op];
    if runner_up == f32::NEG_INFINITY || (z1 > 0.0 && runner_up <= 0.0) {
        return 1.0;
    }
    if runner_up <= 0.0 {
        return 0.0;
    }
    let m = (z1 / runner_up - 1.0) / MARGIN_MAX;
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
    /// v̂ and ê are computed only for the read heads whose ĝ fires; the others stay 0, unused.
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut MemoryDecision) {
        let c = self.params.config();
        let bus_prev: &[f32] = if c.bus_feedback { obs.bus_prev } else { &[] };
        let alu_prev: &[f32] = if c.alu_feedback > 0 { obs.alu_prev } else { &[] };
        self.controller.apply(&[obs.input_controller, bus_prev, alu_prev, obs.read_prev], &mut self.c_c);
        for (o, v) in c_c.iter_mut().zip(&self.c_c) {
            *o = v.tanh();
        }
        self.interface.apply(&[obs.input_memory, c_c], &mut self.y);
        let (y, r, w) = (&self.y, &self.rows, c.word);

        out.write.copy_from_slice(&y[..r.prev_write]);
        if c.previous_update {
            for j in 0..c.read_heads {
                let fires = y[r.prev_gate + j] > 0.0;
                out.prev_gate[j] = fires;
                if fires {
                    let (v, e) = (r.prev_write + j * w, r.prev_erase + j * w);
                    out.prev_write[j * w..(j + 1) * w].copy_from_slice(&y[v..v + w]);
                    for (o, x) in out.prev_erase[j * w..(j + 1) * w].iter_mut().zip(&y[e..e + w]) {
                        *o = 1.0 / (1.0 + (-*x).exp());
                    }
                }
            }
        }
        for (j, row) in y[r.read_mode..r.free_write].chunks_exact(c.read_modes()).enumerate() {
            out.read_modes[j] = c.read_mode(argmax(row));
        }
        if c.free_gates {
            for (o, v) in out.free_write.iter_mut().zip(&y[r.free_write..r.free_read]) {
                *o = *v > 0.0;
            }
            for (o, v) in out.free_read.iter_mut().zip(&y[r.free_read..]) {
                *o = *v > 0.0;
            }
        }
    }

    /// Bus `c_b = onehot(W_b [c_ib; c_c; c_m] + b_b)`.
    fn bus(&mut self, input_bus: &[f32], c_c: &[f32], read_now: &[f32]) -> BusDecision {
        self.bus.apply(&[input_bus, c_c, read_now], &mut self.logits);
        BusDecision::from_logits(&self.logits[..self.bus.rows()], self.params.config().margin)
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
    rule: Margin,
) -> BusDecision {
    concat(x, parts);
    block.apply(theta, x, logits);
    BusDecision::from_logits(logits, rule)
}
