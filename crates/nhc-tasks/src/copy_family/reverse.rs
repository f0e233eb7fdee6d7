//! reverse: output the ℓ objects in reverse order (MODEL §9).
//!
//! Scripted solution: during the presentation the read head follows the newest write (F1), so
//! it ends on the last object. The first output step sees it unmarked at c_m_{t−1}: it stays
//! (H1) and marks it with the previous update (MODEL §2 step 4a); later steps walk the temporal
//! list backward (B1), and the step after reading the word flagged "first" is `M`.

use super::*;
use crate::{Algorithm, Task};
use nhc_model::{BusDecision, MemoryDecision, Observation, Policy, ReadMode};

/// reverse (MODEL §9).
pub const REVERSE: Algorithm =
    Algorithm { name: "reverse", ops: &OPS, config: config(SignalSet::FirstInnerLast) };

/// reverse on a domain of objects.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reverse<O>(pub O);

impl<O: Objects> Task for Reverse<O> {
    sequence_task!(REVERSE, SignalSet::FirstInnerLast, |l| l, |_| 1);

    fn sample(&self, level: usize, rng: &mut SampleRng) -> Self::Sample {
        Sequence { items: random_objects(&self.0, level, rng), passes: 1 }
    }
    fn trace(&self, s: &Self::Sample) -> Trace<O::Object> {
        trace(s.items.len(), &[&self.reference(s)])
    }
    fn reference(&self, s: &Self::Sample) -> Vec<O::Object> {
        s.items.iter().rev().cloned().collect()
    }
    fn scripted(&self) -> Box<dyn Policy + Send> {
        Box::new(ReverseScript)
    }
    fn parse_input(&self, v: &serde_json::Value) -> Result<Self::Sample, InputError> {
        parse_list(&self.0, v)
    }
    fn every_length_order(&self) -> Result<crate::every_length::Order, String> {
        Ok(crate::every_length::Order::Backward)
    }
    fn shapes(&self, bounds: &crate::verify::Bounds) -> Vec<crate::verify::Part<'_, Self::Sample>> {
        vec![list_part(&self.0, bounds)]
    }
    /// The presented objects (one pass).
    fn sample_json(&self, s: &Self::Sample) -> serde_json::Value {
        objects_json(&self.0, &s.items)
    }
}

/// Scripted solution of reverse.
#[derive(Debug, Clone, Copy)]
pub struct ReverseScript;

impl Policy for ReverseScript {
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut MemoryDecision) {
        let w = obs.read_prev;
        let output = obs.input_controller[3] > 0.5;
        script_write(SignalSet::FirstInnerLast, obs.input_memory, w, &mut out.write);
        out.free_write[0] = output;
        // First output step: the head is still on the unmarked last object.
        let start = output && word_last(w) && !word_marked(w);
        if start {
            mark_read(out, 1.0);
        }
        let end = output && !start && word_first(w);
        plan_mark(c_c, !output || end);
        out.read_modes[0] = match (output, start || end) {
            (false, _) => ReadMode::Forward(0),
            (true, false) => ReadMode::Backward(0),
            (true, true) => ReadMode::Halt(0),
        };
    }
    fn bus(&mut self, _c_ib: &[f32], c_c: &[f32], _read_now: &[f32]) -> BusDecision {
        planned_op(c_c)
    }
}
