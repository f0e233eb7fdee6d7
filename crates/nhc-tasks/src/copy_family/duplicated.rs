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

/// duplicated on a domain of objects.
#[derive(Debug, Clone, Copy, Default)]
pub struct Duplicated<O>(pub O);

impl<O: Objects> Task for Duplicated<O> {
    sequence_task!(DUPLICATED, SignalSet::FirstRepeat, |l| l.saturating_mul(l), |_| 1);

    fn sample(&self, level: usize, rng: &mut SampleRng) -> Self::Sample {
        let n = object_count(level, rng);
        let mut distinct: Vec<O::Object> = Vec::with_capacity(n);
        while distinct.len() < n {
            let x = self.0.random(rng);
            if distinct.last() != Some(&x) {
                distinct.push(x);
            }
        }
        let items = distinct.iter().flat_map(|x| std::iter::repeat_n(x.clone(), level)).collect();
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
    /// The presented objects (one pass).
    fn sample_json(&self, s: &Self::Sample) -> serde_json::Value {
        objects_json(&self.0, &s.items)
    }
}
