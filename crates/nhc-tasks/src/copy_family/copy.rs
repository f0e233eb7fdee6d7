//! copy: output the ℓ objects in the order presented (SPEC §9).
//!
//! Scripted solution: during the presentation the read head stays on the first object (H1);
//! in the output phase it starts there (H1 after the presentation's `M`) and walks the temporal
//! list forward (F1). The step's own output-phase write is appended to the list, so the step
//! after the last object reads an output-phase word: that is the `M` step.

use super::*;
use crate::Task;
use nhc_model::{BusDecision, MemoryDecision, Observation, Policy, ReadMode};

pub struct Copy;

impl Task for Copy {
    type Scripted = ForwardScript;
    const NAME: &'static str = "copy";
    sequence_task!(SignalSet::FirstInnerLast);

    fn sample(level: usize, rng: &mut SampleRng) -> Sequence {
        Sequence { items: random_objects(level, rng), passes: 1 }
    }
    fn trace(s: &Sequence) -> Trace<Object> {
        trace(s.items.len(), &[&s.items])
    }
    fn reference(s: &Sequence) -> Vec<Object> {
        s.items.clone()
    }
    fn scripted() -> ForwardScript {
        ForwardScript { signals: SignalSet::FirstInnerLast }
    }
    fn parse_input(v: &serde_json::Value) -> Result<Sequence, InputError> {
        parse_list(v)
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
    fn memory(&mut self, obs: &Observation<'_>, out: &mut MemoryDecision) {
        let c = obs.input_controller;
        let output = c[self.signals.count() - 1] > 0.5;
        script_write(self.signals, obs.input_memory, &mut out.write);
        let repeat = self.signals == SignalSet::FirstRepeat && c[1] > 0.5;
        out.free_write[0] = output || repeat;
        let started = obs.bus_prev[OP_MARK] < 0.5;
        out.read_modes[0] = if output && started { ReadMode::Forward(0) } else { ReadMode::Halt(0) };
    }
    fn bus(&mut self, c_ib: &[f32], read_now: &[f32]) -> BusDecision {
        let output = c_ib[self.signals.count() - 1] > 0.5;
        let op = if output && !word_output(read_now) { OP_OUTPUT } else { OP_MARK };
        BusDecision { op, margin: 1.0 }
    }
}
