//! The training seeds of a sweep: a range of the seeds `nhc train --seed` takes, one run per
//! task and seed (docs/DESIGN.md, "Sweeps"). Written `101-115` on command lines and in
//! `sweep.jsonl`, `101–115` in prose; one seed is `7`.

use crate::sweep::MAX_RUNS;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::num::IntErrorKind;
use std::ops::RangeInclusive;
use std::str::FromStr;
use thiserror::Error;

/// Seeds `first..=last`, at least one and at most [`MAX_RUNS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct SeedRange {
    first: u64,
    last: u64,
}

/// A seed range that cannot be.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SeedsError {
    #[error("no seeds given: give a seed range FIRST-LAST (e.g. 1-15) or one seed (e.g. 7)")]
    Empty,
    #[error("the number of runs must be at least 1")]
    NoRuns,
    #[error("`{0}` is not a seed range: give FIRST-LAST (e.g. 1-15) or one seed (e.g. 7)")]
    Malformed(String),
    #[error("`{0}` holds a seed above {max}, the largest there is; give smaller seeds (e.g. 1-15)", max = u64::MAX)]
    Overflow(String),
    #[error("the seed range {first}-{last} runs backwards: give the smaller seed first ({last}-{first})")]
    Backwards { first: u64, last: u64 },
    #[error("the seed range {first}-{last} holds {count} seeds, more than {MAX_RUNS}; give a shorter range")]
    TooMany { first: u64, last: u64, count: u128 },
}

impl SeedRange {
    /// Seeds `first..=last`: `first ≤ last`, at most [`MAX_RUNS`] of them.
    pub fn new(first: u64, last: u64) -> Result<Self, SeedsError> {
        if first > last {
            return Err(SeedsError::Backwards { first, last });
        }
        let count = u128::from(last - first) + 1;
        if count > u128::from(MAX_RUNS) {
            return Err(SeedsError::TooMany { first, last, count });
        }
        Ok(SeedRange { first, last })
    }

    /// Seeds `1..=runs`, what `--runs` means.
    pub fn runs(runs: u64) -> Result<Self, SeedsError> {
        if runs == 0 {
            return Err(SeedsError::NoRuns);
        }
        SeedRange::new(1, runs)
    }

    pub fn first(&self) -> u64 {
        self.first
    }

    pub fn last(&self) -> u64 {
        self.last
    }

    /// The number of seeds (at least 1).
    pub fn len(&self) -> u64 {
        self.last - self.first + 1
    }

    /// Never: a range holds at least one seed.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The seeds, ascending.
    pub fn seeds(&self) -> RangeInclusive<u64> {
        self.first..=self.last
    }

    /// As on a command line: `101-115`, one seed `7`.
    pub fn arg(&self) -> String {
        if self.first == self.last { self.first.to_string() } else { format!("{}-{}", self.first, self.last) }
    }
}

impl fmt::Display for SeedRange {
    /// As in prose: `101–115` (an en dash), one seed `7`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.first == self.last {
            write!(f, "{}", self.first)
        } else {
            write!(f, "{}–{}", self.first, self.last)
        }
    }
}

impl FromStr for SeedRange {
    type Err = SeedsError;

    /// `FIRST-LAST` (`101-115`) or one seed (`7`), surrounding blanks ignored.
    fn from_str(s: &str) -> Result<Self, SeedsError> {
        let s = s.trim();
        if s.is_empty() {
            return Err(SeedsError::Empty);
        }
        let seed = |t: &str| {
            // Digits only: no sign, no blanks inside.
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(SeedsError::Malformed(s.to_string()));
            }
            t.parse::<u64>().map_err(|e| match e.kind() {
                IntErrorKind::PosOverflow => SeedsError::Overflow(s.to_string()),
                _ => SeedsError::Malformed(s.to_string()),
            })
        };
        match s.split_once('-') {
            Some((first, last)) => SeedRange::new(seed(first)?, seed(last)?),
            None => {
                let one = seed(s)?;
                SeedRange::new(one, one)
            }
        }
    }
}

impl From<SeedRange> for String {
    fn from(r: SeedRange) -> String {
        r.arg()
    }
}

impl TryFrom<String> for SeedRange {
    type Error = SeedsError;

    fn try_from(s: String) -> Result<Self, SeedsError> {
        s.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_single_seeds_parse() {
        let r: SeedRange = "101-115".parse().unwrap();
        assert_eq!((r.first(), r.last(), r.len()), (101, 115, 15));
        assert_eq!(r.seeds().collect::<Vec<_>>(), (101..=115).collect::<Vec<_>>());
        assert_eq!((r.to_string(), r.arg()), ("101–115".to_string(), "101-115".to_string()));
        let one: SeedRange = " 7 ".parse().unwrap();
        assert_eq!((one.first(), one.last(), one.to_string(), one.arg()), (7, 7, "7".into(), "7".into()));
        assert_eq!("0-0".parse::<SeedRange>().unwrap().seeds().collect::<Vec<_>>(), [0]);
        assert_eq!("3-3".parse::<SeedRange>().unwrap().arg(), "3");
        let top = format!("{}-{}", u64::MAX - 1, u64::MAX);
        assert_eq!(top.parse::<SeedRange>().unwrap().len(), 2);
        assert_eq!(SeedRange::runs(15).unwrap(), "1-15".parse().unwrap());
        assert_eq!("1-10000".parse::<SeedRange>().unwrap().len(), MAX_RUNS);
    }

    #[test]
    fn bad_ranges_are_refused_in_one_line() {
        let refused = |s: &str| s.parse::<SeedRange>().unwrap_err();
        assert_eq!(refused(""), SeedsError::Empty);
        assert_eq!(refused("  "), SeedsError::Empty);
        assert_eq!(refused("5-3"), SeedsError::Backwards { first: 5, last: 3 });
        for bad in ["a-b", "1-", "-3", "1-2-3", "+1-3", "1 - 3", "1,3", "x"] {
            assert_eq!(refused(bad), SeedsError::Malformed(bad.trim().into()), "{bad}");
        }
        assert_eq!(refused("1-18446744073709551616"), SeedsError::Overflow("1-18446744073709551616".into()));
        assert_eq!(refused("99999999999999999999"), SeedsError::Overflow("99999999999999999999".into()));
        assert!(matches!(refused("1-10001"), SeedsError::TooMany { count: 10_001, .. }));
        let whole = format!("0-{}", u64::MAX);
        assert!(matches!(refused(&whole), SeedsError::TooMany { count, .. } if count == 1 << 64));
        assert_eq!(SeedRange::runs(0), Err(SeedsError::NoRuns));
        for bad in ["", "5-3", "a-b", "1-", "1-18446744073709551616", "1-10001"] {
            let message = refused(bad).to_string();
            assert!(!message.contains('\n') && message.len() < 120, "{message}");
        }
        assert_eq!(
            refused("5-3").to_string(),
            "the seed range 5-3 runs backwards: give the smaller seed first (3-5)"
        );
    }

    #[test]
    fn serde_writes_the_command_line_form() {
        let r = SeedRange::new(101, 115).unwrap();
        assert_eq!(serde_json::to_string(&r).unwrap(), "\"101-115\"");
        assert_eq!(serde_json::from_str::<SeedRange>("\"101-115\"").unwrap(), r);
        assert!(serde_json::from_str::<SeedRange>("\"5-3\"").is_err());
    }
}
