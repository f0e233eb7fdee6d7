//! Scoring samples. Each sample is prepared once ([`PreparedSample`]: data modules in their
//! initial state, expected trace, reference answer) and shared by every run on it; evaluation
//! runs in parallel over samples with results independent of the number of threads (every sample
//! has its own generator, see [`crate::sample_rng`]).

use crate::model::Model;
use crate::{SampleRng, Task, sample_rng};
use nhc_model::{
    Agent, Architecture, Config, Decision, Machine, MemoryModule, Outcome, Policy, RunLimits, Trace,
    UpdateFeedback, Visit, WordNoise, Workspace, run_scored_updates,
};
use rand::SeedableRng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// One sample, by what regenerates it: the task's sampler at `level` with a generator seeded by
/// `seed` (so bad memories and checkpoints need no serialisable samples).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleKey {
    /// Concrete level ≥ 1.
    pub level: usize,
    pub seed: u64,
    /// Drawn by [`Task::any_shape`] instead of [`Task::sample`] (the recipe's check; absent in
    /// files: false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub any_shape: bool,
}

impl SampleKey {
    /// The key of the level's own sampler.
    pub fn new(level: usize, seed: u64) -> Self {
        SampleKey { level, seed, any_shape: false }
    }

    /// The sample this key stands for.
    pub fn sample<T: Task>(&self, task: &T) -> T::Sample {
        let rng = &mut SampleRng::seed_from_u64(self.seed);
        if self.any_shape { task.any_shape(self.level, rng) } else { task.sample(self.level, rng) }
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
    ) -> (Outcome, bool)
    where
        M::Decision: Decision,
    {
        let mut modules = self.modules.clone();
        let outcome = run_scored_updates(
            machine,
            &mut modules,
            policy,
            &self.trace,
            RunLimits::SCORE,
            |d| d.updates_previous(),
            |_, _| {},
        );
        let solved = outcome.solved() && task.answer(&modules) == self.reference;
        (outcome, solved)
    }

    /// [`PreparedSample::score`] by `agent` on the workspace's machine for its architecture;
    /// with `noise`, word noise drawn from it (docs/DESIGN.md, "Word noise").
    pub fn score_in(
        &self,
        task: &T,
        agent: &mut Agent,
        workspace: &mut Workspace,
        noise: Option<&mut dyn FnMut() -> f32>,
    ) -> (Outcome, bool) {
        agent.visit(ScoreIn { prepared: self, task, workspace, noise })
    }
}

/// [`PreparedSample::score_in`] at the agent's architecture.
struct ScoreIn<'a, 'n, T: Task> {
    prepared: &'a PreparedSample<T>,
    task: &'a T,
    workspace: &'a mut Workspace,
    noise: Option<&'n mut dyn FnMut() -> f32>,
}

impl<T: Task> Visit for ScoreIn<'_, '_, T> {
    type Output = (Outcome, bool);
    fn visit<A: Architecture>(self, policy: &mut dyn Policy<A::Decision>) -> (Outcome, bool) {
        let machine = self.workspace.machine::<A, T::Data>();
        match self.noise {
            Some(draw) => {
                self.prepared.score(self.task, machine, &mut WordNoise::<A> { inner: policy, draw })
            }
            None => self.prepared.score(self.task, machine, policy),
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

/// Prepared samples of one task, behind an object-safe interface: what training needs.
pub trait Prepared: Send + Sync {
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Runs `agent` on sample `i`, with word noise from `noise` when given.
    fn score(
        &self,
        i: usize,
        agent: &mut Agent,
        workspace: &mut Workspace,
        noise: Option<&mut dyn FnMut() -> f32>,
    ) -> Scored;
}

/// Samples of task `T`, each prepared once.
pub struct Batch<'t, T: Task> {
    pub task: &'t T,
    pub samples: Vec<PreparedSample<T>>,
}

impl<'t, T: Task> Batch<'t, T> {
    /// The samples `keys` stand for, prepared in parallel, in key order.
    pub fn new(task: &'t T, keys: &[SampleKey]) -> Self {
        Self::with_update_feedback(task, keys, UpdateFeedback::Off)
    }

    /// [`Batch::new`], scoring update decisions against the task's expected program as
    /// `update_feedback` says ([`Trace::with_update_feedback`]; training only).
    pub fn with_update_feedback(task: &'t T, keys: &[SampleKey], update_feedback: UpdateFeedback) -> Self {
        // At least 8 samples per job, as in scoring: short samples cost less than a hand-off.
        let samples = keys
            .par_iter()
            .with_min_len(8)
            .map(|k| {
                let mut p = PreparedSample::new(task, k.sample(task));
                p.trace = p.trace.with_update_feedback(update_feedback);
                p
            })
            .collect();
        Batch { task, samples }
    }
}

impl<T: Task> Prepared for Batch<'_, T> {
    fn len(&self) -> usize {
        self.samples.len()
    }
    fn score(
        &self,
        i: usize,
        agent: &mut Agent,
        workspace: &mut Workspace,
        noise: Option<&mut dyn FnMut() -> f32>,
    ) -> Scored {
        let (o, solved) = self.samples[i].score_in(self.task, agent, workspace, noise);
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
    let (o, solved) = prepared.score_in(task, policy, workspace, None);
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
