//! copy and sort declared as one's own algorithms would be, from the paper's description and
//! without the built-in tasks' code: about 60 lines each. They train to the built-ins' θ bit for
//! bit (crates/nhc-train/tests/declared.rs), and `nhc bench --train --declared` measures what the
//! declared path costs.

use super::{Declared, Own, Pattern, Stop, Stream};
use crate::any_task::Entry;
use crate::{Algorithm, SampleRng};
use nhc_model::Trace;
use rand::RngExt;

/// copy declared, as an [`crate::AnyTask`].
pub static COPY: Entry<Own<DeclaredCopy>> = Entry(Own(DeclaredCopy));
/// sort declared, as an [`crate::AnyTask`].
pub static SORT: Entry<Own<DeclaredSort>> = Entry(Own(DeclaredSort));

/// copy: output the ℓ presented 6-bit objects in order, then `M`.
#[derive(Debug, Clone, Copy)]
pub struct DeclaredCopy;

const COPY_ALGORITHM: Algorithm = Algorithm::declare("copy", &["O", "M"], 4, 1, 0, true);

impl Declared for DeclaredCopy {
    type Word = u8;
    type Sample = Vec<u8>;
    fn algorithm(&self) -> &'static Algorithm {
        &COPY_ALGORITHM
    }
    fn sample(&self, level: usize, rng: &mut SampleRng) -> Vec<u8> {
        (0..level).map(|_| rng.random_range(0..64u8)).collect()
    }
    fn input(&self, s: &Vec<u8>) -> Stream<u8> {
        Stream::first_inner_last(s.clone(), 0, Stop { op: 1, count: 1 })
    }
    fn program(&self, s: &Vec<u8>) -> Trace<u8> {
        let mut t = Trace::new(1);
        s.iter().for_each(|_| t.push_unscored());
        s.iter().for_each(|&x| t.push(0, &[Some(x)]));
        t.push(1, &[None]);
        t
    }
    fn reference(&self, s: &Vec<u8>) -> Vec<u8> {
        s.clone()
    }
    fn presents_itself(&self) -> Result<Pattern, String> {
        Ok(Pattern::FirstInnerLast)
    }
    fn sample_of(&self, words: Vec<u8>) -> Option<Vec<u8>> {
        Some(words)
    }
    /// The bytes 1..=255 (0 is the empty word).
    fn distinct_word(&self, k: u64) -> Option<u8> {
        u8::try_from(k).ok().filter(|&b| b > 0)
    }
}

/// sort: ℓ+1 bytes, output in ascending order by selection with repeated scans; `C` compares the
/// candidate (head 1) with the walker (head 2), `S` skips an object already output, `O` outputs
/// the candidate once the walker has passed the list. The ALU's feedback is
/// `[cmp, 1 − cmp, s, o]` with `cmp = candidate ≤ walker`.
#[derive(Debug, Clone, Copy)]
pub struct DeclaredSort;

const SORT_ALGORITHM: Algorithm = Algorithm::declare("sort", &["C", "S", "O"], 4, 2, 4, false);

impl Declared for DeclaredSort {
    type Word = u8;
    type Sample = Vec<u8>;
    fn algorithm(&self) -> &'static Algorithm {
        &SORT_ALGORITHM
    }
    fn sample(&self, level: usize, rng: &mut SampleRng) -> Vec<u8> {
        (0..=level).map(|_| rng.random_range(0..=255u8)).collect()
    }
    fn input(&self, s: &Vec<u8>) -> Stream<u8> {
        Stream::first_inner_last(s.clone(), 2, Stop { op: 2, count: s.len() })
    }
    fn program(&self, s: &Vec<u8>) -> Trace<u8> {
        let (n, mut t) = (s.len(), Trace::new(2));
        s.iter().for_each(|_| t.push_unscored());
        let mut done = vec![false; n];
        let (mut c, mut w) = (0, 1);
        for scan in 1..=n {
            for w in w..n {
                if done[c] || done[w] {
                    t.push(1, &[(!done[c]).then_some(s[c]), Some(s[w])]);
                    c = if done[c] { w } else { c };
                } else {
                    t.push(0, &[Some(s[c]), Some(s[w])]);
                    c = if s[c] <= s[w] { c } else { w };
                }
            }
            t.push(2, &[Some(s[c]), Some(0)]);
            done[c] = true;
            (c, w) = if scan < n { (0, 0) } else { (c, w) };
        }
        t
    }
    fn reference(&self, s: &Vec<u8>) -> Vec<u8> {
        let mut sorted = s.clone();
        sorted.sort();
        sorted
    }
    fn alu(&self, op: usize, reads: &[u8], feedback: &mut [f32]) -> u8 {
        let cmp = reads[0] <= reads[1];
        let f = |b: bool| if b { 1.0 } else { 0.0 };
        feedback.copy_from_slice(&[f(cmp), f(!cmp), f(op == 1), f(op == 2)]);
        reads[0]
    }
}
