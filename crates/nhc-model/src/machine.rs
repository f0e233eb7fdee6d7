//! One run of the NHC on a sample (SPEC §2): Input → Controller → Memory → Bus → ALU, step by
//! step, scored against the expected trace with the fitness of SPEC §5.

use crate::config::{Config, ReadMode};
use crate::memory::{Memory, MemoryDecision};
use crate::policy::{Observation, Policy};
use std::fmt::Debug;

/// Control signals the Input sends this step: c_ic, c_im, c_ib.
#[derive(Debug, Clone, PartialEq)]
pub struct Signals {
    pub controller: Vec<f32>,
    pub memory: Vec<f32>,
    pub bus: Vec<f32>,
}

impl Signals {
    pub fn new(c: &Config) -> Self {
        Signals {
            controller: vec![0.0; c.input_controller],
            memory: vec![0.0; c.input_memory],
            bus: vec![0.0; c.input_bus],
        }
    }
    /// Sets the same signal vector on all three outputs (c_ic = c_im = c_ib, as in most tasks).
    pub fn set_all(&mut self, s: &[f32]) {
        self.controller.copy_from_slice(s);
        self.memory.copy_from_slice(s);
        self.bus.copy_from_slice(s);
    }
}

/// A task's data modules for one sample: Input and ALU (SPEC §4). They alone see data.
pub trait DataModules {
    /// One data word of this task's representation (a row of `M_d`).
    type Data: Clone + Default + PartialEq + Debug;
    /// Input: from the ALU's last output (`None` at step 1), sets the control signals and returns
    /// the data word d_i to write; `None` when the stop rule fires.
    fn input(&mut self, d_out_prev: Option<&Self::Data>, signals: &mut Signals) -> Option<Self::Data>;
    /// ALU: applies operation `op` to the words read (one per read head), sets the feedback c_a
    /// and returns d_out.
    fn alu(&mut self, reads: &[Self::Data], op: usize, feedback: &mut [f32]) -> Self::Data;
    /// Name of the current phase (for traces).
    fn phase(&self) -> &'static str;
}

/// The expected trace of one sample (SPEC §5): per machine step, either unscored, or the
/// expected ALU operation and, for the read heads that matter, the expected data read.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace<D> {
    heads: usize,
    ops: Vec<Option<u8>>,
    reads: Vec<Option<D>>,
    scored: usize,
}

/// One step of a [`Trace`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Expected<'a, D> {
    /// `None` for an unscored step.
    pub op: Option<usize>,
    /// Expected data per read head; `None` where the head does not matter.
    pub reads: &'a [Option<D>],
}

impl<D: Clone + PartialEq> Trace<D> {
    pub fn new(read_heads: usize) -> Self {
        Trace { heads: read_heads, ops: Vec::new(), reads: Vec::new(), scored: 0 }
    }
    /// A step nothing is expected of.
    pub fn push_unscored(&mut self) {
        self.ops.push(None);
        self.reads.extend(std::iter::repeat_n(None, self.heads));
    }
    /// A scored step: operation `op` and the data each head should read (`None`: any).
    pub fn push(&mut self, op: usize, reads: &[Option<D>]) {
        assert_eq!(reads.len(), self.heads, "one expected read per read head");
        self.ops.push(Some(op as u8));
        self.reads.extend_from_slice(reads);
        self.scored += 1;
    }
    /// Machine steps, scored or not.
    pub fn len(&self) -> usize {
        self.ops.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
    /// T_max: the number of scored steps.
    pub fn scored(&self) -> usize {
        self.scored
    }
    pub fn step(&self, t: usize) -> Expected<'_, D> {
        Expected {
            op: self.ops[t].map(usize::from),
            reads: &self.reads[t * self.heads..(t + 1) * self.heads],
        }
    }
}

/// What happened in one step, for traces and plots.
#[derive(Debug, Clone, Copy)]
pub struct StepRecord<'a, D> {
    /// Step index from 0.
    pub step: u64,
    pub phase: &'static str,
    pub written: &'a [usize],
    pub read_locations: &'a [usize],
    pub modes: &'a [ReadMode],
    /// Everything the memory interface decided this step (write and update words, gates).
    pub decision: &'a MemoryDecision,
    /// c_m_t: the control words read, all heads concatenated.
    pub control_reads: &'a [f32],
    pub reads: &'a [D],
    pub op: usize,
    pub d_out: &'a D,
    /// `Some(true/false)` on a scored step, `None` otherwise.
    pub correct: Option<bool>,
}

/// Result of one run (SPEC §5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// Machine steps executed.
    pub steps: u64,
    /// T_max.
    pub scored: usize,
    /// Σ over scored steps up to and including the first wrong one of `data_ok + op_ok · margin`.
    pub score: f64,
    /// Step of the first mistake (wrong data, wrong op, stopping early or running past the end).
    pub first_mistake: Option<u64>,
}

impl Outcome {
    /// Every scored step right and the Input stopped exactly where the trace ends.
    pub fn solved(&self) -> bool {
        self.first_mistake.is_none()
    }
    /// `score / (2 T_max)` ∈ [0, 1].
    pub fn fitness(&self) -> f64 {
        if self.scored == 0 {
            return if self.solved() { 1.0 } else { 0.0 };
        }
        self.score / (2.0 * self.scored as f64)
    }
}

/// How far to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunLimits {
    /// Stop at the first mistake (training and evaluation).
    pub stop_at_mistake: bool,
    /// Never run more steps than this.
    pub max_steps: u64,
}

impl RunLimits {
    /// Training and evaluation: stop at the first mistake.
    pub const SCORE: RunLimits = RunLimits { stop_at_mistake: true, max_steps: u64::MAX };
}

impl Default for RunLimits {
    fn default() -> Self {
        RunLimits::SCORE
    }
}

/// The NHC's runtime state: Memory and the signal buffers, reused across samples.
pub struct Machine<D> {
    config: Config,
    memory: Memory<D>,
    decision: MemoryDecision,
    signals: Signals,
    bus_prev: Vec<f32>,
    alu_prev: Vec<f32>,
    read_prev: Vec<f32>,
    read_now: Vec<f32>,
    reads: Vec<D>,
    written: Vec<usize>,
    read_locations: Vec<usize>,
}

impl<D: Clone + Default + PartialEq + Debug> Machine<D> {
    pub fn new(config: &Config) -> Self {
        Machine {
            memory: Memory::new(config),
            decision: MemoryDecision::new(config),
            signals: Signals::new(config),
            bus_prev: vec![0.0; config.ops],
            alu_prev: vec![0.0; config.alu_feedback],
            read_prev: vec![0.0; config.read_heads * config.word],
            read_now: vec![0.0; config.read_heads * config.word],
            reads: vec![D::default(); config.read_heads],
            written: vec![0; config.write_heads],
            read_locations: vec![0; config.read_heads],
            config: config.clone(),
        }
    }

    pub fn memory(&self) -> &Memory<D> {
        &self.memory
    }

    /// Runs `modules` under `policy` from an empty memory, scoring against `trace`.
    /// `observe` sees every step (pass `|_| {}` when not needed).
    pub fn run<M, P>(
        &mut self,
        modules: &mut M,
        policy: &mut P,
        trace: &Trace<D>,
        limits: RunLimits,
        mut observe: impl FnMut(&StepRecord<'_, D>),
    ) -> Outcome
    where
        M: DataModules<Data = D>,
        P: Policy,
    {
        self.memory.reset();
        self.bus_prev.fill(0.0);
        self.alu_prev.fill(0.0);
        self.read_prev.fill(0.0);
        let (hr, c) = (self.config.read_heads, self.config.word);
        let mut out = Outcome { steps: 0, scored: trace.scored(), score: 0.0, first_mistake: None };
        let mut d_out: Option<D> = None;
        let mut t: u64 = 0;
        loop {
            let Some(d_i) = modules.input(d_out.as_ref(), &mut self.signals) else {
                if (t as usize) < trace.len() && out.first_mistake.is_none() {
                    out.first_mistake = Some(t); // stopped before the trace ends
                }
                break;
            };
            if t >= limits.max_steps {
                out.first_mistake.get_or_insert(t);
                break;
            }
            let obs = Observation {
                input_controller: &self.signals.controller,
                input_memory: &self.signals.memory,
                bus_prev: &self.bus_prev,
                alu_prev: &self.alu_prev,
                read_prev: &self.read_prev,
            };
            policy.memory(&obs, &mut self.decision);
            self.memory.step(&d_i, &self.decision);
            for j in 0..hr {
                self.read_now[j * c..(j + 1) * c].copy_from_slice(self.memory.read_control(j));
                self.reads[j].clone_from(self.memory.read_data(j));
            }
            let bus = policy.bus(&self.signals.bus, &self.read_now);
            let result = modules.alu(&self.reads, bus.op, &mut self.alu_prev);

            let correct = if (t as usize) < trace.len() {
                let exp = trace.step(t as usize);
                exp.op.map(|op| {
                    let data_ok =
                        exp.reads.iter().zip(&self.reads).all(|(e, r)| e.as_ref().is_none_or(|e| e == r));
                    let op_ok = op == bus.op;
                    if out.first_mistake.is_none() {
                        out.score +=
                            f64::from(u8::from(data_ok)) + if op_ok { f64::from(bus.margin) } else { 0.0 };
                    }
                    data_ok && op_ok
                })
            } else {
                Some(false) // ran past the end of the trace
            };
            if correct == Some(false) && out.first_mistake.is_none() {
                out.first_mistake = Some(t);
            }
            for i in 0..self.config.write_heads {
                self.written[i] = self.memory.written_location(i);
            }
            for j in 0..hr {
                self.read_locations[j] = self.memory.read_location(j);
            }
            observe(&StepRecord {
                step: t,
                phase: modules.phase(),
                written: &self.written,
                read_locations: &self.read_locations,
                modes: &self.decision.read_modes,
                decision: &self.decision,
                control_reads: &self.read_now,
                reads: &self.reads,
                op: bus.op,
                d_out: &result,
                correct,
            });

            self.bus_prev.fill(0.0);
            self.bus_prev[bus.op] = 1.0;
            std::mem::swap(&mut self.read_prev, &mut self.read_now);
            d_out = Some(result);
            t += 1;
            out.steps = t;
            if limits.stop_at_mistake && out.first_mistake.is_some() {
                break;
            }
        }
        out
    }
}
