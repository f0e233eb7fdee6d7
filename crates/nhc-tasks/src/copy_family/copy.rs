//! copy: output the ℓ objects in the order presented (MODEL §9).
//!
//! Scripted solution: during the presentation the read head stays on the first object (H1);
//! in the output phase it starts there (H1 after the presentation's `M`) and walks the temporal
//! list forward (F1). The step's own output-phase write is appended to the list, so the step
//! after the last object reads an output-phase word: that is the `M` step.

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
    /// The presented objects (one pass).
    fn sample_json(&self, s: &Self::Sample) -> serde_json::Value {
        objects_json(&self.0, &s.items)
    }
}

/// Scripted solution of copy and duplicated: keep the kept objects in the temporal list, walk it
/// forward, mark on reaching the output-phase write. In duplicated, repeats are freed as soon as
/// they are written (f_w = 1), so only first presentations stay in the list.
#[derive(Debug, Clone, Copy)]
pub struct ForwardScript {
    pub signals: SignalSet,
}

impl Policy for ForwardScript {
    fn control(&mut self, obs: &Observation<'_>, _c_c: &mut [f32], out: &mut MemoryDecision) {
        let c = obs.input_controller;
        let output = c[self.signals.count() - 1] > 0.5;
        script_write(self.signals, obs.input_memory, &mut out.write);
        let repeat = self.signals == SignalSet::FirstRepeat && c[1] > 0.5;
        out.free_write[0] = output || repeat;
        let started = obs.bus_prev[OP_MARK] < 0.5;
        out.read_modes[0] = if output && started { ReadMode::Forward(0) } else { ReadMode::Halt(0) };
    }
    fn bus(&mut self, c_ib: &[f32], _c_c: &[f32], read_now: &[f32]) -> BusDecision {
        let output = c_ib[self.signals.count() - 1] > 0.5;
        let op = if output && !word_output(read_now) { OP_OUTPUT } else { OP_MARK };
        BusDecision { op, margin: 1.0 }
    }
}
