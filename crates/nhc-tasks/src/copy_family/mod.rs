//! The copy family (MODEL §9): copy, reverse, repeatCopy, duplicated. The four algorithms share
//! one pair of data modules ([`SequenceModules`]): the ALU passes data through and has the
//! operations `O` (output) and `M` (mark the end of a pass). The data is a domain's objects
//! ([`Objects`]); training uses 6-bit binary vectors ([`Binary`]), a transfer non-negative
//! integers of any size ([`Decimals`]).
//!
//! Convention (docs/DESIGN.md): `M` is a step of its own after the last output of a pass; its
//! operation is scored, its data is not.

/// The items every copy-family [`crate::Task`] shares: types, domain, data modules, answer and
/// its JSON form.
macro_rules! sequence_task {
    ($algorithm:expr, $signals:expr, $items:expr, $passes:expr) => {
        type Data = O::Object;
        type Sample = Sequence<O::Object>;
        type Answer = Vec<O::Object>;
        type Modules = SequenceModules<O::Object>;

        fn algorithm(&self) -> &'static Algorithm {
            &$algorithm
        }
        fn domain(&self) -> &'static str {
            self.0.name()
        }
        fn modules(&self, s: &Self::Sample) -> Self::Modules {
            SequenceModules::new(s, $signals)
        }
        fn answer(&self, m: &Self::Modules) -> Vec<O::Object> {
            m.outputs().to_vec()
        }
        fn answer_json(&self, a: &Vec<O::Object>) -> serde_json::Value {
            objects_json(&self.0, a)
        }
        fn show(&self, d: &O::Object) -> String {
            self.0.show(d)
        }
        fn max_steps(&self, level: usize) -> u64 {
            let (items, passes): (fn(u64) -> u64, fn(u64) -> u64) = ($items, $passes);
            steps(items(level as u64), passes(level as u64))
        }
        fn sample_steps(&self, s: &Self::Sample) -> u64 {
            steps(s.items.len() as u64, s.passes as u64)
        }
        fn sample_heap(&self, s: &Self::Sample) -> u64 {
            s.items.iter().map(|x| self.0.heap(x)).sum()
        }
        /// The reference outputs every object once a pass; a wrong model at most one object a
        /// step of its run (at most twice the trace and 100 steps); each object's JSON is at
        /// most the largest item's or the default word's.
        fn answers_bytes(&self, s: &Self::Sample) -> Option<u64> {
            let default = O::Object::default();
            let one = s.items.iter().chain([&default]).map(|x| crate::json_bytes(&self.0.json(x))).max();
            let reference = (s.items.len() as u64).saturating_mul(s.passes as u64);
            let model = self.sample_steps(s).saturating_mul(2).saturating_add(100);
            Some(one.unwrap_or(0).saturating_mul(reference.saturating_add(model)))
        }
        fn field_shape(&self) -> Option<crate::FieldShape> {
            self.0.field_shape()
        }
        fn fields(&self, x: &Self::Data, out: &mut [u8]) {
            self.0.fields(x, out)
        }
        fn max_heap(&self, level: usize) -> u64 {
            let items: fn(u64) -> u64 = $items;
            items(level as u64).saturating_mul(self.0.max_heap())
        }
    };
}

pub mod binary;
pub mod copy;
pub mod decimal;
pub mod duplicated;
pub mod repeat_copy;
pub mod reverse;

pub use binary::Binary;
pub use copy::Copy;
pub use decimal::{Decimals, Natural};
pub use duplicated::Duplicated;
pub use repeat_copy::RepeatCopy;
pub use reverse::Reverse;

use crate::{InputError, SampleRng, flag};
use nhc_model::{Config, DataModules, MemoryDecision, Signals, Trace};
use std::fmt::Debug;

/// ALU operation `O`: output the object read.
pub const OP_OUTPUT: usize = 0;
/// ALU operation `M`: mark the end of a pass.
pub const OP_MARK: usize = 1;
/// Operation names in Bus order.
pub const OPS: [&str; 2] = ["O", "M"];

/// A copy-family data domain: what one object is, how to draw, read and print it.
pub trait Objects: Send + Sync + 'static {
    /// One object, one data word.
    type Object: Clone + Default + PartialEq + Debug + Send + Sync;
    /// The domain's name.
    fn name(&self) -> &'static str;
    /// A uniformly random object.
    fn random(&self, rng: &mut SampleRng) -> Self::Object;
    /// Object `i` of a user's list.
    fn parse(&self, v: &serde_json::Value, i: usize) -> Result<Self::Object, InputError>;
    /// What [`Objects::parse`] takes, for messages (e.g. "arrays of six 0/1 numbers").
    fn form(&self) -> &'static str;
    /// An object as JSON, in the form [`Objects::parse`] takes.
    fn json(&self, x: &Self::Object) -> serde_json::Value;
    /// An object as short text.
    fn show(&self, x: &Self::Object) -> String;
    /// Heap bytes `x` holds beyond `size_of::<Object>()`, shared by its copies (for the memory
    /// estimate, [`crate::Task::sample_heap`]).
    fn heap(&self, x: &Self::Object) -> u64 {
        let _ = x;
        0
    }
    /// A word's shape as categorical fields (crate::fields); `None`: no encoding.
    fn field_shape(&self) -> Option<crate::FieldShape> {
        None
    }
    /// `x` as fields, one per entry of `out`.
    fn fields(&self, x: &Self::Object, out: &mut [u8]) {
        let _ = (x, out);
    }
    /// At most [`Objects::heap`] of a random object.
    fn max_heap(&self) -> u64 {
        0
    }
    /// The `i`-th of the domain's distinct words other than the default word, `i ≥ 1`
    /// (verification's representatives, [`crate::verify`]); `None` beyond [`Objects::words`].
    fn word(&self, i: u64) -> Option<Self::Object> {
        let _ = i;
        None
    }
    /// How many words [`Objects::word`] has (`None`: without end).
    fn words(&self) -> Option<u64> {
        Some(0)
    }
}

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
    pub const fn count(self) -> usize {
        match self {
            SignalSet::FirstInnerLast => 4,
            SignalSet::FirstRepeat => 3,
        }
    }
}

/// The copy family's config: L_C = 6, C = 4, one head each, no feedback (paper, "Modules
/// Instantiations": the ALU feedback "was activated, except for the four copy tasks", and no task
/// is said to use the Bus feedback), free gates on (MODEL §2).
pub const fn config(signals: SignalSet) -> Config {
    let n = signals.count();
    Config {
        input_controller: n,
        input_memory: n,
        input_bus: n,
        ops: 2,
        bus_feedback: false,
        free_gates: true,
        ..Config::PAPER
    }
}

/// A copy-family sample: the presented stream and how many `M`s end the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sequence<X> {
    pub items: Vec<X>,
    pub passes: usize,
}

/// Input and ALU of the copy family (paper, Supplementary "Copy, RepeatCopy, Reverse,
/// Duplicated"). Input presents the stream, then signals the output phase (with `d_i` the
/// default word) until the ALU has seen `passes` marks; the ALU passes data through and collects
/// the outputs.
#[derive(Debug, Clone)]
pub struct SequenceModules<X> {
    items: Vec<X>,
    signals: SignalSet,
    passes: usize,
    next: usize,
    marks: usize,
    outputs: Vec<X>,
    buf: [f32; 4],
}

impl<X: Clone> SequenceModules<X> {
    pub fn new(sample: &Sequence<X>, signals: SignalSet) -> Self {
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
    pub fn outputs(&self) -> &[X] {
        &self.outputs
    }
}

impl<X: Clone + Default + PartialEq + Debug> DataModules for SequenceModules<X> {
    type Data = X;

    fn input(&mut self, _d_out_prev: Option<&X>, s: &mut Signals) -> Option<X> {
        let n = self.items.len();
        let k = self.next;
        let d_i = if k < n {
            let x = &self.items[k];
            match self.signals {
                SignalSet::FirstInnerLast => {
                    let (first, last) = (k == 0, k + 1 == n);
                    self.buf = [flag(first), flag(!first && !last), flag(last), 0.0];
                }
                SignalSet::FirstRepeat => {
                    let first = k == 0 || self.items[k - 1] != *x;
                    self.buf = [flag(first), flag(!first), 0.0, 0.0];
                }
            }
            x.clone()
        } else {
            if self.marks >= self.passes {
                return None;
            }
            self.buf = [0.0; 4];
            self.buf[self.signals.count() - 1] = 1.0;
            X::default()
        };
        self.next = (k + 1).min(n + 1);
        s.set_all(&self.buf[..self.signals.count()]);
        Some(d_i)
    }

    fn alu(&mut self, reads: &[X], op: usize, _feedback: &mut [f32]) -> X {
        if self.output_phase() {
            match op {
                OP_OUTPUT => self.outputs.push(reads[0].clone()),
                _ => self.marks += 1,
            }
        }
        reads[0].clone()
    }

    fn phase(&self) -> &'static str {
        if self.output_phase() { "output" } else { "input" }
    }
}

/// At least the steps of a sample presenting `items` objects and outputting `passes` passes (each
/// at most every object, then `M`).
pub fn steps(items: u64, passes: u64) -> u64 {
    items.saturating_add(passes.saturating_mul(items.saturating_add(1))).saturating_add(1)
}

/// How many objects a repeatCopy or duplicated sample of `level` holds: uniform in 1..=level.
/// The paper makes the level the number of copies (duplicates) and leaves the object count open;
/// drawing it keeps one level from being a single control pattern (docs/DESIGN.md, "Copy
/// family").
pub fn object_count(level: usize, rng: &mut SampleRng) -> usize {
    use rand::RngExt;
    rng.random_range(1..=level.max(1))
}

/// Objects 1..=n of [`Objects::word`] (the caller caps `n` at [`Objects::words`]).
pub fn distinct<O: Objects>(o: &O, n: u64) -> Vec<O::Object> {
    (1..=n).map(|i| o.word(i).expect("n is capped at the domain's words")).collect()
}

/// copy's and reverse's inputs for verification: one list of 1..=N distinct objects per length
/// (the Input's signals depend on the length alone, docs/VERIFICATION.md, "Verification").
pub fn list_part<'a, O: Objects>(
    o: &'a O,
    bounds: &crate::verify::Bounds,
) -> crate::verify::Part<'a, Sequence<O::Object>> {
    let (bound, note) = crate::verify::capped(bounds.get(0, LIST_BOUND), o.words(), o.name(), "objects");
    crate::verify::Part {
        what: format!("list of 1–{bound} objects"),
        exhaustive: true,
        axes: ["objects", ""],
        layer: "objects",
        bound,
        note,
        count: bound,
        // Σ (2n + 2) for n = 1..=N.
        steps: bound.saturating_mul(bound.saturating_add(3)),
        beyond_level: Some(Some),
        nth: Box::new(move |i| {
            let n = i + 1;
            crate::verify::Shaped {
                layer: n,
                cell: [n, 0],
                sample: Sequence { items: distinct(o, n), passes: 1 },
            }
        }),
    }
}

/// Σ n for n = 1..=N, saturating.
pub fn triangle(n: u64) -> u64 {
    let (a, b) = if n.is_multiple_of(2) { (n / 2, n.saturating_add(1)) } else { (n, n.div_ceil(2)) };
    a.saturating_mul(b)
}

/// The default bounds of verification: lists (copy, reverse), the grid of objects × passes
/// (repeatCopy, duplicated's uniform runs) and duplicated's run-length sequences (their total).
pub const LIST_BOUND: u64 = 2_000;
pub const GRID_BOUND: u64 = 60;
pub const RUNS_BOUND: u64 = 16;

/// `n` random objects of domain `o`.
pub fn random_objects<O: Objects>(o: &O, n: usize, rng: &mut SampleRng) -> Vec<O::Object> {
    (0..n).map(|_| o.random(rng)).collect()
}

/// Expected trace: the presentation is unscored; each pass outputs `pass` with `O`, then `M`.
pub fn trace<X: Clone + PartialEq>(presented: usize, passes: &[&[X]]) -> Trace<X> {
    let mut t = Trace::new(1);
    (0..presented).for_each(|_| t.push_unscored());
    for pass in passes {
        for x in *pass {
            t.push(OP_OUTPUT, &[Some(x.clone())]);
        }
        t.push(OP_MARK, &[None]);
    }
    t
}

/// Parses a JSON array of objects of domain `o`.
pub fn parse_objects<O: Objects>(o: &O, v: &serde_json::Value) -> Result<Vec<O::Object>, InputError> {
    let arr = v
        .as_array()
        .ok_or_else(|| InputError::new(format!("expected a JSON array of objects ({})", o.form())))?;
    arr.iter().enumerate().map(|(i, item)| o.parse(item, i)).collect()
}

/// Objects of domain `o` as a JSON array, the form [`parse_objects`] takes.
pub fn objects_json<O: Objects>(o: &O, items: &[O::Object]) -> serde_json::Value {
    items.iter().map(|x| o.json(x)).collect::<Vec<_>>().into()
}

/// A user's list (copy, reverse, duplicated): a non-empty JSON array of objects, one pass.
pub fn parse_list<O: Objects>(o: &O, v: &serde_json::Value) -> Result<Sequence<O::Object>, InputError> {
    let items = parse_objects(o, v)?;
    if items.is_empty() {
        return Err(InputError::new("the list must hold at least one object"));
    }
    Ok(Sequence { items, passes: 1 })
}

/// Entry of a scripted control word that the previous update sets ([`mark_read`]).
pub const WORD_MARK: usize = 3;

/// What the scripted solutions write (`v`): during the presentation `[head, last, 0, 0]`, during
/// output `[0, 0, 1, 0]`, so a head that reaches an output-phase location knows the list ended.
/// `head` flags the list's first object: `c_f` (copy, reverse, repeatCopy); in duplicated, where
/// every new object has `c_f`, the step that has read nothing yet (c_m_{t−1} = 0, MODEL §2 step
/// 2). `last` is `c_l` (duplicated: 0).
pub fn script_write(signals: SignalSet, c_im: &[f32], read_prev: &[f32], out: &mut [f32]) {
    let output = c_im[signals.count() - 1] > 0.5;
    out.fill(0.0);
    if output {
        out[2] = 1.0;
    } else if signals == SignalSet::FirstInnerLast {
        out[0] = c_im[0];
        out[1] = c_im[2];
    } else {
        out[0] = flag(c_im[0] > 0.5 && !word_first(read_prev));
    }
}

/// Previous update (MODEL §2 step 4a) of a scripted solution: adds `v` to the mark of the word
/// read at t−1 (`ĝ = 1`, `ê = 0`, `v̂ = v` at [`WORD_MARK`]), before this step's read.
pub fn mark_read(out: &mut MemoryDecision, v: f32) {
    out.prev_gate[0] = true;
    out.prev_erase[WORD_MARK] = 0.0;
    out.prev_write[WORD_MARK] = v;
}

/// The plan a scripted solution makes in its Controller and hands to the Bus through c_c:
/// `c_c[0] = 1` means `M`.
pub fn plan_mark(c_c: &mut [f32], mark: bool) {
    c_c[0] = flag(mark);
}

/// The Bus decision of a scripted solution that planned its operation with [`plan_mark`].
pub fn planned_op(c_c: &[f32]) -> nhc_model::BusDecision {
    nhc_model::BusDecision { op: if c_c[0] > 0.5 { OP_MARK } else { OP_OUTPUT }, margin: 1.0 }
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
pub fn word_marked(w: &[f32]) -> bool {
    w[WORD_MARK] > 0.5
}
