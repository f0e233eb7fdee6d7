//! reverse: output the ℓ objects in reverse order (MODEL §9).
//!
//! Scripted solution: during the presentation the read head follows the newest write (F1), so
//! it ends on the last object; the output walks the temporal list backward (B1) and marks the
//! step after reading the word flagged "first".

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
        let output = obs.input_controller[3] > 0.5;
        script_write(SignalSet::FirstInnerLast, obs.input_memory, &mut out.write);
        out.free_write[0] = output;
        let started = obs.bus_prev[OP_MARK] < 0.5;
        let mark = !output || (started && word_first(obs.read_prev));
        plan_mark(c_c, mark);
        out.read_modes[0] = match (output, started && !mark) {
            (false, _) => ReadMode::Forward(0),
            (true, true) => ReadMode::Backward(0),
            (true, false) => ReadMode::Halt(0),
        };
    }
    fn bus(&mut self, _c_ib: &[f32], c_c: &[f32], _read_now: &[f32]) -> BusDecision {
        planned_op(c_c)
    }
}
