//! copy: output the ℓ objects in the order presented (MODEL §9).
//!
//! Scripted solution: during the presentation the read head stays on the first object (H1).
//! The first output step sees it unmarked at c_m_{t−1}: it stays (H1) and marks it with the
//! previous update (MODEL §2 step 4a), so later steps walk the temporal list forward (F1). The
//! step after reading the word flagged "last" is `M`.

use super::*;
use crate::{Algorithm, Task};
use nhc_model::{BusDecision, MemoryDecision, Observation, Policy, ReadMode};

/// copy (MODEL §9).
pub const COPY: Algorithm = Algorithm { name: "copy", ops: &OPS, config: config(SignalSet::FirstInnerLast) };

/// copy on a domain of objects.
#[derive(Debug, Clone, Copy, Default)]
pub struct Copy<O>(pub O);

impl<O: Objects> Task for Copy<O> {
    sequence_task!(COPY, SignalSet::FirstInnerLast, |l| l, |_| 1);

    fn sample(&self, level: usize, rng: &mut SampleRng) -> Self::Sample {
        Sequence { items: random_objects(&self.0, level, rng), passes: 1 }
    }
    fn trace(&self, s: &Self::Sample) -> Trace<O::Object> {
        trace(s.items.len(), &[&s.items])
    }
    fn reference(&self, s: &Self::Sample) -> Vec<O::Object> {
        s.items.clone()
    }
    fn scripted(&self) -> Box<dyn Policy + Send> {
        Box::new(ForwardScript { signals: SignalSet::FirstInnerLast })
    }
    fn parse_input(&self, v: &serde_json::Value) -> Result<Self::Sample, InputError> {
        parse_list(&self.0, v)
    }
    fn every_length_order(&self) -> Result<crate::every_length::Order, String> {
        Ok(crate::every_length::Order::Forward)
    }
    fn shapes(&self, bounds: &crate::verify::Bounds) -> Vec<crate::verify::Part<'_, Self::Sample>> {
        vec![list_part(&self.0, bounds)]
    }
    /// The presented objects (one pass).
    fn sample_json(&self, s: &Self::Sample) -> serde_json::Value {
        objects_json(&self.0, &s.items)
    }
}

/// Scripted solution of copy and duplicated: keep the kept objects in the temporal list, walk it
/// forward from the head object, which the first output step marks. In duplicated, repeats are
/// freed as soon as they are written (f_w = 1), so only first presentations stay in the list;
/// with no "last" flag, F1 from the last object reaches the step's own output-phase write
/// (appended before the read, MODEL §3), whose output flag means `M`.
#[derive(Debug, Clone, Copy)]
pub struct ForwardScript {
    pub signals: SignalSet,
}

impl Policy for ForwardScript {
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut MemoryDecision) {
        let (c, w) = (obs.input_controller, obs.read_prev);
        let output = c[self.signals.count() - 1] > 0.5;
        script_write(self.signals, obs.input_memory, w, &mut out.write);
        let repeat = self.signals == SignalSet::FirstRepeat && c[1] > 0.5;
        out.free_write[0] = output || repeat;
        // First output step: the head is still on the unmarked head object.
        let start = output && word_first(w) && !word_marked(w);
        if start {
            mark_read(out, 1.0);
        }
        let end = output && !start && word_last(w);
        plan_mark(c_c, !output || end);
        out.read_modes[0] = if output && !start && !end { ReadMode::Forward(0) } else { ReadMode::Halt(0) };
    }
    fn bus(&mut self, _c_ib: &[f32], c_c: &[f32], read_now: &[f32]) -> BusDecision {
        if word_output(read_now) { BusDecision { op: OP_MARK, margin: 1.0 } } else { planned_op(c_c) }
    }
}
