//! Data words as categorical fields: how the DNC trained by backpropagation (crate `nhc-dnc`),
//! which has no data memory, is shown a data word and names the words it expects to read
//! (docs/DESIGN.md, "The DNC trained by backpropagation"). A domain without an encoding
//! answers `None` and the baseline refuses it.

use serde::{Deserialize, Serialize};

/// The shape of a domain's words: `count` fields of `classes` classes each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldShape {
    pub count: usize,
    pub classes: usize,
}

impl FieldShape {
    /// `count` binary fields.
    pub const fn bits(count: usize) -> Self {
        FieldShape { count, classes: 2 }
    }
    /// The one-hot width of a word: `count · classes`.
    pub fn one_hot(&self) -> usize {
        self.count * self.classes
    }
}

/// The low `out.len()` bits of `x`, low first.
pub fn bits(x: u64, out: &mut [u8]) {
    for (k, b) in out.iter_mut().enumerate() {
        *b = ((x >> k) & 1) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_low_first() {
        let mut out = [9u8; 5];
        bits(0b10110, &mut out);
        assert_eq!(out, [0, 1, 1, 0, 1]);
        assert_eq!(FieldShape::bits(6).one_hot(), 12);
    }
}
