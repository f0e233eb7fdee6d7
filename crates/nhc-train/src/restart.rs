//! Fresh starts: the initial θ of a run and of every restart (MODEL §6; the restart itself:
//! [`crate::state::TrainState::restart`]).

use crate::config::TrainConfig;
use nhc_model::{Config, theta_len};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

/// A fresh θ for `model`: N(0, init_std²) from `rng`, plus `gate_bias` on the biases of the
/// architecture's gates (the NHC's previous-write and free gates; the DNC's start at 0) and
/// `free_gate_bias` on those of its free gates.
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
    for block in model.memory.free_gates(model) {
        theta[block.bias()].iter_mut().for_each(|b| *b += config.free_gate_bias as f32);
    }
    theta
}
