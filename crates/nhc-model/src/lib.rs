//! The algorithmic modules of the Neural Harvard Computer (docs/MODEL.md §2–§3).
//!
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

pub mod config;
pub mod dnc;
pub mod machine;
pub mod memory;
pub mod params;
pub mod policy;
pub mod score;
pub mod variant;

pub use config::{Config, ConfigError, Links, MemoryKind, ReadMode};
pub use dnc::{DncDecision, DncLayout, DncLearned, DncMemory};
pub use machine::{DataModules, End, Machine, Run, Signals, StepRecord};
pub use memory::{Memory, MemoryDecision, MemoryModule};
pub use params::{Layout, Params, ParamsError, theta_len};
pub use policy::{Agent, BusDecision, Learned, Observation, Policy, PolicyMut};
pub use score::{Expected, Outcome, RunLimits, Scorer, Trace, run_scored};
pub use variant::{UnknownVariant, Variant};
