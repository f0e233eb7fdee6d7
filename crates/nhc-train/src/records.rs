//! What a run records, as types: one [`IterationLog`] per iteration (a line of `metrics.jsonl`
//! as [`MetricsLine`]), the run's [`Summary`] (as `summary.json`, [`RunSummary`]) and its
//! [`Lineage`]s. Reports read them back as these types.

use crate::check::CheckLog;
use nhc_model::{Config, Variant};
use serde::{Deserialize, Serialize};

/// One iteration, for progress bars and logs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IterationLog {
    /// 1-based number of this iteration.
    pub iteration: u64,
    /// Curriculum level the batch was built for (L+1 = mixed).
    pub level: usize,
    /// Mean fitness of the current θ on the batch (MODEL §5).
    pub fitness_raw: f64,
    /// Best offspring fitness, when offspring were evaluated.
    pub best_offspring: Option<f64>,
    /// Per offspring (by index), when offspring were evaluated: raw fitness and shaped fitness
    /// (the rank utility it received, MODEL §6).
    pub offspring: Option<Vec<(f64, f64)>>,
    /// Model steps run in this iteration (θ, offspring and check).
    pub steps: u64,
    /// Every sample solved: counts towards solving the level (MODEL §7).
    pub perfect: bool,
    /// Every sample solved with every scored operation at full margin: fitness 1, no update.
    pub max_fitness: bool,
    /// θ was updated.
    pub updated: bool,
    /// The update counted as a learning iteration (MODEL §7; every update unless
    /// `margin_update_is_learning` is off).
    pub learned: bool,
    /// Samples of the batch not solved.
    pub failed: usize,
    /// The level solved by this iteration, if any.
    pub solved_level: Option<usize>,
    /// The generalization check, when this iteration solved the mixed level.
    pub check: Option<CheckLog>,
    /// This iteration triggered a restart.
    pub restarted: bool,
    pub restarts: u64,
    pub learning_iterations: u64,
}

/// One line of `metrics.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricsLine {
    pub iteration: u64,
    pub level: usize,
    pub fitness_raw: f64,
    pub best_offspring: Option<f64>,
    /// Raw and shaped fitness per offspring; empty when θ was not updated.
    #[serde(default)]
    pub offspring_raw: Vec<f64>,
    #[serde(default)]
    pub offspring_shaped: Vec<f64>,
    pub perfect: bool,
    #[serde(default)]
    pub max_fitness: bool,
    pub updated: bool,
    /// Absent in logs written before margin updates were told apart (then: `updated`).
    #[serde(default)]
    pub learned: Option<bool>,
    pub failed: usize,
    #[serde(default)]
    pub check: Option<CheckLog>,
    pub restarts: u64,
    pub learning_iterations: u64,
    #[serde(default)]
    pub steps: u64,
    /// Wall time of the run when the iteration ended.
    pub wall_seconds: f64,
}

impl MetricsLine {
    pub fn new(l: &IterationLog, wall_seconds: f64) -> Self {
        let (offspring_raw, offspring_shaped) = l.offspring.iter().flatten().copied().unzip();
        MetricsLine {
            iteration: l.iteration,
            level: l.level,
            fitness_raw: l.fitness_raw,
            best_offspring: l.best_offspring,
            offspring_raw,
            offspring_shaped,
            perfect: l.perfect,
            max_fitness: l.max_fitness,
            updated: l.updated,
            learned: Some(l.learned),
            failed: l.failed,
            check: l.check,
            restarts: l.restarts,
            learning_iterations: l.learning_iterations,
            steps: l.steps,
            wall_seconds,
        }
    }
    /// Whether the iteration was a learning iteration.
    pub fn learned(&self) -> bool {
        self.learned.unwrap_or(self.updated)
    }
}

/// How a lineage (θ from a (re)start to the next restart or the end of the run) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ending {
    /// It solved the mixed level (and passed the generalization check, when one is configured).
    Finished,
    /// `restart_after` learning iterations on one level without solving it.
    Restart,
    /// It solved the mixed level but failed the generalization check.
    Check,
    /// The run reached `max_iterations` learning iterations in this lineage.
    Cap,
}

/// One lineage of a run: θ from a (re)start to the next restart or the end of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lineage {
    /// The learning iterations it used (the iteration that restarts it included).
    pub learning_iterations: u64,
    /// The curriculum level it was on when it ended (L+1 = mixed).
    pub level: usize,
    pub ending: Ending,
}

impl Lineage {
    pub fn finished(&self) -> bool {
        self.ending == Ending::Finished
    }
}

/// Per-run report (MODEL §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub iterations: u64,
    /// Learning iterations: iterations that updated θ (with `margin_update_is_learning` off,
    /// those whose batch had a mistake).
    pub learning_iterations: u64,
    /// Updates that were not learning iterations (margin-only updates, when they do not count).
    pub margin_updates: u64,
    /// Last level that triggered learning, over the whole run (0: none).
    pub last_level_learned: usize,
    /// Last level solved by the current θ's attempt (since the last restart; 0: none).
    pub last_level_solved: usize,
    pub restarts: u64,
    /// Restarts caused by a failed generalization check (included in `restarts`).
    pub failed_checks: u64,
    /// The mixed level was solved (and the generalization check passed).
    pub finished: bool,
    /// Current curriculum level.
    pub level: usize,
}

/// A finished run's `summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// The task (its algorithm's name).
    pub task: String,
    /// The domain trained on (absent in older summaries: the task's training domain).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// The model variant (absent in older summaries: the full NHC).
    #[serde(default)]
    pub variant: Variant,
    /// The model's config (absent in older summaries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<Config>,
    pub seed: u64,
    pub iterations: u64,
    pub learning_iterations: u64,
    /// Updates that did not count as learning iterations (`margin_update_is_learning = false`).
    #[serde(default)]
    pub margin_updates: u64,
    pub last_level_learned: usize,
    pub last_level_solved: usize,
    pub restarts: u64,
    /// Restarts because the generalization check failed (included in `restarts`).
    #[serde(default)]
    pub failed_checks: u64,
    pub finished: bool,
    pub wall_seconds: f64,
    /// Model steps run in training (θ, offspring, checks).
    #[serde(default)]
    pub steps: u64,
    #[serde(default)]
    pub steps_per_second: f64,
    /// Every lineage of the run in order; their learning iterations add up to
    /// `learning_iterations`, and the last one is the lineage that survived. Absent in older
    /// summaries, and in runs resumed from a checkpoint that predates the record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lineages: Option<Vec<Lineage>>,
}
