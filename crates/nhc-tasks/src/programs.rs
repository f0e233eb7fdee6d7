//! Table programs: which memory admits a solution at all (docs/DESIGN.md, "Table programs").
//!
//! The learned modules see, each step, only the Input's signals, the feedbacks and the control
//! words read at t−1 (MODEL §2 step 2), and decide hard: one write word, one read mode, the gates.
//! A *table program* maps each such view to one decision, with control words drawn from a small
//! alphabet (the zero word and unit vectors). Tables are a superset of what the Controller's
//! layers express on those views, so "no table solves the task" proves that no θ does (for words
//! of that alphabet). The search is a depth-first search that fills an entry only when a sample
//! first needs it and backtracks at the first wrong step: exhaustive within its node budget.

use crate::{Task, sample_rng};
use nhc_model::{Arch, BusDecision, Config, Machine, MemoryDecision, Observation, Policy, Scorer, Trace};
use std::cell::Cell;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::ControlFlow;
use thiserror::Error;

/// What to search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// Control words a program may write: the zero word and the unit vectors e_1 … e_{symbols−1}.
    pub symbols: usize,
    /// Samples per level on levels 1 ..= `levels`, in that order.
    pub levels: usize,
    pub samples: usize,
    /// Further (level, samples) every program must also solve, searched after the levels.
    pub checks: Vec<(usize, usize)>,
    /// Seed of the samples (`sample_rng(seed, level, index)`).
    pub seed: u64,
    /// Nodes (table entries tried) before the search gives up.
    pub max_nodes: u64,
}

/// A search that cannot run.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum SpecError {
    #[error(
        "table programs need at least 1 control word and at most {max} (the zero word and the word's {word} unit vectors), got {got}"
    )]
    Symbols { got: usize, max: usize, word: usize },
    #[error("table programs run on the NHC's memory, not the DNC's")]
    NotNhc,
    #[error("give at least one level and one sample per level")]
    NoSamples,
}

/// How the search ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// A table that solves every sample.
    Found(Box<Program>),
    /// Every table was tried: none solves the samples.
    None,
    /// The node budget ran out first.
    Budget,
}

/// The search's result.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub verdict: Verdict,
    /// Table entries tried.
    pub nodes: u64,
    /// Samples every table had to solve.
    pub samples: usize,
}

/// A table that solved every sample: as text, one line per entry the samples used, and as a
/// policy ([`Program::table`]) to run on other samples.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    pub controller: Vec<String>,
    pub bus: Vec<String>,
    pub table: Table,
}

/// A table program as a [`Policy`]: a view it has no entry for reads with H, writes the zero
/// word and outputs operation 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    config: Config,
    words: Vec<Vec<f32>>,
    /// Controller view (bits) → (entry id, decision).
    control: HashMap<Vec<u32>, (usize, Choice)>,
    /// Bus view (bits of Input signals, entry id, words read) → operation.
    bus: HashMap<Vec<u32>, usize>,
}

fn bits(parts: &[&[f32]]) -> Vec<u32> {
    parts.iter().flat_map(|p| p.iter().map(|x| x.to_bits())).collect()
}

/// The controller's view: the Input's signals, the feedbacks that are on, the words read at t−1.
fn view<'a>(c: &Config, obs: &Observation<'a>) -> [&'a [f32]; 4] {
    let bus_prev: &[f32] = if c.bus_feedback { obs.bus_prev } else { &[] };
    let alu_prev: &[f32] = if c.alu_feedback > 0 { obs.alu_prev } else { &[] };
    [obs.input_controller, bus_prev, alu_prev, obs.read_prev]
}

/// Writes decision `ch` into `out`.
fn apply(c: &Config, words: &[Vec<f32>], ch: &Choice, out: &mut MemoryDecision) {
    let w = c.word;
    for i in 0..c.write_heads {
        out.write[i * w..(i + 1) * w].copy_from_slice(&words[ch.write[i]]);
        out.free_write[i] = ch.free_write[i];
    }
    for j in 0..c.read_heads {
        out.read_modes[j] = c.read_mode(ch.mode[j]);
        out.free_read[j] = ch.free_read[j];
        if let Some(s) = ch.prev[j] {
            out.prev_gate[j] = true;
            out.prev_erase[j * w..(j + 1) * w].fill(1.0);
            out.prev_write[j * w..(j + 1) * w].copy_from_slice(&words[s]);
        }
    }
}

impl Policy for Table {
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut MemoryDecision) {
        match self.control.get(&bits(&view(&self.config, obs))) {
            Some((id, ch)) => {
                c_c[0] = *id as f32;
                apply(&self.config, &self.words, ch, out);
            }
            None => c_c[0] = -1.0,
        }
    }
    fn bus(&mut self, input_bus: &[f32], c_c: &[f32], read_now: &[f32]) -> BusDecision {
        let op = self.bus.get(&bits(&[input_bus, &c_c[..1], read_now])).copied().unwrap_or(0);
        BusDecision { op, margin: 1.0 }
    }
}

impl std::fmt::Display for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "controller and memory interface (Input signals, words read at t−1 → decision):")?;
        for l in &self.controller {
            writeln!(f, "  {l}")?;
        }
        writeln!(f, "bus (Input signals, controller entry, words read → operation):")?;
        for l in &self.bus {
            writeln!(f, "  {l}")?;
        }
        Ok(())
    }
}

/// Interns float vectors (by their bits) as small ids.
#[derive(Debug, Default)]
struct Interner {
    ids: HashMap<Vec<u32>, usize>,
    keys: Vec<Vec<f32>>,
}

impl Interner {
    fn id(&mut self, parts: &[&[f32]]) -> usize {
        let bits = bits(parts);
        if let Some(&id) = self.ids.get(&bits) {
            return id;
        }
        let id = self.keys.len();
        self.keys.push(parts.concat());
        self.ids.insert(bits, id);
        id
    }
}

/// Which table entry a run needed and did not find.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    Control(usize),
    Bus(usize),
}

/// One decision of the memory interface, as digits.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Choice {
    write: Vec<usize>,
    free_write: Vec<bool>,
    mode: Vec<usize>,
    free_read: Vec<bool>,
    /// Word the previous update sets at the location read at t−1 (ĝ = 1, ê = 1), if any.
    prev: Vec<Option<usize>>,
}

/// The search's state: the table so far and the keys seen.
struct Tables<'c> {
    config: &'c Config,
    symbols: usize,
    words: Vec<Vec<f32>>,
    control_keys: Interner,
    bus_keys: Interner,
    /// Per controller entry: its option and that option decoded.
    control: Vec<Option<(usize, Choice)>>,
    bus: Vec<Option<usize>>,
    /// Bus entries set without a branch (the operation a scored step expects, or 0 at an
    /// unscored one, then `true`), in order; undone on backtracking.
    assumed: Vec<(usize, bool)>,
}

impl<'c> Tables<'c> {
    /// Whether the operation reaches the Controller neither as Bus nor as ALU feedback.
    fn blind(&self) -> bool {
        !self.config.bus_feedback && self.config.alu_feedback == 0
    }

    fn new(config: &'c Config, symbols: usize) -> Self {
        let words = (0..symbols)
            .map(|s| (0..config.word).map(|k| if s > 0 && k + 1 == s { 1.0 } else { 0.0 }).collect())
            .collect();
        Tables {
            config,
            symbols,
            words,
            control_keys: Interner::default(),
            bus_keys: Interner::default(),
            control: Vec::new(),
            bus: Vec::new(),
            assumed: Vec::new(),
        }
    }

    fn gates(&self) -> usize {
        if self.config.free_gates { 2 } else { 1 }
    }
    fn prevs(&self) -> usize {
        if self.config.previous_update { 1 + self.symbols } else { 1 }
    }
    fn options(&self, e: Entry) -> usize {
        match e {
            Entry::Bus(_) => self.config.ops,
            Entry::Control(_) => {
                let c = self.config;
                let per_write = self.symbols * self.gates();
                let per_read = c.read_modes() * self.gates() * self.prevs();
                per_write.pow(c.write_heads as u32) * per_read.pow(c.read_heads as u32)
            }
        }
    }

    fn choice(&self, mut k: usize) -> Choice {
        let c = self.config;
        let mut digit = |radix: usize| {
            let d = k % radix;
            k /= radix;
            d
        };
        let mut ch = Choice {
            write: Vec::new(),
            free_write: Vec::new(),
            mode: Vec::new(),
            free_read: Vec::new(),
            prev: Vec::new(),
        };
        for _ in 0..c.read_heads {
            ch.mode.push(digit(c.read_modes()));
        }
        for _ in 0..c.write_heads {
            ch.free_write.push(digit(self.gates()) == 1);
        }
        for _ in 0..c.read_heads {
            ch.free_read.push(digit(self.gates()) == 1);
        }
        for _ in 0..c.write_heads {
            ch.write.push(digit(self.symbols));
        }
        for _ in 0..c.read_heads {
            ch.prev.push(digit(self.prevs()).checked_sub(1));
        }
        ch
    }

    /// Symbols in the order a choice names them.
    fn symbols_of(ch: &Choice) -> impl Iterator<Item = usize> + '_ {
        ch.write.iter().copied().chain(ch.prev.iter().flatten().copied())
    }

    /// The highest word symbol any entry of the table writes.
    fn highest(&self) -> usize {
        self.control.iter().flatten().flat_map(|(_, ch)| Self::symbols_of(ch)).max().unwrap_or(0)
    }

    /// Whether option `k` of entry `e` names new words in order after `top`, the highest word
    /// the table writes (symbols 1… are interchangeable, so only the first of each relabelling
    /// is tried).
    fn canonical(&self, e: Entry, k: usize, mut top: usize) -> bool {
        if let Entry::Bus(_) = e {
            return true;
        }
        for s in Self::symbols_of(&self.choice(k)) {
            if s > top + 1 {
                return false;
            }
            top = top.max(s);
        }
        true
    }

    fn set(&mut self, e: Entry, k: Option<usize>) {
        fn put<T: Clone>(table: &mut Vec<Option<T>>, id: usize, x: Option<T>) {
            if table.len() <= id {
                table.resize(id + 1, None);
            }
            table[id] = x;
        }
        match e {
            Entry::Control(id) => {
                let x = k.map(|k| (k, self.choice(k)));
                put(&mut self.control, id, x);
            }
            Entry::Bus(id) => put(&mut self.bus, id, k),
        }
    }

    fn undo_assumed(&mut self, mark: usize) {
        while self.assumed.len() > mark {
            if let Some((id, _)) = self.assumed.pop() {
                self.set(Entry::Bus(id), None);
            }
        }
    }

    fn symbol(&self, w: &[f32]) -> String {
        match self.words.iter().position(|x| x.as_slice() == w) {
            Some(s) => format!("s{s}"),
            None => format!("{w:?}"),
        }
    }

    fn flags(x: &[f32]) -> String {
        x.iter().map(|v| if *v > 0.5 { '1' } else { '0' }).collect()
    }

    /// The table as text.
    fn program(&self, ops: &[&str]) -> Program {
        let c = self.config;
        let words = |x: &[f32]| x.chunks(c.word).map(|w| self.symbol(w)).collect::<Vec<_>>().join(" ");
        let mut controller = Vec::new();
        for (id, entry) in self.control.iter().enumerate() {
            let Some((_, ch)) = entry else { continue };
            let key = &self.control_keys.keys[id];
            let (signals, rest) = key.split_at(c.input_controller);
            let (feedback, read) = rest.split_at(rest.len() - c.read_heads * c.word);
            let mut line = format!("#{id} in {} ", Self::flags(signals));
            if !feedback.is_empty() {
                let _ = write!(line, "fb {feedback:?} ");
            }
            let _ = write!(line, "read {} → write", words(read));
            for (i, s) in ch.write.iter().enumerate() {
                let _ = write!(line, " s{s}{}", if ch.free_write[i] { " fw" } else { "" });
            }
            for j in 0..c.read_heads {
                let _ = write!(line, ", {}", c.read_mode(ch.mode[j]));
                if ch.free_read[j] {
                    line.push_str(" fr");
                }
                if let Some(s) = ch.prev[j] {
                    let _ = write!(line, " prev s{s}");
                }
            }
            controller.push(line);
        }
        let mut bus = Vec::new();
        for (id, k) in self.bus.iter().enumerate() {
            let Some(k) = *k else { continue };
            let key = &self.bus_keys.keys[id];
            let (signals, rest) = key.split_at(c.input_bus);
            let op = match ops.get(k) {
                _ if self.assumed.contains(&(id, true)) => "any (unscored)".to_string(),
                Some(name) => name.to_string(),
                None => k.to_string(),
            };
            bus.push(format!("in {} #{} read {} → {op}", Self::flags(signals), rest[0], words(&rest[1..])));
        }
        let mut table = Table {
            config: c.clone(),
            words: self.words.clone(),
            control: HashMap::new(),
            bus: HashMap::new(),
        };
        for (id, entry) in self.control.iter().enumerate() {
            if let Some((_, ch)) = entry {
                table.control.insert(bits(&[&self.control_keys.keys[id]]), (id, ch.clone()));
            }
        }
        for (id, k) in self.bus.iter().enumerate() {
            if let Some(k) = *k {
                table.bus.insert(bits(&[&self.bus_keys.keys[id]]), k);
            }
        }
        Program { controller, bus, table }
    }
}

/// A [`Tables`] as a policy; `missing` goes up when a run needs an entry the table lacks.
struct Driver<'t, 'c> {
    tables: &'t mut Tables<'c>,
    /// The first entry the run needed and the table lacks.
    missing: &'t Cell<Option<Entry>>,
    /// Per step, the operation the trace expects (`None`: unscored).
    ops: &'t [Option<usize>],
    step: usize,
}

impl Driver<'_, '_> {
    fn lack(&mut self, e: Entry) {
        if self.missing.get().is_none() {
            self.missing.set(Some(e));
        }
    }
}

impl Policy for Driver<'_, '_> {
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut MemoryDecision) {
        let c = self.tables.config;
        let id = self.tables.control_keys.id(&view(c, obs));
        c_c[0] = id as f32;
        match self.tables.control.get(id) {
            Some(Some((_, ch))) => apply(c, &self.tables.words, ch, out),
            _ => self.lack(Entry::Control(id)),
        }
    }

    fn bus(&mut self, input_bus: &[f32], c_c: &[f32], read_now: &[f32]) -> BusDecision {
        let id = self.tables.bus_keys.id(&[input_bus, &c_c[..1], read_now]);
        let expected = self.ops.get(self.step).copied();
        self.step += 1;
        if self.missing.get().is_some() {
            // The step already lacks its controller entry: the run ends here, decide nothing.
            return BusDecision { op: 0, margin: 1.0 };
        }
        let op = match (self.tables.bus.get(id).copied().flatten(), expected) {
            (Some(op), _) => return BusDecision { op, margin: 1.0 },
            // A scored step: any other operation is a mistake here, so there is nothing to try.
            (None, Some(Some(op))) => op,
            // An unscored step's operation reaches nothing the modules see when neither feedback
            // is on: operation 0, without a branch (a scored step may still refute it).
            (None, Some(None)) if self.tables.blind() => 0,
            _ => {
                self.lack(Entry::Bus(id));
                return BusDecision { op: 0, margin: 1.0 };
            }
        };
        self.tables.set(Entry::Bus(id), Some(op));
        self.tables.assumed.push((id, expected == Some(None)));
        BusDecision { op, margin: 1.0 }
    }
}

/// How one run of the table went.
enum Run {
    Solved,
    Wrong,
    Needs(Entry),
}

/// One sample, built once.
struct Prepared<T: Task> {
    modules: T::Modules,
    trace: Trace<T::Data>,
    reference: T::Answer,
    ops: Vec<Option<usize>>,
    steps: u64,
}

struct Search<'c, T: Task> {
    task: &'c T,
    tables: Tables<'c>,
    machine: Machine<T::Data>,
    samples: Vec<Prepared<T>>,
    nodes: u64,
    /// This attempt ends after this many nodes.
    limit: u64,
    /// Attempt number: 0 tries each entry's options in order, later ones in a shuffled order.
    attempt: u64,
}

impl<T: Task> Search<'_, T> {
    fn run(&mut self, i: usize) -> Run {
        let s = &self.samples[i];
        let mut modules = s.modules.clone();
        let missing = Cell::new(None);
        let mut scorer = Scorer::new(&s.trace);
        let mut driver = Driver { tables: &mut self.tables, missing: &missing, ops: &s.ops, step: 0 };
        let run = self.machine.run(&mut modules, &mut driver, s.steps, |r| {
            scorer.step(r);
            if scorer.mistaken() || missing.get().is_some() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        if let Some(e) = missing.get() {
            return Run::Needs(e);
        }
        let outcome = scorer.finish(run);
        if outcome.solved() && self.task.answer(&modules) == s.reference { Run::Solved } else { Run::Wrong }
    }

    /// The order in which entry `e`'s options are tried in this attempt.
    fn order(&self, e: Entry) -> Vec<usize> {
        use rand::{RngExt, SeedableRng};
        let mut order: Vec<usize> = (0..self.tables.options(e)).collect();
        if self.attempt > 0 {
            let id = match e {
                Entry::Control(id) => 2 * id as u64,
                Entry::Bus(id) => 2 * id as u64 + 1,
            };
            let mut rng = crate::SampleRng::seed_from_u64(self.attempt.wrapping_mul(0x9E37_79B9) ^ id);
            for i in (1..order.len()).rev() {
                order.swap(i, rng.random_range(0..=i));
            }
        }
        order
    }

    /// Whether the table, completed from here, can solve samples `from..`; `Err` on the budget.
    fn solve(&mut self, from: usize) -> Result<bool, ()> {
        for i in from..self.samples.len() {
            match self.run(i) {
                Run::Solved => {}
                Run::Wrong => return Ok(false),
                Run::Needs(e) => {
                    let (mark, top) = (self.tables.assumed.len(), self.tables.highest());
                    for k in self.order(e) {
                        if !self.tables.canonical(e, k, top) {
                            continue;
                        }
                        self.nodes += 1;
                        if self.nodes > self.limit {
                            return Err(());
                        }
                        self.tables.set(e, Some(k));
                        if self.solve(i)? {
                            return Ok(true);
                        }
                        self.tables.undo_assumed(mark);
                    }
                    self.tables.set(e, None);
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }
}

/// Nodes of the first attempt.
const ATTEMPT_NODES: u64 = 10_000;

/// The Luby sequence's `i`-th term (from 1): 1, 1, 2, 1, 1, 2, 4, 1, …
fn luby(i: u64) -> u64 {
    let mut k = 1;
    while (1u64 << k) - 1 < i {
        k += 1;
    }
    if (1u64 << k) - 1 == i { 1 << (k - 1) } else { luby(i - (1 << (k - 1)) + 1) }
}

/// Searches for a table program of `config` that solves `task`'s samples (module docs).
pub fn search<T: Task>(task: &T, config: &Config, spec: &Spec) -> Result<Report, SpecError> {
    let max = config.word + 1;
    if spec.symbols == 0 || spec.symbols > max {
        return Err(SpecError::Symbols { got: spec.symbols, max, word: config.word });
    }
    if config.memory != Arch::Nhc {
        return Err(SpecError::NotNhc);
    }
    if spec.levels == 0 || spec.samples == 0 {
        return Err(SpecError::NoSamples);
    }
    let draws = (1..=spec.levels).flat_map(|l| (0..spec.samples).map(move |i| (l, i)));
    let checks = spec.checks.iter().flat_map(|&(l, n)| (0..n).map(move |i| (l, i)));
    let samples: Vec<Prepared<T>> = draws
        .chain(checks)
        .map(|(level, i)| {
            let s = task.sample(level, &mut sample_rng(spec.seed, level, i as u64));
            let trace = task.trace(&s);
            Prepared {
                modules: task.modules(&s),
                ops: (0..trace.len()).map(|t| trace.step(t).op).collect(),
                steps: task.sample_steps(&s).max(trace.len() as u64) + 1,
                reference: task.reference(&s),
                trace,
            }
        })
        .collect();
    let mut search = Search {
        task,
        tables: Tables::new(config, spec.symbols),
        machine: Machine::new(config),
        samples,
        nodes: 0,
        limit: 0,
        attempt: 0,
    };
    // Attempts in ever other orders of the options, with budgets ATTEMPT_NODES × the Luby
    // sequence 1, 1, 2, 1, 1, 2, 4, …: a search that runs long in one order often finds a solution
    // early in another, and the budgets still grow without bound. An attempt that ends within its
    // budget has tried every table.
    let verdict = loop {
        search.tables = Tables::new(config, spec.symbols);
        let budget = ATTEMPT_NODES.saturating_mul(luby(search.attempt + 1));
        search.limit = search.nodes.saturating_add(budget).min(spec.max_nodes);
        match search.solve(0) {
            Ok(true) => break Verdict::Found(Box::new(search.tables.program(task.algorithm().ops))),
            Ok(false) => break Verdict::None,
            Err(()) if search.limit >= spec.max_nodes => break Verdict::Budget,
            Err(()) => {}
        }
        search.nodes = search.limit;
        search.attempt += 1;
    };
    Ok(Report { verdict, nodes: search.nodes.min(spec.max_nodes), samples: search.samples.len() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copy_family::{Binary, Copy, Duplicated, Reverse};
    use crate::sample_rng;
    use nhc_model::Variant;

    fn spec(levels: usize) -> Spec {
        Spec { symbols: 2, levels, samples: 6, checks: vec![(30, 3)], seed: 1, max_nodes: 5_000_000 }
    }

    /// A found table solves fresh samples of a level the search never saw, scored by the same
    /// path as any model (`score_sample`), with answers equal to the task's reference.
    fn solves_fresh_samples<T: Task>(task: &T, variant: Variant) {
        let config = task.algorithm().model(variant);
        let report = search(task, &config, &spec(4)).expect("a valid spec");
        let Verdict::Found(program) = report.verdict else {
            panic!("{} {variant}: {report:?}", task.algorithm().name)
        };
        let mut table = program.table;
        let mut machine = Machine::new(&config);
        for i in 0..5 {
            let sample = task.sample(200, &mut sample_rng(99, 200, i));
            let (_, solved) = crate::evaluate::score_sample(task, &mut machine, &mut table, &sample);
            assert!(solved, "{} {variant}: fresh level-200 sample {i}", task.algorithm().name);
        }
    }

    #[test]
    fn copy_reverse_and_duplicated_have_table_programs() {
        solves_fresh_samples(&Copy(Binary), Variant::Nhc);
        solves_fresh_samples(&Reverse(Binary), Variant::NhcAnc);
        // NHC-anc learns duplicated under the default reading (docs/results/ablations-and-dnc.md).
        solves_fresh_samples(&Duplicated(Binary), Variant::NhcAnc);
    }

    #[test]
    fn one_word_cannot_end_the_output_and_the_search_says_so() {
        // With only the zero word, every output step looks the same to the Bus: it cannot output
        // an object and then mark the end. The search must try everything and find nothing.
        let mut s = spec(2);
        s.symbols = 1;
        let report =
            search(&Copy(Binary), &Copy(Binary).algorithm().model(Variant::Nhc), &s).expect("a valid spec");
        assert_eq!(report.verdict, Verdict::None, "{report:?}");
        assert!(report.nodes > 0);
    }

    #[test]
    fn luby() {
        let terms: Vec<u64> = (1..=15).map(super::luby).collect();
        assert_eq!(terms, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
    }

    #[test]
    fn bad_specs_are_refused() {
        let c = Duplicated(Binary).algorithm().model(Variant::Nhc);
        let mut s = spec(2);
        s.symbols = 6;
        assert_eq!(search(&Duplicated(Binary), &c, &s), Err(SpecError::Symbols { got: 6, max: 5, word: 4 }));
        s.symbols = 2;
        s.levels = 0;
        assert_eq!(search(&Duplicated(Binary), &c, &s), Err(SpecError::NoSamples));
    }
}
