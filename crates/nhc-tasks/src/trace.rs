//! What `nhc trace` shows of a step: one row per step, with the control side of the memory
//! decision ([`Describe`], one implementation per memory).

use nhc_model::{Config, DncDecision, MemoryDecision};
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
    /// The control stream: words written and read, previous updates, free gates.
    pub control: ControlRow,
}

/// The control side of one step (MODEL §2 step 3–4), for `nhc trace`.
#[derive(Debug, Clone, Serialize)]
pub struct ControlRow {
    /// Per write head: the write vector v.
    pub written: Vec<Vec<f32>>,
    /// Per read head: the control word read, c_m.
    pub read: Vec<Vec<f32>>,
    /// Per read head: the previous update `(v̂, ê)` applied to its location of t−1, if ĝ = 1.
    pub updates: Vec<Option<(Vec<f32>, Vec<f32>)>>,
    /// Free gates f_w (per write head) and f_r (per read head).
    pub free_write: Vec<bool>,
    pub free_read: Vec<bool>,
    /// The DNC's interface values (DNC+is+ha only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dnc: Option<DncControl>,
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

/// What a trace shows of a memory decision.
pub trait Describe {
    /// Read head j's mode as text: `F1`, `P2`, … for the NHC; for the DNC the memory's note on
    /// the read mode that placed the head (`b`, `c` or `f`).
    fn read_mode(&self, j: usize, note: &str) -> String;
    /// The control side of the step.
    fn control(&self, c: &Config, control_reads: &[f32]) -> ControlRow;
}

fn words(c: &Config, v: &[f32]) -> Vec<Vec<f32>> {
    v.chunks(c.word).map(<[f32]>::to_vec).collect()
}

impl Describe for MemoryDecision {
    fn read_mode(&self, j: usize, _: &str) -> String {
        self.read_modes[j].to_string()
    }
    fn control(&self, c: &Config, control_reads: &[f32]) -> ControlRow {
        let (v_hat, e_hat) = (words(c, &self.prev_write), words(c, &self.prev_erase));
        ControlRow {
            written: words(c, &self.write),
            read: words(c, control_reads),
            updates: (0..c.read_heads)
                .map(|j| self.prev_gate[j].then(|| (v_hat[j].clone(), e_hat[j].clone())))
                .collect(),
            free_write: self.free_write.clone(),
            free_read: self.free_read.clone(),
            dnc: None,
        }
    }
}

impl Describe for DncDecision {
    fn read_mode(&self, _: usize, note: &str) -> String {
        note.to_string()
    }
    fn control(&self, c: &Config, control_reads: &[f32]) -> ControlRow {
        ControlRow {
            written: vec![self.write.clone()],
            read: words(c, control_reads),
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

/// What one row of a trace takes (words, reads, locations as text and numbers), for the memory
/// estimate of `nhc trace`.
pub const TRACE_ROW_BYTES: u64 = 512;
