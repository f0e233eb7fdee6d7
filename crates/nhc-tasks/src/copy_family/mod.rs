//! The copy family (SPEC §9): copy, reverse, repeatCopy, duplicated. They share one pair of data
//! modules ([`SequenceModules`]): objects are 6-bit vectors (D = 6), the ALU passes data through
//! and has the operations `O` (output) and `M` (mark the end of a pass).
//!
//! Convention (docs/DESIGN.md): `M` is a step of its own after the last output of a pass; its
//! operation is scored, its data is not.

/// The items every copy-family [`crate::Task`] shares: types, config, data modules, answer and
/// its JSON form.
macro_rules! sequence_task {
    ($signals:expr) => {
        type Data = Object;
        type Sample = Sequence;
        type Answer = Vec<Object>;
        type Modules = SequenceModules;
        const OPS: &'static [&'static str] = &["O", "M"];

        fn config() -> Config {
            config($signals)
        }
        fn modules(s: &Sequence) -> SequenceModules {
            SequenceModules::new(s, $signals)
        }
        fn answer(m: &SequenceModules) -> Vec<Object> {
            m.outputs().to_vec()
        }
        fn answer_json(a: &Vec<Object>) -> serde_json::Value {
            objects_json(a)
        }
        fn show(d: &Object) -> String {
            show(d)
        }
    };
}

pub mod copy;
pub mod duplicated;
pub mod repeat_copy;
pub mod reverse;

use crate::{InputError, SampleRng};
use nhc_model::{Config, DataModules, Signals, Trace};
use rand::RngExt;

/// ALU operation `O`: output the object read.
pub const OP_OUTPUT: usize = 0;
/// ALU operation `M`: mark the end of a pass.
pub const OP_MARK: usize = 1;
/// Bits per object (D).
pub const BITS: u32 = 6;

/// One object: a 6-bit vector, bit k of the byte is element k.
pub type Object = u8;

/// Which control signals the Input sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignalSet {
    /// `[c_f, c_i, c_l, c_o]`: first / inner / last object, output phase (copy, reverse,
    /// repeatCopy). A one-object list is both first and last.
    FirstInnerLast,
    /// `[c_f, c_i, c_o]`: presented for the first time / repeated, output phase (duplicated).
    FirstRepeat,
}

impl SignalSet {
    /// Number of signals.
    pub fn count(self) -> usize {
        match self {
            SignalSet::FirstInnerLast => 4,
            SignalSet::FirstRepeat => 3,
        }
    }
}

/// The copy family's config: L_C = 6, C = 4, one head each, Bus feedback on, ALU feedback off
/// (the ALU has no function here), free gates on (SPEC §2, paper "Modules Instantiations").
pub fn config(signals: SignalSet) -> Config {
    let n = signals.count();
    Config {
        input_controller: n,
        input_memory: n,
        input_bus: n,
        ops: 2,
        bus_feedback: true,
        free_gates: true,
        ..Config::PAPER
    }
}

/// A copy-family sample: the presented stream and how many `M`s end the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sequence {
    pub items: Vec<Object>,
    pub passes: usize,
}

/// Input and ALU of the copy family (paper, Supplementary "Copy, RepeatCopy, Reverse,
/// Duplicated"). Input presents the stream, then signals the output phase until the ALU has
/// seen `passes` marks; the ALU passes data through and collects the outputs.
#[derive(Debug, Clone)]
pub struct SequenceModules {
    items: Vec<Object>,
    signals: SignalSet,
    passes: usize,
    next: usize,
    marks: usize,
    outputs: Vec<Object>,
    buf: [f32; 4],
}

impl SequenceModules {
    pub fn new(sample: &Sequence, signals: SignalSet) -> Self {
        SequenceModules {
            items: sample.items.clone(),
            signals,
            passes: sample.passes,
            next: 0,
            marks: 0,
            outputs: Vec::new(),
            buf: [0.0; 4],
        }
    }
    fn output_phase(&self) -> bool {
        self.next > self.items.len()
    }
    /// Objects output with `O`, in order.
    pub fn outputs(&self) -> &[Object] {
        &self.outputs
    }
}

impl DataModules for SequenceModules {
    type Data = Object;

    fn input(&mut self, _d_out_prev: Option<&Object>, s: &mut Signals) -> Option<Object> {
        let n = self.items.len();
        let k = self.next;
        let d_i = if k < n {
            let x = self.items[k];
            match self.signals {
                SignalSet::FirstInnerLast => {
                    let (first, last) = (k == 0, k + 1 == n);
                    self.buf = [f(first), f(!first && !last), f(last), 0.0];
                }
                SignalSet::FirstRepeat => {
                    let first = k == 0 || self.items[k - 1] != x;
                    self.buf = [f(first), f(!first), 0.0, 0.0];
                }
            }
            x
        } else {
            if self.marks >= self.passes {
                return None;
            }
            self.buf = [0.0; 4];
            self.buf[self.signals.count() - 1] = 1.0;
            0
        };
        self.next = (k + 1).min(n + 1);
        s.set_all(&self.buf[..self.signals.count()]);
        Some(d_i)
    }

    fn alu(&mut self, reads: &[Object], op: usize, _feedback: &mut [f32]) -> Object {
        if self.output_phase() {
            match op {
                OP_OUTPUT => self.outputs.push(reads[0]),
                _ => self.marks += 1,
            }
        }
        reads[0]
    }

    fn phase(&self) -> &'static str {
        if self.output_phase() { "output" } else { "input" }
    }
}

fn f(b: bool) -> f32 {
    if b { 1.0 } else { 0.0 }
}

/// `n` random objects.
pub fn random_objects(n: usize, rng: &mut SampleRng) -> Vec<Object> {
    (0..n).map(|_| rng.random_range(0..1u8 << BITS)).collect()
}

/// Expected trace: the presentation is unscored; each pass outputs `pass` with `O`, then `M`.
pub fn trace(presented: usize, passes: &[&[Object]]) -> Trace<Object> {
    let mut t = Trace::new(1);
    (0..presented).for_each(|_| t.push_unscored());
    for pass in passes {
        for &x in *pass {
            t.push(OP_OUTPUT, &[Some(x)]);
        }
        t.push(OP_MARK, &[None]);
    }
    t
}

/// Objects as text: each a string of 6 binary digits, element 0 first.
pub fn show(x: &Object) -> String {
    (0..BITS).map(|k| if x >> k & 1 == 1 { '1' } else { '0' }).collect()
}

/// Parses a JSON array of 6-element 0/1 arrays.
pub fn parse_objects(v: &serde_json::Value) -> Result<Vec<Object>, InputError> {
    let arr = v
        .as_array()
        .ok_or_else(|| InputError::new("expected a JSON array of objects (arrays of six 0/1 numbers)"))?;
    arr.iter()
        .enumerate()
        .map(|(i, item)| {
            let bits = item.as_array().filter(|b| b.len() == BITS as usize).ok_or_else(|| {
                InputError::new(format!("object {i} must be an array of {BITS} numbers 0 or 1"))
            })?;
            bits.iter().enumerate().try_fold(0u8, |acc, (k, b)| match b.as_u64() {
                Some(0) => Ok(acc),
                Some(1) => Ok(acc | 1 << k),
                _ => Err(InputError::new(format!("object {i}, element {k}: expected 0 or 1, got {b}"))),
            })
        })
        .collect()
}

/// A user's list (copy, reverse, duplicated): a non-empty JSON array of objects, one pass.
pub fn parse_list(v: &serde_json::Value) -> Result<Sequence, InputError> {
    let items = parse_objects(v)?;
    if items.is_empty() {
        return Err(InputError::new("the list must hold at least one object"));
    }
    Ok(Sequence { items, passes: 1 })
}

/// Objects as a JSON array of 0/1 arrays.
pub fn objects_json(xs: &[Object]) -> serde_json::Value {
    xs.iter().map(|x| (0..BITS).map(|k| (x >> k) & 1).collect::<Vec<_>>()).collect::<Vec<_>>().into()
}

/// What the scripted solutions write during the presentation: `[first, last, 0, 0]`; during
/// output: `[0, 0, 1, 0]`, so a head that reaches an output-phase location knows the list ended.
pub fn script_write(signals: SignalSet, c_i: &[f32], out: &mut [f32]) {
    let output = c_i[signals.count() - 1] > 0.5;
    out.fill(0.0);
    if output {
        out[2] = 1.0;
    } else {
        out[0] = c_i[0];
        if signals == SignalSet::FirstInnerLast {
            out[1] = c_i[2];
        }
    }
}

/// The Bus decision of a scripted solution that planned its operation in `Policy::memory`.
pub fn planned_op(mark: bool) -> nhc_model::BusDecision {
    nhc_model::BusDecision { op: if mark { OP_MARK } else { OP_OUTPUT }, margin: 1.0 }
}

/// Word flags the scripted solutions read back.
pub fn word_first(w: &[f32]) -> bool {
    w[0] > 0.5
}
pub fn word_last(w: &[f32]) -> bool {
    w[1] > 0.5
}
pub fn word_output(w: &[f32]) -> bool {
    w[2] > 0.5
}
