//! The copy family's training domain: objects are 6-bit binary vectors (D = 6).

use super::Objects;
use crate::words::ordinal;
use crate::{InputError, SampleRng};
use rand::RngExt;

/// Bits per object (D).
pub const BITS: u32 = 6;

/// One object: bit k of the byte is element k.
pub type Object = u8;

/// 6-bit binary vectors; as JSON an array of six 0/1 numbers, element 0 first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Binary;

impl Objects for Binary {
    type Object = Object;
    fn name(&self) -> &'static str {
        "binary"
    }
    fn random(&self, rng: &mut SampleRng) -> Object {
        rng.random_range(0..1u8 << BITS)
    }
    fn parse(&self, item: &serde_json::Value, i: usize) -> Result<Object, InputError> {
        let bits = item.as_array().filter(|b| b.len() == BITS as usize).ok_or_else(|| {
            InputError::new(format!("the {} object must be an array of {BITS} numbers 0 or 1", ordinal(i)))
        })?;
        bits.iter().enumerate().try_fold(0u8, |acc, (k, b)| match b.as_u64() {
            Some(0) => Ok(acc),
            Some(1) => Ok(acc | 1 << k),
            _ => Err(InputError::new(format!(
                "the {} object, {} element: expected 0 or 1, got {b}",
                ordinal(i),
                ordinal(k)
            ))),
        })
    }
    fn form(&self) -> &'static str {
        "arrays of six 0/1 numbers"
    }
    fn json(&self, x: &Object) -> serde_json::Value {
        (0..BITS).map(|k| (x >> k) & 1).collect::<Vec<_>>().into()
    }
    /// Six binary fields, element 0 first.
    fn field_shape(&self) -> Option<crate::FieldShape> {
        Some(crate::FieldShape::bits(BITS as usize))
    }
    fn fields(&self, x: &Object, out: &mut [u8]) {
        crate::fields::bits(u64::from(*x), out)
    }
    /// Object `i` for `i` in 1..=63 (0 is the default word).
    fn word(&self, i: u64) -> Option<Object> {
        Object::try_from(i).ok().filter(|x| (1..1 << BITS).contains(x))
    }
    fn words(&self) -> Option<u64> {
        Some((1 << BITS) - 1)
    }
    /// A string of 6 binary digits, element 0 first.
    fn show(&self, x: &Object) -> String {
        (0..BITS).map(|k| if x >> k & 1 == 1 { '1' } else { '0' }).collect()
    }
}
