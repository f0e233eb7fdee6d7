//! Fresh starts: the initial θ and restarts (MODEL §6–§7; paper: restart after 2 000 learning
//! iterations on one level without solving it).

use crate::config::TrainConfig;
use crate::records::{Ending, Lineage};
use crate::trainer::TrainState;
use nhc_model::{Config, theta_len};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

/// A fresh θ for `model`: N(0, init_std²) from `rng`, plus `gate_bias` on the biases of the
/// architecture's gates (the NHC's previous-write and free gates; the DNC's start at 0).
pub fn initial_theta(model: &Config, config: &TrainConfig, rng: &mut ChaCha8Rng) -> Vec<f32> {
    let mut theta: Vec<f32> = (0..theta_len(model))
        .map(|_| {
            let e: f64 = StandardNormal.sample(rng);
            (config.init_std * e) as f32
        })
        .collect();
    for block in model.memory.gates(model) {
        theta[block.bias()].iter_mut().for_each(|b| *b += config.gate_bias as f32);
    }
    theta
}

/// Whether the run is due to restart for lack of progress: `restart_after` learning iterations
/// on one level without solving it (a failed generalization check restarts it too, the trainer
/// decides that when it runs the check).
pub fn due(s: &TrainState) -> bool {
    s.curriculum.should_restart(&s.config)
}

/// Learning iterations of the current lineage: the run's, less those of the ended lineages.
pub fn current_learning(s: &TrainState) -> u64 {
    let ended: u64 = s.curriculum.ended_lineages.iter().map(|l| l.learning_iterations).sum();
    s.learning_iterations.saturating_sub(ended)
}

/// Starts over: the current lineage is recorded as ended by `ending`, then a fresh θ from the
/// run's generator, the curriculum back at level 1 with empty bad memories.
pub fn restart(s: &mut TrainState, model: &Config, ending: Ending) {
    let ended = Lineage { learning_iterations: current_learning(s), level: s.curriculum.level, ending };
    s.curriculum.ended_lineages.push(ended);
    s.nes.theta = initial_theta(model, &s.config, &mut s.rng);
    s.curriculum.reset(&s.config);
    s.restarts += 1;
}
