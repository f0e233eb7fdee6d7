//! Tasks by name, behind one object-safe interface for the command line and the reports.

use crate::addition::Addition;
use crate::arithmetic::Arithmetic;
use crate::copy_family::{copy::Copy, duplicated::Duplicated, repeat_copy::RepeatCopy, reverse::Reverse};
use crate::evaluate::{EvalReport, evaluate};
use crate::search_plan::{Plan, PlanPlus, Search, SearchPlus};
use crate::sort::Sort;
use crate::{InputError, Model, Task, sample_rng};
use nhc_model::machine::RunLimits;
use nhc_model::{Config, Learned, Machine, MemoryDecision, Policy, StepRecord};
use serde::Serialize;
use serde_json::Value;
use std::marker::PhantomData;
use thiserror::Error;

/// Bad requests to a task.
#[derive(Debug, Error)]
pub enum TaskError {
    #[error("unknown task `{name}`; known tasks: {}", names().join(", "))]
    Unknown { name: String },
    #[error("level must be at least 1, got {0}")]
    Level(usize),
    #[error("the number of samples must be at least 1")]
    NoSamples,
    #[error("input for task `{task}`: {source}")]
    Input { task: &'static str, source: InputError },
}

/// The result of applying a model to one input.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// The model's answer.
    pub output: Value,
    /// The answer computed without the model.
    pub expected: Value,
    /// Output equals expected and the model stopped where it should.
    pub correct: bool,
    pub steps: u64,
    /// The model's answer as text for people ([`Task::answer_text`]).
    pub text: String,
}

/// One step of a trace, for printing and plotting.
#[derive(Debug, Clone, Serialize)]
pub struct TraceRow {
    pub step: u64,
    pub phase: &'static str,
    pub written: Vec<usize>,
    /// Per read head: mode, location, data read.
    pub reads: Vec<(String, usize, String)>,
    pub op: &'static str,
    /// Right or wrong on a scored step.
    pub correct: Option<bool>,
    /// The control stream: words written and read, previous updates, free gates.
    pub control: ControlRow,
}

/// The control side of one step (SPEC §2 step 3–4), for `nhc trace`.
#[derive(Debug, Clone, Serialize)]
pub struct ControlRow {
    /// Per write head: the write vector v.
    pub written: Vec<Vec<f32>>,
    /// Per read head: the control word read, c_m.
    pub read: Vec<Vec<f32>>,
    /// Per read head: the previous update `(v̂, ê)` applied to its location of t−1, if ĝ = 1.
    pub updates: Vec<Option<(Vec<f32>, Vec<f32>)>>,
    /// Free gates f_w (per write head) and f_r (per read head).
    pub free_write: Vec<bool>,
    pub free_read: Vec<bool>,
}

impl ControlRow {
    fn new(c: &Config, d: &MemoryDecision, control_reads: &[f32]) -> Self {
        let words = |v: &[f32]| v.chunks(c.word).map(<[f32]>::to_vec).collect::<Vec<_>>();
        let (v_hat, e_hat) = (words(&d.prev_write), words(&d.prev_erase));
        ControlRow {
            written: words(&d.write),
            read: words(control_reads),
            updates: (0..c.read_heads)
                .map(|j| d.prev_gate[j].then(|| (v_hat[j].clone(), e_hat[j].clone())))
                .collect(),
            free_write: d.free_write.clone(),
            free_read: d.free_read.clone(),
        }
    }
}

/// Where a traced sample comes from.
#[derive(Debug, Clone)]
pub enum TraceSource {
    /// Sample `index` of an evaluation with this level and seed.
    Level {
        level: usize,
        seed: u64,
        index: u64,
    },
    Input(Value),
}

/// A task, object-safe.
pub trait AnyTask: Sync {
    fn name(&self) -> &'static str;
    fn config(&self) -> Config;
    fn ops(&self) -> &'static [&'static str];
    /// `samples` fresh samples of `level` (SPEC §8).
    fn evaluate(
        &self,
        model: &Model,
        level: usize,
        samples: usize,
        seed: u64,
    ) -> Result<EvalReport, TaskError>;
    /// The model applied to a user's input.
    fn run(&self, model: &Model, input: &Value) -> Result<RunReport, TaskError>;
    /// One sample of `level` run to its end (or `max_steps`) without stopping at mistakes:
    /// (steps, seconds). For benchmarks.
    fn time_sample(
        &self,
        model: &Model,
        level: usize,
        seed: u64,
        max_steps: u64,
    ) -> Result<(u64, f64), TaskError>;
    /// Every step of one sample.
    fn trace(&self, model: &Model, source: &TraceSource) -> Result<(Vec<TraceRow>, RunReport), TaskError>;
}

struct Entry<T>(PhantomData<T>);

/// Runs `f` with the policy `model` stands for.
fn with_policy<T: Task, R>(model: &Model, f: impl FnOnce(&mut dyn PolicyRunner<T>) -> R) -> R {
    match model {
        Model::Scripted => f(&mut Holder::<T, _>(T::scripted(), PhantomData)),
        Model::Learned(p) => f(&mut Holder::<T, _>(Learned::new((**p).clone()), PhantomData)),
    }
}

/// The generic operations, made callable through `dyn` once the policy type is fixed.
trait PolicyRunner<T: Task> {
    fn evaluate(&self, level: usize, samples: usize, seed: u64) -> EvalReport;
    fn run(&mut self, sample: &T::Sample, observe: &mut dyn FnMut(&StepRecord<'_, T::Data>)) -> RunReport;
    fn time(&mut self, sample: &T::Sample, max_steps: u64) -> (u64, f64);
}

struct Holder<T, P>(P, PhantomData<T>);

impl<T: Task, P: Policy + Clone + Send + Sync> PolicyRunner<T> for Holder<T, P> {
    fn evaluate(&self, level: usize, samples: usize, seed: u64) -> EvalReport {
        evaluate::<T, P>(&self.0, level, samples, seed)
    }
    fn run(&mut self, sample: &T::Sample, observe: &mut dyn FnMut(&StepRecord<'_, T::Data>)) -> RunReport {
        let mut machine = Machine::new(&T::config());
        let mut modules = T::modules(sample);
        let trace = T::trace(sample);
        let limits = RunLimits { stop_at_mistake: false, max_steps: 2 * trace.len() as u64 + 100 };
        let outcome = machine.run(&mut modules, &mut self.0, &trace, limits, observe);
        let (answer, expected) = (T::answer(&modules), T::reference(sample));
        RunReport {
            output: T::answer_json(&answer),
            expected: T::answer_json(&expected),
            correct: outcome.solved() && answer == expected,
            steps: outcome.steps,
            text: T::answer_text(sample, &answer),
        }
    }
    fn time(&mut self, sample: &T::Sample, max_steps: u64) -> (u64, f64) {
        let mut machine = Machine::new(&T::config());
        let mut modules = T::modules(sample);
        let trace = T::trace(sample);
        let start = std::time::Instant::now();
        let limits = RunLimits { stop_at_mistake: false, max_steps };
        let outcome = machine.run(&mut modules, &mut self.0, &trace, limits, |_| {});
        (outcome.steps, start.elapsed().as_secs_f64())
    }
}

impl<T: Task> Entry<T> {
    fn parse(input: &Value) -> Result<T::Sample, TaskError> {
        T::parse_input(input).map_err(|source| TaskError::Input { task: T::NAME, source })
    }
}

impl<T: Task> AnyTask for Entry<T> {
    fn name(&self) -> &'static str {
        T::NAME
    }
    fn config(&self) -> Config {
        T::config()
    }
    fn ops(&self) -> &'static [&'static str] {
        T::OPS
    }
    fn evaluate(
        &self,
        model: &Model,
        level: usize,
        samples: usize,
        seed: u64,
    ) -> Result<EvalReport, TaskError> {
        check_level(level)?;
        if samples == 0 {
            return Err(TaskError::NoSamples);
        }
        Ok(with_policy::<T, _>(model, |p| p.evaluate(level, samples, seed)))
    }
    fn run(&self, model: &Model, input: &Value) -> Result<RunReport, TaskError> {
        let sample = Self::parse(input)?;
        Ok(with_policy::<T, _>(model, |p| p.run(&sample, &mut |_| {})))
    }
    fn time_sample(
        &self,
        model: &Model,
        level: usize,
        seed: u64,
        max_steps: u64,
    ) -> Result<(u64, f64), TaskError> {
        check_level(level)?;
        let sample = T::sample(level, &mut sample_rng(seed, level, 0));
        Ok(with_policy::<T, _>(model, |p| p.time(&sample, max_steps)))
    }
    fn trace(&self, model: &Model, source: &TraceSource) -> Result<(Vec<TraceRow>, RunReport), TaskError> {
        let sample = match source {
            TraceSource::Level { level, seed, index } => {
                check_level(*level)?;
                T::sample(*level, &mut sample_rng(*seed, *level, *index))
            }
            TraceSource::Input(v) => Self::parse(v)?,
        };
        let config = T::config();
        let mut rows = Vec::new();
        let report = with_policy::<T, _>(model, |p| {
            p.run(&sample, &mut |r: &StepRecord<'_, T::Data>| {
                rows.push(TraceRow {
                    step: r.step,
                    phase: r.phase,
                    written: r.written.to_vec(),
                    reads: (0..config.read_heads)
                        .map(|j| (r.modes[j].to_string(), r.read_locations[j], T::show(&r.reads[j])))
                        .collect(),
                    op: T::OPS.get(r.op).copied().unwrap_or("?"),
                    correct: r.correct,
                    control: ControlRow::new(&config, r.decision, r.control_reads),
                })
            })
        });
        Ok((rows, report))
    }
}

fn check_level(level: usize) -> Result<(), TaskError> {
    if level == 0 { Err(TaskError::Level(level)) } else { Ok(()) }
}

static SEARCH: Entry<Search> = Entry(PhantomData);
static PLAN: Entry<Plan> = Entry(PhantomData);
static SEARCH_PLUS: Entry<SearchPlus> = Entry(PhantomData);
static PLAN_PLUS: Entry<PlanPlus> = Entry(PhantomData);
static ADDITION: Entry<Addition> = Entry(PhantomData);
static ARITHMETIC: Entry<Arithmetic> = Entry(PhantomData);
static SORT: Entry<Sort> = Entry(PhantomData);
static COPY: Entry<Copy> = Entry(PhantomData);
static REVERSE: Entry<Reverse> = Entry(PhantomData);
static REPEAT_COPY: Entry<RepeatCopy> = Entry(PhantomData);
static DUPLICATED: Entry<Duplicated> = Entry(PhantomData);

/// Every task, in the paper's table order.
static ALL: &[&dyn AnyTask] = &[
    &SEARCH,
    &PLAN,
    &SEARCH_PLUS,
    &PLAN_PLUS,
    &ADDITION,
    &SORT,
    &ARITHMETIC,
    &COPY,
    &REPEAT_COPY,
    &REVERSE,
    &DUPLICATED,
];

/// Every task, in the paper's table order.
pub fn all() -> &'static [&'static dyn AnyTask] {
    ALL
}

/// Task names.
pub fn names() -> Vec<&'static str> {
    all().iter().map(|t| t.name()).collect()
}

/// The task called `name`.
pub fn find(name: &str) -> Result<&'static dyn AnyTask, TaskError> {
    all()
        .iter()
        .copied()
        .find(|t| t.name() == name)
        .ok_or_else(|| TaskError::Unknown { name: name.to_string() })
}

/// Runs `$body` with the type alias `$T` bound to the task called `$name`
/// (for code generic over [`Task`], such as training); unknown names give [`TaskError::Unknown`].
#[macro_export]
macro_rules! with_task {
    ($name:expr, $T:ident => $body:expr) => {
        match $name {
            "search" => {
                type $T = $crate::search_plan::Search;
                Ok($body)
            }
            "plan" => {
                type $T = $crate::search_plan::Plan;
                Ok($body)
            }
            "search+" => {
                type $T = $crate::search_plan::SearchPlus;
                Ok($body)
            }
            "plan+" => {
                type $T = $crate::search_plan::PlanPlus;
                Ok($body)
            }
            "addition" => {
                type $T = $crate::addition::Addition;
                Ok($body)
            }
            "sort" => {
                type $T = $crate::sort::Sort;
                Ok($body)
            }
            "arithmetic" => {
                type $T = $crate::arithmetic::Arithmetic;
                Ok($body)
            }
            "copy" => {
                type $T = $crate::copy_family::copy::Copy;
                Ok($body)
            }
            "reverse" => {
                type $T = $crate::copy_family::reverse::Reverse;
                Ok($body)
            }
            "repeatCopy" => {
                type $T = $crate::copy_family::repeat_copy::RepeatCopy;
                Ok($body)
            }
            "duplicated" => {
                type $T = $crate::copy_family::duplicated::Duplicated;
                Ok($body)
            }
            other => Err($crate::TaskError::Unknown { name: other.to_string() }),
        }
    };
}
