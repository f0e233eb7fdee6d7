//! Scoring samples: one run per sample, in parallel over samples, with results independent of
//! the number of threads (every sample has its own generator, see [`crate::sample_rng`]).

use crate::{Task, sample_rng};
use nhc_model::machine::RunLimits;
use nhc_model::{Machine, Outcome, Policy};
use rayon::prelude::*;
use serde::Serialize;

/// One scored sample.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SampleResult {
    /// Trace right at every scored step, stopped at the right step, and the answer equals the
    /// independent reference.
    pub solved: bool,
    pub steps: u64,
    pub fitness: f64,
}

/// Summary of an evaluation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalReport {
    pub task: String,
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

/// Runs one sample under `policy` (stopping at the first mistake) and checks the answer.
pub fn score_sample<T: Task, P: Policy>(
    machine: &mut Machine<T::Data>,
    policy: &mut P,
    sample: &T::Sample,
) -> (Outcome, bool) {
    let mut modules = T::modules(sample);
    let trace = T::trace(sample);
    let outcome = machine.run(&mut modules, policy, &trace, RunLimits::SCORE, |_| {});
    let solved = outcome.solved() && T::answer(&modules) == T::reference(sample);
    (outcome, solved)
}

/// Evaluates `policy` on `samples` fresh samples of `level` (SPEC §8).
pub fn evaluate<T: Task, P: Policy + Clone + Send + Sync>(
    policy: &P,
    level: usize,
    samples: usize,
    seed: u64,
) -> EvalReport {
    let start = std::time::Instant::now();
    let results: Vec<SampleResult> = (0..samples as u64)
        .into_par_iter()
        .map_init(
            || (Machine::new(&T::config()), policy.clone()),
            |(machine, policy), i| {
                let sample = T::sample(level, &mut sample_rng(seed, level, i));
                let (o, solved) = score_sample::<T, P>(machine, policy, &sample);
                SampleResult { solved, steps: o.steps, fitness: o.fitness() }
            },
        )
        .collect();
    EvalReport {
        task: T::NAME.to_string(),
        level,
        seed,
        samples,
        solved: results.iter().filter(|r| r.solved).count(),
        steps: results.iter().map(|r| r.steps).sum(),
        mean_fitness: results.iter().map(|r| r.fitness).sum::<f64>() / samples.max(1) as f64,
        seconds: start.elapsed().as_secs_f64(),
        failed: (0..samples as u64).zip(&results).filter(|(_, r)| !r.solved).map(|(i, _)| i).collect(),
    }
}
