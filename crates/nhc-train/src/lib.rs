//! Training the NHC's algorithmic modules (docs/MODEL.md §5–§7): NES with rank utilities on a
//! curriculum with bad memories, for any registered task by value (no generics over task types).
//!
//! - [`config`]: hyperparameters ([`TrainConfig`], loadable from TOML), checked once into
//!   [`ValidConfig`]; [`task_configs`]: a config with tables for single tasks ([`TaskConfigs`]),
//!   the recipe's form.
//! - [`nes`]: the search distribution's state ([`Nes`]) and its ask/tell update under
//!   [`NesParams`].
//! - [`curriculum`]: levels, perfect streaks, bad memories, batch composition ([`Curriculum`]).
//! - [`restart`]: the initial θ; [`check`]: the generalization check (ours).
//! - [`scoring`]: θ and offspring on a prepared batch, in parallel.
//! - [`noise`]: word noise on the control words while training (ours, off by default).
//! - [`peers`]: processes that score one run's offspring together ([`Peers`]; [`Alone`]).
//! - [`state`]: a run's checkpointable state ([`TrainState`]) and its lineage: restarts.
//! - [`trainer`]: the loop ([`Trainer`]): score, update, advance.
//! - [`records`]: what a run records, as types ([`IterationLog`] with its [`Update`] and
//!   [`Advance`], [`MetricsLine`], [`RunSummary`] with its [`RunOutcome`], [`Lineage`]).
//! - [`run_dir`]: a run in a directory: metrics log, atomic checkpoints, resumption, the model
//!   file and the summary, seen through an [`Observer`]; [`lock`]: one process per directory.
//! - [`sweep`]: many runs (tasks × a [`SeedRange`], [`seeds`]), several at a time, each evaluated
//!   at the test levels, one [`SweepLine`] per run in `sweep.jsonl`, seen through a
//!   [`SweepObserver`].

pub mod backprop;
pub mod check;
pub mod config;
pub mod curriculum;
pub mod lock;
pub mod nes;
pub mod noise;
pub mod peers;
pub mod records;
pub mod restart;
pub mod run_dir;
pub mod scoring;
pub mod seeds;
pub mod state;
pub mod sweep;
pub mod task_configs;
pub mod trainer;

pub use check::{CheckLog, check_levels, early_check_levels};
pub use config::{ConfigError, Count, OnFailedCheck, RestartTrigger, TrainConfig, ValidConfig};
pub use curriculum::{BadMemories, Curriculum, Progress, SampleKey, Source};
pub use nes::{Nes, NesParams, Step, centred_ranks, ranking, utilities};
pub use peers::{Alone, Peers};
pub use records::{
    Advance, Curve, Ending, IterationLog, Lineage, MetricsLine, RunOutcome, RunSummary, Summary, Update,
};
pub use run_dir::{Observer, Outcome, RunDirError};
pub use seeds::{SeedRange, SeedsError};
pub use state::TrainState;
pub use sweep::{
    BeyondRecord, RunVerification, Smallest, SweepError, SweepLine, SweepObserver, SweepSpec, VerifiedPart,
    sweep,
};
pub use task_configs::TaskConfigs;
pub use trainer::{TrainError, Trainer, model_config};
