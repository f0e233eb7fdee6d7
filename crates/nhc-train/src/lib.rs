//! Training the NHC's algorithmic modules (SPEC §5–§7): NES with rank utilities on a curriculum
//! with bad memories.
//!
//! - [`config`]: hyperparameters ([`TrainConfig`]), loadable from TOML.
//! - [`nes`]: the search distribution and its ask/tell update ([`Nes`]).
//! - [`curriculum`]: levels, perfect streaks, bad memories, batch composition ([`Curriculum`]).
//! - [`noise`]: word noise on the control words while training (ours, off by default).
//! - [`trainer`]: the loop ([`Trainer`]) with its checkpointable state ([`TrainState`]).

pub mod config;
pub mod curriculum;
pub mod nes;
pub mod noise;
pub mod trainer;

pub use config::{ConfigError, TrainConfig};
pub use curriculum::{BadMemories, Curriculum, Progress, SampleKey, Source};
pub use nes::{Nes, Step, centred_ranks, ranking, utilities};
pub use trainer::{IterationLog, Summary, TrainError, TrainState, Trainer, check_levels, sample_of};
