//! repeatCopy: output n objects ℓ times, n uniform in 1..=ℓ ([`object_count`]; user input: any
//! list, any number of copies); `M` ends each pass and the Input stops after the last one
//! (paper, "Copy, RepeatCopy, Reverse, Duplicated": the level is the number of copies).
//!
//! Scripted solution: during the presentation the read head stays on the first object (H1), so
//! every object's ancestry parent is the first object. A pass starts on the first object,
//! unmarked at c_m_{t−1}: the step stays (H1) and marks it with the previous update (MODEL §2
//! step 4a); the next step sees it marked, unmarks it and walks forward (F1). The step after
//! reading the word flagged "last" is `M` and goes back to the first object (P1; at the root it
//! stays), ready for the next pass.

use super::*;
use crate::{Algorithm, Task};
use nhc_model::{BusDecision, MemoryDecision, Observation, Policy, ReadMode};

/// repeatCopy (MODEL §9).
pub const REPEAT_COPY: Algorithm =
    Algorithm { name: "repeatCopy", ops: &OPS, config: config(SignalSet::FirstInnerLast) };

/// repeatCopy on a domain of objects.
#[derive(Debug, Clone, Copy, Default)]
pub struct RepeatCopy<O>(pub O);

impl<O: Objects> Task for RepeatCopy<O> {
    sequence_task!(REPEAT_COPY, SignalSet::FirstInnerLast, |l| l, |l| l);

    fn sample(&self, level: usize, rng: &mut SampleRng) -> Self::Sample {
        let n = object_count(level, rng);
        Sequence { items: random_objects(&self.0, n, rng), passes: level }
    }
    fn trace(&self, s: &Self::Sample) -> Trace<O::Object> {
        trace(s.items.len(), &vec![s.items.as_slice(); s.passes])
    }
    fn reference(&self, s: &Self::Sample) -> Vec<O::Object> {
        (0..s.passes).flat_map(|_| s.items.iter().cloned()).collect()
    }
    fn scripted(&self) -> Box<dyn Policy + Send> {
        Box::new(RepeatScript)
    }
    fn parse_input(&self, v: &serde_json::Value) -> Result<Self::Sample, InputError> {
        let obj = v.as_object().ok_or_else(|| {
            InputError::new(format!(
                r#"repeatCopy takes {{"items": [...], "copies": c}}, the items {}"#,
                self.0.form()
            ))
        })?;
        if let Some(k) = obj.keys().find(|k| *k != "items" && *k != "copies") {
            return Err(InputError::new(format!("unknown key `{k}`; expected `items` and `copies`")));
        }
        let items =
            parse_objects(&self.0, obj.get("items").ok_or_else(|| InputError::new("missing key `items`"))?)?;
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
    /// Every number of copies at once: the output phase's signals are the same in every pass.
    fn every_length_order(&self) -> Result<crate::every_length::Order, String> {
        Ok(crate::every_length::Order::Passes)
    }
    /// The domain's words in turn (the data never reaches the control).
    fn trace_input(&self, objects: u64, copies: u64) -> Option<serde_json::Value> {
        let words = self.0.words().filter(|&w| w > 0);
        let items =
            (0..objects).map(|i| self.0.word(words.map_or(i, |w| i % w) + 1)).collect::<Option<_>>()?;
        Some(self.sample_json(&Sequence { items, passes: usize::try_from(copies).ok()? }))
    }
    fn shapes(&self, bounds: &crate::verify::Bounds) -> Vec<crate::verify::Part<'_, Self::Sample>> {
        use crate::verify::{Part, Shaped, capped, grid_cell};
        let asked = bounds.get(0, GRID_BOUND);
        let (bound, note) = capped(asked, self.0.words(), self.0.name(), "objects and copies");
        // Σ over n, c of n + c (n + 1) + 1 = N S + S (S + N) + N², S = Σ n.
        let (sum, n2) = (triangle(bound), bound.saturating_mul(bound));
        let steps = bound
            .saturating_mul(sum)
            .saturating_add(sum.saturating_mul(sum.saturating_add(bound)))
            .saturating_add(n2);
        vec![Part {
            what: format!("list of 1–{bound} objects, copied 1–{bound} times"),
            exhaustive: true,
            axes: ["objects", "copies"],
            layer: "objects and copies",
            bound,
            note,
            count: bound.saturating_mul(bound),
            steps,
            beyond_level: Some(Some),
            nth: Box::new(move |i| {
                let (layer, n, c) = grid_cell(i);
                let sample = Sequence { items: distinct(&self.0, n), passes: c as usize };
                Shaped { layer, cell: [n, c], sample }
            }),
        }]
    }
    /// `{"items": [...], "copies": c}`.
    fn sample_json(&self, s: &Self::Sample) -> serde_json::Value {
        serde_json::json!({ "items": objects_json(&self.0, &s.items), "copies": s.passes })
    }
}

/// Scripted solution of repeatCopy.
#[derive(Debug, Clone, Copy)]
pub struct RepeatScript;

impl Policy for RepeatScript {
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut MemoryDecision) {
        let w = obs.read_prev;
        let output = obs.input_controller[3] > 0.5;
        script_write(SignalSet::FirstInnerLast, obs.input_memory, w, &mut out.write);
        out.free_write[0] = output;
        let first = output && word_first(w);
        // Pass start: on the first object, unmarked. A marked one was output at t−1: unmark it.
        let start = first && !word_marked(w);
        if first {
            mark_read(out, if start { 1.0 } else { -1.0 });
        }
        let end = output && !start && word_last(w);
        plan_mark(c_c, !output || end);
        out.read_modes[0] = if !output || start {
            ReadMode::Halt(0)
        } else if end {
            ReadMode::Parent(0)
        } else {
            ReadMode::Forward(0)
        };
    }
    fn bus(&mut self, _c_ib: &[f32], c_c: &[f32], _read_now: &[f32]) -> BusDecision {
        planned_op(c_c)
    }
}
