//! What `nhc trace` shows of a step: one row per step, with the control side of the memory
//! decision (as each architecture's [`nhc_model::Decision`] describes it).

pub use nhc_model::{ControlRow, DncControl};
use serde::Serialize;

/// One step of a trace, for printing and plotting.
#[derive(Debug, Clone, Serialize)]
pub struct TraceRow {
    pub step: u64,
    pub phase: &'static str,
    pub written: Vec<usize>,
    /// Per read head: mode, location, data read.
    pub reads: Vec<(String, usize, String)>,
    pub op: &'static str,
    /// Right or wrong on a scored step.
    pub correct: Option<bool>,
    /// What the expected trace (MODEL §5) wants at this step: the operation (`None`: unscored,
    /// or past the trace's end) and, per read head, the word (`None` where it does not matter).
    pub expected_op: Option<&'static str>,
    pub expected_reads: Vec<Option<String>>,
    /// The control stream: words written and read, previous updates, free gates.
    pub control: ControlRow,
}

/// What one row of a trace takes (words, reads, locations as text and numbers, and the row as
/// printed), for the memory estimate of `nhc trace`. Measured: a copy trace of 100 000 objects
/// peaks 136 MB above one of 50 000 (1 360 bytes a step, 890 of them beyond the machine and the
/// JSON).
pub const TRACE_ROW_BYTES: u64 = 1024;
