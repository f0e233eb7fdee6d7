//! Transfers of sort (MODEL §10): the same algorithm on other data, only the data word, `compare`
//! (the paper's `lessEqual`) and the sampler change. [`Decimals`]: non-negative integers of any
//! size, ordered by value; [`Strings`]: any strings, ordered by Unicode code point (Rust's `str`
//! order). Each reference ([`SortDomain::sorted`]) sorts without `compare`: decimal numbers as
//! `num_bigint::BigUint`, strings by their sequences of `char`s.

pub use crate::copy_family::decimal::{Decimals, MAX_DIGITS, Natural};
pub use smol_str::SmolStr;

use crate::copy_family::decimal::{clip, quote};
use crate::sort::{Order, SortDomain};
use crate::words::ordinal;
use crate::{InputError, SampleRng};
use num_bigint::BigUint;
use rand::RngExt;
use serde_json::Value;

/// A JSON array with at least one item, or an error naming `form`.
fn items<'a>(v: &'a Value, form: &str) -> Result<&'a [Value], InputError> {
    let arr = v.as_array().ok_or_else(|| InputError::new(format!("expected a JSON array of {form}")))?;
    if arr.is_empty() {
        return Err(InputError::new("the list must hold at least one object"));
    }
    Ok(arr)
}

impl Order for Decimals {
    type Item = Natural;
    /// `o1 ≤ o2` by value: canonical digits have no leading zeros, so fewer digits is smaller and
    /// equal counts compare digit by digit.
    fn compare(&self, o1: &Natural, o2: &Natural) -> bool {
        (o1.digits().len(), o1.digits()) <= (o2.digits().len(), o2.digits())
    }
}

impl SortDomain for Decimals {
    fn name(&self) -> &'static str {
        "decimal"
    }
    /// Level ℓ: ℓ+1 numbers of 1–20 digits ([`Natural::random`]; repeats possible).
    fn sample(&self, level: usize, rng: &mut SampleRng) -> Vec<Natural> {
        (0..=level).map(|_| Natural::random(rng)).collect()
    }
    /// Sorted by `BigUint` value.
    /// The number `rank` (0 is the default word).
    fn word(&self, rank: u64) -> Option<Natural> {
        (rank >= 1).then(|| rank.into())
    }
    fn sorted(&self, items: &[Natural]) -> Vec<Natural> {
        let mut sorted = items.to_vec();
        sorted.sort_by_cached_key(|x| x.digits().parse::<BigUint>().ok());
        sorted
    }
    /// A non-empty JSON array of non-negative integers, each a JSON number or a string of decimal
    /// digits of any length (`[3, "98765432109876543210", 0]`).
    fn parse(&self, v: &Value) -> Result<Vec<Natural>, InputError> {
        let form = "non-negative integers (JSON numbers or strings of decimal digits)";
        items(v, form)?
            .iter()
            .enumerate()
            .map(|(i, x)| {
                Natural::from_json(x)
                    .map_err(|why| InputError::new(format!("the {} number: {why}", ordinal(i))))
            })
            .collect()
    }
    /// Numbers that fit a `u64` as JSON numbers, larger ones as strings of digits.
    fn json(&self, items: &[Natural]) -> Value {
        items.iter().map(Natural::json).collect::<Vec<_>>().into()
    }
    fn show(&self, x: &Natural) -> String {
        x.show()
    }
    fn heap(&self, x: &Natural) -> u64 {
        x.heap_bytes()
    }
}

/// Most characters of a sampled string.
pub const MAX_CHARS: usize = 8;

/// The characters sampled strings are made of: upper and lower case, and non-ASCII letters, so
/// that code-point order (`A` < `Z` < `a` < `z` < `É` < `ß` < `é` < `日`) differs from
/// case-insensitive and dictionary orders.
pub const ALPHABET: [char; 11] = ['a', 'b', 'z', 'A', 'B', 'Z', 'é', 'É', 'ß', 'ä', '日'];

/// Strings, ordered by Unicode code point (`str`'s `Ord`; UTF-8 bytes compare in code-point
/// order). A data word is a [`SmolStr`]: up to 23 bytes inline, longer strings behind a
/// reference count shared by every copy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Strings;

/// Heap bytes of a string: its bytes and a reference count, rounded up, when not inline.
fn string_heap(x: &SmolStr) -> u64 {
    if x.is_heap_allocated() { x.len() as u64 + 32 } else { 0 }
}

impl Order for Strings {
    type Item = SmolStr;
    /// `o1 ≤ o2` in `str` order.
    fn compare(&self, o1: &SmolStr, o2: &SmolStr) -> bool {
        o1.as_str() <= o2.as_str()
    }
}

impl SortDomain for Strings {
    fn name(&self) -> &'static str {
        "strings"
    }
    /// Level ℓ: ℓ+1 strings of 0–8 characters (length uniform, so one in nine is empty), each
    /// character uniform over [`ALPHABET`]; repeats possible.
    fn sample(&self, level: usize, rng: &mut SampleRng) -> Vec<SmolStr> {
        (0..=level)
            .map(|_| {
                let n = rng.random_range(0..=MAX_CHARS);
                (0..n).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())]).collect::<String>().into()
            })
            .collect()
    }
    /// `rank` as eight decimal digits (the default word is the empty string).
    fn word(&self, rank: u64) -> Option<SmolStr> {
        (1..100_000_000).contains(&rank).then(|| SmolStr::new(format!("{rank:08}")))
    }
    /// Sorted by the sequence of code points (`char`s).
    fn sorted(&self, items: &[SmolStr]) -> Vec<SmolStr> {
        let mut sorted = items.to_vec();
        sorted.sort_by(|a, b| a.chars().cmp(b.chars()));
        sorted
    }
    /// A non-empty JSON array of strings (`["pear", "Apple", "apple"]`; `""` is a string too).
    fn parse(&self, v: &Value) -> Result<Vec<SmolStr>, InputError> {
        items(v, "strings")?
            .iter()
            .enumerate()
            .map(|(i, x)| match x {
                Value::String(s) => Ok(SmolStr::new(s)),
                other => Err(InputError::new(format!(
                    "the {} item, {}, is not a JSON string",
                    ordinal(i),
                    clip(&other.to_string())
                ))),
            })
            .collect()
    }
    fn json(&self, items: &[SmolStr]) -> Value {
        items.iter().map(SmolStr::as_str).collect::<Vec<_>>().into()
    }
    /// As a JSON string, cut after 40 characters.
    fn show(&self, x: &SmolStr) -> String {
        quote(x)
    }
    fn heap(&self, x: &SmolStr) -> u64 {
        string_heap(x)
    }
    fn max_heap(&self) -> u64 {
        let bytes = MAX_CHARS * ALPHABET.iter().map(|c| c.len_utf8()).max().unwrap_or(4);
        if bytes > 23 { bytes as u64 + 32 } else { 0 }
    }
}
