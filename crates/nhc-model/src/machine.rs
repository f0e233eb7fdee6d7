//! The NHC's step loop (MODEL §2): Input → Controller → Memory → Bus → ALU, step by step. The
//! machine only steps; scoring ([`crate::score`]) and traces consume the steps it reports.

use crate::config::Config;
use crate::memory::{Memory, MemoryModule};
use crate::policy::{Observation, Policy};
use std::fmt::Debug;
use std::ops::ControlFlow;

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

/// A task's data modules for one sample: Input and ALU (MODEL §4). They alone see data.
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

/// What happened in one step.
#[derive(Debug, Clone, Copy)]
pub struct StepRecord<'a, D, Dec> {
    /// Step index from 0.
    pub step: u64,
    pub phase: &'static str,
    pub written: &'a [usize],
    pub read_locations: &'a [usize],
    /// The memory's note on each read (see [`MemoryModule::read_note`]).
    pub read_notes: &'a [&'static str],
    /// Everything the memory interface decided this step.
    pub decision: &'a Dec,
    /// c_m_t: the control words read, all heads concatenated.
    pub control_reads: &'a [f32],
    /// The data words read, one per head.
    pub reads: &'a [D],
    /// The Bus's operation and its margin (MODEL §5).
    pub op: usize,
    pub margin: f32,
    pub d_out: &'a D,
}

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The Input's stop rule fired.
    Stopped,
    /// The step limit was reached.
    Cut,
    /// The observer asked to stop.
    Halted,
}

/// How long a run was and why it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    /// Machine steps executed.
    pub steps: u64,
    pub end: End,
}

/// The NHC's runtime state: a memory module and the signal buffers, reused across samples.
pub struct Machine<D, M: MemoryModule<D> = Memory<D>> {
    config: Config,
    memory: M,
    decision: M::Decision,
    signals: Signals,
    c_c: Vec<f32>,
    bus_prev: Vec<f32>,
    alu_prev: Vec<f32>,
    read_prev: Vec<f32>,
    read_now: Vec<f32>,
    reads: Vec<D>,
    written: Vec<usize>,
    read_locations: Vec<usize>,
    read_notes: Vec<&'static str>,
}

impl<D: Clone + Default + PartialEq + Debug> Machine<D> {
    /// A machine with the NHC's [`Memory`].
    pub fn new(config: &Config) -> Self {
        Machine::with_memory(config, Memory::new(config))
    }
}

impl<D: Clone + Default + PartialEq + Debug, M: MemoryModule<D>> Machine<D, M> {
    /// A machine with another memory module.
    pub fn with_memory(config: &Config, memory: M) -> Self {
        Machine {
            decision: memory.fresh(),
            memory,
            signals: Signals::new(config),
            c_c: vec![0.0; config.controller],
            bus_prev: vec![0.0; config.ops],
            alu_prev: vec![0.0; config.alu_feedback],
            read_prev: vec![0.0; config.read_heads * config.word],
            read_now: vec![0.0; config.read_heads * config.word],
            reads: vec![D::default(); config.read_heads],
            written: vec![0; config.write_heads],
            read_locations: vec![0; config.read_heads],
            read_notes: vec![""; config.read_heads],
            config: config.clone(),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn memory(&self) -> &M {
        &self.memory
    }

    /// Runs `modules` under `policy` from an empty memory for at most `max_steps` steps.
    /// `observe` sees every step and may stop the run.
    pub fn run<Mo, P>(
        &mut self,
        modules: &mut Mo,
        policy: &mut P,
        max_steps: u64,
        mut observe: impl FnMut(&StepRecord<'_, D, M::Decision>) -> ControlFlow<()>,
    ) -> Run
    where
        Mo: DataModules<Data = D> + ?Sized,
        P: Policy<M::Decision> + ?Sized,
    {
        self.memory.reset();
        policy.begin();
        self.bus_prev.fill(0.0);
        self.alu_prev.fill(0.0);
        self.read_prev.fill(0.0);
        let (hr, c) = (self.config.read_heads, self.config.word);
        let mut d_out: Option<D> = None;
        let mut t: u64 = 0;
        loop {
            let Some(d_i) = modules.input(d_out.as_ref(), &mut self.signals) else {
                return Run { steps: t, end: End::Stopped };
            };
            if t >= max_steps {
                return Run { steps: t, end: End::Cut };
            }
            let obs = Observation {
                input_controller: &self.signals.controller,
                input_memory: &self.signals.memory,
                bus_prev: &self.bus_prev,
                alu_prev: &self.alu_prev,
                read_prev: &self.read_prev,
            };
            self.memory.refresh(&mut self.decision);
            self.c_c.fill(0.0);
            policy.control(&obs, &mut self.c_c, &mut self.decision);
            self.memory.step(&d_i, &self.decision);
            for j in 0..hr {
                self.read_now[j * c..(j + 1) * c].copy_from_slice(self.memory.read_control(j));
                self.reads[j].clone_from(self.memory.read_data(j));
                self.read_locations[j] = self.memory.read_location(j);
                self.read_notes[j] = self.memory.read_note(j);
            }
            let bus = policy.bus(&self.signals.bus, &self.c_c, &self.read_now);
            let result = modules.alu(&self.reads, bus.op, &mut self.alu_prev);
            for (i, w) in self.written.iter_mut().enumerate() {
                *w = self.memory.written_location(i);
            }
            let flow = observe(&StepRecord {
                step: t,
                phase: modules.phase(),
                written: &self.written,
                read_locations: &self.read_locations,
                read_notes: &self.read_notes,
                decision: &self.decision,
                control_reads: &self.read_now,
                reads: &self.reads,
                op: bus.op,
                margin: bus.margin,
                d_out: &result,
            });

            self.bus_prev.fill(0.0);
            self.bus_prev[bus.op] = 1.0;
            std::mem::swap(&mut self.read_prev, &mut self.read_now);
            d_out = Some(result);
            t += 1;
            if flow.is_break() {
                return Run { steps: t, end: End::Halted };
            }
        }
    }
}
