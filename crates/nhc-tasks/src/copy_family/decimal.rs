//! The decimal domain: objects are non-negative integers of any size, a transfer (MODEL §10) of
//! the copy family and of sort ([`crate::sort_domains`]). A data word is a [`Natural`]: the
//! number's canonical decimal digits.

use super::Objects;
use crate::words::ordinal;
use crate::{InputError, SampleRng};
use rand::RngExt;
use serde_json::Value;
use smol_str::SmolStr;
use std::fmt;

/// Most digits of a sampled number.
pub const MAX_DIGITS: usize = 20;

/// Most digits of a number in a user's input (leading zeros not counted). *Reason:* sort's
/// reference parses each number exactly (`BigUint`), in time quadratic in its digits: 20 ms at
/// 100 000 digits, 2 s at a million.
pub const MAX_INPUT_DIGITS: usize = 100_000;

/// Longest text [`Decimals`] shows or quotes in a message; longer numbers are cut.
const SHOWN_DIGITS: usize = 40;

/// A non-negative integer of any size, as its decimal digits without leading zeros (`"0"` for
/// zero), so `==` is equality of values. Clones share the digits (up to 23 digits are stored
/// inline, longer ones behind a reference count).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Natural(SmolStr);

impl Natural {
    /// The number written as `text`: ASCII digits only, at least one; leading zeros are dropped.
    pub fn from_digits(text: &str) -> Option<Natural> {
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let digits = text.trim_start_matches('0');
        Some(if digits.is_empty() { Natural::default() } else { Natural(SmolStr::new(digits)) })
    }

    /// The canonical digits.
    pub fn digits(&self) -> &str {
        self.0.as_str()
    }

    /// The value, if it fits a `u64`.
    pub fn to_u64(&self) -> Option<u64> {
        self.digits().parse().ok()
    }

    /// Bytes held on the heap beyond `size_of::<Natural>()` (shared by every clone): the digits
    /// and a reference count, rounded up, for numbers of more than 23 digits.
    pub fn heap_bytes(&self) -> u64 {
        if self.0.is_heap_allocated() { self.0.len() as u64 + 32 } else { 0 }
    }

    /// As JSON: a number when the value fits a `u64`, else a string of digits.
    pub fn json(&self) -> Value {
        match self.to_u64() {
            Some(n) => n.into(),
            None => self.digits().into(),
        }
    }

    /// A JSON non-negative integer or string of decimal digits; the reason in words otherwise.
    pub fn from_json(v: &Value) -> Result<Natural, String> {
        match v {
            Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => Ok(u.into()),
                (None, Some(neg), _) => Err(format!("{neg} is negative")),
                (None, None, Some(f)) if f.is_sign_negative() => Err(format!("{n} is negative")),
                (None, None, Some(f)) if f.fract() == 0.0 && f >= u64::MAX as f64 => {
                    Err(format!("{n} is too large for an exact JSON number; write it as a string of digits"))
                }
                _ => {
                    Err(format!("{n} is not a whole number (write integers without a fraction or exponent)"))
                }
            },
            Value::String(s) if s.is_empty() => Err("\"\" is an empty string".into()),
            Value::String(s) => match Natural::from_digits(s) {
                None => Err(format!("{} holds a character other than the digits 0–9", quote(s))),
                Some(x) if x.digits().len() > MAX_INPUT_DIGITS => Err(format!(
                    "{} has {} digits; at most {MAX_INPUT_DIGITS} are supported",
                    x.show(),
                    x.digits().len()
                )),
                Some(x) => Ok(x),
            },
            other => Err(format!("{} is not a number or a string of digits", clip(&other.to_string()))),
        }
    }

    /// A uniformly random number of 1–[`MAX_DIGITS`] digits: the digit count is uniform, then
    /// the number is uniform among those with that many digits (0–9 for one digit).
    pub fn random(rng: &mut SampleRng) -> Natural {
        let n = rng.random_range(1..=MAX_DIGITS);
        let first = if n == 1 { b'0' } else { b'1' };
        let mut digits = String::with_capacity(n);
        digits.push(char::from(rng.random_range(first..=b'9')));
        (1..n).for_each(|_| digits.push(char::from(rng.random_range(b'0'..=b'9'))));
        Natural(SmolStr::new(digits))
    }

    /// Short text for traces: the digits, cut after 40 with the digit count.
    pub fn show(&self) -> String {
        let d = self.digits();
        if d.len() <= SHOWN_DIGITS { d.to_string() } else { format!("{}…({} digits)", &d[..20], d.len()) }
    }
}

impl Default for Natural {
    /// Zero (the data word of output-phase locations).
    fn default() -> Self {
        Natural(SmolStr::new_inline("0"))
    }
}

impl From<u64> for Natural {
    fn from(n: u64) -> Self {
        Natural(SmolStr::new(n.to_string()))
    }
}

impl fmt::Display for Natural {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.digits())
    }
}

impl fmt::Debug for Natural {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.show())
    }
}

/// `s` as a JSON string, cut after 40 characters.
pub(crate) fn quote(s: &str) -> String {
    clip(&Value::from(s).to_string())
}

/// `s` cut after 40 characters, with `…` where it was cut.
pub(crate) fn clip(s: &str) -> String {
    match s.char_indices().nth(SHOWN_DIGITS) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// The decimal domain: non-negative integers of any size. As JSON each object is a number or a
/// string of digits (`[3, "98765432109876543210", 0]`); printed as a number when it fits a `u64`,
/// else as a string of digits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Decimals;

impl Objects for Decimals {
    type Object = Natural;
    fn name(&self) -> &'static str {
        "decimal"
    }
    /// [`Natural::random`]: repeats are possible, as with 6-bit objects, but rarer.
    fn random(&self, rng: &mut SampleRng) -> Natural {
        Natural::random(rng)
    }
    fn parse(&self, item: &Value, i: usize) -> Result<Natural, InputError> {
        Natural::from_json(item).map_err(|why| InputError::new(format!("the {} object: {why}", ordinal(i))))
    }
    fn form(&self) -> &'static str {
        "non-negative integers, as JSON numbers or strings of decimal digits"
    }
    fn json(&self, x: &Natural) -> Value {
        x.json()
    }
    fn show(&self, x: &Natural) -> String {
        x.show()
    }
    fn heap(&self, x: &Natural) -> u64 {
        x.heap_bytes()
    }
    /// The number `i` (0 is the default word).
    fn word(&self, i: u64) -> Option<Natural> {
        (i >= 1).then(|| i.into())
    }
    fn words(&self) -> Option<u64> {
        None
    }
}
