//! The sizes of one DNC.

use crate::{DncError, Result};

/// Sizes of a DNC with one write head (Methods, "Memory addressing").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DncSizes {
    /// Size of the external input x_t.
    pub input: usize,
    /// LSTM hidden size H.
    pub hidden: usize,
    /// Memory locations N.
    pub locations: usize,
    /// Word size W.
    pub word: usize,
    /// Read heads R.
    pub read_heads: usize,
    /// Outputs (logits y_t; here the ALU operations).
    pub outputs: usize,
}

impl DncSizes {
    /// Checks that every size is at least 1.
    pub fn check(&self) -> Result<Self> {
        let named = [
            ("input", self.input),
            ("hidden", self.hidden),
            ("locations", self.locations),
            ("word", self.word),
            ("read_heads", self.read_heads),
            ("outputs", self.outputs),
        ];
        match named.iter().find(|(_, v)| *v == 0) {
            Some((name, _)) => Err(DncError::ZeroSize { name }),
            None => Ok(*self),
        }
    }
    /// |ξ_t| = R·W + R + W + 1 + W + W + R + 1 + 1 + 3R, as nhc-model's `DncDecision`.
    pub fn interface(&self) -> usize {
        nhc_model::DncDecision::interface_size(self.word, self.read_heads)
    }
    /// The LSTM's input χ_t = [x_t; r^1_{t−1}; …; r^R_{t−1}].
    pub fn controller_input(&self) -> usize {
        self.input + self.read_heads * self.word
    }
}
