//! Sizes and switches of the algorithmic modules for one task (MODEL §2).

use crate::architecture::Arch;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Sizes, head counts and switches of one NHC instance (MODEL §2, "Defaults").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// |c_ic|: Input signals to the Controller.
    pub input_controller: usize,
    /// |c_im|: Input signals to the Memory interface.
    pub input_memory: usize,
    /// |c_ib|: Input signals to the Bus.
    pub input_bus: usize,
    /// L_C: Controller size (paper: 6).
    pub controller: usize,
    /// C: control word size (paper: 4).
    pub word: usize,
    /// h_w: write heads (paper: 1).
    pub write_heads: usize,
    /// h_r: read heads.
    pub read_heads: usize,
    /// L_B: Bus size = number of ALU operations.
    pub ops: usize,
    /// |c_a|: ALU feedback size, 0 when the ALU feedback is off.
    pub alu_feedback: usize,
    /// Bus feedback c_b_{t-1} into the Controller.
    pub bus_feedback: bool,
    /// Free gates f_w, f_r.
    pub free_gates: bool,
    /// Previous-update head (v̂, ê, ĝ); off in the NHC-prev ablation.
    pub previous_update: bool,
    /// Ancestry linkage (P and C modes); off in the NHC-anc ablation.
    pub ancestry: bool,
    /// The architecture behind the data modules ([`Arch`]): the NHC's, or the DNC's (DNC+is+ha,
    /// where `controller` is the LSTM's hidden size). Absent in model files of the NHC.
    #[serde(default, skip_serializing_if = "Arch::is_nhc")]
    pub memory: Arch,
    /// How a write joins the temporal list and what a free leaves of it (docs/DESIGN.md,
    /// "Temporal links").
    pub links: Links,
    /// What a write free gate f_w = 1 does ([`FreeWrite`]). Absent in model files of the default.
    #[serde(default, skip_serializing_if = "FreeWrite::is_release")]
    pub free_write: FreeWrite,
    /// What a read mode whose target does not exist reads ([`MissingLink`]). Absent in model
    /// files of the default.
    #[serde(default, skip_serializing_if = "MissingLink::is_stay")]
    pub missing_link: MissingLink,
    /// How the Bus's margin is read from its values ([`Margin`]); only training's fitness uses
    /// it. Absent in model files of the default.
    #[serde(default, skip_serializing_if = "Margin::is_probabilities")]
    pub margin: Margin,
}

/// Which values of the Bus the margin `clip((c̃¹/c̃² − 1)/m_max, 0, 1)` compares (paper, "Learning
/// Procedure": "c̃¹, c̃² are first and second largest values of c_k^b", where
/// `c_b = onehot(W_b x_b + b_b)`). The paper does not say which values before the one-hot.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Margin {
    /// Softmax probabilities of the logits, so both are positive: `c̃¹/c̃² = exp(z1 − z2)`.
    #[default]
    Probabilities,
    /// The raw logits `z = W_b x_b + b_b`: `z1/z2`, with no margin unless the runner-up is positive
    /// or the winner positive and the runner-up not (then the full margin).
    Raw,
}

impl Margin {
    pub fn is_probabilities(&self) -> bool {
        *self == Margin::Probabilities
    }
}

/// What a write free gate does to the location just written (paper, "Head Locations": "the
/// write location is marked as used" unless f_w = 1, `u_t = u_{t−1} + (1 − f_t^{w,i}) w_t^i`,
/// and "when a location is freed through the free gates, the location is removed from the
/// linkage"). The two agree on usage; they differ in whether the write stays linked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FreeWrite {
    /// The write is marked used, then freed like any location: unmarked and removed from the
    /// temporal list and the ancestry trees.
    #[default]
    Release,
    /// The write is only left unmarked: it stays linked (temporal list, ancestry) until the
    /// allocator reuses it; only f_r removes a location from the linkage.
    Unmarked,
}

impl FreeWrite {
    pub fn is_release(&self) -> bool {
        *self == FreeWrite::Release
    }
}

/// What a read head does when its mode's target does not exist: F at the list's tail, B at its
/// head, P at a root, C without children. The paper is silent: its modes are vectors, `F: r_t =
/// onehot(L_t^{T,i} ∘ r_{t−1}^j)`, `B: r_t = I(L_t^{T,i}, r̃_{t−1}^j)`, and where no link exists
/// the formulas select no location (or, with links stored as indices that default to 0,
/// location 0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MissingLink {
    /// The head stays where it was and reads that location again.
    #[default]
    Stay,
    /// The head reads nothing: the zero control word and the empty data word (`r_t = 0`, so
    /// `c_m = M_cᵀ r_t = 0`). Nothing is updated, adopted or freed through it; its next mode
    /// starts from the location it was on.
    Empty,
}

impl MissingLink {
    pub fn is_stay(&self) -> bool {
        *self == MissingLink::Stay
    }
}

/// The temporal-linkage convention of the NHC's memory (paper, Methods, "Head Locations":
/// `L_t = L_{t−1} ∘ (1 − w_{t−1}) + w̃_t w_{t−1}`, and "when a location is freed […] the location
/// is removed from the linkage such that it remains a linked list"). The three agree while
/// nothing is freed; they differ in what a write links from after a free.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Links {
    /// A write links from the last location of its head's list that is still in use (the list's
    /// tail), and starts with no successor. A freed location is spliced out. The list of used
    /// locations is always one chain, whatever is freed.
    #[default]
    Tail,
    /// The formula as printed: a write links from the location its head wrote at `t−1`, in use
    /// or freed (a self-link when the allocator reuses it); the written location keeps the
    /// successor it had. A freed location is spliced out.
    Formula,
    /// The formula's link from the location written at `t−1`, read with the sentence on freeing:
    /// a freed location has left the linkage, so a write after it has no predecessor. A write
    /// starts with no successor, a freed location is spliced out.
    Removed,
}

impl Links {
    /// Every convention, in the order of the docs.
    pub const ALL: [Links; 3] = [Links::Tail, Links::Formula, Links::Removed];
}

impl Arch {
    pub fn is_nhc(&self) -> bool {
        *self == Arch::Nhc
    }
}

/// A configuration that cannot run.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ConfigError {
    #[error("config field `{0}` must be at least 1")]
    Zero(&'static str),
    #[error("at most {max} read heads are supported, got {got}")]
    TooManyReadHeads { max: usize, got: usize },
    #[error("at most {max} write heads are supported, got {got}")]
    TooManyWriteHeads { max: usize, got: usize },
    #[error("the DNC's memory has one write head, got {0}")]
    DncWriteHeads(usize),
}

/// Most read heads a config may have (the paper uses at most 3).
pub const MAX_READ_HEADS: usize = 8;
/// Most write heads a config may have (the paper uses 1, the NHC-prev ablation 2).
pub const MAX_WRITE_HEADS: usize = 8;

impl Config {
    /// What every task of the paper shares (paper, "Modules Instantiations"): L_C = 6, C = 4,
    /// h_w = 1, previous update and ancestry on. A task fills in its signals, read heads, ops,
    /// feedbacks and free gates with `Config { …, ..Config::PAPER }`.
    pub const PAPER: Config = Config {
        input_controller: 0,
        input_memory: 0,
        input_bus: 0,
        controller: 6,
        word: 4,
        write_heads: 1,
        read_heads: 1,
        ops: 1,
        alu_feedback: 0,
        bus_feedback: false,
        free_gates: false,
        previous_update: true,
        ancestry: true,
        memory: Arch::Nhc,
        links: Links::Tail,
        free_write: FreeWrite::Release,
        missing_link: MissingLink::Stay,
        margin: Margin::Probabilities,
    };

    /// Checks the sizes once, at the edge (a config from a model file is checked here).
    pub fn check(&self) -> Result<(), ConfigError> {
        for (name, v) in [
            ("controller", self.controller),
            ("word", self.word),
            ("write_heads", self.write_heads),
            ("read_heads", self.read_heads),
            ("ops", self.ops),
        ] {
            if v == 0 {
                return Err(ConfigError::Zero(name));
            }
        }
        if self.read_heads > MAX_READ_HEADS {
            return Err(ConfigError::TooManyReadHeads { max: MAX_READ_HEADS, got: self.read_heads });
        }
        if self.write_heads > MAX_WRITE_HEADS {
            return Err(ConfigError::TooManyWriteHeads { max: MAX_WRITE_HEADS, got: self.write_heads });
        }
        self.memory.check(self)
    }

    /// Read modes per read head: h_r HALT modes, then F, B (and P, C with ancestry) per write head.
    pub fn read_modes(&self) -> usize {
        self.read_heads + self.write_heads * if self.ancestry { 4 } else { 2 }
    }

    /// Decodes mode index `k` of the list in [`Config::read_modes`].
    pub fn read_mode(&self, k: usize) -> ReadMode {
        if k < self.read_heads {
            return ReadMode::Halt(k);
        }
        let per = if self.ancestry { 4 } else { 2 };
        let (head, kind) = ((k - self.read_heads) / per, (k - self.read_heads) % per);
        match kind {
            0 => ReadMode::Forward(head),
            1 => ReadMode::Backward(head),
            2 => ReadMode::Parent(head),
            _ => ReadMode::Child(head),
        }
    }

    /// Index of `mode` in the read-mode list (inverse of [`Config::read_mode`]).
    pub fn mode_index(&self, mode: ReadMode) -> usize {
        let per = if self.ancestry { 4 } else { 2 };
        match mode {
            ReadMode::Halt(k) => k,
            ReadMode::Forward(i) => self.read_heads + i * per,
            ReadMode::Backward(i) => self.read_heads + i * per + 1,
            ReadMode::Parent(i) => self.read_heads + i * per + 2,
            ReadMode::Child(i) => self.read_heads + i * per + 3,
        }
    }

    /// Controller input size: [c_ic; c_b_{t-1}; c_a_{t-1}; c_m_{t-1}].
    pub fn controller_inputs(&self) -> usize {
        self.input_controller
            + if self.bus_feedback { self.ops } else { 0 }
            + self.alu_feedback
            + self.read_heads * self.word
    }

    /// Memory interface input size: x_m = [c_im; c_c].
    pub fn memory_inputs(&self) -> usize {
        self.input_memory + self.controller
    }

    /// Bus input size: x_b = [c_ib; c_c; c_m].
    pub fn bus_inputs(&self) -> usize {
        self.input_bus + self.controller + self.read_heads * self.word
    }
}

/// A read head's mode (MODEL §3, "Read modes"); indices name heads, from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReadMode {
    /// H_k: the location read by read head k at t-1.
    Halt(usize),
    /// F_i: temporal successor in write head i's list.
    Forward(usize),
    /// B_i: temporal predecessor.
    Backward(usize),
    /// P_i: ancestry parent.
    Parent(usize),
    /// C_i: newest ancestry child.
    Child(usize),
}

impl std::fmt::Display for ReadMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (c, i) = match *self {
            ReadMode::Halt(i) => ('H', i),
            ReadMode::Forward(i) => ('F', i),
            ReadMode::Backward(i) => ('B', i),
            ReadMode::Parent(i) => ('P', i),
            ReadMode::Child(i) => ('C', i),
        };
        write!(f, "{c}{}", i + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok() -> Config {
        Config {
            input_controller: 4,
            input_memory: 4,
            input_bus: 4,
            ops: 2,
            bus_feedback: true,
            free_gates: true,
            ..Config::PAPER
        }
    }

    #[test]
    fn sizes_must_be_positive() {
        assert_eq!(ok().check(), Ok(()));
        assert_eq!(Config { word: 0, ..ok() }.check(), Err(ConfigError::Zero("word")));
        assert_eq!(Config { ops: 0, ..ok() }.check(), Err(ConfigError::Zero("ops")));
    }

    #[test]
    fn head_counts_are_bounded() {
        assert_eq!(
            Config { read_heads: 9, ..ok() }.check(),
            Err(ConfigError::TooManyReadHeads { max: 8, got: 9 })
        );
        assert_eq!(
            Config { write_heads: 300, ..ok() }.check(),
            Err(ConfigError::TooManyWriteHeads { max: 8, got: 300 })
        );
    }
}
