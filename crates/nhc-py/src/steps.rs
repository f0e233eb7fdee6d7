//! Where the core is when it calls the user's Python functions (drawing a sample, preparing the
//! user's input, at a model step of a run on some sample), for the note on an exception. The
//! place is thread-local; a run's data modules ([`Stepped`]) set it at every step with the sample
//! they were made for, so a note names the step and the sample even when the run is on another
//! thread than the one that drew its sample (training prepares a batch, then scores it).
//!
//! [`Stepping`] wraps any task so that its runs say where they are: a declared algorithm's ALU
//! functions are called at model steps, and their notes name them ([`run_note`]).

use crate::user::Calls;
use nhc_model::{DataModules, Policy, Signals, Trace};
use nhc_tasks::{Algorithm, FieldShape, InputError, SampleRng, Task, sample_rng};
use serde_json::Value;
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::Arc;

/// The sample a run is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Of {
    /// The user's input.
    Input,
    /// A drawn sample of `level`: sample `index` of an evaluation, or (`None`) a training sample.
    Drawn { level: usize, index: Option<u64> },
}

impl Of {
    fn describe(self) -> String {
        match self {
            Of::Input => "the input".to_string(),
            Of::Drawn { level, index: Some(i) } => format!("sample {i} of level {level}"),
            Of::Drawn { level, index: None } => format!("a sample of level {level}"),
        }
    }
}

/// Where the core is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Drawing sample `index` of level `level` (the sampler, then the expected trace and the
    /// reference).
    Drawing { level: usize, index: Option<u64> },
    /// Checking the user's input (a problem's goal can be reached).
    Checking,
    /// Building the expected trace and the reference of the user's input.
    Preparing,
    /// At model step `step` (from 0, as a trace's `step`) of a run on `of`.
    Running { step: u64, of: Of },
}

thread_local! {
    static PLACE: Cell<Place> = const { Cell::new(Place::Preparing) };
}

impl Place {
    pub fn set(self) {
        PLACE.with(|p| p.set(self));
    }
    pub fn now() -> Place {
        PLACE.with(Cell::get)
    }
    /// The sample that data modules made now are for: the one just drawn on this thread, else
    /// the user's input.
    pub fn sample() -> Of {
        match Place::now() {
            Place::Drawing { level, index } => Of::Drawn { level, index },
            _ => Of::Input,
        }
    }
    pub fn describe(self) -> String {
        match self {
            Place::Drawing { level, index: Some(i) } => format!("while drawing sample {i} of level {level}"),
            Place::Drawing { level, index: None } => format!("while drawing a sample of level {level}"),
            Place::Checking => "while checking that the goal can be reached".to_string(),
            Place::Preparing => "while computing the expected trace and the reference".to_string(),
            Place::Running { step, of } => format!("at model step {step} of {}", of.describe()),
        }
    }
}

/// Where a run is, for a note on an exception raised there (`at model step 12 of sample 3 of
/// level 20`); `None` outside a run.
pub fn run_note() -> Option<String> {
    match Place::now() {
        p @ Place::Running { .. } => Some(p.describe()),
        _ => None,
    }
}

/// An evaluation's sample indices by their generator's seed ([`sample_rng`]), so that a note
/// names the sample (`Model.trace(level=..., index=...)` shows it).
#[derive(Clone, Default)]
pub struct Indices(Arc<HashMap<[u8; 32], u64>>);

impl Indices {
    /// Of an evaluation of `samples` samples of `level` under `seed`.
    pub fn of(level: usize, samples: usize, seed: u64) -> Indices {
        if samples > nhc_io::limits::MAX_SAMPLES {
            return Indices::default(); // refused by the evaluation
        }
        Indices(Arc::new((0..samples as u64).map(|i| (sample_rng(seed, level, i).get_seed(), i)).collect()))
    }
    /// Of sample `index` of level `level` under `seed` alone (a trace).
    pub fn one(level: usize, seed: u64, index: u64) -> Indices {
        Indices(Arc::new(HashMap::from([(sample_rng(seed, level, index).get_seed(), index)])))
    }
    /// The index of the sample `rng` is about to draw, if it is one of the evaluation's.
    pub fn get(&self, rng: &SampleRng) -> Option<u64> {
        self.0.get(&rng.get_seed()).copied()
    }
}

/// Data modules that set the place at every model step; with `calls`, they also make that
/// request the one whose calls the core makes on the thread that runs them.
#[derive(Clone)]
pub struct Stepped<M> {
    modules: M,
    step: u64,
    of: Of,
    calls: Option<Arc<Calls>>,
}

impl<M> Stepped<M> {
    /// `modules` for a run on the sample of [`Place::sample`].
    pub fn new(modules: M, calls: Option<Arc<Calls>>) -> Self {
        Stepped { modules, step: 0, of: Place::sample(), calls }
    }
    pub fn modules(&self) -> &M {
        &self.modules
    }
}

impl<M: DataModules> DataModules for Stepped<M> {
    type Data = M::Data;

    fn input(&mut self, d_out_prev: Option<&M::Data>, signals: &mut Signals) -> Option<M::Data> {
        if let Some(calls) = &self.calls {
            calls.enter();
        }
        Place::Running { step: self.step, of: self.of }.set();
        self.step += 1;
        self.modules.input(d_out_prev, signals)
    }
    fn alu(&mut self, reads: &[M::Data], op: usize, feedback: &mut [f32]) -> M::Data {
        self.modules.alu(reads, op, feedback)
    }
    fn phase(&self) -> &'static str {
        self.modules.phase()
    }
}

/// A task whose runs say where they are ([`Stepped`]); everything else is the task's own.
#[derive(Clone)]
pub struct Stepping<T> {
    task: T,
    indices: Indices,
}

impl<T: Task> Stepping<T> {
    pub fn new(task: T) -> Self {
        Stepping { task, indices: Indices::default() }
    }
    /// For an evaluation or a trace whose samples are `indices`: notes name the sample.
    pub fn drawing(self, indices: Indices) -> Self {
        Stepping { indices, ..self }
    }
    pub fn task(&self) -> &T {
        &self.task
    }
}

impl<T: Task + Clone> Task for Stepping<T> {
    type Data = T::Data;
    type Sample = T::Sample;
    type Answer = T::Answer;
    type Modules = Stepped<T::Modules>;

    fn algorithm(&self) -> &'static Algorithm {
        self.task.algorithm()
    }
    fn domain(&self) -> &'static str {
        self.task.domain()
    }
    fn sample(&self, level: usize, rng: &mut SampleRng) -> T::Sample {
        Place::Drawing { level, index: self.indices.get(rng) }.set();
        self.task.sample(level, rng)
    }
    fn any_shape(&self, level: usize, rng: &mut SampleRng) -> T::Sample {
        Place::Drawing { level, index: self.indices.get(rng) }.set();
        self.task.any_shape(level, rng)
    }
    fn modules(&self, sample: &T::Sample) -> Stepped<T::Modules> {
        Stepped::new(self.task.modules(sample), None)
    }
    fn trace(&self, sample: &T::Sample) -> Trace<T::Data> {
        self.task.trace(sample)
    }
    fn reference(&self, sample: &T::Sample) -> T::Answer {
        self.task.reference(sample)
    }
    fn answer(&self, modules: &Stepped<T::Modules>) -> T::Answer {
        self.task.answer(&modules.modules)
    }
    fn scripted(&self) -> Box<dyn Policy + Send> {
        self.task.scripted()
    }
    fn has_script(&self) -> bool {
        self.task.has_script()
    }
    fn digest(&self) -> Option<String> {
        self.task.digest()
    }
    fn parse_input(&self, input: &Value) -> Result<T::Sample, InputError> {
        Place::Checking.set();
        self.task.parse_input(input)
    }
    forward_task!();
    fn field_shape(&self) -> Option<FieldShape> {
        self.task.field_shape()
    }
    fn fields(&self, data: &T::Data, out: &mut [u8]) {
        self.task.fields(data, out)
    }
    fn answer_text(&self, sample: &T::Sample, answer: &T::Answer) -> String {
        self.task.answer_text(sample, answer)
    }
    fn shapes(&self, bounds: &nhc_tasks::verify::Bounds) -> Vec<nhc_tasks::verify::Part<'_, T::Sample>> {
        Place::Checking.set();
        self.task.shapes(bounds)
    }
    fn unlisted_because(&self) -> Option<String> {
        self.task.unlisted_because()
    }
}
