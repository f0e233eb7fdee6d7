//! The generalization checks (ours, not the paper's; docs/DESIGN.md): once the mixed level is
//! solved, θ must also solve fresh samples at levels beyond the curriculum, below the first test
//! level; and, with an early check, once a given level is solved, fresh samples of the
//! curriculum's later levels. A lineage that fails is sent back to learn or restarted.

use crate::config::TrainConfig;
use crate::scoring::score_all;
use crate::state::TrainState;
use nhc_model::Config;
use nhc_tasks::AnyTask;
use nhc_tasks::evaluate::SampleKey;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// The generalization check run when the mixed level was solved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckLog {
    /// Lowest and highest level of the check's samples (spread evenly between them).
    pub from: usize,
    pub level: usize,
    pub samples: usize,
    pub solved: usize,
}

impl CheckLog {
    pub fn passed(&self) -> bool {
        self.solved == self.samples
    }
}

impl std::fmt::Display for CheckLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verdict = if self.passed() { "passed" } else { "failed" };
        write!(
            f,
            "generalization check at levels {}–{}: {}/{} solved, {verdict}",
            self.from, self.level, self.solved, self.samples
        )
    }
}

/// `n` levels spread evenly from `lo` to `hi`, both included (`hi` alone when `n` is 1).
fn spread(lo: usize, hi: usize, n: usize) -> Vec<usize> {
    let lo = lo.min(hi);
    (0..n).map(|i| if n == 1 { hi } else { lo + i * (hi - lo) / (n - 1) }).collect()
}

/// Levels of the generalization check: `check_samples` levels spread evenly from the first
/// level beyond the curriculum (`levels + 1`) up to `check_level`, both included.
pub fn check_levels(config: &TrainConfig) -> Vec<usize> {
    spread(config.levels + 1, config.check_level, config.check_samples)
}

/// Levels of the early check: `check_samples` levels spread evenly over the curriculum's levels
/// after `early_check`, up to its last ordinary level.
pub fn early_check_levels(config: &TrainConfig) -> Vec<usize> {
    spread(config.early_check + 1, config.levels, config.check_samples)
}

/// θ on one fresh sample at each of `levels` (seeds drawn from the run's generator; shapes as
/// `check_any_shape` says). Returns the log, the steps run and the samples θ failed.
pub fn generalization_check(
    task: &dyn AnyTask,
    model: &Config,
    s: &mut TrainState,
    levels: &[usize],
) -> (CheckLog, u64, Vec<SampleKey>) {
    let any_shape = s.config.check_any_shape;
    let keys: Vec<SampleKey> = levels
        .iter()
        .map(|&level| SampleKey { any_shape, ..SampleKey::new(level, s.rng.next_u64()) })
        .collect();
    let batch = task.prepare_with_update_feedback(&keys, s.config.update_feedback());
    let results = score_all(model, &s.nes.theta, batch.as_ref(), None);
    let solved = results.iter().filter(|r| r.solved).count();
    let log = CheckLog {
        from: levels.first().copied().unwrap_or(0),
        level: levels.last().copied().unwrap_or(0),
        samples: keys.len(),
        solved,
    };
    let failed = keys.iter().zip(&results).filter(|(_, r)| !r.solved).map(|(k, _)| *k).collect();
    (log, results.iter().map(|r| r.steps).sum(), failed)
}
