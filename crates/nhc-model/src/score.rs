//! The expected trace of a sample and the fitness of a run against it (MODEL §5). Scoring
//! consumes the machine's steps; it is the only place the fitness is computed.

use crate::machine::{DataModules, End, Machine, Run, StepRecord};
use crate::memory::MemoryModule;
use crate::policy::Policy;
use std::fmt::Debug;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};

/// The expected trace of one sample (MODEL §5): per machine step, either unscored, or the
/// expected ALU operation and, for the read heads that matter, the expected data read.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace<D> {
    heads: usize,
    ops: Vec<Option<u8>>,
    reads: Vec<Option<D>>,
    scored: usize,
    /// The steps at which the expected program updates a location read the step before
    /// (`None`: the trace says nothing of updates), for update feedback.
    updates: Option<Vec<bool>>,
    /// Which update decisions a scored step gets wrong (ours, the paper's "add feedback to this
    /// signals during training if it can be provided").
    update_feedback: UpdateFeedback,
}

/// Update feedback: which of a step's update decisions (ĝ, "update the location read the step
/// before") scoring holds against the expected program's (ours, beyond the paper; training only).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum UpdateFeedback {
    /// Updates are not scored (the paper's fitness).
    #[default]
    Off,
    /// An update where the expected program updates nothing is wrong.
    NoExtra,
    /// [`UpdateFeedback::NoExtra`], and a step where the expected program updates and the model
    /// does not is wrong too.
    Exact,
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
        Trace {
            heads: read_heads,
            ops: Vec::new(),
            reads: Vec::new(),
            scored: 0,
            updates: None,
            update_feedback: UpdateFeedback::Off,
        }
    }
    /// The expected program updates the location read at step `t − 1` at step `t`; at every
    /// step not marked so it updates nothing (a trace with no mark says nothing of updates).
    pub fn expect_update_at(&mut self, t: usize) {
        let u = self.updates.get_or_insert_with(Vec::new);
        if u.len() <= t {
            u.resize(t + 1, false);
        }
        u[t] = true;
    }
    /// The trace says where the expected program updates ([`Trace::expect_update_at`]).
    pub fn knows_updates(&self) -> bool {
        self.updates.is_some()
    }
    /// Scores update decisions as `feedback` says (training only; a trace that says nothing of
    /// updates is unchanged).
    pub fn with_update_feedback(mut self, feedback: UpdateFeedback) -> Self {
        self.update_feedback = if self.updates.is_some() { feedback } else { UpdateFeedback::Off };
        self
    }
    /// Whether the update decision `updated` at step `t` is right under the trace's update
    /// feedback: always when it is off.
    pub fn update_right(&self, t: usize, updated: bool) -> bool {
        let expected = || self.updates.as_ref().is_some_and(|u| u.get(t).copied().unwrap_or(false));
        match self.update_feedback {
            UpdateFeedback::Off => true,
            UpdateFeedback::NoExtra => !updated || expected(),
            UpdateFeedback::Exact => updated == expected(),
        }
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

/// Result of one run (MODEL §5).
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

/// The fitness of MODEL §5, accumulated step by step against a trace.
#[derive(Debug, Clone)]
pub struct Scorer<'t, D> {
    trace: &'t Trace<D>,
    score: f64,
    first_mistake: Option<u64>,
}

impl<'t, D: Clone + PartialEq> Scorer<'t, D> {
    pub fn new(trace: &'t Trace<D>) -> Self {
        Scorer { trace, score: 0.0, first_mistake: None }
    }

    /// Scores one step: `Some(right)` on a scored step (a step past the end of the trace is
    /// wrong), `None` on an unscored one. Steps after the first mistake add nothing.
    pub fn step<Dec>(&mut self, r: &StepRecord<'_, D, Dec>) -> Option<bool> {
        self.step_updating(r, false)
    }

    /// [`Scorer::step`], told whether the step updated a location read the step before: with
    /// update feedback on, an update decision the feedback holds wrong ([`Trace::update_right`])
    /// is wrong like a wrong read.
    pub fn step_updating<Dec>(&mut self, r: &StepRecord<'_, D, Dec>, updated: bool) -> Option<bool> {
        let t = r.step;
        let correct = if (t as usize) < self.trace.len() {
            let exp = self.trace.step(t as usize);
            exp.op.map(|op| {
                let data_ok = exp.reads.iter().zip(r.reads).all(|(e, x)| e.as_ref().is_none_or(|e| e == x))
                    && self.trace.update_right(t as usize, updated);
                let op_ok = op == r.op;
                if self.first_mistake.is_none() {
                    self.score +=
                        f64::from(u8::from(data_ok)) + if op_ok { f64::from(r.margin) } else { 0.0 };
                }
                data_ok && op_ok
            })
        } else {
            Some(false)
        };
        if correct == Some(false) && self.first_mistake.is_none() {
            self.first_mistake = Some(t);
        }
        correct
    }

    /// A step was wrong.
    pub fn mistaken(&self) -> bool {
        self.first_mistake.is_some()
    }

    /// The outcome once the run ended: stopping before the trace's end or being cut off by the
    /// step limit is a mistake at that step.
    pub fn finish(self, run: Run) -> Outcome {
        let mut first = self.first_mistake;
        match run.end {
            End::Stopped if (run.steps as usize) < self.trace.len() && first.is_none() => {
                first = Some(run.steps);
            }
            End::Cut => {
                first.get_or_insert(run.steps);
            }
            _ => {}
        }
        Outcome { steps: run.steps, scored: self.trace.scored(), score: self.score, first_mistake: first }
    }
}

/// How far to run a scored sample.
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

/// Runs `modules` under `policy`, scoring against `trace`; `observe` sees every step with the
/// scorer's verdict (pass `|_, _| {}` when not needed).
pub fn run_scored<D, M, Mo, P>(
    machine: &mut Machine<D, M>,
    modules: &mut Mo,
    policy: &mut P,
    trace: &Trace<D>,
    limits: RunLimits,
    observe: impl FnMut(&StepRecord<'_, D, M::Decision>, Option<bool>),
) -> Outcome
where
    D: Clone + Default + PartialEq + Debug,
    M: MemoryModule<D>,
    Mo: DataModules<Data = D> + ?Sized,
    P: Policy<M::Decision> + ?Sized,
{
    run_scored_updates(machine, modules, policy, trace, limits, |_| false, observe)
}

/// Model steps run through [`run_scored`] in this process so far, all threads: for progress bars.
/// A long run adds a block of [`PROGRESS_BLOCK`] steps as it passes it; the rest of each run
/// gathers on its thread and is added a block at a time, so that short runs (training's) do not
/// meet on one counter.
static STEPS_RUN: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Steps of this thread's runs not yet added to [`STEPS_RUN`].
    static STEPS_HERE: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// A long run adds its steps to [`steps_run`] every this many steps.
pub const PROGRESS_BLOCK: u64 = 1 << 16;

/// Adds the steps a run did not add as it went (fewer than [`PROGRESS_BLOCK`]).
fn count_rest(steps: u64) {
    STEPS_HERE.with(|here| {
        let rest = here.get() + steps % PROGRESS_BLOCK;
        if rest >= PROGRESS_BLOCK {
            STEPS_RUN.fetch_add(rest, Ordering::Relaxed);
            here.set(0);
        } else {
            here.set(rest);
        }
    });
}

/// Model steps run through [`run_scored`] in this process so far (for progress bars).
pub fn steps_run() -> u64 {
    STEPS_RUN.load(Ordering::Relaxed)
}

/// [`run_scored`], with `updated` telling whether a step's decision updated a location read the
/// step before (for a trace with update feedback, [`Trace::with_update_feedback`]).
pub fn run_scored_updates<D, M, Mo, P>(
    machine: &mut Machine<D, M>,
    modules: &mut Mo,
    policy: &mut P,
    trace: &Trace<D>,
    limits: RunLimits,
    updated: impl Fn(&M::Decision) -> bool,
    mut observe: impl FnMut(&StepRecord<'_, D, M::Decision>, Option<bool>),
) -> Outcome
where
    D: Clone + Default + PartialEq + Debug,
    M: MemoryModule<D>,
    Mo: DataModules<Data = D> + ?Sized,
    P: Policy<M::Decision> + ?Sized,
{
    let mut scorer = Scorer::new(trace);
    let feedback = trace.update_feedback != UpdateFeedback::Off;
    let run = machine.run(modules, policy, limits.max_steps, |r| {
        let verdict = scorer.step_updating(r, feedback && updated(r.decision));
        observe(r, verdict);
        if (r.step + 1) % PROGRESS_BLOCK == 0 {
            STEPS_RUN.fetch_add(PROGRESS_BLOCK, Ordering::Relaxed);
        }
        if limits.stop_at_mistake && scorer.mistaken() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    count_rest(run.steps);
    scorer.finish(run)
}
