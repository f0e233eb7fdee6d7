//! An algorithm of one's own, declared by what the fitness scores (MODEL §5, docs/OWN_ALGORITHM.md):
//! its Bus operations and their ALU functions, a sampler, the Input's stream of a sample, the
//! expected program and a reference answer. Nothing about head modes, links or gates: that is
//! what the NHC learns. [`Own`] turns a [`Declared`] into a [`Task`], so evaluation, traces,
//! training, sweeps and reports run it by the same code as every built-in task.
//!
//! The Input ([`Stream`]) presents the sample's words, each with its control signals, then sends
//! the output-phase signals with the default word until the ALU has run the stop operation a given
//! number of times (paper, Supplementary: the copy family stops after its marks, sort after its
//! outputs). The answer is the `d_out` of every output-phase step of the output operation.

pub mod examples;

use crate::{Algorithm, InputError, SampleRng, Task, flag};
use nhc_model::{Config, DataModules, Policy, Signals, Trace};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;
use std::sync::Arc;

/// What ends a run: the output phase lasts until operation `op` has run `count` times in it.
/// `count` = 0: the run ends with the presentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stop {
    pub op: usize,
    pub count: usize,
}

/// The Input of one sample: the presented words with their control signals (the same signals go
/// to the Controller, the Memory interface and the Bus, `|c_ic| = |c_im| = |c_ib|` = `width`),
/// then the output phase.
#[derive(Debug, Clone, PartialEq)]
pub struct Stream<W> {
    /// Signals per step.
    pub width: usize,
    /// `width` signals per presented word, in order.
    pub signals: Vec<f32>,
    /// The presented words.
    pub words: Vec<W>,
    /// The signals of every output-phase step (`width` of them; `d_i` is the default word).
    pub output_signals: Vec<f32>,
    /// The operation whose `d_out` joins the answer at an output-phase step.
    pub output: usize,
    pub stop: Stop,
}

impl<W> Stream<W> {
    /// `words` presented with `[c_f, c_i, c_l, 0]` (first / inner / last; a one-word list is
    /// first and last), then `[0, 0, 0, 1]`: the Input of copy, reverse, repeatCopy and sort.
    pub fn first_inner_last(words: Vec<W>, output: usize, stop: Stop) -> Self {
        let n = words.len();
        let signals = (0..n)
            .flat_map(|k| {
                let (first, last) = (k == 0, k + 1 == n);
                [flag(first), flag(!first && !last), flag(last), 0.0]
            })
            .collect();
        Stream { width: 4, signals, words, output_signals: vec![0.0, 0.0, 0.0, 1.0], output, stop }
    }

    /// `words` presented with `[c_f, c_r, 0]` (first presentation / repeat of the word before),
    /// then `[0, 0, 1]`: the Input of duplicated.
    pub fn first_repeat(words: Vec<W>, output: usize, stop: Stop) -> Self
    where
        W: PartialEq,
    {
        let signals = (0..words.len())
            .flat_map(|k| {
                let first = k == 0 || words[k - 1] != words[k];
                [flag(first), flag(!first), 0.0]
            })
            .collect();
        Stream { width: 3, signals, words, output_signals: vec![0.0, 0.0, 1.0], output, stop }
    }

    /// Presented steps.
    pub fn len(&self) -> usize {
        self.words.len()
    }
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Why this stream does not fit an algorithm with `config` and `ops` operations, if it
    /// does not.
    pub fn mismatch(&self, config: &Config) -> Option<String> {
        let c = config;
        if c.input_controller != self.width || c.input_memory != self.width || c.input_bus != self.width {
            return Some(format!(
                "the Input sends {} signals a step, the algorithm declares {}",
                self.width, c.input_controller
            ));
        }
        if self.signals.len() != self.width * self.words.len() {
            return Some(format!(
                "the Input has {} signals for {} words of {} signals each",
                self.signals.len(),
                self.words.len(),
                self.width
            ));
        }
        if self.output_signals.len() != self.width {
            return Some(format!(
                "the output phase sends {} signals, not {}",
                self.output_signals.len(),
                self.width
            ));
        }
        for (what, op) in [("output", self.output), ("stop", self.stop.op)] {
            if op >= c.ops {
                return Some(format!(
                    "the {what} operation is number {op}, but there are {} operations",
                    c.ops
                ));
            }
        }
        None
    }
}

/// The Input's built-in signals ([`Stream::first_inner_last`], [`Stream::first_repeat`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    FirstInnerLast,
    FirstRepeat,
}

/// An algorithm declared by its Bus operations, sampler, Input, expected program and reference
/// (module docs). `Clone` should be cheap: the data modules of every run hold a copy (for the ALU).
pub trait Declared: Clone + Send + Sync + 'static {
    /// One data word.
    type Word: Clone + Default + PartialEq + Debug + Send + Sync + Serialize + DeserializeOwned;
    /// One problem instance; its JSON form is what `nhc run --input` takes.
    type Sample: Clone + Debug + Send + Sync + Serialize + DeserializeOwned;

    /// Name, operation names and model config ([`Algorithm::declare`] builds one).
    fn algorithm(&self) -> &'static Algorithm;
    /// The data domain's name.
    fn domain(&self) -> &'static str {
        "own"
    }
    /// A random sample of curriculum level `level` ≥ 1.
    fn sample(&self, level: usize, rng: &mut SampleRng) -> Self::Sample;
    /// A random sample of level `level` of any shape the algorithm allows, no larger than the
    /// level's ([`Task::any_shape`], for the recipe's `check_any_shape` and `train_any_shape`);
    /// by default the level's own sampler.
    fn any_shape(&self, level: usize, rng: &mut SampleRng) -> Self::Sample {
        self.sample(level, rng)
    }
    /// The Input of a sample.
    fn input(&self, sample: &Self::Sample) -> Stream<Self::Word>;
    /// The expected program: per step, unscored or the expected operation and the words the read
    /// heads must deliver (MODEL §5).
    fn program(&self, sample: &Self::Sample) -> Trace<Self::Word>;
    /// The answer, computed without the NHC.
    fn reference(&self, sample: &Self::Sample) -> Vec<Self::Word>;
    /// ALU operation `op` on the words read (one per head): sets the feedback `c_a` and returns
    /// `d_out`. By default every operation passes the first read through.
    fn alu(&self, op: usize, reads: &[Self::Word], feedback: &mut [f32]) -> Self::Word {
        let _ = (op, feedback);
        reads[0].clone()
    }
    /// Whether the output operation's `d_out` joins the answer at every step, not only in the
    /// output phase (an algorithm that answers while its input is presented, e.g. one that
    /// names each closing bracket's partner). The stop operation counts in the output phase only.
    fn answers_while_presented(&self) -> bool {
        false
    }
    /// Why a user's sample cannot be run (e.g. an empty list), if it cannot.
    fn check(&self, sample: &Self::Sample) -> Result<(), InputError> {
        let _ = sample;
        Ok(())
    }
    /// A data word as short text (for traces); by default its JSON.
    fn show(&self, word: &Self::Word) -> String {
        serde_json::to_string(word).unwrap_or_default()
    }
    /// A hand-written solution, if there is one.
    fn scripted(&self) -> Option<Box<dyn Policy + Send>> {
        None
    }
    /// A digest of the declaration, recorded in model files so that a model is not loaded against
    /// another declaration of the same name; `None`: the name and config alone identify it.
    fn digest(&self) -> Option<String> {
        None
    }
    /// The highest level the sampler can make.
    fn max_level(&self) -> usize {
        nhc_io::limits::MAX_LEVEL
    }
    /// One input per control-distinct class up to `bound`, each with its size (the layer) and a
    /// second number for a map (0: none), for `nhc verify` ([`crate::verify`]); `None`: the
    /// algorithm does not list them, and verification samples.
    fn shapes(&self, bound: u64) -> Option<Vec<(u64, u64, Self::Sample)>> {
        let _ = bound;
        None
    }
    /// For verification without [`Declared::shapes`]: the Input's pattern when every sample is
    /// the list of words it presents, with that pattern's signals and one stop count for every
    /// sample, so that the control sees the length (or the run lengths) alone; otherwise why not,
    /// as a clause ("its stop count is a function of the sample").
    fn presents_itself(&self) -> Result<Pattern, String> {
        Err("it does not say that a sample is the list of words it presents".into())
    }
    /// The sample presenting `words` (when [`Declared::presents_itself`]).
    fn sample_of(&self, words: Vec<Self::Word>) -> Option<Self::Sample> {
        let _ = words;
        None
    }
    /// Word `k` ≥ 1 of a family of distinct words, none of them the empty word (when
    /// [`Declared::presents_itself`]).
    fn distinct_word(&self, k: u64) -> Option<Self::Word> {
        let _ = k;
        None
    }
    /// At least the steps of a sample of `level`; by default the program's length on one drawn
    /// sample.
    fn max_steps(&self, level: usize) -> u64 {
        let sample = self.sample(level, &mut crate::sample_rng(0, level, 0));
        self.program(&sample).len() as u64
    }
}

impl Algorithm {
    /// A declared algorithm's name, operations and config: `signals` Input signals a step,
    /// `read_heads` read heads, `feedback` = |c_a| (0: off), the free gates on or off; the
    /// paper's sizes otherwise (L_C = 6, C = 4, one write head, previous update and ancestry on,
    /// no Bus feedback: "can be activated if desired", and no task of the paper's does).
    pub const fn declare(
        name: &'static str,
        ops: &'static [&'static str],
        signals: usize,
        read_heads: usize,
        feedback: usize,
        free_gates: bool,
    ) -> Algorithm {
        let config = Config {
            input_controller: signals,
            input_memory: signals,
            input_bus: signals,
            read_heads,
            ops: ops.len(),
            alu_feedback: feedback,
            bus_feedback: false,
            free_gates,
            ..Config::PAPER
        };
        Algorithm { name, ops, config }
    }
}

/// A declared algorithm as a [`Task`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Own<D>(pub D);

/// The Input and ALU of a declared algorithm: the [`Stream`], then the declared ALU.
#[derive(Debug, Clone)]
pub struct StreamModules<D: Declared> {
    decl: D,
    stream: Arc<Stream<D::Word>>,
    next: usize,
    stops: usize,
    outputs: Vec<D::Word>,
}

impl<D: Declared> StreamModules<D> {
    pub fn new(decl: D, stream: Stream<D::Word>) -> Self {
        StreamModules { decl, stream: Arc::new(stream), next: 0, stops: 0, outputs: Vec::new() }
    }
    fn output_phase(&self) -> bool {
        self.next > self.stream.len()
    }
    /// The answer so far.
    pub fn outputs(&self) -> &[D::Word] {
        &self.outputs
    }
}

impl<D: Declared> DataModules for StreamModules<D> {
    type Data = D::Word;

    fn input(&mut self, _d_out_prev: Option<&D::Word>, s: &mut Signals) -> Option<D::Word> {
        let (n, k, w) = (self.stream.len(), self.next, self.stream.width);
        let d_i = if k < n {
            s.set_all(&self.stream.signals[k * w..(k + 1) * w]);
            self.stream.words[k].clone()
        } else {
            if self.stops >= self.stream.stop.count {
                return None;
            }
            s.set_all(&self.stream.output_signals);
            D::Word::default()
        };
        self.next = (k + 1).min(n + 1);
        Some(d_i)
    }

    fn alu(&mut self, reads: &[D::Word], op: usize, feedback: &mut [f32]) -> D::Word {
        let out = self.decl.alu(op, reads, feedback);
        let output_phase = self.output_phase();
        if op == self.stream.output && (output_phase || self.decl.answers_while_presented()) {
            self.outputs.push(out.clone());
        }
        if op == self.stream.stop.op && output_phase {
            self.stops += 1;
        }
        out
    }

    fn phase(&self) -> &'static str {
        if self.output_phase() { "output" } else { "input" }
    }
}

/// The policy of a declared algorithm without a hand-written solution: it halts every head and
/// runs operation 0, and no caller runs it (`Task::has_script` is false).
#[derive(Debug, Clone, Copy)]
struct Unscripted;

impl Policy for Unscripted {
    fn control(
        &mut self,
        _obs: &nhc_model::Observation<'_>,
        _c_c: &mut [f32],
        _out: &mut nhc_model::MemoryDecision,
    ) {
    }
    fn bus(&mut self, _c_ib: &[f32], _c_c: &[f32], _read_now: &[f32]) -> nhc_model::BusDecision {
        nhc_model::BusDecision { op: 0, margin: 1.0 }
    }
}

impl<D: Declared> Task for Own<D> {
    type Data = D::Word;
    type Sample = D::Sample;
    type Answer = Vec<D::Word>;
    type Modules = StreamModules<D>;

    fn algorithm(&self) -> &'static Algorithm {
        self.0.algorithm()
    }
    fn domain(&self) -> &'static str {
        self.0.domain()
    }
    fn sample(&self, level: usize, rng: &mut SampleRng) -> D::Sample {
        self.0.sample(level, rng)
    }
    fn any_shape(&self, level: usize, rng: &mut SampleRng) -> D::Sample {
        self.0.any_shape(level, rng)
    }
    fn modules(&self, sample: &D::Sample) -> StreamModules<D> {
        StreamModules::new(self.0.clone(), self.0.input(sample))
    }
    fn trace(&self, sample: &D::Sample) -> Trace<D::Word> {
        self.0.program(sample)
    }
    fn reference(&self, sample: &D::Sample) -> Vec<D::Word> {
        self.0.reference(sample)
    }
    fn answer(&self, modules: &StreamModules<D>) -> Vec<D::Word> {
        modules.outputs.clone()
    }
    fn has_script(&self) -> bool {
        self.0.scripted().is_some()
    }
    fn scripted(&self) -> Box<dyn Policy + Send> {
        self.0.scripted().unwrap_or_else(|| Box::new(Unscripted))
    }
    fn digest(&self) -> Option<String> {
        self.0.digest()
    }
    fn parse_input(&self, input: &serde_json::Value) -> Result<D::Sample, InputError> {
        let sample = D::Sample::deserialize(input)
            .map_err(|e| InputError::new(format!("not a sample of `{}`: {e}", self.0.algorithm().name)))?;
        self.0.check(&sample)?;
        Ok(sample)
    }
    fn sample_json(&self, sample: &D::Sample) -> serde_json::Value {
        serde_json::to_value(sample).unwrap_or_default()
    }
    fn answer_json(&self, answer: &Vec<D::Word>) -> serde_json::Value {
        serde_json::to_value(answer).unwrap_or_default()
    }
    fn show(&self, word: &D::Word) -> String {
        self.0.show(word)
    }
    fn max_level(&self) -> usize {
        self.0.max_level()
    }
    fn max_steps(&self, level: usize) -> u64 {
        self.0.max_steps(level)
    }
    fn sample_steps(&self, sample: &D::Sample) -> u64 {
        self.0.program(sample).len() as u64
    }
    /// The declaration's own list ([`Declared::shapes`]), in order of size; without one, the
    /// classes derived from the Input ([`Own::derivable`]).
    fn shapes(&self, bounds: &crate::verify::Bounds) -> Vec<crate::verify::Part<'_, D::Sample>> {
        let bound = bounds.get(0, DECLARED_BOUND);
        let Some(mut list) = self.0.shapes(bound) else {
            return self.derivable().map(|pattern| self.derived(pattern, bounds)).into_iter().collect();
        };
        list.sort_by_key(|(layer, second, _)| (*layer, *second));
        let steps = list.iter().map(|(_, _, s)| self.0.program(s).len() as u64).fold(0, u64::saturating_add);
        let maps = list.iter().any(|(_, second, _)| *second > 0);
        vec![crate::verify::Part {
            what: format!("input of size 1–{bound}, as the declaration's `shapes` lists them"),
            exhaustive: true,
            axes: ["size", if maps { "second" } else { "" }],
            layer: "size",
            bound,
            note: None,
            count: list.len() as u64,
            steps,
            beyond_level: None,
            nth: Box::new(move |i| {
                let (layer, second, sample) = list[i as usize].clone();
                crate::verify::Shaped { layer, cell: [layer, second], sample }
            }),
        }]
    }
    fn unlisted_because(&self) -> Option<String> {
        self.derivable().err().map(|why| format!("{why}: list its classes with `shapes`"))
    }
}

/// The default bound of a declared algorithm's verification with its own `shapes`, and of one
/// whose classes are run-length sequences ([`Pattern::FirstRepeat`]).
pub const DECLARED_BOUND: u64 = 10;
/// The default bound of a declared algorithm whose classes are lengths
/// ([`Pattern::FirstInnerLast`]).
pub const DERIVED_LENGTHS: u64 = 1_000;
/// Presentations of up to this many words on which [`Own::derivable`] checks that the program
/// reads by position.
const PROBE_WORDS: u64 = 6;

impl<D: Declared> Own<D> {
    /// Whether verification can derive the classes from the Input alone (docs/VERIFICATION.md,
    /// "Verification"): no ALU feedback, and a sample that is the list of words it presents with
    /// the built-in signals ([`Declared::presents_itself`]); and the expected program reads by
    /// position, checked on every presentation of up to [`PROBE_WORDS`] words with its words in
    /// both orders. `Err`: why not, as a clause.
    pub fn derivable(&self) -> Result<Pattern, String> {
        let feedback = self.0.algorithm().config.alu_feedback;
        if feedback > 0 {
            return Err(format!("its ALU's feedback ({feedback} numbers) lets the data reach the control"));
        }
        let pattern = self.0.presents_itself()?;
        for runs in (1..=PROBE_WORDS).flat_map(|n| runs_of(pattern, n)) {
            let (Some(up), Some(down)) = (self.labelled(&runs, false), self.labelled(&runs, true)) else {
                return Err("it gives no sample for a list of words".into());
            };
            if self.positions(&up, &runs, false) != self.positions(&down, &runs, true) {
                return Err(format!(
                    "its program reads by value, not by position (a presentation of {} words in two \
                     orders of distinct words)",
                    runs.iter().sum::<u64>()
                ));
            }
        }
        Ok(pattern)
    }

    /// The derived classes up to the bound: every length (first/inner/last), or every sequence
    /// of run lengths (first/repeat), each run holding a word of its own; listed by the number
    /// of words presented.
    fn derived(
        &self,
        pattern: Pattern,
        bounds: &crate::verify::Bounds,
    ) -> crate::verify::Part<'_, D::Sample> {
        use crate::verify::{MAX_INPUTS, MAX_STEPS, Part, Shaped, composition};
        let repeats = pattern == Pattern::FirstRepeat;
        let asked = bounds.get(0, if repeats { DECLARED_BOUND } else { DERIVED_LENGTHS });
        // The distinct words the declaration has (word k exists for k up to some K).
        let (mut lo, mut hi) = (0, asked);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if self.0.distinct_word(mid).is_some() { lo = mid } else { hi = mid - 1 }
        }
        let (bound, note) = match lo {
            k if k < asked => (
                k,
                Some(format!(
                    "the declaration has {k} distinct words besides the empty word: the bound is {k} words"
                )),
            ),
            _ => (asked, None),
        };
        // The inputs, and the presentation steps alone (a lower bound of the steps).
        let (count, presented) = if repeats {
            let count = if bound >= 63 { u64::MAX } else { (1u64 << bound) - 1 };
            let presented =
                (1..=bound.min(63)).map(|t| t.saturating_mul(1u64 << (t - 1))).fold(0, u64::saturating_add);
            (count, presented)
        } else {
            (bound, crate::copy_family::triangle(bound))
        };
        // Index i: its number of words and run lengths (first/repeat: layer t holds indices
        // 2^(t−1) − 1 .. 2^t − 1).
        let runs = move |i: u64| -> (u64, Vec<u64>) {
            if repeats {
                let t = u64::from(64 - (i + 1).leading_zeros());
                (t, composition(t, i + 1 - (1 << (t - 1))))
            } else {
                (i + 1, vec![1; i as usize + 1])
            }
        };
        let sample = move |runs: &[u64]| {
            self.labelled(runs, false).expect("a declaration that presents itself has samples of its words")
        };
        // Exact steps where the part may run; past the cost check the lower bound refuses it.
        let steps = if count > MAX_INPUTS || presented > MAX_STEPS {
            presented
        } else {
            (0..count).map(|i| self.0.program(&sample(&runs(i).1)).len() as u64).fold(0, u64::saturating_add)
        };
        let (what, axes) = if repeats {
            (
                format!("presentation of 1–{bound} words, every sequence of run lengths"),
                ["words presented", "runs"],
            )
        } else {
            (format!("list of 1–{bound} words"), ["words", ""])
        };
        Part {
            what: format!("{what} (classes derived from the Input: its built-in signals, no ALU feedback)"),
            exhaustive: true,
            axes,
            layer: axes[0],
            bound,
            note,
            count,
            steps,
            beyond_level: None,
            nth: Box::new(move |i| {
                let (n, runs) = runs(i);
                let second = if repeats { runs.len() as u64 } else { 0 };
                Shaped { layer: n, cell: [n, second], sample: sample(&runs) }
            }),
        }
    }

    /// The sample whose run j (from 1) holds word j, or word m + 1 − j of m runs when `reversed`.
    fn labelled(&self, runs: &[u64], reversed: bool) -> Option<D::Sample> {
        let m = runs.len() as u64;
        let mut words = Vec::new();
        for (j, &r) in (1..).zip(runs) {
            let w = self.0.distinct_word(if reversed { m + 1 - j } else { j })?;
            words.extend(std::iter::repeat_n(w, r as usize));
        }
        self.0.sample_of(words)
    }

    /// The program of `sample` with each read word as its run (from 1; 0: a word no run holds,
    /// kept as it is), so that two orders of the same words compare by position.
    fn positions(&self, sample: &D::Sample, runs: &[u64], reversed: bool) -> Vec<Step<D::Word>> {
        let m = runs.len() as u64;
        let label = |w: &D::Word| {
            (1..=m).find(|&j| self.0.distinct_word(if reversed { m + 1 - j } else { j }).as_ref() == Some(w))
        };
        let trace = self.0.program(sample);
        (0..trace.len())
            .map(|t| {
                let e = trace.step(t);
                let reads = e
                    .reads
                    .iter()
                    .map(|r| match r.as_ref().map(|w| (label(w), w)) {
                        Some((Some(j), _)) => (j, None),
                        Some((None, w)) => (0, Some(w.clone())),
                        None => (0, None),
                    })
                    .collect();
                (e.op, reads)
            })
            .collect()
    }
}

/// A step of a program by position: its operation, and per head the run read (from 1; 0: no
/// run's word) with the word when no run holds it.
type Step<W> = (Option<usize>, Vec<(u64, Option<W>)>);

/// The run lengths of every presentation of `n` words the pattern tells apart: one run per word
/// (first/inner/last: the length alone), or every composition of `n` (first/repeat).
fn runs_of(pattern: Pattern, n: u64) -> Vec<Vec<u64>> {
    match pattern {
        Pattern::FirstInnerLast => vec![vec![1; n as usize]],
        Pattern::FirstRepeat => {
            (0..1u64 << (n - 1)).map(|mask| crate::verify::composition(n, mask)).collect()
        }
    }
}
