//! A run's checkpointable state ([`TrainState`]) and what happens to its lineage: the current
//! lineage's learning iterations, whether it is due to restart, and the restart itself
//! (MODEL §7; paper: restart after 2 000 learning iterations on one level without solving it).

use crate::config::ValidConfig;
use crate::curriculum::Curriculum;
use crate::nes::Nes;
use crate::records::{Ending, Lineage};
use crate::restart::initial_theta;
use nhc_model::{Config, Variant};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Everything a run needs to continue: a checkpoint is exactly this struct.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainState {
    /// Task name (its algorithm's).
    pub task: String,
    /// The domain trained on.
    pub domain: String,
    /// A declared algorithm's declaration digest ([`nhc_tasks::Task::digest`]); absent for the
    /// built-in algorithms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// The model variant.
    pub variant: Variant,
    pub config: ValidConfig,
    /// The seed the run started from (provenance only; `rng` carries the state).
    pub seed: u64,
    /// θ (the NES hyperparameters come from `config`).
    pub nes: Nes,
    /// The run's generator: initial θ, batch composition, sample seeds, offspring noise.
    pub rng: ChaCha8Rng,
    pub curriculum: Curriculum,
    /// Iterations run, restarts included.
    pub iteration: u64,
    /// Iterations that updated θ.
    pub learning_iterations: u64,
    pub restarts: u64,
    /// Level of the last learning iteration over the whole run (0: none).
    pub last_level_learned: usize,
    /// Updates on batches whose samples were all solved that did not count as learning
    /// (`margin_update_is_learning = false`; MODEL §7).
    pub margin_updates: u64,
    /// Lineages that solved the mixed level but failed the generalization check.
    pub failed_checks: u64,
    /// Model steps run so far (θ, offspring, checks included).
    pub steps: u64,
    /// The iteration count when the current lineage began (0, or the iteration of the last
    /// restart).
    #[serde(default)]
    pub lineage_start: u64,
}

impl TrainState {
    /// Whether the run is due to restart for lack of progress: stuck on one level for
    /// `restart_after` iterations by the config's trigger, or still on level `deadline_level` or
    /// below after `deadline` learning iterations (a failed generalization check restarts it too;
    /// the trainer decides that when it runs the check).
    pub fn due_to_restart(&self) -> bool {
        let deadline = self.config.deadline;
        self.curriculum.should_restart(&self.config)
            || (deadline > 0
                && self.curriculum.level <= self.config.deadline_level
                && self.current_learning() >= deadline)
    }

    /// Whether the run's config can have produced this state (a checkpoint is refused otherwise):
    /// the curriculum's position ([`Curriculum::check`]) and counters that agree.
    pub fn check(&self) -> Result<(), String> {
        self.curriculum.check(&self.config)?;
        let ended = self.curriculum.ended_lineages.len() as u64;
        if self.learning_iterations > self.iteration || self.lineage_start > self.iteration {
            Err(format!(
                "{} learning iterations and a lineage begun at iteration {}, at iteration {}",
                self.learning_iterations, self.lineage_start, self.iteration
            ))
        } else if self.restarts != ended {
            Err(format!("{} restarts but {ended} ended lineages", self.restarts))
        } else if self.last_level_learned > self.curriculum.levels + 1 {
            Err(format!(
                "last_level_learned is {}, beyond the curriculum's {} levels",
                self.last_level_learned,
                self.curriculum.levels + 1
            ))
        } else {
            Ok(())
        }
    }

    /// Learning iterations of the current lineage: the run's, less those of the ended lineages.
    pub fn current_learning(&self) -> u64 {
        let ended: u64 = self.curriculum.ended_lineages.iter().map(|l| l.learning_iterations).sum();
        self.learning_iterations.saturating_sub(ended)
    }

    /// Starts over: the current lineage is recorded as ended by `ending`, then a fresh θ for
    /// `model` from the run's generator, the curriculum back at level 1 with empty bad memories.
    pub fn restart(&mut self, model: &Config, ending: Ending) {
        let ended = Lineage {
            learning_iterations: self.current_learning(),
            iterations: self.iteration.saturating_sub(self.lineage_start),
            level: self.curriculum.level,
            ending,
        };
        self.curriculum.ended_lineages.push(ended);
        self.lineage_start = self.iteration;
        self.nes.theta = initial_theta(model, &self.config, &mut self.rng);
        self.curriculum.reset(&self.config);
        self.restarts += 1;
    }
}
