//! sort: ℓ+1 random 8-bit numbers (D = 8), output in ascending order (MODEL §9, paper
//! Supplementary "Sort").
//!
//! Selection by repeated scans. The candidate head (read head 1) holds the smallest object found
//! so far, the walker (read head 2) walks the temporal list; `C` compares them, `S` skips when
//! either reads an object already output, and `O` outputs the candidate once the walker has passed
//! the last object. The order comes only from the ALU's `compare` ([`SortModules`] takes it as a
//! function, so a transfer swaps it together with the data).
//!
//! Conventions (docs/DESIGN.md, "sort"): the presentation is unscored, every sort-phase step is
//! scored. One scan = the walker passes every object once, then one `O` step, at which the walker
//! must read past the list. `compare(o1, o2)` true keeps the candidate, so among equal minima the
//! first in the list is output first.

use crate::words::ordinal;
use crate::{Algorithm, InputError, SampleRng, Task, flag};
use nhc_model::{
    BusDecision, Config, DataModules, MemoryDecision, Observation, Policy, ReadMode, Signals, Trace,
};
use rand::RngExt;
use std::fmt::Debug;

/// ALU operation `C`: compare the two objects read.
pub const OP_COMPARE: usize = 0;
/// ALU operation `S`: skip.
pub const OP_SKIP: usize = 1;
/// ALU operation `O`: output the object read by head 1.
pub const OP_OUTPUT: usize = 2;

/// The ALU's one data operation: `compare(o1, o2)` (paper: `lessEqual` for training). True keeps
/// the candidate o1.
pub trait Order: Clone + Send + Sync + 'static {
    /// One object, one data word.
    type Item: Clone + Default + PartialEq + Debug + Send + Sync;
    fn compare(&self, o1: &Self::Item, o2: &Self::Item) -> bool;
}

/// A sort domain: its objects' order, sampler, reference and text forms.
pub trait SortDomain: Order {
    /// The domain's name.
    fn name(&self) -> &'static str;
    /// Level ℓ: ℓ+1 random objects.
    fn sample(&self, level: usize, rng: &mut SampleRng) -> Vec<Self::Item>;
    /// The objects in ascending order, computed without the NHC (and without [`Order::compare`]).
    fn sorted(&self, items: &[Self::Item]) -> Vec<Self::Item>;
    /// A user's list.
    fn parse(&self, v: &serde_json::Value) -> Result<Vec<Self::Item>, InputError>;
    /// A list as JSON, in the form [`SortDomain::parse`] takes.
    fn json(&self, items: &[Self::Item]) -> serde_json::Value;
    /// An object as short text.
    fn show(&self, x: &Self::Item) -> String;
    /// Heap bytes `x` holds beyond `size_of::<Item>()`, shared by its copies (for the memory
    /// estimate, [`Task::sample_heap`]).
    fn heap(&self, x: &Self::Item) -> u64 {
        let _ = x;
        0
    }
    /// A word's shape as categorical fields (crate::fields); `None`: no encoding.
    fn field_shape(&self) -> Option<crate::FieldShape> {
        None
    }
    /// `x` as fields, one per entry of `out`.
    fn fields(&self, x: &Self::Item, out: &mut [u8]) {
        let _ = (x, out);
    }
    /// At most [`SortDomain::heap`] of a random object.
    fn max_heap(&self) -> u64 {
        0
    }
    /// The word of rank `rank ≥ 1` among distinct words that `compare` orders by rank, none the
    /// default word (verification's representatives, [`crate::verify`]); `None` beyond the
    /// domain's words.
    fn word(&self, rank: u64) -> Option<Self::Item> {
        let _ = rank;
        None
    }
}

/// The default bound of sort's verification: every weak ordering of up to 8 objects.
pub const ORDERS_BOUND: u64 = 8;

/// sort's config: L_C = 6, C = 4, h_w = 1, h_r = 2, L_B = 3; ALU feedback on (|c_a| = 4); Bus
/// feedback off, because `c_b_{t−1} = [1 − s − o, s, o]` is already in `c_a_{t−1}`; free gates off
/// (paper, "Modules Instantiations"); previous update and ancestry on.
pub const fn config() -> Config {
    Config {
        input_controller: 4,
        input_memory: 4,
        input_bus: 4,
        read_heads: 2,
        ops: 3,
        alu_feedback: 4,
        bus_feedback: false,
        ..Config::PAPER
    }
}

/// sort (MODEL §9).
pub const SORT: Algorithm = Algorithm { name: "sort", ops: &["C", "S", "O"], config: config() };

/// Input and ALU of sort (paper, Supplementary "Sort"), generic over the objects and their
/// order. Input presents the objects with `[c_f, c_e, c_l, 0]`, then sends `[0, 0, 0, 1]` with
/// `d_i` the default word until the ALU has output every object; the ALU returns `d_out = o1` and
/// `c_a = [cmp, 1 − cmp, s, o]` with `cmp = compare(o1, o2)` on every operation.
#[derive(Debug, Clone)]
pub struct SortModules<O: Order> {
    order: O,
    items: Vec<O::Item>,
    next: usize,
    outputs: Vec<O::Item>,
}

impl<O: Order> SortModules<O> {
    pub fn new(order: &O, items: &[O::Item]) -> Self {
        SortModules {
            order: order.clone(),
            items: items.to_vec(),
            next: 0,
            outputs: Vec::with_capacity(items.len()),
        }
    }
    fn sort_phase(&self) -> bool {
        self.next > self.items.len()
    }
    /// Objects output with `O` in the sort phase, in order.
    pub fn outputs(&self) -> &[O::Item] {
        &self.outputs
    }
}

impl<O: Order> DataModules for SortModules<O> {
    type Data = O::Item;

    fn input(&mut self, _d_out_prev: Option<&O::Item>, s: &mut Signals) -> Option<O::Item> {
        let n = self.items.len();
        let k = self.next;
        let (signals, d_i) = if k < n {
            let (first, last) = (k == 0, k + 1 == n);
            ([flag(first), flag(!first && !last), flag(last), 0.0], self.items[k].clone())
        } else {
            if self.outputs.len() >= n {
                return None; // T_s outputs: the stop rule
            }
            ([0.0, 0.0, 0.0, 1.0], O::Item::default())
        };
        self.next = (k + 1).min(n + 1);
        s.set_all(&signals);
        Some(d_i)
    }

    fn alu(&mut self, reads: &[O::Item], op: usize, feedback: &mut [f32]) -> O::Item {
        let o1 = &reads[0];
        let cmp = self.order.compare(o1, &reads[1]);
        feedback.copy_from_slice(&[flag(cmp), flag(!cmp), flag(op == OP_SKIP), flag(op == OP_OUTPUT)]);
        if op == OP_OUTPUT && self.sort_phase() {
            self.outputs.push(o1.clone());
        }
        o1.clone()
    }

    fn phase(&self) -> &'static str {
        if self.sort_phase() { "sort" } else { "input" }
    }
}

/// The expected trace (MODEL §5) of selection by repeated scans over `items` under `compare`.
///
/// The presentation (one step per object) is unscored. Scan 1 starts with the candidate on the
/// first object and the walker on the second; every later scan starts with both on the first
/// object. At each step, with candidate `c` and walker `w`:
/// - walker past the last object: `O`, expected `[c, 0]`, where `0` = `D::default()` is the data
///   word of every sort-phase location (the walker has stepped off the list); `c` is then output;
/// - `c` or `w` already output: `S`, expected `[c, w]`, or `[–, w]` when `c` is already output;
/// - else `C`, expected `[c, w]`.
///
/// The candidate moves to the walker's object when it was already output, or when `C` found
/// `compare(c, w)` false. The run ends with the `O` of the last object.
pub fn trace<O: Order>(order: &O, items: &[O::Item]) -> Trace<O::Item> {
    let n = items.len();
    let mut t = Trace::new(2);
    (0..n).for_each(|_| t.push_unscored());
    let mut output = vec![false; n];
    let (mut c, mut w) = (0, 1);
    for done in 1..=n {
        while w < n {
            let (x_c, x_w) = (&items[c], &items[w]);
            if output[c] || output[w] {
                t.push(OP_SKIP, &[(!output[c]).then(|| x_c.clone()), Some(x_w.clone())]);
                if output[c] {
                    c = w;
                }
            } else {
                t.push(OP_COMPARE, &[Some(x_c.clone()), Some(x_w.clone())]);
                if !order.compare(x_c, x_w) {
                    c = w;
                }
            }
            w += 1;
        }
        debug_assert!(!output[c], "a scan ends on an object not yet output");
        t.push(OP_OUTPUT, &[Some(items[c].clone()), Some(O::Item::default())]);
        // The expected program marks the object output at the next step, and updates nothing else.
        t.expect_update_at(t.len());
        output[c] = true;
        if done < n {
            (c, w) = (0, 0);
        }
    }
    t
}

/// At least the steps of sorting `n` objects: the presentation, then n scans of at most n + 1
/// steps each.
fn scan_steps(n: u64) -> u64 {
    n.saturating_add(n.saturating_mul(n.saturating_add(1)))
}

/// sort on a domain.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sort<S>(pub S);

impl<S: SortDomain> Task for Sort<S> {
    type Data = S::Item;
    type Sample = Vec<S::Item>;
    type Answer = Vec<S::Item>;
    type Modules = SortModules<S>;

    fn algorithm(&self) -> &'static Algorithm {
        &SORT
    }
    fn domain(&self) -> &'static str {
        self.0.name()
    }
    fn sample(&self, level: usize, rng: &mut SampleRng) -> Vec<S::Item> {
        self.0.sample(level, rng)
    }
    /// The first 1..=ℓ+1 objects of the level's list (uniform): level ℓ presents ℓ + 1 objects,
    /// so no level shows a list of one.
    fn any_shape(&self, level: usize, rng: &mut SampleRng) -> Vec<S::Item> {
        use rand::RngExt;
        let mut items = self.0.sample(level, rng);
        let n = rng.random_range(1..=items.len().max(1));
        items.truncate(n);
        items
    }
    fn modules(&self, s: &Vec<S::Item>) -> SortModules<S> {
        SortModules::new(&self.0, s)
    }
    fn trace(&self, s: &Vec<S::Item>) -> Trace<S::Item> {
        trace(&self.0, s)
    }
    fn field_shape(&self) -> Option<crate::FieldShape> {
        self.0.field_shape()
    }
    fn fields(&self, x: &Self::Data, out: &mut [u8]) {
        self.0.fields(x, out)
    }
    fn reference(&self, s: &Vec<S::Item>) -> Vec<S::Item> {
        self.0.sorted(s)
    }
    fn answer(&self, m: &SortModules<S>) -> Vec<S::Item> {
        m.outputs().to_vec()
    }
    fn scripted(&self) -> Box<dyn Policy + Send> {
        Box::new(SortScript)
    }
    /// ℓ+1 objects.
    fn max_steps(&self, level: usize) -> u64 {
        scan_steps(level as u64 + 1)
    }
    fn sample_steps(&self, s: &Vec<S::Item>) -> u64 {
        scan_steps(s.len() as u64)
    }
    fn sample_heap(&self, s: &Vec<S::Item>) -> u64 {
        s.iter().map(|x| self.0.heap(x)).sum()
    }
    fn max_heap(&self, level: usize) -> u64 {
        (level as u64).saturating_add(1).saturating_mul(self.0.max_heap())
    }
    fn parse_input(&self, v: &serde_json::Value) -> Result<Vec<S::Item>, InputError> {
        self.0.parse(v)
    }
    /// Every weak ordering (ties included) of 1..=N objects, twice: with every object above the
    /// default word, and with the lowest rank equal to it. The ALU's feedback is `compare`'s
    /// verdict on the two words read, and at an `O` step head 2 reads the default word, which is
    /// the least legal item of every built-in domain (0, "0", ""): the order of the objects and
    /// whether the least of them is the default word decide every verdict.
    fn shapes(&self, bounds: &crate::verify::Bounds) -> Vec<crate::verify::Part<'_, Self::Sample>> {
        use crate::verify::{Part, Shaped, weak_order_count, weak_orders};
        let asked = bounds.get(0, ORDERS_BOUND);
        // Ranks 1..=n are needed; the domain may have fewer words.
        let listed = asked.min(21);
        let available = (1..=listed).take_while(|&n| self.0.word(n).is_some()).last().unwrap_or(0);
        let bound = if available == listed { asked } else { available };
        let note = (bound < asked).then(|| {
            format!(
                "domain `{}` has {bound} words besides the default word: the bound is {bound} objects",
                self.0.name()
            )
        });
        // Beyond 20 objects the count saturates: the cost check refuses the part.
        let orders_of: Vec<u64> = (1..=bound.min(20)).map(weak_order_count).collect();
        let counts: Vec<u64> = orders_of.iter().map(|c| c.saturating_mul(2)).collect();
        let count = if bound > 20 { u64::MAX } else { counts.iter().fold(0u64, |a, &c| a.saturating_add(c)) };
        let steps =
            (1..).zip(&counts).map(|(n, &c)| c.saturating_mul(scan_steps(n))).fold(0, u64::saturating_add);
        // Listing more than the cost check allows would take long; the check refuses them.
        let orders: Vec<Vec<u8>> = if count <= crate::verify::MAX_INPUTS {
            (1..=bound as usize).map(weak_orders).collect()
        } else {
            Vec::new()
        };
        // words[0] is the default word, words[r] the word of rank r.
        let words: Vec<S::Item> =
            std::iter::once(S::Item::default()).chain((1..=bound).filter_map(|r| self.0.word(r))).collect();
        vec![Part {
            what: format!(
                "list of 1–{bound} objects in every order, ties included, with and without {}",
                self.0.show(&words[0])
            ),
            exhaustive: true,
            axes: ["objects", "distinct values"],
            layer: "objects",
            bound,
            note,
            count,
            steps,
            beyond_level: Some(|objects| objects.checked_sub(1).filter(|&l| l >= 1)),
            nth: Box::new(move |i| {
                let (n, i) = crate::verify::in_layer(&counts, i);
                // The first half of a layer lists ranks from 1, the second from the default word.
                let (from, i) = if i < orders_of[n - 1] { (1, i) } else { (0, i - orders_of[n - 1]) };
                let ranks = &orders[n - 1][i as usize * n..(i as usize + 1) * n];
                let distinct = u64::from(ranks.iter().copied().max().unwrap_or(0)) + 1;
                let sample = ranks.iter().map(|&r| words[r as usize + from].clone()).collect();
                Shaped { layer: n as u64, cell: [n as u64, distinct], sample }
            }),
        }]
    }
    fn sample_json(&self, s: &Vec<S::Item>) -> serde_json::Value {
        self.0.json(s)
    }
    fn answer_json(&self, a: &Vec<S::Item>) -> serde_json::Value {
        self.0.json(a)
    }
    fn show(&self, d: &S::Item) -> String {
        self.0.show(d)
    }
}

/// One object of the training domain: an 8-bit binary number (D = 8).
pub type Number = u8;

/// The training domain: 8-bit numbers, `compare = lessEqual`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bytes;

impl Order for Bytes {
    type Item = Number;
    /// `o1 ≤ o2`, ascending order.
    fn compare(&self, o1: &Number, o2: &Number) -> bool {
        o1 <= o2
    }
}

impl SortDomain for Bytes {
    fn name(&self) -> &'static str {
        "bytes"
    }
    /// Level ℓ: ℓ+1 uniform 8-bit numbers (repeats possible).
    fn sample(&self, level: usize, rng: &mut SampleRng) -> Vec<Number> {
        (0..=level).map(|_| rng.random_range(0..=Number::MAX)).collect()
    }
    /// Eight binary fields, low bit first.
    fn field_shape(&self) -> Option<crate::FieldShape> {
        Some(crate::FieldShape::bits(8))
    }
    fn fields(&self, x: &Number, out: &mut [u8]) {
        crate::fields::bits(u64::from(*x), out)
    }
    fn sorted(&self, items: &[Number]) -> Vec<Number> {
        let mut sorted = items.to_vec();
        sorted.sort_unstable();
        sorted
    }
    /// The number `rank`, 1–255.
    fn word(&self, rank: u64) -> Option<Number> {
        Number::try_from(rank).ok().filter(|&x| x >= 1)
    }
    /// A non-empty JSON array of integers 0–255 (one number is a valid list).
    fn parse(&self, v: &serde_json::Value) -> Result<Vec<Number>, InputError> {
        let arr = v.as_array().ok_or_else(|| InputError::new("expected a JSON array of integers 0–255"))?;
        if arr.is_empty() {
            return Err(InputError::new("the list must hold at least one number"));
        }
        arr.iter()
            .enumerate()
            .map(|(i, x)| match (x.as_u64(), x.as_i64()) {
                (Some(u), _) => Number::try_from(u).map_err(|_| {
                    InputError::new(format!("the {} number, {u}, is out of the range 0–255", ordinal(i)))
                }),
                (None, Some(neg)) => Err(InputError::new(format!(
                    "the {} number, {neg}, is out of the range 0–255",
                    ordinal(i)
                ))),
                _ => Err(InputError::new(format!(
                    "the {} number must be an integer 0–255, got {x}",
                    ordinal(i)
                ))),
            })
            .collect()
    }
    fn json(&self, items: &[Number]) -> serde_json::Value {
        items.to_vec().into()
    }
    fn show(&self, d: &Number) -> String {
        d.to_string()
    }
}

/// Control-word flags of the scripted solution: `[object, output, 0, 0]`.
const WORD_OBJECT: usize = 0;
const WORD_OUTPUT: usize = 1;

/// Scripted solution of sort. Control words `[object, output, 0, 0]`: the presentation writes
/// `[1, 0, 0, 0]`, the sort phase `[0, 0, 0, 0]`, so the walker stepping `F` from the last object
/// reaches the sort phase's first write (`object = 0`) and the Bus outputs. The step after an `O`
/// marks the output object (`ĝ_1 = 1`, `v̂_1 = [0, 1, 0, 0]`, `ê_1 = 0` on the candidate's location
/// of `t−1`) and sends both heads back with `P` to the first object: during the presentation both
/// heads stay on it (`H`), so it is every object's ancestry parent, and the parent of the sort
/// phase's first write. In between, the walker moves `F` and the candidate stays (`H_1`) or jumps
/// to the walker's last object (`H_2`) when it reads an object already output or after a `C` with
/// `cmp = 0` (from `c_a_{t−1}`).
#[derive(Debug, Clone, Copy, Default)]
pub struct SortScript;

impl Policy for SortScript {
    fn control(&mut self, obs: &Observation<'_>, _c_c: &mut [f32], out: &mut MemoryDecision) {
        let sorting = obs.input_controller[3] > 0.5;
        out.write.fill(0.0);
        out.write[WORD_OBJECT] = flag(obs.input_memory[3] < 0.5);
        out.prev_write.fill(0.0);
        out.prev_erase.fill(0.0);
        out.prev_gate.fill(false);
        let [_, walker_smaller, skipped, output] = [0, 1, 2, 3].map(|k| obs.alu_prev[k] > 0.5);
        out.read_modes.copy_from_slice(&if !sorting {
            [ReadMode::Halt(0), ReadMode::Halt(0)]
        } else if output {
            out.prev_gate[0] = true;
            out.prev_write[WORD_OUTPUT] = 1.0;
            [ReadMode::Parent(0), ReadMode::Parent(0)]
        } else {
            let candidate_output = obs.read_prev[WORD_OUTPUT] > 0.5;
            let compared_smaller = !skipped && walker_smaller;
            let candidate =
                if candidate_output || compared_smaller { ReadMode::Halt(1) } else { ReadMode::Halt(0) };
            [candidate, ReadMode::Forward(0)]
        });
    }

    fn bus(&mut self, c_ib: &[f32], _c_c: &[f32], read_now: &[f32]) -> BusDecision {
        let (candidate, walker) = read_now.split_at(4);
        let op = if c_ib[3] < 0.5 {
            OP_SKIP // presentation: unscored, nothing to do
        } else if walker[WORD_OBJECT] < 0.5 {
            OP_OUTPUT
        } else if candidate[WORD_OUTPUT] > 0.5 || walker[WORD_OUTPUT] > 0.5 {
            OP_SKIP
        } else {
            OP_COMPARE
        };
        BusDecision { op, margin: 1.0 }
    }
}
