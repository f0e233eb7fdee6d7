//! duplicated: n objects, n uniform in 1..=ℓ ([`object_count`]), consecutive ones different,
//! each presented ℓ times in a row; output each once, in order (paper, "Copy, RepeatCopy,
//! Reverse, Duplicated": the level is the number of duplicates). Solved by [`ForwardScript`] with repeats freed on writing.

use super::copy::ForwardScript;
use super::*;
use crate::{Algorithm, Task};
use nhc_model::Policy;

/// duplicated (MODEL §9).
pub const DUPLICATED: Algorithm =
    Algorithm { name: "duplicated", ops: &OPS, config: config(SignalSet::FirstRepeat) };

/// The numbers of objects `nhc verify --every-length` proves duplicated for, each at every
/// number of repeats (0.2 s for the shipped models; the cost grows with its square).
pub const REPEATS_OBJECTS: u64 = 100;
/// The most objects it may be asked for.
pub const MAX_REPEATS_OBJECTS: u64 = 10_000;

/// duplicated on a domain of objects.
#[derive(Debug, Clone, Copy, Default)]
pub struct Duplicated<O>(pub O);

impl<O: Objects> Duplicated<O> {
    /// n objects, n uniform in 1..=ℓ ([`object_count`]), each different from the one before it.
    fn objects(&self, level: usize, rng: &mut SampleRng) -> Vec<O::Object> {
        let n = object_count(level, rng);
        let mut distinct: Vec<O::Object> = Vec::with_capacity(n);
        while distinct.len() < n {
            let x = self.0.random(rng);
            if distinct.last() != Some(&x) {
                distinct.push(x);
            }
        }
        distinct
    }
}

impl<O: Objects> Task for Duplicated<O> {
    sequence_task!(DUPLICATED, SignalSet::FirstRepeat, |l| l.saturating_mul(l), |_| 1);

    fn sample(&self, level: usize, rng: &mut SampleRng) -> Self::Sample {
        let distinct = self.objects(level, rng);
        let items = distinct.iter().flat_map(|x| std::iter::repeat_n(x.clone(), level)).collect();
        Sequence { items, passes: 1 }
    }
    /// As [`Task::sample`], but each object is shown a number of times of its own, uniform in
    /// 1..=ℓ: runs of different lengths, and runs of length 1 beside others, which no level shows.
    fn any_shape(&self, level: usize, rng: &mut SampleRng) -> Self::Sample {
        use rand::RngExt;
        let distinct = self.objects(level, rng);
        let mut items = Vec::new();
        for x in distinct {
            let shown = rng.random_range(1..=level.max(1));
            items.extend(std::iter::repeat_n(x, shown));
        }
        Sequence { items, passes: 1 }
    }
    fn trace(&self, s: &Self::Sample) -> Trace<O::Object> {
        trace(s.items.len(), &[&self.reference(s)])
    }
    fn reference(&self, s: &Self::Sample) -> Vec<O::Object> {
        let mut out = s.items.clone();
        out.dedup();
        out
    }
    fn scripted(&self) -> Box<dyn Policy + Send> {
        Box::new(ForwardScript { signals: SignalSet::FirstRepeat })
    }
    fn parse_input(&self, v: &serde_json::Value) -> Result<Self::Sample, InputError> {
        parse_list(&self.0, v)
    }
    /// Two parts: every sequence of run lengths presenting 1..=T objects, and n objects each
    /// presented r times for n, r up to N. The Input's signals depend on the run lengths alone;
    /// each run holds a word of its own.
    /// Every number of repeats, for 1..=[`REPEATS_OBJECTS`] objects: the samples of levels
    /// 1–100 (other run-length sequences: the listing).
    fn every_length_order(&self) -> Result<crate::every_length::Order, String> {
        Ok(crate::every_length::Order::Repeats { objects: REPEATS_OBJECTS })
    }
    /// Objects 1..=`objects` (the domain's words in turn), each presented `times` times.
    fn trace_input(&self, objects: u64, times: u64) -> Option<serde_json::Value> {
        let words = self.0.words().filter(|&w| w > 1);
        let items: Vec<O::Object> =
            (0..objects).map(|i| self.0.word(words.map_or(i, |w| i % w) + 1)).collect::<Option<_>>()?;
        let times = usize::try_from(times).ok()?;
        let items = items.into_iter().flat_map(|x| std::iter::repeat_n(x, times)).collect();
        Some(self.sample_json(&Sequence { items, passes: 1 }))
    }
    fn shapes(&self, bounds: &crate::verify::Bounds) -> Vec<crate::verify::Part<'_, Self::Sample>> {
        use crate::verify::{Part, Shaped, capped, composition, grid_cell};
        let o = &self.0;
        let runs = |lengths: &[u64]| Sequence {
            items: lengths
                .iter()
                .zip(distinct(o, lengths.len() as u64))
                .flat_map(|(&r, x)| std::iter::repeat_n(x, r as usize))
                .collect(),
            passes: 1,
        };
        let (total, note) = capped(bounds.get(0, RUNS_BOUND).min(62), o.words(), o.name(), "objects");
        let count = (1u64 << total) - 1;
        let cost =
            (1..=total).map(|t| (1u64 << (t - 1)).saturating_mul(steps(t, 1))).fold(0, u64::saturating_add);
        let every = Part {
            what: format!("presentation of 1–{total} objects, every sequence of run lengths"),
            exhaustive: true,
            axes: ["objects presented", "runs"],
            layer: "objects presented",
            bound: total,
            note,
            count,
            steps: cost,
            beyond_level: None,
            nth: Box::new(move |i| {
                // Layer t holds indices 2^(t−1) − 1 .. 2^t − 1.
                let t = u64::from(64 - (i + 1).leading_zeros());
                let lengths = composition(t, i + 1 - (1 << (t - 1)));
                Shaped { layer: t, cell: [t, lengths.len() as u64], sample: runs(&lengths) }
            }),
        };
        let (bound, note) = capped(bounds.get(1, GRID_BOUND), o.words(), o.name(), "objects");
        // Σ over n, r of 2 n r + 2 = 2 S² + 2 N², S = Σ n.
        let sum = triangle(bound);
        let cost = sum.saturating_mul(sum).saturating_add(bound.saturating_mul(bound)).saturating_mul(2);
        let uniform = Part {
            what: format!("1–{bound} objects, each presented 1–{bound} times"),
            exhaustive: true,
            axes: ["objects", "repeats"],
            layer: "objects and repeats",
            bound,
            note,
            count: bound.saturating_mul(bound),
            steps: cost,
            beyond_level: Some(Some),
            nth: Box::new(move |i| {
                let (layer, n, r) = grid_cell(i);
                Shaped { layer, cell: [n, r], sample: runs(&vec![r; n as usize]) }
            }),
        };
        vec![every, uniform]
    }
    /// The presented objects (one pass).
    fn sample_json(&self, s: &Self::Sample) -> serde_json::Value {
        objects_json(&self.0, &s.items)
    }
}
