//! DNC+is+ha (paper, "Details to the Comparison Methods"): the NHC's Controller, Memory and Bus
//! replaced by the DNC (Graves et al., Nature 2016), with the information split (+is: a data
//! memory written at the same location) and hard attention (+ha: one location per head).
//!
//! - [`addressing`]: the DNC's content, usage and allocation formulas.
//! - [`memory`]: the memory module ([`DncMemory`]) and the parsed interface vector
//!   ([`DncDecision`]).
//! - [`controller`]: the LSTM controller, interface and output layer on θ ([`DncLearned`]).

pub mod addressing;
pub mod controller;
pub mod memory;

pub use controller::{DncLayout, DncLearned};
pub use memory::{DncDecision, DncMemory, ReadSource};
