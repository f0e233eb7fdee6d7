//! repeatCopy: output the ℓ objects ℓ times (user input: any number of copies); `M` ends each
//! pass and the Input stops after the last one (SPEC §9).
//!
//! Scripted solution: during the presentation the read head stays on the first object (H1), so
//! every object's ancestry parent is the first object. A pass starts with P1 (back to the
//! first object), walks forward (F1), and marks the step after reading the word flagged "last".

use super::*;
use crate::Task;
use nhc_model::{BusDecision, MemoryDecision, Observation, Policy, ReadMode};

pub struct RepeatCopy;

impl Task for RepeatCopy {
    type Scripted = RepeatScript;
    const NAME: &'static str = "repeatCopy";
    sequence_task!(SignalSet::FirstInnerLast);

    fn sample(level: usize, rng: &mut SampleRng) -> Sequence {
        Sequence { items: random_objects(level, rng), passes: level }
    }
    fn trace(s: &Sequence) -> Trace<Object> {
        trace(s.items.len(), &vec![s.items.as_slice(); s.passes])
    }
    fn reference(s: &Sequence) -> Vec<Object> {
        s.items.repeat(s.passes)
    }
    fn scripted() -> RepeatScript {
        RepeatScript { mark: false }
    }
    fn parse_input(v: &serde_json::Value) -> Result<Sequence, InputError> {
        let obj = v.as_object().ok_or_else(|| {
            InputError::new(r#"repeatCopy takes {"items": [[0,1,0,0,1,1], ...], "copies": c}"#)
        })?;
        if let Some(k) = obj.keys().find(|k| *k != "items" && *k != "copies") {
            return Err(InputError::new(format!("unknown key `{k}`; expected `items` and `copies`")));
        }
        let items = parse_objects(obj.get("items").ok_or_else(|| InputError::new("missing key `items`"))?)?;
        let copies = obj
            .get("copies")
            .and_then(|c| c.as_u64())
            .filter(|&c| c >= 1)
            .ok_or_else(|| InputError::new("`copies` must be a whole number ≥ 1"))?;
        if items.is_empty() {
            return Err(InputError::new("`items` must hold at least one object"));
        }
        Ok(Sequence { items, passes: copies as usize })
    }
}

/// Scripted solution of repeatCopy.
#[derive(Debug, Clone, Copy)]
pub struct RepeatScript {
    mark: bool,
}

impl Policy for RepeatScript {
    fn memory(&mut self, obs: &Observation<'_>, out: &mut MemoryDecision) {
        let output = obs.input_controller[3] > 0.5;
        script_write(SignalSet::FirstInnerLast, obs.input_memory, &mut out.write);
        out.free_write[0] = output;
        let pass_start = obs.bus_prev[OP_MARK] > 0.5;
        self.mark = !output || (!pass_start && word_last(obs.read_prev));
        out.read_modes[0] = if !output || self.mark {
            ReadMode::Halt(0)
        } else if pass_start {
            ReadMode::Parent(0)
        } else {
            ReadMode::Forward(0)
        };
    }
    fn bus(&mut self, _c_ib: &[f32], _read_now: &[f32]) -> BusDecision {
        planned_op(self.mark)
    }
}
