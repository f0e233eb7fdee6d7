//! Right at every length (docs/VERIFICATION.md, "Every length"): a proof that a copy or reverse model
//! is right on lists of every length (repeatCopy: every number of copies; duplicated: every
//! number of repeats, [`prove_repeats`]), or the reason none was found.
//!
//! The proof runs the model once, symbolically, on a list of n = P·m + r objects for each
//! residue r and every m ≥ M at once. Its memory mirrors [`nhc_model::Memory`] for the copy
//! family's config (one head each, tail links, released frees, a missing link stays); cells that
//! repeat are kept as runs of a block of cells, and every number (the step, a run's count, the
//! index of the object a cell holds) is affine in m. The data never reaches the Controller
//! (the verification lemma), so an object is named by its index.
//!
//! The induction: the abstract step depends on the state only through its *shape* (the runs'
//! blocks, every word bit for bit, the links, the head) and on the outcomes of the comparisons it
//! makes of its numbers, each logged. When the shape comes back twice after p steps, the same
//! comparisons come out the same and every number moves by the same constant in both periods,
//! each comparison's value is linear in the number of periods; the period then repeats exactly
//! until the first comparison that would change, and the run jumps there. Comparisons of numbers
//! affine in m are decided for all m above a threshold, collected into M; the lengths below are
//! listed (`nhc verify`), which makes the proof one for every length.

use nhc_model::{Config, FreeWrite, Links, MemoryDecision, MissingLink, Observation, Policy, ReadMode};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::fmt;

/// Which object output step k of a pass must read: copy's k-th, or reverse's (n−1−k)-th; and
/// how many passes: one, or (repeatCopy) copy's order in passes without end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Forward,
    Backward,
    /// repeatCopy: the Input's output-phase signals are the same in every pass and it stops
    /// after the c-th `M`, so the run for c copies is the first c passes of one run that never
    /// stops; a proof for that run is one for every number of copies.
    Passes,
    /// duplicated: `objects` objects, each presented r times (signals first/repeat/output), r
    /// the symbolic number; output step k reads object k.
    Repeats {
        objects: u64,
    },
}

/// Abstract steps one residue class may take before the proof gives up.
pub const MAX_STEPS: u64 = 400_000;
/// Most segments (explicit cells and runs) the abstract memory may hold.
const MAX_SEGMENTS: usize = 3_000;
/// Largest block a run repeats.
const MAX_BLOCK: usize = 8;
/// Most objects [`Order::Repeats`] may have.
const MAX_REPEATS_OBJECTS: u64 = 1 << 30;
/// Largest modulus P the proof splits lengths into.
const MAX_MODULUS: i64 = 1024;

/// `a·m + b`: a number of the symbolic run, in its parameter m.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Aff {
    pub a: i64,
    pub b: i64,
}

impl Aff {
    pub const fn of(b: i64) -> Aff {
        Aff { a: 0, b }
    }
    fn add(self, o: Aff) -> Aff {
        Aff { a: self.a + o.a, b: self.b + o.b }
    }
    fn sub(self, o: Aff) -> Aff {
        Aff { a: self.a - o.a, b: self.b - o.b }
    }
    fn plus(self, k: i64) -> Aff {
        Aff { a: self.a, b: self.b + k }
    }
    fn times(self, k: i64) -> Option<Aff> {
        Some(Aff { a: self.a.checked_mul(k)?, b: self.b.checked_mul(k)? })
    }
    fn neg(self) -> Aff {
        Aff { a: -self.a, b: -self.b }
    }
    /// The value at m.
    pub fn at(self, m: i64) -> i64 {
        self.a * m + self.b
    }
    /// As text in n, where n = modulus·m + residue.
    pub fn in_n(self, modulus: i64, residue: i64) -> String {
        self.in_var(modulus, residue, "n")
    }
    /// As text in `var` = modulus·m + residue.
    fn in_var(self, modulus: i64, residue: i64, var: &str) -> String {
        if self.a == 0 {
            return self.b.to_string();
        }
        // a·m + b = (a/P)·(n − r) + b.
        let g = gcd(self.a.abs(), modulus);
        let (k, d) = (self.a / g, modulus / g);
        let c = self.b - if d == 1 { k * residue } else { 0 };
        let n = if d == 1 || residue == 0 { var.to_string() } else { format!("({var} − {residue})") };
        let lead = match (k, d) {
            (1, 1) => n,
            (-1, 1) => format!("−{n}"),
            (k, 1) => format!("{k}{n}"),
            (1, d) => format!("{n}/{d}"),
            (k, d) => format!("{k}{n}/{d}"),
        };
        match c.cmp(&0) {
            Ordering::Equal => lead,
            Ordering::Greater => format!("{lead} + {c}"),
            Ordering::Less => format!("{lead} − {}", -c),
        }
    }
}

/// What a logged comparison found: the sign of its value, or (for a value the shape records,
/// like a run's stride) the value itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Sign(i8),
    Exact(i64),
}

/// Why the symbolic run of one residue class stopped without a proof.
#[derive(Debug, Clone, PartialEq)]
enum Fail {
    /// A period's repetitions need lengths split by this factor more.
    Modulus(i64),
    /// The model leaves the expected trace at every length of the class above a threshold.
    Wrong { step: Aff, what: String },
    /// Anything else, in words.
    Reason(String),
}

/// The numbers' comparisons, the threshold on m they need, and their log.
#[derive(Debug, Default)]
struct Sym {
    m_min: i64,
    log: Vec<(Aff, Outcome)>,
}

impl Sym {
    /// The sign of `v` for every m above a threshold (kept), logged.
    fn sign(&mut self, v: Aff) -> i8 {
        let s = self.sign_unlogged(v);
        self.log.push((v, Outcome::Sign(s)));
        s
    }
    /// [`Sym::sign`] without a log entry (the jump's own arithmetic).
    fn sign_unlogged(&mut self, v: Aff) -> i8 {
        match v.a.cmp(&0) {
            // a·m + b > 0 for m > −b/a.
            Ordering::Greater => {
                self.m_min = self.m_min.max((-v.b).div_euclid(v.a) + 1);
                1
            }
            // a·m + b < 0 for m > b/|a|.
            Ordering::Less => {
                self.m_min = self.m_min.max(v.b.div_euclid(-v.a) + 1);
                -1
            }
            Ordering::Equal => v.b.signum() as i8,
        }
    }
    /// Whether `v` is 0 (logged).
    fn zero(&mut self, v: Aff) -> bool {
        self.sign(v) == 0
    }
}

/// A link of a cell, relative to it where it can be: the cell before or after it in the
/// temporal list, a cell kept explicit, or one the proof no longer tracks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Ref {
    None,
    Prev,
    Next,
    Id(u32),
    Unknown,
}

/// One location: its control word, the index of the object it holds (`None`: the default
/// word), its ancestry parent, newest child and next older sibling.
#[derive(Debug, Clone)]
struct Cell {
    word: Vec<f32>,
    data: Option<Aff>,
    parent: Ref,
    kid: Ref,
    older: Ref,
}

impl Cell {
    /// Same word bit for bit, same kind of data, same links.
    fn same(&self, o: &Cell) -> bool {
        self.word.iter().map(|x| x.to_bits()).eq(o.word.iter().map(|x| x.to_bits()))
            && self.data.is_some() == o.data.is_some()
            && (self.parent, self.kid, self.older) == (o.parent, o.kid, o.older)
    }
}

/// `count` copies of `block`, in temporal order; block j's objects are the first block's plus
/// `j·stride`.
#[derive(Debug, Clone)]
struct Run {
    block: Vec<Cell>,
    count: Aff,
    stride: i64,
}

impl Run {
    /// Cell `i` of block `j` (`j` affine).
    fn cell(&self, i: usize, j: Aff) -> Cell {
        let mut c = self.block[i].clone();
        c.data = c.data.map(|d| d.add(Aff { a: j.a * self.stride, b: j.b * self.stride }));
        c
    }
}

#[derive(Debug, Clone)]
enum Seg {
    One(u32),
    Run(Run),
    /// Cells of earlier passes that no link the proof tracks reaches ([`Runner::collapse`]):
    /// their words and number are unknown, and a step that moves into them ends the proof.
    Gap,
}

/// Where the read head is: nowhere yet (step 1), on a cell, or on the location the last step
/// freed (which the next write takes again).
#[derive(Debug, Clone)]
enum Head {
    Start,
    On(u32),
    Freed { word: Vec<f32>, data: Option<Aff> },
}

/// The signals of a step (copy family, first/inner/last/output).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    First,
    Inner,
    Last,
    /// First and last: a list of one object.
    Only,
    Output,
}

/// The abstract machine's state.
#[derive(Debug, Clone)]
struct State {
    cells: Vec<Option<Cell>>,
    segs: Vec<Seg>,
    head: Head,
    prev_op: Option<usize>,
    t: Aff,
    /// [`Order::Repeats`]: the object being presented (`objects`: the input is over).
    block: u64,
}

/// A repeated block the proof found: where, how long, how often.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Regime {
    pub phase: String,
    /// The step it starts at, in n.
    pub from_step: String,
    /// Steps per period.
    pub period: u64,
    /// Periods, in n.
    pub repeats: String,
    /// The read modes of one period.
    pub modes: String,
    /// The first step, as a number of the run.
    #[serde(skip)]
    pub start: Aff,
}

/// One step of the abstract machine, as the machine shows it: read mode, operation, the index
/// of the object read (`None`: the default word) and the control word read, bit for bit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub mode: char,
    pub op: usize,
    pub object: Option<i64>,
    pub word: Vec<u32>,
}

/// The abstract machine's steps on a list of `n ≥ 3` objects, every number a constant (so it
/// never jumps), and whether the run was right: for comparing it with the machine.
pub fn steps(config: &Config, policy: &mut dyn Policy, order: Order, n: u64) -> (Vec<Step>, bool) {
    let mut run = Runner::new(config, order, Aff::of(n as i64));
    run.record = Some(Vec::new());
    let right = run.run(policy).is_ok();
    (run.record.take().unwrap_or_default(), right)
}

/// The proof of one residue class: lengths n = modulus·m + residue, m ≥ from_m.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Class {
    pub residue: u64,
    pub from_m: i64,
    /// Abstract steps taken.
    pub steps: u64,
    pub regimes: Vec<Regime>,
    /// [`Order::Passes`]: where the passes repeat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passes: Option<Cycle>,
}

/// Passes that repeat: pass `first + period` starts in the state of pass `first` (from 1), so
/// every pass from `first` on repeats one of passes `first ..= first + period − 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cycle {
    pub first: u64,
    pub period: u64,
}

/// [`Order::Passes`]: each number of objects below the symbolic run's `n0`, run on its own (n a
/// constant) until its passes repeat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Below {
    /// Numbers of objects 1 ..= this.
    pub objects: u64,
    /// Abstract steps of all those runs.
    pub steps: u64,
    /// The most passes one of them took before its state came back (`first + period − 1`).
    pub passes: u64,
}

/// A repeated block's first two periods at one length: its phase and steps `from..=to`.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub phase: String,
    pub from: u64,
    pub to: u64,
}

/// [`Order::Passes`]: passes `first ..= copies` (two periods) of a run of `objects` objects and
/// `copies` copies, its steps `from..=to`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassBlock {
    pub objects: u64,
    pub copies: u64,
    pub first: u64,
    pub from: u64,
    pub to: u64,
}

/// A proof that every list of at least `n0` objects is right; below `n0`, lengths are listed,
/// or ([`Order::Passes`]: every number of copies) each proved by a run of its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proof {
    pub modulus: u64,
    pub n0: u64,
    pub classes: Vec<Class>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub below: Option<Below>,
}

/// No proof: why, in a sentence.
#[derive(Debug, Clone, Serialize)]
pub struct Unproved {
    pub reason: String,
    /// A length the symbolic run found wrong, if that is the reason.
    pub wrong_at: Option<u64>,
}

impl fmt::Display for Unproved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl Proof {
    /// The smallest length the symbolic run covers in residue 0, and there, per regime of that
    /// residue, its phase and the steps of its first two periods.
    pub fn blocks(&self) -> Option<(u64, Vec<Block>)> {
        let (c, m) = self.smallest_of_residue_zero()?;
        let n = m * self.modulus;
        let blocks = c
            .regimes
            .iter()
            .map(|r| {
                let from = r.start.at(m as i64).max(0) as u64;
                Block { phase: r.phase.clone(), from, to: from + 2 * r.period - 1 }
            })
            .collect();
        Some((n, blocks))
    }

    /// The class of lengths P·m and the smallest m it covers.
    fn smallest_of_residue_zero(&self) -> Option<(&Class, u64)> {
        let c = self.classes.iter().find(|c| c.residue == 0)?;
        Some((c, self.n0.div_ceil(self.modulus).max(c.from_m.max(1) as u64)))
    }

    /// [`Order::Passes`]: two periods of the passes that repeat, at the smallest number of objects
    /// the symbolic run covers, as steps of one run (n input steps, then n + 1 a pass).
    pub fn pass_block(&self) -> Option<PassBlock> {
        let (c, m) = self.smallest_of_residue_zero()?;
        let Cycle { first, period } = c.passes?;
        let (n, copies) = (m * self.modulus, first + 2 * period - 1);
        Some(PassBlock {
            objects: n,
            copies,
            first,
            from: n + (first - 1) * (n + 1),
            to: n + copies * (n + 1) - 1,
        })
    }

    /// [`Order::Passes`]: the most passes a run of the proof took before its state came back
    /// (over the symbolic classes and the runs below n0); `None` for one pass.
    pub fn passes(&self) -> Option<u64> {
        let classes = self.classes.iter().filter_map(|c| c.passes).map(|c| c.first + c.period - 1);
        classes.chain(self.below.as_ref().map(|b| b.passes)).max()
    }

    /// The proof in words: its period(s) per phase.
    pub fn summary(&self) -> String {
        let Some(c) = self.classes.first() else { return String::new() };
        let blocks: Vec<String> = c
            .regimes
            .iter()
            .map(|r| {
                format!(
                    "{}: {} step{} ({}) repeated {} times from step {}",
                    r.phase,
                    r.period,
                    if r.period == 1 { "" } else { "s" },
                    r.modes,
                    r.repeats,
                    r.from_step
                )
            })
            .collect();
        let classes = if self.modulus > 1 {
            format!("n = {}·m + r, each r alike; r = 0: ", self.modulus)
        } else {
            String::new()
        };
        let passes = match c.passes {
            // Copy first + period starts as copy first, and so on.
            Some(Cycle { first, period: 1 }) => {
                format!("; from copy {} on, each pass starts as the one before", first + 1)
            }
            Some(Cycle { first, period }) => {
                format!("; from copy {} on, each pass starts as the one {period} before", first + period)
            }
            None => String::new(),
        };
        format!("{classes}{}{passes}", blocks.join("; "))
    }
}

/// What the proof needs of a config (the copy family's memory, one head each, no feedback) and of
/// an order ([`Order::Repeats`]: at most 2³⁰ objects).
pub fn unsupported(config: &Config, order: Order) -> Option<String> {
    let signals = match order {
        Order::Repeats { .. } => 3,
        _ => 4,
    };
    // Keeps every object's first step k·r (coefficients ≤ MAX_MODULUS) far from i64's limits.
    if let Order::Repeats { objects } = order
        && objects > MAX_REPEATS_OBJECTS
    {
        return Some(format!("{objects} objects: the proof takes at most {MAX_REPEATS_OBJECTS}"));
    }
    let why = if config.write_heads != 1 || config.read_heads != 1 {
        "it has more than one write or read head"
    } else if config.links != Links::Tail {
        "its temporal links are not tail links"
    } else if config.free_write != FreeWrite::Release {
        "its write frees do not release"
    } else if config.missing_link != MissingLink::Stay {
        "a missing link reads nothing"
    } else if config.input_controller != signals
        || config.input_memory != signals
        || config.input_bus != signals
    {
        if signals == 4 {
            "its Input does not send the four signals first, inner, last, output"
        } else {
            "its Input does not send the three signals first, repeat, output"
        }
    } else {
        return None;
    };
    Some(format!("the every-length proof covers the copy family's memory; {why}"))
}

/// Proves `policy` right on every list of n ≥ n0 objects (copy: `Order::Forward`, reverse:
/// `Order::Backward`), or says why not.
pub fn prove(config: &Config, policy: &mut dyn Policy, order: Order) -> Result<Proof, Unproved> {
    if let Some(why) = unsupported(config, order) {
        return Err(Unproved { reason: why, wrong_at: None });
    }
    let mut modulus = 1i64;
    'split: loop {
        let mut classes = Vec::new();
        let p = modulus;
        for r in 0..p {
            let mut run = Runner::new(config, order, Aff { a: modulus, b: r });
            match run.run(policy) {
                Ok(()) => classes.push(Class {
                    residue: r as u64,
                    from_m: run.sym.m_min.max(1),
                    steps: run.steps,
                    regimes: run.regimes,
                    passes: run.cycle,
                }),
                Err(Fail::Modulus(f)) if modulus * f <= MAX_MODULUS => {
                    modulus *= f;
                    continue 'split;
                }
                Err(Fail::Modulus(f)) => {
                    return Err(Unproved {
                        reason: format!(
                            "a repeated block needs lengths split modulo {}, above {MAX_MODULUS}",
                            modulus * f
                        ),
                        wrong_at: None,
                    });
                }
                Err(Fail::Wrong { step, what }) => {
                    let m = run.sym.m_min.max(1);
                    let n = modulus * m + r;
                    let lists = match (order, modulus) {
                        (Order::Repeats { objects }, 1) => {
                            format!("{} each presented at least {n} times", count_objects(objects))
                        }
                        (Order::Repeats { objects }, _) => format!(
                            "{} each presented r = {modulus}·m + {r} times from r = {n}",
                            count_objects(objects)
                        ),
                        (_, 1) => format!("every list of at least {n} objects"),
                        _ => format!("every list of n = {modulus}·m + {r} objects from n = {n}"),
                    };
                    return Err(Unproved {
                        reason: format!("wrong on {lists}: at step {} {what}", run.show(step)),
                        wrong_at: Some(n as u64),
                    });
                }
                Err(Fail::Reason(why)) => {
                    let var = if matches!(order, Order::Repeats { .. }) { "r" } else { "n" };
                    let class =
                        if modulus == 1 { String::new() } else { format!(" ({var} = {modulus}·m + {r})") };
                    return Err(Unproved { reason: format!("{why}{class}"), wrong_at: None });
                }
            }
        }
        let n0 = classes.iter().map(|c| modulus * c.from_m + c.residue as i64).max().unwrap_or(1);
        let below = match order {
            Order::Passes => Some(each_below(config, policy, n0 as u64)?),
            _ => None,
        };
        return Ok(Proof { modulus: modulus as u64, n0: n0 as u64, classes, below });
    }
}

/// duplicated's proof ([`prove_repeats`]): every list of 1..=`objects` objects, each object
/// presented r times, for every r.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Repeats {
    pub objects: u64,
    /// The largest r₀ of the symbolic runs (each number of objects has its own): every r ≥ r₀
    /// by them, each smaller r by a run of its own.
    pub r0: u64,
    /// The largest modulus a symbolic run split r by.
    pub modulus: u64,
    /// Abstract steps of every run.
    pub steps: u64,
    /// Two periods of the first block the symbolic run repeats, at 3 objects (`nhc trace`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<RepeatsBlock>,
}

/// [`Repeats::block`]: steps `from..=to` of `objects` objects each presented `repeats` times.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepeatsBlock {
    pub objects: u64,
    pub repeats: u64,
    pub phase: String,
    pub from: u64,
    pub to: u64,
}

/// duplicated ([`Order::Repeats`]): proves `policy` right on every list of 1..=`objects`
/// objects, consecutive ones different, each presented r times, for every r ≥ 1: per number of
/// objects a symbolic run in r (every r ≥ r₀) and a run of its own for each r below r₀. The
/// samples of level ℓ are such lists (ℓ repeats, at most ℓ objects), so `objects` = L covers
/// every sample of levels 1..=L.
pub fn prove_repeats(config: &Config, policy: &mut dyn Policy, objects: u64) -> Result<Repeats, Unproved> {
    if let Some(why) = unsupported(config, Order::Repeats { objects }) {
        return Err(Unproved { reason: why, wrong_at: None });
    }
    let mut out = Repeats { objects, r0: 1, modulus: 1, steps: 0, block: None };
    for n in 1..=objects {
        let order = Order::Repeats { objects: n };
        let proof =
            prove(config, policy, order).map_err(|u| Unproved { wrong_at: u.wrong_at.map(|_| n), ..u })?;
        out.r0 = out.r0.max(proof.n0);
        out.modulus = out.modulus.max(proof.modulus);
        out.steps += proof.classes.iter().map(|c| c.steps).sum::<u64>();
        if n == objects.min(3)
            && let Some((repeats, blocks)) = proof.blocks()
        {
            out.block = blocks.into_iter().next().map(|Block { phase, from, to }| RepeatsBlock {
                objects: n,
                repeats,
                phase,
                from,
                to,
            });
        }
        for r in 1..proof.n0 {
            let mut run = Runner::new(config, order, Aff::of(r as i64));
            match run.run(policy) {
                Ok(()) => out.steps += run.steps,
                Err(Fail::Wrong { step, what }) => {
                    return Err(Unproved {
                        reason: format!(
                            "wrong on {} each presented {r} times: at step {} {what}",
                            count_objects(n),
                            step.b
                        ),
                        wrong_at: Some(n),
                    });
                }
                Err(Fail::Modulus(f)) => {
                    return Err(Unproved {
                        reason: format!("internal: {} × {r} asked for a modulus {f}", count_objects(n)),
                        wrong_at: None,
                    });
                }
                Err(Fail::Reason(why)) => {
                    return Err(Unproved {
                        reason: format!("{why} (at {} each presented {r} times)", count_objects(n)),
                        wrong_at: None,
                    });
                }
            }
        }
    }
    Ok(out)
}

/// [`Order::Passes`]: every number of objects below `n0`, each by a run of its own (n a
/// constant: no comparison has a threshold, no modulus), every number of copies by its passes.
fn each_below(config: &Config, policy: &mut dyn Policy, n0: u64) -> Result<Below, Unproved> {
    let mut below = Below { objects: n0.saturating_sub(1), steps: 0, passes: 0 };
    for n in 1..n0 {
        let mut run = Runner::new(config, Order::Passes, Aff::of(n as i64));
        match run.run(policy) {
            Ok(()) => {
                below.steps += run.steps;
                if let Some(c) = run.cycle {
                    below.passes = below.passes.max(c.first + c.period - 1);
                }
            }
            Err(Fail::Wrong { step, what }) => {
                return Err(Unproved {
                    reason: format!("wrong on {n} objects: at step {} {what}", step.b),
                    wrong_at: Some(n),
                });
            }
            // A constant n needs no modulus: kept as a reason all the same.
            Err(Fail::Modulus(f)) => {
                return Err(Unproved {
                    reason: format!("internal: {n} objects asked for lengths split modulo {f}"),
                    wrong_at: None,
                });
            }
            Err(Fail::Reason(why)) => {
                return Err(Unproved { reason: format!("{why} (at {n} objects)"), wrong_at: None });
            }
        }
    }
    Ok(below)
}

/// The first cycle candidate: its shape, numbers and log position.
struct Anchor {
    shape: Vec<u64>,
    q: Vec<Aff>,
    log: usize,
    step: u64,
}

/// The symbolic run of one residue class.
struct Runner<'c> {
    config: &'c Config,
    order: Order,
    n: Aff,
    st: State,
    sym: Sym,
    steps: u64,
    regimes: Vec<Regime>,
    /// Read mode of each step since the anchor, for the regimes' record.
    modes: Vec<char>,
    dec: MemoryDecision,
    c_c: Vec<f32>,
    /// Every step, when asked ([`steps`]).
    record: Option<Vec<Step>>,
    /// The words read and written in the last [`RECENT`] steps, bit for bit (for the
    /// diagnosis).
    recent: std::collections::VecDeque<Vec<u32>>,
    written: std::collections::VecDeque<Vec<u32>>,
    /// The step the output phase's current pass began at (set at its first output step).
    pass_start: Option<Aff>,
    /// Passes ended.
    passes: u64,
    /// [`Order::Passes`]: the state at each pass's start, without the step t, and its pass.
    seen: std::collections::HashMap<(Vec<u64>, Vec<Aff>), u64>,
    /// The passes repeat: the state at the start of pass `first + period` is that of `first`.
    cycle: Option<Cycle>,
    /// The memory's words at the last [`RECENT`] passes' starts, bit for bit (the diagnosis).
    pass_words: std::collections::VecDeque<Vec<u32>>,
}

/// Steps whose words read the diagnosis looks at.
const RECENT: usize = 64;

impl<'c> Runner<'c> {
    fn new(config: &'c Config, order: Order, n: Aff) -> Self {
        Runner {
            config,
            order,
            n,
            st: State {
                cells: Vec::new(),
                segs: Vec::new(),
                head: Head::Start,
                prev_op: None,
                t: Aff::of(0),
                block: 0,
            },
            sym: Sym::default(),
            steps: 0,
            regimes: Vec::new(),
            modes: Vec::new(),
            dec: MemoryDecision::new(config),
            c_c: vec![0.0; config.controller],
            record: None,
            recent: std::collections::VecDeque::with_capacity(RECENT),
            written: std::collections::VecDeque::with_capacity(RECENT),
            pass_start: None,
            passes: 0,
            seen: std::collections::HashMap::new(),
            cycle: None,
            pass_words: std::collections::VecDeque::with_capacity(RECENT),
        }
    }

    /// Steps until the model's `M` at output step n, jumping over repeated periods.
    fn run(&mut self, policy: &mut dyn Policy) -> Result<(), Fail> {
        // The signals first, inner…, last need n ≥ 3.
        self.sym.sign_unlogged(self.n.plus(-3));
        let mut anchor: Option<Anchor> = None;
        let mut limit = 1u64;
        let mut second: Option<(Vec<Aff>, usize, u64)> = None;
        while self.steps < MAX_STEPS && self.st.segs.len() <= MAX_SEGMENTS {
            let phase = self.phase();
            let pass_ended = self.step(policy, phase)?;
            if pass_ended && self.order != Order::Passes {
                return Ok(());
            }
            self.steps += 1;
            self.forget();
            self.normalize();
            if pass_ended {
                // A period never spans a pass's end: the pass's own state is compared instead.
                self.collapse();
                self.normalize();
                if self.pass_words.len() == RECENT {
                    self.pass_words.pop_front();
                }
                self.pass_words.push_back(self.words());
                if self.repeated()? {
                    return Ok(());
                }
                (anchor, second, limit) = (None, None, 1);
                self.sym.log.clear();
                self.modes.clear();
                continue;
            }
            let shape = self.shape()?;
            let here = Anchor { shape, q: self.quantities(), log: self.sym.log.len(), step: self.steps };
            let Some(a) = anchor.take() else {
                anchor = Some(self.anchored(here));
                continue;
            };
            if let Some((qb, logb, stepb)) = second.take() {
                if here.step < stepb + (stepb - a.step) {
                    second = Some((qb, logb, stepb));
                    anchor = Some(a);
                    continue;
                }
                if here.shape == a.shape && self.jump(&a, &qb, logb, stepb, &here, phase)? {
                    self.sym.log.clear();
                    self.modes.clear();
                    limit = 1;
                    continue;
                }
                anchor = Some(self.anchored(here));
                continue;
            }
            if here.shape == a.shape {
                second = Some((here.q, here.log, here.step));
                anchor = Some(a);
            } else if here.step - a.step >= limit {
                limit *= 2;
                anchor = Some(self.anchored(here));
            } else {
                anchor = Some(a);
            }
        }
        Err(Fail::Reason(self.diagnosis()))
    }

    /// `here` as the new anchor: the log and modes before it are no longer needed.
    fn anchored(&mut self, mut here: Anchor) -> Anchor {
        self.sym.log.drain(..here.log);
        self.modes.clear();
        here.log = 0;
        here
    }

    /// Every control word the memory keeps, in order, bit for bit.
    fn words(&self) -> Vec<u32> {
        let mut out = Vec::new();
        for s in &self.st.segs {
            let cells = match s {
                Seg::One(id) => std::slice::from_ref(self.cell(*id)),
                Seg::Run(r) => r.block.as_slice(),
                Seg::Gap => &[],
            };
            cells.iter().for_each(|c| out.extend(c.word.iter().map(|x| x.to_bits())));
        }
        out
    }

    /// Why no period was found, in words a user can act on.
    fn diagnosis(&self) -> String {
        if self.order == Order::Passes && self.passes > 1 {
            return self.passes_diagnosis();
        }
        let phase = match self.phase_unlogged() {
            Phase::Output => "output",
            _ => "input",
        };
        let at = format!(
            "no repeating block within {} steps ({phase} phase, step {})",
            self.steps,
            self.show(self.st.t)
        );
        let words = &self.recent;
        let fresh = words.iter().enumerate().all(|(i, w)| !words.iter().take(i).any(|v| v == w));
        if fresh && words.len() > 1 {
            let (a, b) = (&words[words.len() - 2], &words[words.len() - 1]);
            let ulps =
                a.iter().zip(b).map(|(x, y)| (i64::from(*x as i32) - i64::from(*y as i32)).abs()).max();
            return format!(
                "{at}: the word the head reads was new at each of the last {} steps, the last two {} units in the last place apart: a word that drifts and reaches no fixed point within the proof's budget",
                words.len(),
                ulps.unwrap_or(0)
            );
        }
        let explicit = self.st.segs.iter().filter(|s| matches!(s, Seg::One(_))).count();
        let mut kinds: Vec<&Vec<u32>> = self.written.iter().collect();
        kinds.sort();
        kinds.dedup();
        format!(
            "{at}: the memory holds {explicit} cells that repeat no neighbour and {} segments; the last {} steps wrote {} different words (words that have not settled into a block of at most {MAX_BLOCK} cells within the budget, or links the proof does not follow)",
            self.st.segs.len(),
            self.written.len(),
            kinds.len()
        )
    }

    /// [`Order::Passes`]: why the passes never came back to a state, from the memory's words at
    /// the last passes' starts.
    fn passes_diagnosis(&self) -> String {
        let at = format!(
            "no two passes began in the same state within {} passes ({} steps)",
            self.passes, self.steps
        );
        let w = &self.pass_words;
        let (Some(a), Some(b)) = (w.get(w.len().wrapping_sub(2)), w.back()) else { return at };
        if a.len() != b.len() {
            return format!(
                "{at}: the memory keeps {} words at the last pass's start, {} at the one before (cells of earlier passes that the proof keeps, or words that have not settled into runs)",
                b.len() / self.config.word,
                a.len() / self.config.word
            );
        }
        let apart: Vec<i64> = a
            .iter()
            .zip(b)
            .filter(|(x, y)| x != y)
            .map(|(x, y)| (i64::from(*x as i32) - i64::from(*y as i32)).abs())
            .collect();
        let changed =
            a.chunks(self.config.word).zip(b.chunks(self.config.word)).filter(|(x, y)| x != y).count();
        let ulps = apart.iter().max().copied().unwrap_or(0);
        format!(
            "{at}: {changed} of the memory's {} words changed in the last pass, by at most {ulps} unit{} in the last place: words that drift pass by pass and reach no fixed point within the proof's budget",
            b.len() / self.config.word,
            if ulps == 1 { "" } else { "s" }
        )
    }

    /// The phase of step t (logged comparisons of t with n; the output phase, once begun,
    /// lasts).
    fn phase(&mut self) -> Phase {
        if self.pass_start.is_some() {
            return Phase::Output;
        }
        let (t, n, block, order) = (self.st.t, self.n, self.st.block, self.order);
        let sym = &mut self.sym;
        match order {
            Order::Repeats { objects } => repeats_phase_of(t, n, block, objects, |v| sym.sign(v)),
            _ => phase_of(t, n, |v| sym.sign(v)),
        }
    }

    /// [`Runner::phase`] without a log entry or a threshold (the shape, the diagnosis).
    fn phase_unlogged(&self) -> Phase {
        if self.pass_start.is_some() {
            return Phase::Output;
        }
        let mut sym = Sym::default();
        match self.order {
            Order::Repeats { objects } => {
                repeats_phase_of(self.st.t, self.n, self.st.block, objects, |v| sym.sign_unlogged(v))
            }
            _ => phase_of(self.st.t, self.n, |v| sym.sign_unlogged(v)),
        }
    }

    /// The number of objects: n, or [`Order::Repeats`]'s constant.
    fn objects(&self) -> Aff {
        match self.order {
            Order::Repeats { objects } => Aff::of(objects as i64),
            _ => self.n,
        }
    }

    /// A number of the run as text in its symbolic length (n objects, or r repeats).
    fn show(&self, v: Aff) -> String {
        let var = if matches!(self.order, Order::Repeats { .. }) { "r" } else { "n" };
        v.in_var(self.n.a, self.n.b, var)
    }

    fn cell(&self, id: u32) -> &Cell {
        self.st.cells[id as usize].as_ref().expect("a cell in the memory is kept")
    }
    fn cell_mut(&mut self, id: u32) -> &mut Cell {
        self.st.cells[id as usize].as_mut().expect("a cell in the memory is kept")
    }
    fn add_cell(&mut self, c: Cell) -> u32 {
        self.st.cells.push(Some(c));
        (self.st.cells.len() - 1) as u32
    }
    fn pos(&self, id: u32) -> usize {
        self.st
            .segs
            .iter()
            .position(|s| matches!(s, Seg::One(x) if *x == id))
            .expect("a kept cell is in the list")
    }

    /// The cell just after segment `i`, taken out of its run if it is in one; `Err` for a gap.
    fn after(&mut self, i: usize) -> Result<Option<u32>, ()> {
        match self.st.segs.get(i + 1) {
            None => Ok(None),
            Some(Seg::One(x)) => Ok(Some(*x)),
            Some(Seg::Run(_)) => Ok(Some(self.pop_front(i + 1))),
            Some(Seg::Gap) => Err(()),
        }
    }
    /// The cell just before segment `i`.
    fn before(&mut self, i: usize) -> Result<Option<u32>, ()> {
        let Some(k) = i.checked_sub(1) else { return Ok(None) };
        match self.st.segs[k] {
            Seg::One(x) => Ok(Some(x)),
            Seg::Run(_) => Ok(Some(self.pop_back(k))),
            Seg::Gap => Err(()),
        }
    }

    /// Takes the first cell out of the run at segment `k` (MODEL §3 order: the rest stays a
    /// run of the rotated block while it has two blocks).
    fn pop_front(&mut self, k: usize) -> u32 {
        let Seg::Run(r) = self.st.segs[k].clone() else { unreachable!("a run") };
        let p = r.block.len();
        let first = self.add_cell(r.cell(0, Aff::of(0)));
        let mut new = vec![Seg::One(first)];
        if self.sym.sign(r.count.plus(-3)) >= 0 {
            let mut block: Vec<Cell> = (1..p).map(|i| r.cell(i, Aff::of(0))).collect();
            block.push(r.cell(0, Aff::of(1)));
            new.push(Seg::Run(Run { block, count: r.count.plus(-1), stride: r.stride }));
            for i in 1..p {
                let id = self.add_cell(r.cell(i, r.count.plus(-1)));
                new.push(Seg::One(id));
            }
        } else {
            // Two blocks: the rest is explicit.
            for (i, j) in (1..p).map(|i| (i, 0)).chain((0..p).map(|i| (i, 1))) {
                let id = self.add_cell(r.cell(i, Aff::of(j)));
                new.push(Seg::One(id));
            }
        }
        self.st.segs.splice(k..=k, new);
        first
    }

    /// Takes the last cell out of the run at segment `k`.
    fn pop_back(&mut self, k: usize) -> u32 {
        let Seg::Run(r) = self.st.segs[k].clone() else { unreachable!("a run") };
        let p = r.block.len();
        let mut new = Vec::new();
        let lastj = r.count.plus(-1);
        if self.sym.sign(r.count.plus(-3)) >= 0 {
            new.push(Seg::Run(Run { block: r.block.clone(), count: r.count.plus(-1), stride: r.stride }));
        } else {
            for i in 0..p {
                let id = self.add_cell(r.cell(i, Aff::of(0)));
                new.push(Seg::One(id));
            }
        }
        for i in 0..p - 1 {
            let id = self.add_cell(r.cell(i, lastj));
            new.push(Seg::One(id));
        }
        let last = self.add_cell(r.cell(p - 1, lastj));
        new.push(Seg::One(last));
        self.st.segs.splice(k..=k, new);
        last
    }

    /// The cell `r` of `holder` names; `Err` for a link the proof does not track.
    fn resolve(&mut self, holder: u32, r: Ref) -> Result<Option<u32>, ()> {
        match r {
            Ref::None => Ok(None),
            Ref::Id(x) => Ok(Some(x)),
            Ref::Prev => {
                let i = self.pos(holder);
                self.before(i)
            }
            Ref::Next => {
                let i = self.pos(holder);
                self.after(i)
            }
            Ref::Unknown => Err(()),
        }
    }

    /// `target` as a link of `holder`.
    fn express(&self, holder: u32, target: Option<u32>) -> Ref {
        let Some(x) = target else { return Ref::None };
        let i = self.pos(holder);
        let is =
            |j: Option<usize>| matches!(j.and_then(|j| self.st.segs.get(j)), Some(Seg::One(y)) if *y == x);
        if is(i.checked_sub(1)) {
            Ref::Prev
        } else if is(Some(i + 1)) {
            Ref::Next
        } else {
            Ref::Id(x)
        }
    }

    /// One step of the machine (MODEL §2) on the abstract memory; `true` when a pass ended
    /// right (the `M` after n outputs): the run's end but for [`Order::Passes`].
    fn step(&mut self, policy: &mut dyn Policy, phase: Phase) -> Result<bool, Fail> {
        let c = self.config.word;
        let repeats = matches!(self.order, Order::Repeats { .. });
        let signals: [f32; 4] = match phase {
            Phase::First => [1.0, 0.0, 0.0, 0.0],
            Phase::Inner => [0.0, 1.0, 0.0, 0.0],
            Phase::Last => [0.0, 0.0, 1.0, 0.0],
            Phase::Only => [1.0, 0.0, 1.0, 0.0],
            // duplicated's output signal is its third.
            Phase::Output if repeats => [0.0, 0.0, 1.0, 0.0],
            Phase::Output => [0.0, 0.0, 0.0, 1.0],
        };
        let signal = &signals[..if repeats { 3 } else { 4 }];
        let read_prev = match &self.st.head {
            Head::Start => vec![0.0; c],
            Head::On(h) => self.cell(*h).word.clone(),
            Head::Freed { word, .. } => word.clone(),
        };
        let mut bus_prev = vec![0.0; self.config.ops];
        if let Some(op) = self.st.prev_op {
            bus_prev[op] = 1.0;
        }
        let alu_prev = vec![0.0; self.config.alu_feedback];
        let obs = Observation {
            input_controller: signal,
            input_memory: signal,
            bus_prev: &bus_prev,
            alu_prev: &alu_prev,
            read_prev: &read_prev,
        };
        self.dec.clear();
        self.c_c.fill(0.0);
        policy.control(&obs, &mut self.c_c, &mut self.dec);
        let dec = self.dec.clone();

        // Previous update of the head's location (MODEL §2 step 4a); a freed location is
        // written over below, and at step 1 there is none.
        if dec.prev_gate[0]
            && let Head::On(h) = self.st.head
        {
            let w = &mut self.cell_mut(h).word;
            for ((x, e), v) in w.iter_mut().zip(&dec.prev_erase[..c]).zip(&dec.prev_write[..c]) {
                *x = *x * (1.0 - e) + v;
            }
        }

        // Write (4b): a new cell after the tail; the newest child of the head's location unless
        // the head is on the location the write takes (freed, or none yet).
        let d_i = match self.order {
            _ if phase == Phase::Output => None,
            Order::Repeats { .. } => Some(Aff::of(self.st.block as i64)),
            _ => Some(self.st.t),
        };
        let from = match self.st.head {
            Head::On(h) => Some(h),
            _ => None,
        };
        let old_kid = match from {
            Some(h) => {
                let k = self.cell(h).kid;
                self.resolve(h, k).map_err(|_| ())
            }
            None => Ok(None),
        };
        let w = self.add_cell(Cell {
            word: dec.write[..c].to_vec(),
            data: d_i,
            parent: Ref::None,
            kid: Ref::None,
            older: Ref::None,
        });
        self.st.segs.push(Seg::One(w));
        match from {
            Some(h) => {
                let parent = self.express(w, Some(h));
                let older = match old_kid {
                    Ok(k) => self.express(w, k),
                    Err(()) => Ref::Unknown,
                };
                let kid = self.express(h, Some(w));
                let cw = self.cell_mut(w);
                cw.parent = parent;
                cw.older = older;
                self.cell_mut(h).kid = kid;
            }
            None => self.st.head = Head::On(w),
        }

        // Read (4c): move along the mode's link; a missing link stays.
        let Head::On(h) = self.st.head else { unreachable!("the head is on a cell after the write") };
        let mode = dec.read_modes[0];
        let at = match self.order {
            Order::Passes if phase == Phase::Output => {
                format!("{}, copy {}", self.show(self.st.t), self.passes + 1)
            }
            _ => self.show(self.st.t),
        };
        let untracked = |what: &str| {
            Fail::Reason(format!(
                "the model follows the {what} of a cell whose {what} the proof does not track (mode {} at step {at})",
                mode_char(mode)
            ))
        };
        let earlier = || {
            Fail::Reason(format!(
                "the model moves (mode {} at step {at}) into cells written in an earlier pass, which the proof does not keep",
                mode_char(mode)
            ))
        };
        let target = match mode {
            ReadMode::Halt(_) => Some(h),
            ReadMode::Forward(_) => {
                let i = self.pos(h);
                self.after(i).map_err(|_| earlier())?
            }
            ReadMode::Backward(_) => {
                let i = self.pos(h);
                self.before(i).map_err(|_| earlier())?
            }
            ReadMode::Parent(_) if self.config.ancestry => {
                let p = self.cell(h).parent;

                self.resolve(h, p).map_err(|_| untracked("ancestry parent"))?
            }
            ReadMode::Child(_) if self.config.ancestry => {
                let k = self.cell(h).kid;
                self.resolve(h, k).map_err(|_| untracked("newest child"))?
            }
            _ => None,
        }
        .unwrap_or(h);
        self.modes.push(mode_char(mode));
        self.st.head = Head::On(target);
        let read_word = self.cell(target).word.clone();
        let read_data = self.cell(target).data;
        let op = policy.bus(signal, &self.c_c, &read_word).op;
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(read_word.iter().map(|x| x.to_bits()).collect());
        if self.written.len() == RECENT {
            self.written.pop_front();
        }
        self.written.push_back(dec.write[..c].iter().map(|x| x.to_bits()).collect());
        if let Some(r) = &mut self.record {
            r.push(Step {
                mode: mode_char(mode),
                op,
                object: read_data.map(|d| d.b),
                word: read_word.iter().map(|x| x.to_bits()).collect(),
            });
        }

        // The expected trace: outputs in order, then M (in every pass).
        let mut pass_ended = false;
        if phase == Phase::Output {
            let start = *self.pass_start.get_or_insert(self.st.t);
            let k = self.st.t.sub(start);
            let objects = self.objects();
            let more = self.sym.sign(objects.plus(-1).sub(k)) >= 0;
            let expected = if more { super::copy_family::OP_OUTPUT } else { super::copy_family::OP_MARK };
            let pass = match self.order {
                Order::Passes => format!(" (copy {})", self.passes + 1),
                _ => String::new(),
            };
            if op != expected {
                let name = |o: usize| super::copy_family::OPS.get(o).copied().unwrap_or("?");
                return Err(Fail::Wrong {
                    step: self.st.t,
                    what: format!("the operation is {}, expected {}{pass}", name(op), name(expected)),
                });
            }
            if !more && self.order != Order::Passes {
                return Ok(true);
            }
            pass_ended = !more;
            let e = match self.order {
                Order::Forward | Order::Passes | Order::Repeats { .. } => k,
                Order::Backward => objects.plus(-1).sub(k),
            };
            let right = pass_ended || read_data.is_some_and(|x| self.sym.zero(x.sub(e)));
            if !right {
                let got =
                    read_data.map_or("the default word".to_string(), |x| format!("object {}", self.show(x)));
                return Err(Fail::Wrong {
                    step: self.st.t,
                    what: format!("it outputs {got}, expected object {}{pass}", self.show(e)),
                });
            }
        }
        // Free gates (4d), after the check: at the run's last step (its `M`) they change
        // nothing that follows.
        if dec.free_read[0] && target != w {
            return Err(Fail::Reason(format!(
                "the model frees a location it reads (f_r) at step {}: the proof follows only frees of the location just written",
                self.show(self.st.t)
            )));
        }
        if dec.free_write[0] || dec.free_read[0] {
            self.release(w)?;
        }

        self.st.prev_op = Some(op);
        self.st.t = self.st.t.plus(1);
        // duplicated: the next object's presentation begins at step (block + 1)·r.
        if let Order::Repeats { objects } = self.order
            && phase != Phase::Output
            && self.st.block < objects
            && self.sym.zero(self.st.t.sub(self.n.times(self.st.block as i64 + 1).ok_or_else(too_large)?))
        {
            self.st.block += 1;
        }
        if pass_ended {
            self.passes += 1;
            self.pass_start = Some(self.st.t);
        }
        Ok(pass_ended)
    }

    /// Releases `w`, the location just written (MODEL §3): it leaves the temporal list (it is
    /// the tail) and its parent's child list, where the next older child becomes the newest.
    fn release(&mut self, w: u32) -> Result<(), Fail> {
        let i = self.pos(w);
        debug_assert_eq!(i + 1, self.st.segs.len(), "the location just written is the tail");
        let cw = self.cell(w).clone();
        let parent =
            self.resolve(w, cw.parent).map_err(|_| Fail::Reason("internal: a new cell's parent".into()))?;
        let older = self.resolve(w, cw.older);
        self.st.segs.pop();
        if let Some(p) = parent {
            let kid = match older {
                Ok(k) => self.express(p, k),
                Err(()) => Ref::Unknown,
            };
            self.cell_mut(p).kid = kid;
        }
        if matches!(self.st.head, Head::On(h) if h == w) {
            self.st.head = Head::Freed { word: cw.word, data: cw.data };
        }
        self.st.cells[w as usize] = None;
        Ok(())
    }

    /// Drops what no later step can use: every cell's older sibling (only a location just
    /// written is ever freed), and the links by id of a cell other than the head's that only
    /// these links set apart from a neighbour (a walk leaves such a pair per step; a later use
    /// of a dropped link ends the proof with its reason).
    fn forget(&mut self) {
        let head = match self.st.head {
            Head::On(h) => Some(h),
            _ => None,
        };
        let far = |r: Ref| matches!(r, Ref::Id(x) if Some(x) != head);
        for s in &mut self.st.segs {
            match s {
                Seg::One(id) => {
                    if let Some(c) = self.st.cells[*id as usize].as_mut() {
                        c.older = Ref::Unknown;
                    }
                }
                Seg::Run(r) => r.block.iter_mut().for_each(|c| c.older = Ref::Unknown),
                Seg::Gap => {}
            }
        }
        let mut drop = Vec::new();
        for (k, s) in self.st.segs.iter().enumerate() {
            let Seg::One(id) = s else { continue };
            let c = self.cell(*id);
            if Some(*id) == head || !(far(c.parent) || far(c.kid)) {
                continue;
            }
            let edge = |j: usize, first: bool| match self.st.segs.get(j)? {
                Seg::One(x) => Some(self.cell(*x)),
                Seg::Run(r) if first => r.block.first(),
                Seg::Run(r) => r.block.last(),
                Seg::Gap => None,
            };
            // A cell up to a block away on either side (blocks repeat with period ≤ MAX_BLOCK).
            let near = (1..=MAX_BLOCK)
                .flat_map(|j| [k.checked_sub(j).and_then(|i| edge(i, false)), edge(k + j, true)])
                .flatten();
            let alike_near: Vec<&Cell> = near.filter(|n| alike(c, n)).collect();
            if alike_near.is_empty() {
                continue;
            }
            // repeatCopy's proof drops only a link that sets the cell apart: one an alike
            // neighbour shares stays (every object's ancestry parent the first object, so a pass
            // may go back to it from any of them). Copy's and reverse's proofs drop both, the
            // rule their recorded proofs were made with.
            let apart = |link: fn(&Cell) -> Ref| {
                far(link(c)) && (self.order != Order::Passes || alike_near.iter().any(|n| link(n) != link(c)))
            };
            drop.push((*id, apart(|c| c.parent), apart(|c| c.kid)));
        }
        for (id, parent, kid) in drop {
            let c = self.cell_mut(id);
            if parent {
                c.parent = Ref::Unknown;
            }
            if kid {
                c.kid = Ref::Unknown;
            }
        }
    }

    /// Cells that must stay explicit: the head's, and every target of a link by id.
    fn pinned(&self) -> Vec<u32> {
        let mut out = Vec::new();
        if let Head::On(h) = self.st.head {
            out.push(h);
        }
        let mut add = |c: &Cell| {
            for r in [c.parent, c.kid, c.older] {
                if let Ref::Id(x) = r {
                    out.push(x);
                }
            }
        };
        for s in &self.st.segs {
            match s {
                Seg::One(id) => add(self.cell(*id)),
                Seg::Run(r) => r.block.iter().for_each(&mut add),
                Seg::Gap => {}
            }
        }
        out
    }

    /// Merges repeated cells into runs: adjacent runs of one block, explicit blocks after or
    /// before a run, and two equal explicit blocks in a row. Every comparison of numbers is
    /// logged.
    fn normalize(&mut self) {
        loop {
            let pinned = self.pinned();
            let free = |s: &Seg| matches!(s, Seg::One(x) if !pinned.contains(x));
            if !(self.merge_runs() || self.absorb(&free) || self.create(&free)) {
                return;
            }
        }
    }

    fn merge_runs(&mut self) -> bool {
        for k in 0..self.st.segs.len().saturating_sub(1) {
            let (Seg::Run(a), Seg::Run(b)) = (&self.st.segs[k], &self.st.segs[k + 1]) else { continue };
            if a.stride != b.stride
                || a.block.len() != b.block.len()
                || !a.block.iter().zip(&b.block).all(|(x, y)| x.same(y))
            {
                continue;
            }
            let (a, b) = (a.clone(), b.clone());
            let shift = Aff { a: a.count.a * a.stride, b: a.count.b * a.stride };
            let joined = a.block.iter().zip(&b.block).all(|(x, y)| match (x.data, y.data) {
                (Some(dx), Some(dy)) => self.sym.zero(dy.sub(dx.add(shift))),
                _ => true,
            });
            if joined {
                let mut r = a;
                r.count = r.count.add(b.count);
                self.st.segs.splice(k..=k + 1, [Seg::Run(r)]);
                return true;
            }
        }
        false
    }

    fn absorb(&mut self, free: &dyn Fn(&Seg) -> bool) -> bool {
        for k in 0..self.st.segs.len() {
            let Seg::Run(r) = &self.st.segs[k] else { continue };
            let p = r.block.len();
            let r = r.clone();
            // p explicit cells after the run: block `count`.
            if k + p < self.st.segs.len() && self.st.segs[k + 1..=k + p].iter().all(free) {
                let ids: Vec<u32> = self.st.segs[k + 1..=k + p].iter().map(seg_id).collect();
                if ids.iter().zip(&r.block).all(|(id, b)| self.cell(*id).same(b))
                    && self.data_match(&ids, &r, r.count)
                {
                    let mut r = r;
                    r.count = r.count.plus(1);
                    self.st.segs.splice(k..=k + p, [Seg::Run(r)]);
                    return true;
                }
            }
            // p explicit cells before it: block −1.
            if k >= p && self.st.segs[k - p..k].iter().all(free) {
                let ids: Vec<u32> = self.st.segs[k - p..k].iter().map(seg_id).collect();
                if ids.iter().zip(&r.block).all(|(id, b)| self.cell(*id).same(b))
                    && self.data_match(&ids, &r, Aff::of(-1))
                {
                    let mut r = r;
                    r.count = r.count.plus(1);
                    for c in &mut r.block {
                        c.data = c.data.map(|d| d.plus(-r.stride));
                    }
                    self.st.segs.splice(k - p..=k, [Seg::Run(r)]);
                    return true;
                }
            }
        }
        false
    }

    /// Whether explicit cells `ids` hold block `j` of run `r`'s objects (logged).
    fn data_match(&mut self, ids: &[u32], r: &Run, j: Aff) -> bool {
        for (i, id) in ids.iter().enumerate() {
            if let (Some(x), Some(y)) = (self.cell(*id).data, r.cell(i, j).data)
                && !self.sym.zero(x.sub(y))
            {
                return false;
            }
        }
        true
    }

    fn create(&mut self, free: &dyn Fn(&Seg) -> bool) -> bool {
        // Cells change at the tail (writes) and around the head (updates, dropped links): new
        // runs are looked for there, which keeps a step's cost independent of the memory's size.
        let len = self.st.segs.len();
        let head = match self.st.head {
            Head::On(h) => Some(self.pos(h)),
            _ => None,
        };
        let reach = 2 * MAX_BLOCK + 2;
        for p in 1..=MAX_BLOCK {
            let segs = &self.st.segs;
            let last = len.saturating_sub(2 * p - 1);
            let near_tail = last.saturating_sub(reach)..last;
            let near_head = head.map_or(0..0, |h| h.saturating_sub(2 * p + reach)..(h + reach).min(last));
            let mut starts: Vec<usize> = near_head.chain(near_tail).collect();
            starts.sort_unstable();
            starts.dedup();
            for k in starts {
                if !segs[k..k + 2 * p].iter().all(free) {
                    continue;
                }
                let ids: Vec<u32> = segs[k..k + 2 * p].iter().map(seg_id).collect();
                if !(0..p).all(|i| self.cell(ids[i]).same(self.cell(ids[i + p]))) {
                    continue;
                }
                // One constant stride for every object of the block. Every difference the
                // decision looks at is logged: its value when constant (the stride is shape),
                // its sign when it grows with m (never a stride, in any repetition).
                let mut stride: Option<i64> = None;
                let mut ok = true;
                for i in 0..p {
                    if let (Some(x), Some(y)) = (self.cell(ids[i]).data, self.cell(ids[i + p]).data) {
                        let d = y.sub(x);
                        if d.a != 0 {
                            self.sym.sign(d);
                            ok = false;
                            continue;
                        }
                        self.sym.log.push((d, Outcome::Exact(d.b)));
                        ok &= stride.is_none_or(|s| s == d.b);
                        stride = Some(d.b);
                    }
                }
                if !ok {
                    continue;
                }
                let block: Vec<Cell> = ids[..p].iter().map(|id| self.cell(*id).clone()).collect();
                let run = Run { block, count: Aff::of(2), stride: stride.unwrap_or(0) };
                self.st.segs.splice(k..k + 2 * p, [Seg::Run(run)]);
                return true;
            }
        }
        false
    }

    /// At a pass's end ([`Order::Passes`]): every stretch of output-phase cells (no object) that
    /// neither the head nor a link by id reaches becomes one gap, but for its first segment,
    /// which a move forward off the end of the list reaches (models read it as the list's end).
    /// The cells of earlier passes then take the same few segments after every pass; a step
    /// that moves or follows a link into the gap ends the proof, so the cells it hides never
    /// decide a step.
    fn collapse(&mut self) {
        let pinned = self.pinned();
        let head = match self.st.head {
            Head::On(h) => Some(h),
            _ => None,
        };
        let hidden: Vec<bool> = self
            .st
            .segs
            .iter()
            .map(|s| match s {
                Seg::One(x) => Some(*x) != head && !pinned.contains(x) && self.cell(*x).data.is_none(),
                Seg::Run(r) => r.block.iter().all(|c| c.data.is_none()),
                Seg::Gap => true,
            })
            .collect();
        // Stretches, replaced from the back.
        let mut stretches = Vec::new();
        let mut i = 0;
        while i < hidden.len() {
            if !hidden[i] {
                i += 1;
                continue;
            }
            let mut j = i;
            while j + 1 < hidden.len() && hidden[j + 1] {
                j += 1;
            }
            // Kept: i (a run: its first cell); hidden: the rest, unless that is one gap already.
            let first_run = matches!(self.st.segs[i], Seg::Run(_));
            if (j > i || first_run) && !(j == i + 1 && !first_run && matches!(self.st.segs[j], Seg::Gap)) {
                stretches.push((i, j));
            }
            i = j + 1;
        }
        for (i, j) in stretches.into_iter().rev() {
            // A run kept first would grow with every pass: only its first cell is kept.
            let (hidden_from, tail) = match self.st.segs[i].clone() {
                Seg::Run(r) => (i, vec![Seg::One(self.add_cell(r.cell(0, Aff::of(0)))), Seg::Gap]),
                _ => (i + 1, vec![Seg::Gap]),
            };
            for s in self.st.segs.splice(hidden_from..=j, tail).collect::<Vec<_>>() {
                if let Seg::One(x) = s {
                    self.st.cells[x as usize] = None;
                }
            }
            // The kept ends' neighbour links now name the gap.
            for (k, away) in [(i, Ref::Next), (i + 2, Ref::Prev)] {
                if let Some(&Seg::One(x)) = self.st.segs.get(k) {
                    let c = self.cell_mut(x);
                    for r in [&mut c.parent, &mut c.kid, &mut c.older] {
                        if *r == away {
                            *r = Ref::Unknown;
                        }
                    }
                }
            }
        }
    }

    /// [`Order::Passes`], at a pass's start: whether an earlier pass started in this state (the
    /// shape and every number but the step, all as functions of m). The machine is deterministic
    /// and its step reads t only for the signals, which stay the output phase's: the passes from
    /// there repeat those from the earlier one, each of them checked right.
    fn repeated(&mut self) -> Result<bool, Fail> {
        let key = (self.shape()?, self.quantities()[1..].to_vec());
        if let Some(&first) = self.seen.get(&key) {
            self.cycle = Some(Cycle { first: first + 1, period: self.passes - first });
            return Ok(true);
        }
        self.seen.insert(key, self.passes);
        Ok(false)
    }

    /// The shape: everything but the numbers, with cells kept by id named by their order.
    fn shape(&self) -> Result<Vec<u64>, Fail> {
        let ids: Vec<u32> = self
            .st
            .segs
            .iter()
            .filter_map(|s| match s {
                Seg::One(x) => Some(*x),
                Seg::Run(_) | Seg::Gap => None,
            })
            .collect();
        let index = |x: u32| ids.iter().position(|y| *y == x).map(|i| i as u64);
        let mut out = Vec::new();
        let push_cell = |c: &Cell, out: &mut Vec<u64>| -> Result<(), Fail> {
            out.extend(c.word.iter().map(|w| u64::from(w.to_bits())));
            out.push(u64::from(c.data.is_some()));
            for r in [c.parent, c.kid, c.older] {
                out.push(match r {
                    Ref::None => 0,
                    Ref::Prev => 1,
                    Ref::Next => 2,
                    Ref::Unknown => 3,
                    Ref::Id(x) => {
                        4 + index(x).ok_or_else(|| Fail::Reason("internal: a link to a lost cell".into()))?
                    }
                });
            }
            Ok(())
        };
        match &self.st.head {
            Head::Start => out.push(0),
            Head::On(h) => out.extend([1, index(*h).unwrap_or(u64::MAX)]),
            Head::Freed { word, data } => {
                out.push(2);
                out.extend(word.iter().map(|w| u64::from(w.to_bits())));
                out.push(u64::from(data.is_some()));
            }
        }
        out.push(self.st.prev_op.map_or(0, |o| o as u64 + 1));
        out.push(self.phase_unlogged() as u64);
        out.push(self.st.block);
        for s in &self.st.segs {
            match s {
                Seg::One(id) => {
                    out.push(10);
                    push_cell(self.cell(*id), &mut out)?;
                }
                Seg::Run(r) => {
                    out.extend([11, r.block.len() as u64, r.stride as u64]);
                    for c in &r.block {
                        push_cell(c, &mut out)?;
                    }
                }
                Seg::Gap => out.push(12),
            }
        }
        Ok(out)
    }

    /// The numbers, in the shape's order: t, then each cell's object and each run's count.
    fn quantities(&self) -> Vec<Aff> {
        let mut q = vec![self.st.t];
        for s in &self.st.segs {
            match s {
                Seg::One(id) => q.extend(self.cell(*id).data),
                Seg::Run(r) => {
                    q.push(r.count);
                    q.extend(r.block.iter().filter_map(|c| c.data));
                }
                Seg::Gap => {}
            }
        }
        if let Head::Freed { data: Some(d), .. } = &self.st.head {
            q.push(*d);
        }
        q
    }

    fn set_quantities(&mut self, q: &[Aff]) {
        let mut it = q.iter().copied();
        let mut next = || it.next().expect("as many numbers as the shape has");
        self.st.t = next();
        for k in 0..self.st.segs.len() {
            match &mut self.st.segs[k] {
                Seg::One(id) => {
                    let id = *id;
                    if let Some(c) = self.st.cells[id as usize].as_mut()
                        && c.data.is_some()
                    {
                        c.data = Some(next());
                    }
                }
                Seg::Run(r) => {
                    r.count = next();
                    for c in &mut r.block {
                        if c.data.is_some() {
                            c.data = Some(next());
                        }
                    }
                }
                Seg::Gap => {}
            }
        }
        if let Head::Freed { data: Some(d), .. } = &mut self.st.head {
            *d = next();
        }
    }

    /// Periods A (anchor → b) and B (b → here) have one shape at their ends: when they made the
    /// same comparisons with the same outcomes and moved every number by the same constant,
    /// jumps to the last repetition every comparison allows. `Ok(false)`: no jump.
    fn jump(
        &mut self,
        a: &Anchor,
        qb: &[Aff],
        logb: usize,
        stepb: u64,
        here: &Anchor,
        phase: Phase,
    ) -> Result<bool, Fail> {
        let (la, lb) = (self.sym.log[a.log..logb].to_vec(), self.sym.log[logb..here.log].to_vec());
        if la.len() != lb.len() || la.iter().zip(&lb).any(|(x, y)| x.1 != y.1) {
            return Ok(false);
        }
        let d: Vec<Aff> = qb.iter().zip(&a.q).map(|(b, a)| b.sub(*a)).collect();
        if d.iter().any(|x| x.a != 0) || here.q.iter().zip(qb).zip(&d).any(|((c, b), d)| c.sub(*b) != *d) {
            return Ok(false);
        }
        // Each comparison's value in repetition j is vA + j·s; keep its sign for j < J.
        let mut bounds: Vec<Aff> = Vec::new();
        for ((va, oa), (vb, _)) in la.iter().zip(&lb) {
            let s = vb.sub(*va);
            if s.a != 0 {
                return Ok(false);
            }
            let (v, s) = match oa {
                Outcome::Sign(1) if s.b < 0 => (va.plus(-1), -s.b),
                Outcome::Sign(-1) if s.b > 0 => (va.neg().plus(-1), s.b),
                _ => continue,
            };
            // J ≤ ⌊v/s⌋ + 1.
            if v.a % s != 0 {
                let g = gcd(v.a.abs(), s);
                return Err(Fail::Modulus(s / g));
            }
            bounds.push(Aff { a: v.a / s, b: v.b.div_euclid(s) + 1 });
        }
        let Some(mut j) = bounds.first().copied() else {
            return Err(Fail::Reason(format!(
                "the model repeats a block of {} steps forever from step {}: the run never ends",
                stepb - a.step,
                self.show(self.st.t)
            )));
        };
        for b in &bounds[1..] {
            if self.sym.sign_unlogged(b.sub(j)) < 0 {
                j = *b;
            }
        }
        if j.a <= 0 {
            return Ok(false);
        }
        self.sym.sign_unlogged(j.plus(-2));
        let mut q = Vec::with_capacity(d.len());
        for (qa, dq) in a.q.iter().zip(&d) {
            let step = j.times(dq.b).ok_or_else(|| Fail::Reason("a number too large".into()))?;
            q.push(qa.add(step));
        }
        let period = stepb - a.step;
        let modes: String = self.modes[self.modes.len() - period as usize..].iter().collect();
        let from = a.q[0];
        // The first pass's periods describe the rest ([`Order::Passes`]).
        if self.passes == 0 {
            self.regimes.push(Regime {
                phase: if phase == Phase::Output { "output" } else { "input" }.to_string(),
                from_step: self.show(from),
                period,
                repeats: self.show(j),
                modes,
                start: from,
            });
        }
        self.set_quantities(&q);
        Ok(true)
    }
}

/// Same word bit for bit and kind of data, and the same links but for links by id.
fn alike(a: &Cell, b: &Cell) -> bool {
    let link =
        |x: Ref, y: Ref| x == y || matches!((x, y), (Ref::Id(_) | Ref::Unknown, Ref::Id(_) | Ref::Unknown));
    a.word.iter().map(|x| x.to_bits()).eq(b.word.iter().map(|x| x.to_bits()))
        && a.data.is_some() == b.data.is_some()
        && link(a.parent, b.parent)
        && link(a.kid, b.kid)
}

/// [`Order::Repeats`]: the signals of step t, object `block` of `objects` presented r times
/// from step block·r (first, then repeats), `sign` deciding the comparisons.
fn repeats_phase_of(t: Aff, r: Aff, block: u64, objects: u64, mut sign: impl FnMut(Aff) -> i8) -> Phase {
    if block >= objects {
        return Phase::Output;
    }
    // No overflow: `unsupported` bounds the objects, the modulus bounds r's coefficients.
    match r.times(block as i64).map(|start| sign(t.sub(start))) {
        Some(0) => Phase::First,
        _ => Phase::Inner,
    }
}

/// "1 object", "n objects".
fn count_objects(n: u64) -> String {
    if n == 1 { "1 object".into() } else { format!("{n} objects") }
}

fn too_large() -> Fail {
    Fail::Reason("a number too large".into())
}

/// The signals of step t of a list of n objects, `sign` deciding the comparisons of t with n.
fn phase_of(t: Aff, n: Aff, mut sign: impl FnMut(Aff) -> i8) -> Phase {
    if sign(t) == 0 {
        return if sign(n.plus(-1)) == 0 { Phase::Only } else { Phase::First };
    }
    match sign(t.sub(n.plus(-1))) {
        -1 => Phase::Inner,
        0 => Phase::Last,
        _ => Phase::Output,
    }
}

fn seg_id(s: &Seg) -> u32 {
    match s {
        Seg::One(x) => *x,
        Seg::Run(_) | Seg::Gap => u32::MAX,
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a.max(1) } else { gcd(b, a % b) }
}

fn mode_char(m: ReadMode) -> char {
    match m {
        ReadMode::Halt(_) => 'H',
        ReadMode::Forward(_) => 'F',
        ReadMode::Backward(_) => 'B',
        ReadMode::Parent(_) => 'P',
        ReadMode::Child(_) => 'C',
    }
}
