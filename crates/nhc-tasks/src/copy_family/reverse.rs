//! reverse: output the ℓ objects in reverse order (SPEC §9).
//!
//! Scripted solution: during the presentation the read head follows the newest write (F1), so
//! it ends on the last object; the output walks the temporal list backward (B1) and marks the
//! step after reading the word flagged "first".

use super::*;
use crate::Task;
use nhc_model::{BusDecision, MemoryDecision, Observation, Policy, ReadMode};

pub struct Reverse;

impl Task for Reverse {
    type Scripted = ReverseScript;
    const NAME: &'static str = "reverse";
    sequence_task!(SignalSet::FirstInnerLast);

    fn sample(level: usize, rng: &mut SampleRng) -> Sequence {
        Sequence { items: random_objects(level, rng), passes: 1 }
    }
    fn trace(s: &Sequence) -> Trace<Object> {
        trace(s.items.len(), &[&Self::reference(s)])
    }
    fn reference(s: &Sequence) -> Vec<Object> {
        s.items.iter().rev().copied().collect()
    }
    fn scripted() -> ReverseScript {
        ReverseScript { mark: false }
    }
    fn parse_input(v: &serde_json::Value) -> Result<Sequence, InputError> {
        parse_list(v)
    }
}

/// Scripted solution of reverse.
#[derive(Debug, Clone, Copy)]
pub struct ReverseScript {
    mark: bool,
}

impl Policy for ReverseScript {
    fn memory(&mut self, obs: &Observation<'_>, out: &mut MemoryDecision) {
        let output = obs.input_controller[3] > 0.5;
        script_write(SignalSet::FirstInnerLast, obs.input_memory, &mut out.write);
        out.free_write[0] = output;
        let started = obs.bus_prev[OP_MARK] < 0.5;
        self.mark = !output || (started && word_first(obs.read_prev));
        out.read_modes[0] = match (output, started && !self.mark) {
            (false, _) => ReadMode::Forward(0),
            (true, true) => ReadMode::Backward(0),
            (true, false) => ReadMode::Halt(0),
        };
    }
    fn bus(&mut self, _c_ib: &[f32], _read_now: &[f32]) -> BusDecision {
        planned_op(self.mark)
    }
}
