//! Scoring θ and its offspring on a prepared batch (MODEL §5), in parallel, with results in
//! sample (or offspring) order whatever the number of threads.

use crate::noise::WordNoise;
use nhc_model::{Agent, Config, Params};
use nhc_tasks::{Prepared, Scored, Workspace};
use rayon::prelude::*;

/// The learned modules on `theta`, or `None` if `theta` is not a valid model (it then scores 0
/// and solves nothing).
pub fn learned_policy(model: &Config, theta: Vec<f32>) -> Option<Agent> {
    Params::new(model.clone(), theta).ok().map(Agent::learned)
}

/// One run of `policy` on sample `i`, with word noise of `noise.0` seeded by `noise.1` when given
/// (an architecture without word noise refuses it when training starts).
pub fn score(
    policy: Option<&mut Agent>,
    batch: &dyn Prepared,
    i: usize,
    workspace: &mut Workspace,
    noise: Option<(f32, u64)>,
) -> Scored {
    let Some(policy) = policy else { return Scored::default() };
    match noise {
        Some((std, seed)) => {
            let mut noise = WordNoise::new(std, seed);
            batch.score(i, policy, workspace, Some(&mut || noise.draw()))
        }
        None => batch.score(i, policy, workspace, None),
    }
}

/// θ on every sample, in parallel, results in sample order. `noise`: word noise std and one
/// seed per sample, or `None`.
pub fn score_all(
    model: &Config,
    theta: &[f32],
    batch: &dyn Prepared,
    noise: Option<(f32, &[u64])>,
) -> Vec<Scored> {
    // At least 8 samples per job: short samples cost less than handing them to a thread.
    (0..batch.len())
        .into_par_iter()
        .with_min_len(8)
        .map_init(
            || (Workspace::new(model), learned_policy(model, theta.to_vec())),
            |(workspace, policy), i| {
                score(policy.as_mut(), batch, i, workspace, noise.map(|(std, seeds)| (std, seeds[i])))
            },
        )
        .collect()
}

/// The θs of `offspring` in `range` on the whole batch, in parallel over offspring: (mean
/// fitness, steps) per offspring, in order.
pub fn score_offspring(
    model: &Config,
    offspring: &(dyn Fn(usize) -> Vec<f32> + Sync),
    range: std::ops::Range<usize>,
    batch: &dyn Prepared,
    noise: Option<(f32, &[u64])>,
) -> Vec<(f64, u64)> {
    range
        .into_par_iter()
        .map_init(
            || Workspace::new(model),
            |workspace, o| {
                let mut policy = learned_policy(model, offspring(o));
                let (mut total, mut steps) = (0.0, 0);
                for i in 0..batch.len() {
                    let r = score(
                        policy.as_mut(),
                        batch,
                        i,
                        workspace,
                        noise.map(|(std, seeds)| (std, seeds[i])),
                    );
                    total += r.fitness;
                    steps += r.steps;
                }
                (total / batch.len() as f64, steps)
            },
        )
        .collect()
}
