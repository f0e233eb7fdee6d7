//! Verification (docs/VERIFICATION.md, "Verification"): a model run on one input per control-distinct
//! class, every class up to a bound, so that "right on each" means "right on every input" of
//! those classes.
//!
//! The algorithmic modules see the data only through the Input's control signals and the ALU's
//! feedback (paper, "Information split"). Where those depend on a few features of the input (its
//! length, its run lengths, the order of its items, the shape of an expression), every input with
//! the same features drives the Controller, Memory and Bus through the same steps as long as the
//! model is right. A task lists one representative per class ([`Part`]), built from words that
//! are all distinct (and distinct from the default word), so that reading the right word means
//! reading the right location. Where a task cannot list its classes, [`sampled`] draws samples
//! and the report says so: a sample is never a proof. After the listing, the beyond stage
//! ([`Beyond`]) samples each part's own levels above its bound, to say where a model verified to
//! the bound stops being right.

use crate::{SampleRng, Task, sample_rng};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Most inputs one part may hold (so that a bound cannot ask for a run without end).
pub const MAX_INPUTS: u64 = 50_000_000;
/// Most model steps one verification may run (about hours on two cores).
pub const MAX_STEPS: u64 = 100_000_000_000;
/// Seed of the samples a sampled part draws (no test level's seed, [`crate::sample_rng`]).
pub const SAMPLE_SEED: u64 = 5_000;
/// Levels and samples per level of a sampled part by default.
pub const SAMPLED_LEVELS: usize = 20;
pub const SAMPLED_PER_LEVEL: u64 = 20;

/// The top size of the beyond stage by default (`nhc verify --beyond`; docs/VERIFICATION.md,
/// "Verification").
pub const BEYOND: u64 = 1_000;
/// Beyond a bound, every one of the first [`BEYOND_NEXT`] sizes with [`BEYOND_NEXT_PER_SIZE`]
/// samples each (most models that stop being right do so within a few sizes of the bound, some
/// on one sample in twenty), then at most [`BEYOND_SIZES`] more, log-spaced to the top, with
/// [`BEYOND_PER_SIZE`] samples each.
pub const BEYOND_NEXT: u64 = 20;
pub const BEYOND_NEXT_PER_SIZE: u64 = 20;
pub const BEYOND_SIZES: u64 = 12;
pub const BEYOND_PER_SIZE: u64 = 5;

/// A count for a message: exact below 10⁹, else about (`u64::MAX`: past counting).
pub fn count(n: u64) -> String {
    match n {
        u64::MAX => "more than 10^19".to_string(),
        n if n < 1_000_000_000 => n.to_string(),
        n => format!("about {:.1e}", n as f64),
    }
}

/// One input of a [`Part`]: its representative sample, the layer it belongs to (the size the
/// bound limits: lengths, objects, operators) and its cell on the part's map.
#[derive(Debug, Clone)]
pub struct Shaped<S> {
    pub layer: u64,
    pub cell: [u64; 2],
    pub sample: S,
}

/// A list of inputs, in order of size: layer 1 first, every input of layers 1..=`bound`.
pub struct Part<'a, S> {
    /// What an input of the part is, with the bound, e.g. "list of 1–400 objects".
    pub what: String,
    /// Whether the inputs stand for every input of their classes (else they are samples).
    pub exhaustive: bool,
    /// The map's axes: the layer's name first; the second is empty for one-parameter parts.
    pub axes: [&'static str; 2],
    /// What a layer counts, e.g. "objects", or "objects and copies" where a layer is the
    /// larger of both.
    pub layer: &'static str,
    pub bound: u64,
    /// Why the bound is less than asked for, if it is.
    pub note: Option<String>,
    pub count: u64,
    /// At least the model steps of every input together (for the cost check).
    pub steps: u64,
    /// The level whose samples all have a given size in the part's unit, for the beyond stage
    /// (`None`: no level's samples do, e.g. duplicated's run-length sequences).
    pub beyond_level: Option<fn(u64) -> Option<u64>>,
    /// Input `i` of the part, `i < count`.
    pub nth: Box<dyn Fn(u64) -> Shaped<S> + Send + Sync + 'a>,
}

impl<S> Part<'_, S> {
    /// The text of a shape: its axes and values ("objects 11", "objects 3, copies 12").
    pub fn shape(&self, cell: [u64; 2]) -> String {
        match self.axes[1] {
            "" => format!("{} {}", self.axes[0], cell[0]),
            b => format!("{} {}, {b} {}", self.axes[0], cell[0], cell[1]),
        }
    }
}

/// The bounds asked for: none (every part's default), one (every part's), or one per part.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bounds(pub Vec<u64>);

impl Bounds {
    /// Part `i`'s bound: the one asked for, or `default`.
    pub fn get(&self, i: usize, default: u64) -> u64 {
        match self.0.as_slice() {
            [] => default,
            [b] => *b,
            bs => bs.get(i).copied().unwrap_or(default),
        }
    }
}

/// A step where the model did not do what the expected trace asks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WrongStep {
    pub step: u64,
    pub phase: String,
    /// The expected operation (`None`: the run went past the trace's end).
    pub expected_op: Option<String>,
    pub op: String,
    /// Per read head, the expected word (`None` where any word will do).
    pub expected_reads: Vec<Option<String>>,
    /// Per read head: mode, location, word read.
    pub reads: Vec<(String, usize, String)>,
}

/// The smallest input of a part the model gets wrong.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counterexample {
    /// Its shape, as text ([`Part::shape`]).
    pub shape: String,
    pub layer: u64,
    pub cell: [u64; 2],
    /// The input, in the form `nhc run --input` takes.
    pub input: Value,
    pub expected: Value,
    pub output: Value,
    pub steps: u64,
    /// The first step that differs from the expected trace; `None` when every step agrees and
    /// the run stops at the wrong step.
    pub first_wrong: Option<WrongStep>,
}

/// How many inputs of one map cell ran and how many were wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    pub at: [u64; 2],
    pub inputs: u64,
    pub failed: u64,
}

/// What one part gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartReport {
    pub what: String,
    pub exhaustive: bool,
    pub axes: [String; 2],
    pub layer: String,
    pub bound: u64,
    pub note: Option<String>,
    pub inputs: u64,
    pub steps: u64,
    pub failed: u64,
    /// The largest layer L such that every input of layers 1..=L is right (0: one of layer 1
    /// is wrong); `bound` when none is wrong.
    pub right_to: u64,
    pub smallest: Option<Counterexample>,
    /// Every cell of the map, in order.
    pub cells: Vec<Cell>,
    /// Samples beyond the bound, when the part is right to it and has a level sampler there
    /// (absent in reports older than the stage).
    #[serde(default)]
    pub beyond: Option<Beyond>,
}

/// The beyond stage of a part (docs/VERIFICATION.md, "Verification"): the task's own level sampler
/// at log-spaced sizes from just above the bound to a top. Samples, not a proof: it says where
/// a model verified to its bound stops being right, not that it is right.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Beyond {
    /// The sizes sampled, in the part's `layer` unit, ascending.
    pub sizes: Vec<u64>,
    /// The level whose samples have each size (`nhc trace --level`).
    pub levels: Vec<u64>,
    /// Samples run, and wrong, per size.
    pub samples: Vec<u64>,
    pub failed: Vec<u64>,
    pub steps: u64,
    /// Sample `i` of a size is sample `i` of its level under this seed ([`crate::sample_rng`]).
    pub seed: u64,
    /// The first wrong sample in order of size (then index).
    pub smallest: Option<WrongSample>,
}

impl Beyond {
    /// Wrong samples in all.
    pub fn wrong(&self) -> u64 {
        self.failed.iter().sum()
    }
}

/// A wrong sample beyond the bound: which sample of which level, and its run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WrongSample {
    pub level: u64,
    pub index: u64,
    #[serde(flatten)]
    pub run: Counterexample,
}

/// The sizes from `bound + 1` to `top`: the next [`BEYOND_NEXT`], then [`BEYOND_SIZES`]
/// log-spaced from there to `top` (every size when fewer); none when `top ≤ bound`.
pub fn beyond_sizes(bound: u64, top: u64) -> Vec<u64> {
    let Some(lo) = bound.checked_add(1).filter(|&lo| lo <= top) else { return Vec::new() };
    if top - lo < BEYOND_NEXT + BEYOND_SIZES {
        return (lo..=top).collect();
    }
    let mut sizes: Vec<u64> = (lo..lo + BEYOND_NEXT).collect();
    let (from, k) = (lo + BEYOND_NEXT, BEYOND_SIZES);
    let step = (top as f64 / from as f64).ln() / (k - 1) as f64;
    sizes.extend((0..k - 1).map(|i| ((from as f64) * (step * i as f64).exp()).round() as u64));
    sizes.push(top);
    sizes.dedup();
    sizes
}

/// Samples drawn at `size` beyond `bound`: [`BEYOND_NEXT_PER_SIZE`] within the next
/// [`BEYOND_NEXT`] sizes, [`BEYOND_PER_SIZE`] above.
pub fn beyond_per_size(bound: u64, size: u64) -> u64 {
    match size.saturating_sub(bound) <= BEYOND_NEXT {
        true => BEYOND_NEXT_PER_SIZE,
        false => BEYOND_PER_SIZE,
    }
}

/// What `nhc verify` reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub task: String,
    pub domain: String,
    /// The model's variant, or `scripted`.
    pub variant: String,
    /// `verified` (every part exhaustive and right), `counterexample` (some input wrong), or
    /// `sampled` (right on samples, which prove nothing); `verified, wrong beyond` and
    /// `sampled, wrong beyond` when a sample beyond a bound is wrong.
    pub outcome: String,
    pub parts: Vec<PartReport>,
    pub seconds: f64,
    /// With `--every-length`: the proof, or why there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every_length: Option<EveryLength>,
}

/// `nhc verify --every-length` (docs/VERIFICATION.md, "Every length").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EveryLength {
    /// `proved` (lengths from `proof.n0` on by the symbolic run, the others listed, all
    /// right; duplicated: every number of repeats, `repeats`), `wrong` (a length is wrong) or
    /// `not proved`.
    pub outcome: String,
    /// Why it is not proved.
    pub reason: Option<String>,
    pub proof: Option<crate::every_length::Proof>,
    /// The symbolic run's time (the listing's is the report's).
    pub seconds: f64,
    /// repeatCopy and duplicated: the input whose run shows the repeating block
    /// ([`crate::every_length::Proof::pass_block`], [`crate::every_length::Repeats::block`]),
    /// for `nhc trace --input`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_input: Option<serde_json::Value>,
    /// duplicated: the proof for every number of repeats, for 1..=`objects` objects (other
    /// run-length sequences: the listing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats: Option<crate::every_length::Repeats>,
}

impl Report {
    /// Whether some input was wrong.
    pub fn failed(&self) -> bool {
        self.parts.iter().any(|p| p.failed > 0)
    }
    /// Whether no input within the bounds was wrong and some sample beyond them was.
    pub fn wrong_beyond(&self) -> bool {
        !self.failed() && self.parts.iter().any(|p| p.beyond.as_ref().is_some_and(|b| b.wrong() > 0))
    }
    /// The outcome ([`Report::outcome`]), from the parts.
    pub fn outcome_of(parts: &[PartReport]) -> &'static str {
        let beyond = parts.iter().any(|p| p.beyond.as_ref().is_some_and(|b| b.wrong() > 0));
        match (parts.iter().any(|p| p.failed > 0), parts.iter().all(|p| p.exhaustive), beyond) {
            (true, _, _) => "counterexample",
            (false, true, false) => "verified",
            (false, true, true) => "verified, wrong beyond",
            (false, false, false) => "sampled",
            (false, false, true) => "sampled, wrong beyond",
        }
    }
}

/// One input's result, folded into a part's report.
#[derive(Debug, Clone, Copy)]
pub struct Ran {
    pub index: u64,
    pub layer: u64,
    pub cell: [u64; 2],
    pub solved: bool,
    pub steps: u64,
}

/// Folds results (in index order) into cells, counts and the first failure's index.
#[derive(Debug, Default)]
pub struct Tally {
    pub inputs: u64,
    pub steps: u64,
    pub failed: u64,
    /// Index and layer of the first wrong input (layers grow with the index).
    pub first_failure: Option<(u64, u64)>,
    pub cells: BTreeMap<[u64; 2], (u64, u64)>,
}

impl Tally {
    pub fn add(&mut self, r: &Ran) {
        self.inputs += 1;
        self.steps = self.steps.saturating_add(r.steps);
        let cell = self.cells.entry(r.cell).or_default();
        cell.0 += 1;
        if !r.solved {
            cell.1 += 1;
            self.failed += 1;
            if self.first_failure.is_none() {
                self.first_failure = Some((r.index, r.layer));
            }
        }
    }
    pub fn cells(&self) -> Vec<Cell> {
        self.cells.iter().map(|(&at, &(inputs, failed))| Cell { at, inputs, failed }).collect()
    }
}

/// A sampled part: `per_level` samples of each level 1..=`levels` (seed [`SAMPLE_SEED`]), for
/// a task that cannot list its control-distinct inputs.
pub fn sampled<T: Task>(task: &T, levels: u64, per_level: u64) -> Part<'_, T::Sample> {
    let steps = (1..=levels).map(|l| task.max_steps(l as usize)).fold(0u64, u64::saturating_add);
    Part {
        what: format!("{per_level} random samples of each level 1–{levels}"),
        exhaustive: false,
        axes: ["level", ""],
        layer: "levels",
        bound: levels,
        note: None,
        count: levels.saturating_mul(per_level),
        steps: steps.saturating_mul(per_level),
        beyond_level: Some(Some),
        nth: Box::new(move |i| {
            let level = i / per_level + 1;
            let mut rng: SampleRng = sample_rng(SAMPLE_SEED, level as usize, i % per_level);
            Shaped { layer: level, cell: [level, 0], sample: task.sample(level as usize, &mut rng) }
        }),
    }
}

/// A bound capped at what a domain's distinct words allow: (bound, note).
pub fn capped(asked: u64, words: Option<u64>, domain: &str, unit: &str) -> (u64, Option<String>) {
    match words {
        Some(w) if w < asked => (
            w,
            Some(format!(
                "domain `{domain}` has {w} words besides the default word: the bound is {w} {unit}; a domain of more words (e.g. --domain decimal) goes further"
            )),
        ),
        _ => (asked, None),
    }
}

/// `(layer m, first, second)` of index `i` of a square grid listed by layers `max(a, b) = m`:
/// layer m holds (1, m) … (m−1, m), then (m, 1) … (m, m).
pub fn grid_cell(i: u64) -> (u64, u64, u64) {
    let m = i.isqrt() + 1;
    let j = i - (m - 1) * (m - 1);
    if j + 1 < m { (m, j + 1, m) } else { (m, m, j + 2 - m) }
}

/// The layer (from 1) of list index `i`, and `i`'s place in it, for layers of `counts[k]`
/// inputs each (`i` below their sum).
pub fn in_layer(counts: &[u64], mut i: u64) -> (usize, u64) {
    let mut layer = 1;
    while i >= counts[layer - 1] {
        i -= counts[layer - 1];
        layer += 1;
    }
    (layer, i)
}

/// Every weak ordering of `n` items (ties allowed) as ranks `0..k` with each rank used, `n`
/// entries per ordering, in lexicographic order: the ordered set partitions of n items.
pub fn weak_orders(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut ranks = vec![0u8; n];
    // Mixed-radix count over ranks 0..n; keep those whose ranks form a prefix 0..k.
    loop {
        let mut used = [false; 256];
        ranks.iter().for_each(|&r| used[r as usize] = true);
        let k = used.iter().take_while(|&&u| u).count();
        if used.iter().filter(|&&u| u).count() == k {
            out.extend_from_slice(&ranks);
        }
        let Some(p) = (0..n).rev().find(|&p| (ranks[p] as usize) + 1 < n) else { break };
        ranks[p] += 1;
        ranks[p + 1..].fill(0);
    }
    out
}

/// The number of weak orderings of `n` items (the Fubini numbers), saturating.
pub fn weak_order_count(n: u64) -> u64 {
    // a(n) = Σ_{k=1..n} C(n, k) a(n−k), a(0) = 1.
    let mut a = vec![1u128];
    for m in 1..=n as usize {
        let mut c = 1u128;
        let mut s = 0u128;
        for k in 1..=m {
            c = c * (m - k + 1) as u128 / k as u128;
            s = s.saturating_add(c.saturating_mul(a[m - k]));
        }
        a.push(s);
    }
    u64::try_from(a[n as usize]).unwrap_or(u64::MAX)
}

/// Every postfix shape with `k` binary operators (bit j set: token j is an operand): `2k + 1`
/// tokens whose stack depth stays ≥ 1 and ends at 1, operators placed as early as they can be
/// first.
pub fn postfix_shapes(k: usize) -> Vec<u64> {
    fn go(k: usize, tokens: usize, depth: usize, ops: usize, bits: u64, out: &mut Vec<u64>) {
        if tokens == 2 * k + 1 {
            out.push(bits);
            return;
        }
        let operands = tokens - ops;
        // An operator needs two values on the stack; an operand needs room for the operators left.
        if depth >= 2 && ops < k {
            go(k, tokens + 1, depth - 1, ops + 1, bits, out);
        }
        if operands < k + 1 {
            go(k, tokens + 1, depth + 1, ops, bits | 1 << tokens, out);
        }
    }
    let mut out = Vec::new();
    if k <= 31 {
        go(k, 0, 0, 0, 0, &mut out);
    }
    out
}

/// The Catalan number C_k (postfix shapes with k operators), saturating.
pub fn catalan(k: u64) -> u64 {
    let mut c = 1u128;
    for i in 0..k as u128 {
        c = c * 2 * (2 * i + 1) / (i + 2);
        if c > u64::MAX as u128 {
            return u64::MAX;
        }
    }
    c as u64
}

/// The deepest stack of a postfix shape of `tokens` tokens.
pub fn stack_depth(bits: u64, tokens: usize) -> u64 {
    let (mut d, mut top) = (0i64, 0i64);
    for j in 0..tokens {
        d += if bits >> j & 1 == 1 { 1 } else { -1 };
        top = top.max(d);
    }
    top as u64
}

/// The run lengths of composition `mask` of `total`: bit j set ends a run after item j + 1.
pub fn composition(total: u64, mask: u64) -> Vec<u64> {
    let mut runs = Vec::new();
    let mut len = 1;
    for j in 0..total - 1 {
        if mask >> j & 1 == 1 {
            runs.push(len);
            len = 1;
        } else {
            len += 1;
        }
    }
    runs.push(len);
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weak_orders_are_the_fubini_numbers() {
        for n in 1..=6 {
            let all = weak_orders(n);
            assert_eq!(all.len() as u64 / n as u64, weak_order_count(n as u64), "n = {n}");
            let mut seen: Vec<&[u8]> = all.chunks(n).collect();
            seen.dedup();
            assert_eq!(seen.len() as u64, weak_order_count(n as u64));
        }
        assert_eq!(weak_order_count(8), 545_835);
    }

    #[test]
    fn postfix_shapes_are_the_catalan_numbers() {
        for k in 0..=9 {
            let shapes = postfix_shapes(k);
            assert_eq!(shapes.len() as u64, catalan(k as u64), "k = {k}");
            for bits in shapes {
                let mut d = 0i64;
                for j in 0..2 * k + 1 {
                    d += if bits >> j & 1 == 1 { 1 } else { -1 };
                    assert!(d >= 1 || (j == 0 && d == 1), "shape {bits:b}");
                }
                assert_eq!(d, 1);
            }
        }
    }

    #[test]
    fn grid_layers_list_every_cell_once() {
        let n = 7;
        let mut cells: Vec<(u64, u64)> = (0..n * n).map(grid_cell).map(|(_, a, b)| (a, b)).collect();
        assert!((0..n * n).all(|i| grid_cell(i).0 == grid_cell(i).1.max(grid_cell(i).2)));
        cells.sort_unstable();
        cells.dedup();
        assert_eq!(cells.len() as u64, n * n);
        assert!(cells.iter().all(|&(a, b)| a <= n && b <= n && a >= 1 && b >= 1));
    }

    #[test]
    fn beyond_sizes_are_log_spaced_from_above_the_bound_to_the_top() {
        let s = beyond_sizes(8, 1000);
        assert_eq!((s.len() as u64, s[BEYOND_NEXT as usize], s[s.len() - 1]), (32, 29, 1000), "{s:?}");
        assert_eq!(s[..20], (9..29).collect::<Vec<_>>());
        assert!(s.windows(2).all(|w| w[0] < w[1]), "{s:?}");
        let per: Vec<u64> = s.iter().map(|&n| beyond_per_size(8, n)).collect();
        assert_eq!((per[19], per[20], per.iter().sum::<u64>()), (20, 5, 460), "{per:?}");
        assert_eq!(beyond_sizes(8, 11), [9, 10, 11]);
        assert_eq!(beyond_sizes(1, 33), (2..=33).collect::<Vec<_>>());
        assert_eq!(beyond_sizes(999, 1000), [1000]);
        assert!(beyond_sizes(2000, 1000).is_empty() && beyond_sizes(5, 0).is_empty());
        assert!(beyond_sizes(u64::MAX, u64::MAX).is_empty());
    }

    #[test]
    fn compositions_cover_every_run_length_sequence() {
        let total = 5;
        let mut all: Vec<Vec<u64>> = (0..1 << (total - 1)).map(|m| composition(total, m)).collect();
        assert!(all.iter().all(|r| r.iter().sum::<u64>() == total));
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 16);
    }
}
