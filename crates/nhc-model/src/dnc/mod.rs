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

use crate::architecture::{Architecture, ControlRow, Decision, Word};
use crate::config::{Config, ConfigError};
use crate::params::{Block, Params};
use crate::policy::Policy;
use serde::Serialize;

/// DNC+is+ha as an [`Architecture`]: the LSTM controller, the DNC's memory with hard attention
/// and the output layer.
#[derive(Debug, Clone, Copy)]
pub struct DncIsHa;

impl Architecture for DncIsHa {
    type Decision = DncDecision;
    type Memory<D: Word> = DncMemory<D>;

    fn blocks(config: &Config) -> Vec<(&'static str, Block)> {
        DncLayout::new(config).named().to_vec()
    }
    /// The DNC's memory has one write head.
    fn check(config: &Config) -> Result<(), ConfigError> {
        match config.write_heads {
            1 => Ok(()),
            n => Err(ConfigError::DncWriteHeads(n)),
        }
    }
    fn learned(params: Params) -> Box<dyn Policy<DncDecision> + Send> {
        Box::new(DncLearned::new(params))
    }
    fn memory<D: Word>(config: &Config) -> DncMemory<D> {
        DncMemory::new(config)
    }
}

/// The DNC's gates and read modes in one step (paper, "Details to the Comparison Methods").
#[derive(Debug, Clone, Serialize)]
pub struct DncControl {
    /// Erase vector e.
    pub erase: Vec<f32>,
    /// Free gates f^i, one per read head.
    pub free_gates: Vec<f32>,
    pub allocation_gate: f32,
    pub write_gate: f32,
    /// Per read head: π = (backward, content, forward).
    pub read_modes: Vec<[f32; 3]>,
}

impl Decision for DncDecision {
    /// The memory's note on the read mode that placed the head (`b`, `c` or `f`).
    fn read_mode(&self, _: usize, note: &str) -> String {
        note.to_string()
    }
    fn control(&self, c: &Config, control_reads: &[f32]) -> ControlRow {
        ControlRow {
            written: vec![self.write.clone()],
            read: ControlRow::words(c, control_reads),
            updates: vec![None; c.read_heads],
            free_write: vec![false],
            free_read: self.free_gates.iter().map(|f| *f > 0.5).collect(),
            dnc: Some(DncControl {
                erase: self.erase.clone(),
                free_gates: self.free_gates.clone(),
                allocation_gate: self.allocation_gate,
                write_gate: self.write_gate,
                read_modes: self.read_modes.clone(),
            }),
        }
    }
}
