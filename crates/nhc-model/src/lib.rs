//! The algorithmic modules of the Neural Harvard Computer (docs/MODEL.md §2–§3).
//!
//! - [`architecture`]: the seam every architecture implements ([`Architecture`]: θ's layout,
//!   policy, memory, gate biases, word noise), the run-time name ([`Arch`]) and a policy of any
//!   architecture ([`Agent`]).
//! - [`config`]: sizes and switches ([`Config`]), the read-mode list ([`ReadMode`]).
//! - [`variant`]: the full NHC and its ablations ([`Variant`]), maps from an algorithm's config
//!   to the model's.
//! - [`params`]: θ as one flat vector with named views in the paper's order ([`Layout`]).
//! - [`memory`]: the memory-module interface ([`MemoryModule`]) and the NHC's two coupled
//!   memories with allocation, temporal and ancestry linkage ([`Memory`]).
//! - [`policy`]: the decision interface ([`Policy`]) and its learned implementation
//!   ([`Learned`]: Controller, memory interface, Bus).
//! - [`dnc`]: the DNC's controller, memory and output layer in the NHC (DNC+is+ha).
//! - [`machine`]: the data-module interface ([`DataModules`]) and the step loop
//!   ([`Machine::run`]).
//! - [`score`]: the expected trace ([`Trace`]) and the fitness of MODEL §5 ([`Scorer`]).

pub mod architecture;
pub mod config;
pub mod dnc;
pub mod machine;
pub mod memory;
pub mod params;
pub mod policy;
pub mod score;
pub mod variant;

pub use architecture::{
    Agent, Arch, Architecture, ControlRow, Decision, NhcModules, Visit, Word, WordNoise, Workspace, theta_len,
};
pub use config::{Config, ConfigError, FreeWrite, Links, Margin, MissingLink, ReadMode};
pub use dnc::{DncControl, DncDecision, DncIsHa, DncLayout, DncLearned, DncMemory};
pub use machine::{DataModules, End, Machine, Run, Signals, StepRecord};
pub use memory::{Memory, MemoryDecision, MemoryModule};
pub use params::{Block, Layout, Params, ParamsError, Stacked};
pub use policy::{BusDecision, Learned, Observation, Policy};
pub use score::{
    Expected, Outcome, RunLimits, Scorer, Trace, UpdateFeedback, run_scored, run_scored_updates,
};
pub use variant::{UnknownVariant, Variant};
