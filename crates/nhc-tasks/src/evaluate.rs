//! Scoring samples. Each sample is prepared once ([`PreparedSample`]: data modules in their
//! initial state, expected trace, reference answer) and shared by every run on it; evaluation
//! runs in parallel over samples with results independent of the number of threads (every sample
//! has its own generator, see [`crate::sample_rng`]).

use crate::model::Model;
use crate::{SampleRng, Task, sample_rng};
use nhc_model::{
    Agent, Config, DncMemory, Machine, Memory, MemoryModule, Outcome, Policy, PolicyMut, RunLimits, Trace,
    run_scored,
};
use rand::SeedableRng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::any::Any;

/// One sample, by what regenerates it: the task's sampler at `level` with a generator seeded by
/// `seed` (so bad memories and checkpoints need no serialisable samples).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleKey {
    /// Concrete level ≥ 1.
    pub level: usize,
    pub seed: u64,
}

impl SampleKey {
    /// The sample this key stands for.
    pub fn sample<T: Task>(&self, task: &T) -> T::Sample {
        task.sample(self.level, &mut SampleRng::seed_from_u64(self.seed))
    }
}

/// A sample with what every run on it shares: its data modules' initial state, its expected
/// trace and its reference answer.
#[derive(Debug, Clone)]
pub struct PreparedSample<T: Task> {
    pub sample: T::Sample,
    pub modules: T::Modules,
    pub trace: Trace<T::Data>,
    pub reference: T::Answer,
}

impl<T: Task> PreparedSample<T> {
    pub fn new(task: &T, sample: T::Sample) -> Self {
        PreparedSample {
            modules: task.modules(&sample),
            trace: task.trace(&sample),
            reference: task.reference(&sample),
            sample,
        }
    }

    /// Runs `policy` on the sample, stopping at the first mistake: the outcome, and whether the
    /// sample is solved (trace right, stopped at the right step, answer equal to the reference).
    pub fn score<M: MemoryModule<T::Data>, P: Policy<M::Decision> + ?Sized>(
        &self,
        task: &T,
        machine: &mut Machine<T::Data, M>,
        policy: &mut P,
    ) -> (Outcome, bool) {
        let mut modules = self.modules.clone();
        let outcome = run_scored(machine, &mut modules, policy, &self.trace, RunLimits::SCORE, |_, _| {});
        let solved = outcome.solved() && task.answer(&modules) == self.reference;
        (outcome, solved)
    }

    /// [`PreparedSample::score`] on the workspace's machine for the policy's memory.
    pub fn score_in(&self, task: &T, policy: PolicyMut<'_>, workspace: &mut Workspace) -> (Outcome, bool) {
        match policy {
            PolicyMut::Nhc(p) => self.score(task, workspace.machine::<_, Memory<T::Data>>(), p),
            PolicyMut::Dnc(p) => self.score(task, workspace.machine::<_, DncMemory<T::Data>>(), p),
        }
    }
}

/// Runs `policy` on `sample` (prepared on the spot), stopping at the first mistake: the outcome
/// and whether the sample is solved.
pub fn score_sample<T: Task, P: Policy + ?Sized>(
    task: &T,
    machine: &mut Machine<T::Data>,
    policy: &mut P,
    sample: &T::Sample,
) -> (Outcome, bool) {
    PreparedSample::new(task, sample.clone()).score(task, machine, policy)
}

/// What one run on a sample gave, for training.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Scored {
    pub fitness: f64,
    pub solved: bool,
    pub steps: u64,
}

/// A memory module made from a config, for [`Workspace`].
pub trait FromConfig {
    fn from_config(config: &Config) -> Self;
}

impl<D: Clone + Default> FromConfig for Memory<D> {
    fn from_config(config: &Config) -> Self {
        Memory::new(config)
    }
}

impl<D: Clone + Default> FromConfig for DncMemory<D> {
    fn from_config(config: &Config) -> Self {
        DncMemory::new(config)
    }
}

/// A thread's machine, of whatever data type and memory the model has, reused across runs.
pub struct Workspace {
    config: Config,
    machine: Option<Box<dyn Any + Send>>,
}

impl Workspace {
    /// A workspace for models of `config`.
    pub fn new(config: &Config) -> Self {
        Workspace { config: config.clone(), machine: None }
    }

    /// The machine for data words `D` and memory `M`, made on first use.
    pub fn machine<D, M>(&mut self) -> &mut Machine<D, M>
    where
        D: Clone + Default + PartialEq + std::fmt::Debug + Send + 'static,
        M: MemoryModule<D> + FromConfig + Send + 'static,
        M::Decision: Send,
    {
        let fits = self.machine.as_ref().is_some_and(|m| m.is::<Machine<D, M>>());
        if !fits {
            let machine = Machine::with_memory(&self.config, M::from_config(&self.config));
            self.machine = Some(Box::new(machine));
        }
        match self.machine.as_mut().and_then(|m| m.downcast_mut::<Machine<D, M>>()) {
            Some(m) => m,
            None => unreachable!("the machine was just made for D and M"),
        }
    }
}

/// Prepared samples of one task, behind an object-safe interface: what training needs.
pub trait Prepared: Send + Sync {
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Runs `policy` on sample `i`.
    fn score(&self, i: usize, policy: PolicyMut<'_>, workspace: &mut Workspace) -> Scored;
}

/// Samples of task `T`, each prepared once.
pub struct Batch<'t, T: Task> {
    pub task: &'t T,
    pub samples: Vec<PreparedSample<T>>,
}

impl<'t, T: Task> Batch<'t, T> {
    /// The samples `keys` stand for, prepared in parallel, in key order.
    pub fn new(task: &'t T, keys: &[SampleKey]) -> Self {
        // At least 8 samples per job, as in scoring: short samples cost less than a hand-off.
        let samples =
            keys.par_iter().with_min_len(8).map(|k| PreparedSample::new(task, k.sample(task))).collect();
        Batch { task, samples }
    }
}

impl<T: Task> Prepared for Batch<'_, T> {
    fn len(&self) -> usize {
        self.samples.len()
    }
    fn score(&self, i: usize, policy: PolicyMut<'_>, workspace: &mut Workspace) -> Scored {
        let (o, solved) = self.samples[i].score_in(self.task, policy, workspace);
        Scored { fitness: o.fitness(), solved, steps: o.steps }
    }
}

/// One scored sample.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SampleResult {
    /// Trace right at every scored step, stopped at the right step, and the answer equals the
    /// independent reference.
    pub solved: bool,
    pub steps: u64,
    pub fitness: f64,
}

/// Summary of an evaluation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    pub task: String,
    /// The data domain.
    pub domain: String,
    /// The model: a learned model's variant (`nhc`, `nhc-anc`, `nhc-prev`, `dnc-is-ha`), or
    /// `scripted` for the algorithm's hand-written solution ([`model_name`]).
    pub variant: String,
    pub level: usize,
    pub seed: u64,
    pub samples: usize,
    pub solved: usize,
    /// Total model steps over all samples.
    pub steps: u64,
    pub mean_fitness: f64,
    pub seconds: f64,
    /// Indices of the unsolved samples (`nhc trace --level L --seed S --index I` shows one).
    pub failed: Vec<u64>,
}

/// Evaluates the policies `policy` makes (one per thread) on `samples` fresh samples of `level`
/// (MODEL §8), on machines of `config`.
pub fn evaluate<T: Task>(
    task: &T,
    config: &Config,
    policy: &(dyn Fn() -> Agent + Sync),
    level: usize,
    samples: usize,
    seed: u64,
) -> Vec<SampleResult> {
    (0..samples as u64)
        .into_par_iter()
        .map_init(
            || (Workspace::new(config), policy()),
            |(workspace, policy), i| {
                let sample = task.sample(level, &mut sample_rng(seed, level, i));
                score_prepared(task, &PreparedSample::new(task, sample), policy, workspace)
            },
        )
        .collect()
}

/// A prepared sample scored by `policy` on the workspace's machine.
pub fn score_prepared<T: Task>(
    task: &T,
    prepared: &PreparedSample<T>,
    policy: &mut Agent,
    workspace: &mut Workspace,
) -> SampleResult {
    let (o, solved) = prepared.score_in(task, policy.as_mut(), workspace);
    SampleResult { solved, steps: o.steps, fitness: o.fitness() }
}

/// What an evaluation report calls `model`: its variant if learned, else `scripted`.
pub fn model_name(model: &Model) -> String {
    match model {
        Model::Scripted => "scripted".to_string(),
        Model::Learned(m) => m.variant.to_string(),
    }
}

impl EvalReport {
    /// The report of `results`, samples 0.. of `level` under `seed`, scored for `task` on
    /// `domain` in `seconds` by `model`.
    pub fn new(
        (task, domain): (&str, &str),
        model: &Model,
        (level, seed): (usize, u64),
        results: &[SampleResult],
        seconds: f64,
    ) -> Self {
        let samples = results.len();
        EvalReport {
            task: task.to_string(),
            domain: domain.to_string(),
            variant: model_name(model),
            level,
            seed,
            samples,
            solved: results.iter().filter(|r| r.solved).count(),
            steps: results.iter().map(|r| r.steps).sum(),
            mean_fitness: results.iter().map(|r| r.fitness).sum::<f64>() / samples.max(1) as f64,
            seconds,
            failed: (0..samples as u64).zip(results).filter(|(_, r)| !r.solved).map(|(i, _)| i).collect(),
        }
    }
}
