//! Evaluating a trained DNC at any level on the samples `nhc eval` draws (sample `i` of level ℓ
//! under seed s comes from `sample_rng(s, ℓ, i)`). Each sample runs until its first mistake: up
//! to there the DNC's own outputs are the expected ones, so this is the closed loop in which the
//! DNC drives the Input and the ALU (see nhc-tasks' `episode`). A sample is solved when every
//! expected operation and read is right.

use crate::episodes::Batch;
use crate::train::{Bound, TrainError};
use nhc_tasks::sample_rng;
pub use nhc_train::backprop::DncEvalReport;

/// Most link-matrix entries (B·N²) one evaluation batch holds: about 1 GiB of f32.
const MAX_LINK_ENTRIES: usize = 1 << 28;

/// Evaluates `bound` on `samples` samples of `level` under `seed`.
pub fn evaluate(bound: &Bound, level: usize, samples: usize, seed: u64) -> Result<DncEvalReport, TrainError> {
    if samples == 0 {
        return Err(nhc_tasks::TaskError::NoSamples.into());
    }
    bound.task.check_level(level)?;
    let start = std::time::Instant::now();
    let mut progress = Vec::with_capacity(samples);
    let mut index = 0;
    while index < samples {
        // One sample first, to learn N; then as many as fit beside it.
        let first = bound.batch([(level, sample_rng(seed, level, index as u64))])?;
        let n = first.locations;
        if n.saturating_mul(n) > MAX_LINK_ENTRIES {
            return Err(TrainError::TooLarge { level, locations: n, max: MAX_LINK_ENTRIES });
        }
        let chunk = (MAX_LINK_ENTRIES / (n * n).max(1)).clamp(1, samples - index);
        let batch = if chunk == 1 {
            first
        } else {
            bound.batch((index..index + chunk).map(|i| (level, sample_rng(seed, level, i as u64))))?
        };
        progress.extend(run_to_first_mistake(bound, &batch)?);
        index += chunk;
    }
    Ok(DncEvalReport {
        task: bound.task.name().into(),
        domain: bound.task.domain().into(),
        level,
        seed,
        samples,
        solved: progress.iter().filter(|&&p| p >= 1.0).count(),
        progress,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Steps the DNC on `batch` until every sample has made its first mistake or ended: per sample,
/// the share of its steps run right.
fn run_to_first_mistake(bound: &Bound, batch: &Batch) -> Result<Vec<f64>, TrainError> {
    let dnc = &bound.dnc;
    let b = batch.len();
    let mut state = dnc.initial_state_with(b, batch.locations)?;
    let mut right = vec![0usize; b];
    let mut alive = vec![true; b];
    for (t, x) in batch.inputs.iter().enumerate() {
        let (y, next) = dnc.step(x, &state)?;
        state = next.detach();
        let ok = batch.step_right(t, &y.detach())?;
        for k in 0..b {
            if alive[k] && t < batch.steps(k) {
                if ok[k] {
                    right[k] += 1;
                } else {
                    alive[k] = false;
                }
            }
        }
        if !(0..b).any(|k| alive[k] && t + 1 < batch.steps(k)) {
            break;
        }
    }
    Ok((0..b).map(|k| right[k] as f64 / batch.steps(k).max(1) as f64).collect())
}
