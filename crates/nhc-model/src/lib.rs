//! The algorithmic modules of the Neural Harvard Computer (SPEC §2–§3).
//!
//! - [`config`]: per-task sizes and switches ([`Config`]), the read-mode list ([`ReadMode`]).
//! - [`params`]: θ as one flat vector with named views in the paper's order ([`Layout`]).
//! - [`memory`]: the two coupled memories, allocation, temporal and ancestry linkage ([`Memory`]).
//! - [`policy`]: the decision interface ([`Policy`]) and its learned implementation
//!   ([`Learned`]: Controller, memory interface, Bus).
//! - [`machine`]: the data-module interface ([`DataModules`]), the expected trace ([`Trace`])
//!   and one run of a sample ([`Machine::run`]), scored by the fitness of SPEC §5.

pub mod config;
pub mod machine;
pub mod memory;
pub mod params;
pub mod policy;

pub use config::{Config, ConfigError, ReadMode};
pub use machine::{DataModules, Expected, Machine, Outcome, Signals, StepRecord, Trace};
pub use memory::{Memory, MemoryDecision};
pub use params::{Layout, Params, ParamsError};
pub use policy::{BusDecision, Learned, Observation, Policy};
