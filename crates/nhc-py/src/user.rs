//! The user's own data modules in Python (MODEL §10: a transfer changes only the data modules).
//! The algorithmic modules never see data, so a learned sort runs with a Python comparison
//! ([`Order`], the ALU's `compare`) and a learned search or planner in a Python world
//! ([`World`]: the action model A, the action mask a and the equality test E_t). Each is a
//! domain of the registry's algorithms: `Sort<Order>` and `SearchPlan<World>` are
//! [`Task`]s, and wrapped in [`InPython`] and `Entry` they are `AnyTask`s that run, trace and
//! evaluate by the same code as every built-in domain.
//!
//! A data word is a Python object ([`Obj`]). The core's JSON names the objects of a request by
//! number ([`Calls`]): a user's input goes in, and the answers come out, as those numbers. The
//! core calls the user's functions while it runs; the first exception (or wrong return type) is
//! kept with where it happened, every later call returns a neutral value without calling Python
//! (so the run ends quickly), and the exception reaches the caller when the run returns.

use crate::errors::{task_error, with_note};
use crate::steps::{Indices, Place, Stepped};
use nhc_model::{Config, Policy, Trace};
use nhc_tasks::any_task::{AnyTask, Entry};
use nhc_tasks::search_plan::{ACTIONS, Problem, SearchPlan, World as WorldTrait};
use nhc_tasks::sort::{Order as OrderTrait, Sort, SortDomain};
use nhc_tasks::{Algorithm, InputError, SampleRng, Task};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyList, PyTuple};
use rand::Rng;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

thread_local! {
    /// The request the core runs on this thread.
    static CURRENT: RefCell<Option<Arc<Calls>>> = const { RefCell::new(None) };
}

/// One request on the user's data modules (a run, a trace, an evaluation): the first failure of
/// the user's functions, and the Python objects its JSON names by number. Shared by the threads
/// that work on the request.
#[derive(Default)]
pub struct Calls {
    failed: AtomicBool,
    failure: Mutex<Option<PyErr>>,
    objects: Mutex<Objects>,
    answers: Mutex<Answers>,
}

/// What `compare` answered, by pair of objects (their addresses), up to [`Answers::CAP`] pairs,
/// and the first pair whose answers contradict each other.
#[derive(Default)]
struct Answers {
    sign: HashMap<(usize, usize), i8>,
    contradiction: Option<String>,
}

impl Answers {
    /// Pairs kept for the consistency check (a level-1 000 sort asks about 10⁶).
    const CAP: usize = 1 << 21;
}

/// Python objects by number, and each object's number by its address.
#[derive(Default)]
struct Objects {
    list: Vec<Obj>,
    numbers: HashMap<usize, usize>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Calls {
    /// Makes this the request whose calls the core makes on this thread.
    pub fn enter(self: &Arc<Self>) {
        CURRENT.with(|c| {
            let mut c = c.borrow_mut();
            if !c.as_ref().is_some_and(|x| Arc::ptr_eq(x, self)) {
                *c = Some(Arc::clone(self));
            }
        });
    }
    /// Whether a call has failed.
    pub fn failed(&self) -> bool {
        self.failed.load(Ordering::Acquire)
    }
    /// Keeps `err` as the request's failure unless one came first; every later call of the
    /// user's functions returns a neutral value.
    pub fn fail(&self, err: PyErr) {
        let mut first = lock(&self.failure);
        if !self.failed() {
            *first = Some(err);
            self.failed.store(true, Ordering::Release);
        }
    }
    /// The first failure, if any, as the exception to raise.
    pub fn check(&self) -> PyResult<()> {
        match lock(&self.failure).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
    /// Records `compare(a, b)`'s sign: a pair asked twice must get the same answer, its swap
    /// the opposite one, and an object compared with itself 0; the first contradiction is kept,
    /// naming the pair ([`Calls::inconsistency`]).
    fn answered(&self, (a, b): (&Bound<'_, PyAny>, &Bound<'_, PyAny>), sign: i8) {
        let (x, y) = (a.as_ptr() as usize, b.as_ptr() as usize);
        let mut answers = lock(&self.answers);
        if answers.contradiction.is_some() {
            return;
        }
        let show = |o: &Bound<'_, PyAny>| o.repr().map_or_else(|_| "?".to_string(), |r| r.to_string());
        let seen = answers.sign.get(&(x, y)).copied();
        let swapped = answers.sign.get(&(y, x)).copied();
        // The objects' repr only for a contradiction: this runs at every comparison.
        let contradiction = if x == y && sign != 0 {
            let a = show(a);
            Some(format!("compare({a}, {a}) answered {sign}, not 0"))
        } else if let Some(e) = seen.filter(|&e| e != sign) {
            Some(format!("compare({}, {}) answered {e} once and {sign} another time", show(a), show(b)))
        } else if let Some(e) = swapped.filter(|&e| e != -sign) {
            let (a, b) = (show(a), show(b));
            Some(format!("compare({b}, {a}) answered {e} but compare({a}, {b}) {sign}"))
        } else {
            if answers.sign.len() < Answers::CAP {
                answers.sign.insert((x, y), sign);
            }
            None
        };
        answers.contradiction = contradiction;
    }
    /// The first contradiction in `compare`'s answers, as a message naming the pair.
    pub fn inconsistency(&self) -> Option<String> {
        let answers = lock(&self.answers);
        let found = answers.contradiction.as_ref()?;
        Some(format!(
            "compare is not a consistent order: {found}; a sort needs the same answer each time, \
             compare(b, a) = -compare(a, b) and compare(a, a) = 0"
        ))
    }
    /// The number naming `obj` in the core's JSON (null for the empty word).
    pub fn number(&self, obj: &Obj) -> Value {
        let Some(o) = &obj.0 else { return Value::Null };
        let mut objects = lock(&self.objects);
        let Objects { list, numbers } = &mut *objects;
        let n = *numbers.entry(o.as_ptr() as usize).or_insert_with(|| {
            list.push(obj.clone());
            list.len() - 1
        });
        n.into()
    }
    /// The object a number of [`Calls::number`] names.
    pub fn object(&self, v: &Value) -> Result<Obj, String> {
        if v.is_null() {
            return Ok(Obj::default());
        }
        let objects = lock(&self.objects);
        v.as_u64()
            .and_then(|n| objects.list.get(usize::try_from(n).ok()?))
            .cloned()
            .ok_or_else(|| format!("{v} names no Python object of this request"))
    }
    /// The objects `v`, an array of numbers, names.
    pub fn objects(&self, v: &Value) -> Result<Vec<Obj>, String> {
        let items = v.as_array().ok_or_else(|| format!("expected an array of object numbers, got {v}"))?;
        items.iter().map(|x| self.object(x)).collect()
    }
}

/// Calls the user's function `name` through `f` for the request on this thread; on its first
/// failure keeps the exception with a note on where it happened. `None` when this or an earlier
/// call of the request failed.
fn call<T>(name: &str, f: impl FnOnce(Python<'_>) -> PyResult<T>) -> Option<T> {
    // Out of its place while the user's function runs, which may run the core itself (a request
    // of its own); this request resumes after it.
    let calls = CURRENT.with(|c| c.borrow_mut().take());
    if calls.as_ref().is_some_and(|c| c.failed()) {
        CURRENT.with(|c| *c.borrow_mut() = calls);
        return None;
    }
    let place = Place::now();
    let result = Python::attach(|py| {
        f(py).map_err(|e| with_note(py, e, &format!("raised in `{name}` {}", place.describe())))
    });
    place.set();
    let answer = match result {
        Ok(x) => Some(x),
        Err(e) => {
            if let Some(calls) = &calls {
                calls.fail(e);
            }
            None
        }
    };
    CURRENT.with(|c| *c.borrow_mut() = calls);
    answer
}

/// Whether a call of the request on this thread has failed.
fn failed() -> bool {
    CURRENT.with(|c| c.borrow().as_ref().is_some_and(|c| c.failed()))
}

/// A task on the user's data modules (`Sort<Order>`, `SearchPlan<World>`) for one request: its
/// calls into Python report to the request's [`Calls`] with where the core is (drawing a sample,
/// checking a problem, computing the expected trace, at a model step), each sample the user's
/// sampler draws is admitted against the memory limit as a user's input is, and once the request
/// has failed the samples are [`Neutral`] ones.
#[derive(Clone)]
pub struct InPython<T> {
    task: T,
    calls: Arc<Calls>,
    /// The model's config, for admitting drawn samples.
    config: Config,
    /// An evaluation's sample indices.
    indices: Indices,
}

impl<T: Neutral> InPython<T> {
    /// `task` for a request with `calls`, run by a model of `config`.
    pub fn new(task: T, calls: Arc<Calls>, config: Config) -> Self {
        InPython { task, calls, config, indices: Indices::default() }
    }
    /// For an evaluation of `samples` samples of `level` under `seed`: notes name the sample.
    pub fn evaluating(self, level: usize, samples: usize, seed: u64) -> Self {
        InPython { indices: Indices::of(level, samples, seed), ..self }
    }
    /// The task on the user's data modules.
    pub fn task(&self) -> &T {
        &self.task
    }
    /// The request's calls: its first failure, its objects' numbers.
    pub fn calls(&self) -> &Arc<Calls> {
        &self.calls
    }
    /// A sample by the user's sampler (the level's, or of any shape): one beyond the memory
    /// limit fails the request. Once the request has failed, the neutral sample instead.
    fn draw(&self, level: usize, rng: &mut SampleRng, any_shape: bool) -> T::Sample {
        self.calls.enter();
        Place::Drawing { level, index: self.indices.get(rng) }.set();
        if self.calls.failed() {
            return self.task.neutral();
        }
        let sample = if any_shape { self.task.any_shape(level, rng) } else { self.task.sample(level, rng) };
        if let Some(why) = self.task.refuse(&sample, level).filter(|_| !self.calls.failed()) {
            self.calls.fail(PyValueError::new_err(why));
        } else if let Err(e) = Entry(self.task.clone()).admit(&sample, &self.config, 0) {
            self.calls.fail(task_error(e));
        }
        if self.calls.failed() { self.task.neutral() } else { sample }
    }
}

impl<T: Neutral> Task for InPython<T> {
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
    /// The user's sampler ([`InPython::draw`]).
    fn sample(&self, level: usize, rng: &mut SampleRng) -> T::Sample {
        self.draw(level, rng, false)
    }
    fn any_shape(&self, level: usize, rng: &mut SampleRng) -> T::Sample {
        self.draw(level, rng, true)
    }
    fn modules(&self, sample: &T::Sample) -> Stepped<T::Modules> {
        self.calls.enter();
        let modules = Stepped::new(self.task.modules(sample), Some(Arc::clone(&self.calls)));
        if !matches!(Place::now(), Place::Drawing { .. }) {
            Place::Preparing.set();
        }
        modules
    }
    fn trace(&self, sample: &T::Sample) -> Trace<T::Data> {
        self.task.trace(sample)
    }
    fn reference(&self, sample: &T::Sample) -> T::Answer {
        self.task.reference(sample)
    }
    fn answer(&self, modules: &Stepped<T::Modules>) -> T::Answer {
        self.task.answer(modules.modules())
    }
    fn scripted(&self) -> Box<dyn Policy + Send> {
        self.task.scripted()
    }
    fn parse_input(&self, input: &Value) -> Result<T::Sample, InputError> {
        self.calls.enter();
        Place::Checking.set();
        self.task.parse_input(input)
    }
    forward_task!();
    /// The answer's JSON: the binding gives answers as Python values, so the text form (a plan
    /// replayed through the user's functions) is not made.
    fn answer_text(&self, _: &T::Sample, answer: &T::Answer) -> String {
        self.task.answer_json(answer).to_string()
    }
}

/// Runs `job` (an evaluation or a training run on the user's data modules) on the one thread of
/// a pool of its own, so that the core's parallel loops run there one after another, in order:
/// every call into Python needs the GIL, so more threads would only take turns holding it. That
/// thread holds the GIL (Python lets other threads in while the user's functions run); this one
/// waits without it and checks for Ctrl-C every 100 ms, handing a KeyboardInterrupt to
/// `interrupted` (which fails the request, or asks a training run to stop at a checkpoint).
pub fn on_one_thread<R: Send>(
    py: Python<'_>,
    interrupted: &(dyn Fn(PyErr) + Sync),
    job: impl FnOnce() -> R + Send,
) -> PyResult<R> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().map_err(|e| {
        PyRuntimeError::new_err(format!("cannot start the thread of the user's data modules: {e}"))
    })?;
    let (tx, rx) = mpsc::channel();
    // Waited on without the GIL, so shared with the closure that waits.
    let (pool, rx) = (&pool, Mutex::new(rx));
    std::thread::scope(|s| {
        s.spawn(move || {
            let result = pool.install(|| Python::attach(|_| job()));
            let _ = tx.send(result);
        });
        loop {
            let wait = || lock(&rx).recv_timeout(Duration::from_millis(100));
            match py.detach(wait) {
                Ok(result) => return Ok(result),
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(e) = py.check_signals() {
                        interrupted(e);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(PyRuntimeError::new_err(
                        "the work on the user's data modules ended without a result",
                    ));
                }
            }
        }
    })
}

/// A task on the user's data modules, with the sample a failed request draws instead of calling
/// the user's sampler: one that ends at once.
pub trait Neutral: Task + Clone {
    fn neutral(&self) -> Self::Sample;
    /// Why a drawn sample cannot be used, if it cannot.
    fn refuse(&self, _sample: &Self::Sample, _level: usize) -> Option<String> {
        None
    }
}

/// No objects.
impl Neutral for Sort<Order> {
    fn neutral(&self) -> Vec<Obj> {
        Vec::new()
    }
}

/// The empty word as start and goal: found before any expansion.
impl Neutral for SearchPlan<World> {
    fn neutral(&self) -> Problem<Obj> {
        Problem { start: Obj::default(), goal: Obj::default() }
    }
    /// The sampler's sign that no start gave a problem of the level: its goal is its start.
    fn refuse(&self, p: &Problem<Obj>, level: usize) -> Option<String> {
        let attempts = nhc_tasks::search_plan::EXACT_ATTEMPTS + nhc_tasks::search_plan::FALLBACK_ATTEMPTS;
        self.world.equal(&p.start, &p.goal).then(|| {
            format!(
                "the world gave no problem of level {level}: from {attempts} states of `random_state`, \
                 no state was first reached in expansion {level} or later (do the actions change the state?)"
            )
        })
    }
}

/// A data word: a Python object, or none (the empty word of unwritten locations and of the
/// Input's sort phase).
#[derive(Clone, Default)]
pub struct Obj(Option<Arc<Py<PyAny>>>);

impl Obj {
    pub fn new(obj: &Bound<'_, PyAny>) -> Obj {
        Obj(Some(Arc::new(obj.clone().unbind())))
    }
    /// The object (`None` for the empty word).
    pub fn to_py<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        match &self.0 {
            Some(o) => o.bind(py).clone(),
            None => py.None().into_bound(py),
        }
    }
    /// `repr()` of the object, at most 60 characters (for traces).
    fn show(&self) -> String {
        let Some(o) = &self.0 else { return "–".into() };
        Python::attach(|py| {
            let text = o.bind(py).repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
            match text.char_indices().nth(60) {
                Some((i, _)) => format!("{}…", &text[..i]),
                None => text,
            }
        })
    }
}

/// Equal when the same object, else by Python's `==`.
impl PartialEq for Obj {
    fn eq(&self, other: &Obj) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) if Arc::ptr_eq(a, b) || a.as_ptr() == b.as_ptr() => true,
            (Some(a), Some(b)) => call("==", |py| a.bind(py).eq(b.bind(py))).unwrap_or(false),
            _ => false,
        }
    }
}

impl Eq for Obj {}

/// Python's `hash()` (states must be hashable, like dictionary keys).
impl Hash for Obj {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let h = match &self.0 {
            Some(o) => call("hash (states must be hashable)", |py| o.bind(py).hash()).unwrap_or(0),
            None => -1,
        };
        h.hash(state);
    }
}

impl std::fmt::Debug for Obj {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.show())
    }
}

/// A Python function held by the core.
type Function = Arc<Py<PyAny>>;

fn function(f: &Bound<'_, PyAny>, what: &str) -> PyResult<Function> {
    if !f.is_callable() {
        return Err(PyTypeError::new_err(format!("{what} must be callable, got {}", type_name(f))));
    }
    Ok(Arc::new(f.clone().unbind()))
}

fn optional(f: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<Function>> {
    f.filter(|f| !f.is_none()).map(|f| function(f, what)).transpose()
}

/// `repr(x)`, or `?` when it fails.
pub fn repr(x: &Bound<'_, PyAny>) -> String {
    x.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into())
}

fn type_name(x: &Bound<'_, PyAny>) -> String {
    x.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
}

/// A `TypeError` for a user function `name` that returned `got` instead of `wanted`.
fn wrong_type(name: &str, wanted: &str, got: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!("`{name}` must return {wanted}, got {} {}", type_name(got), repr(got)))
}

/// `random.Random(seed)` with a seed drawn from the sample's generator: the user's sampler
/// sees a generator of its own, the same for the same sample of the same evaluation.
fn python_rng<'py>(py: Python<'py>, rng: &mut SampleRng) -> PyResult<Bound<'py, PyAny>> {
    py.import("random")?.getattr("Random")?.call1((rng.next_u64(),))
}

/// A Python sequence as objects.
fn objects(list: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<Obj>> {
    if list.is_instance_of::<pyo3::types::PyString>() {
        return Err(wrong_type(name, "a list of objects", list));
    }
    let items: Vec<Bound<'_, PyAny>> =
        list.try_iter().map_err(|_| wrong_type(name, "a list of objects", list))?.collect::<PyResult<_>>()?;
    Ok(items.iter().map(Obj::new).collect())
}

/// The one of a user domain's `tasks` that runs `algorithm` (each task says which algorithm it
/// runs), for a request with `calls` by a model of `config`, as the core runs a task; else a
/// `ValueError` saying which algorithms `what` drives.
pub fn task_for<T: Neutral>(
    (calls, tasks): (Arc<Calls>, Vec<T>),
    algorithm: &Algorithm,
    config: Config,
    what: &str,
) -> PyResult<Entry<InPython<T>>> {
    let names: Vec<&str> = tasks.iter().map(|t| t.algorithm().name).collect();
    if let Some(task) = tasks.into_iter().find(|t| t.algorithm() == algorithm) {
        return Ok(Entry(InPython::new(task, calls, config)));
    }
    let drives = match names.as_slice() {
        [one] => format!("the {one} algorithm"),
        [first @ .., last] => format!("{} and {last}", first.join(", ")),
        [] => "no algorithm".to_string(),
    };
    Err(PyValueError::new_err(format!("{what} drives {drives}, not `{}`", algorithm.name)))
}

/// The user's data modules: an `nhc.Order` or an `nhc.World`.
#[derive(Clone)]
pub enum UserDomain {
    Order(Order),
    World(World),
}

impl UserDomain {
    /// `obj` as the user's data modules, if it is an `nhc.Order` or an `nhc.World`.
    pub fn of(obj: &Bound<'_, PyAny>) -> Option<UserDomain> {
        if let Ok(order) = obj.extract::<Order>() {
            return Some(UserDomain::Order(order));
        }
        obj.extract::<World>().ok().map(UserDomain::World)
    }

    /// The domain's name in model files and run directories.
    pub fn name(&self) -> &'static str {
        match self {
            UserDomain::Order(o) => SortDomain::name(o),
            UserDomain::World(w) => WorldTrait::name(w),
        }
    }

    /// `algorithm` on these data modules for a training run of a model of `config` (a new request,
    /// its task leaked: the trainer takes `'static` tasks): the task and the request's calls.
    /// Training draws samples, so an `Order` needs its sampler and a `World` its random_state.
    pub fn training_task(
        &self,
        algorithm: &Algorithm,
        config: Config,
    ) -> PyResult<(&'static dyn AnyTask, Arc<Calls>)> {
        fn leak<T: Neutral>(task: Entry<InPython<T>>) -> (&'static dyn AnyTask, Arc<Calls>) {
            let calls = Arc::clone(task.0.calls());
            (Box::leak(Box::new(task)), calls)
        }
        match self {
            UserDomain::Order(o) if !o.has_sampler() => {
                Err(PyValueError::new_err("training on an nhc.Order needs its sampler"))
            }
            UserDomain::World(w) if !w.has_sampler() => {
                Err(PyValueError::new_err("training in an nhc.World needs its random_state"))
            }
            UserDomain::Order(o) => task_for(o.tasks(), algorithm, config, "a Python comparison").map(leak),
            UserDomain::World(w) => task_for(w.tasks(), algorithm, config, "a Python world").map(leak),
        }
    }
}

/// The data modules of sort on Python objects: `compare(a, b)` returns a negative number, zero
/// or a positive number, like a classic `cmp`; the ALU's `compare(o1, o2)` is `cmp(o1, o2) ≤ 0`.
#[pyclass(module = "nhc", frozen, from_py_object)]
#[derive(Clone)]
pub struct Order {
    compare: Function,
    sampler: Option<Function>,
    reference: Option<Function>,
    /// The request the order serves (its objects' numbers).
    calls: Arc<Calls>,
}

#[pymethods]
impl Order {
    /// Sort's data modules in Python.
    ///
    /// compare(a, b): negative, zero or positive, like a classic `cmp` (the learned sort keeps
    /// a before b when compare(a, b) <= 0, so equal objects keep their order).
    /// sampler(level, rng): a list of level + 1 objects, for `Model.evaluate` and for training
    /// (`nhc.train("sort", seed, domain=order)`); rng is a `random.Random` of the sample's own.
    /// reference(objects): the sorted list, computed without the model, for `evaluate`
    /// (default: `sorted(objects, key=functools.cmp_to_key(compare))`).
    #[new]
    #[pyo3(signature = (compare, sampler=None, reference=None))]
    pub fn new(
        compare: &Bound<'_, PyAny>,
        sampler: Option<&Bound<'_, PyAny>>,
        reference: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Order> {
        Ok(Order {
            compare: function(compare, "compare")?,
            sampler: optional(sampler, "sampler")?,
            reference: optional(reference, "reference")?,
            calls: Arc::default(),
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "nhc.Order(compare=…{}{})",
            if self.sampler.is_some() { ", sampler=…" } else { "" },
            if self.reference.is_some() { ", reference=…" } else { "" }
        )
    }
}

impl Order {
    /// Whether `evaluate` can draw samples.
    pub fn has_sampler(&self) -> bool {
        self.sampler.is_some()
    }
    /// The tasks this order drives, for a new request: sort.
    pub fn tasks(&self) -> (Arc<Calls>, Vec<Sort<Order>>) {
        let calls = Arc::<Calls>::default();
        (Arc::clone(&calls), vec![Sort(Order { calls, ..self.clone() })])
    }
    /// A user's list (at least one object) as the core's input: its objects' numbers.
    pub fn input(&self, list: &Bound<'_, PyAny>) -> PyResult<Value> {
        let items = objects(list, "input")?;
        if items.is_empty() {
            return Err(PyValueError::new_err("the list must hold at least one object"));
        }
        Ok(self.json(&items))
    }
    /// The request's calls (the consistency of `compare`'s answers).
    pub fn calls(&self) -> &Calls {
        &self.calls
    }
    /// A list the core answered (its objects' numbers) as a Python list.
    pub fn answer<'py>(&self, py: Python<'py>, answer: &Value) -> PyResult<Bound<'py, PyAny>> {
        let items = self.calls.objects(answer).map_err(PyValueError::new_err)?;
        Ok(PyList::new(py, items.iter().map(|o| o.to_py(py)))?.into_any())
    }
}

/// The empty word is smaller than every object, as 0 among bytes and "" among strings.
impl OrderTrait for Order {
    type Item = Obj;
    fn compare(&self, o1: &Obj, o2: &Obj) -> bool {
        let (Some(a), Some(b)) = (&o1.0, &o2.0) else { return o1.0.is_none() };
        call("compare", |py| {
            let r = self.compare.bind(py).call1((a.bind(py), b.bind(py)))?;
            let wanted = "a number (negative, zero or positive)";
            if r.is_instance_of::<pyo3::types::PyString>() || r.is_none() {
                return Err(wrong_type("compare", wanted, &r));
            }
            let x: f64 = r.extract().map_err(|_| wrong_type("compare", wanted, &r))?;
            if x.is_nan() {
                return Err(wrong_type("compare", wanted, &r));
            }
            let sign = if x < 0.0 { -1 } else { i8::from(x > 0.0) };
            self.calls.answered((a.bind(py), b.bind(py)), sign);
            Ok(x <= 0.0)
        })
        .unwrap_or(true)
    }
}

impl SortDomain for Order {
    fn name(&self) -> &'static str {
        "python"
    }
    /// `sampler(level, rng)`.
    fn sample(&self, level: usize, rng: &mut SampleRng) -> Vec<Obj> {
        let Some(sampler) = &self.sampler else { return Vec::new() };
        call("sampler", |py| {
            let list = sampler.bind(py).call1((level, python_rng(py, rng)?))?;
            let items = objects(&list, "sampler")?;
            if items.is_empty() {
                return Err(PyValueError::new_err("`sampler` returned an empty list"));
            }
            Ok(items)
        })
        .unwrap_or_default()
    }
    /// `reference(objects)`, or Python's own stable sort under `compare`.
    fn sorted(&self, items: &[Obj]) -> Vec<Obj> {
        call("reference", |py| {
            let list = PyList::new(py, items.iter().map(|o| o.to_py(py)))?;
            let sorted = match &self.reference {
                Some(r) => r.bind(py).call1((list,))?,
                None => {
                    let key = py.import("functools")?.call_method1("cmp_to_key", (self.compare.bind(py),))?;
                    let kwargs = [("key", key)].into_py_dict(py)?;
                    py.import("builtins")?.getattr("sorted")?.call((list,), Some(&kwargs))?
                }
            };
            objects(&sorted, "reference")
        })
        .unwrap_or_default()
    }
    /// The numbers of the request's objects ([`Calls::number`]).
    fn parse(&self, v: &Value) -> Result<Vec<Obj>, InputError> {
        let items = self.calls.objects(v).map_err(InputError::new)?;
        if items.is_empty() {
            return Err(InputError::new("the list must hold at least one object"));
        }
        Ok(items)
    }
    /// The objects' numbers ([`Calls::number`]).
    fn json(&self, items: &[Obj]) -> Value {
        items.iter().map(|o| self.calls.number(o)).collect::<Vec<_>>().into()
    }
    fn show(&self, x: &Obj) -> String {
        x.show()
    }
}

/// The data modules of search and plan in a Python world.
#[pyclass(module = "nhc", frozen, from_py_object)]
#[derive(Clone)]
pub struct World {
    actions: Arc<[Py<PyAny>; ACTIONS]>,
    apply: Function,
    applicable: Option<Function>,
    equal: Option<Function>,
    random_state: Option<Function>,
    /// The request the world serves (its states' numbers).
    calls: Arc<Calls>,
}

#[pymethods]
impl World {
    /// Search's and plan's data modules in Python.
    ///
    /// actions: four hashable action names; the model's Bus calls them U, R, D, L in this order.
    /// apply(state, action): the next state (the same state when the action has no effect).
    /// applicable(state, action): whether the action changes the state (used by search+ and
    /// plan+; default: apply(state, action) != state).
    /// equal(a, b): whether two states are equal (default: a == b). States must be hashable.
    /// random_state(rng): a random start state, for `Model.evaluate` and for training
    /// (`nhc.train("plan", seed, domain=world)`; rng is a `random.Random`);
    /// the goal of a level-L sample is the first state the model's breadth-first search reaches
    /// in its L-th expansion, as in every built-in world.
    #[new]
    #[pyo3(signature = (actions, apply, applicable=None, equal=None, random_state=None))]
    pub fn new(
        actions: &Bound<'_, PyAny>,
        apply: &Bound<'_, PyAny>,
        applicable: Option<&Bound<'_, PyAny>>,
        equal: Option<&Bound<'_, PyAny>>,
        random_state: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<World> {
        let list: Vec<Bound<'_, PyAny>> = actions
            .try_iter()
            .map_err(|_| PyTypeError::new_err("actions must be a sequence of four action names"))?
            .collect::<PyResult<_>>()?;
        let Ok(four) = <[Bound<'_, PyAny>; ACTIONS]>::try_from(list) else {
            return Err(PyValueError::new_err(format!(
                "actions must hold exactly {ACTIONS} action names (the model's Bus has U, R, D, L), got {}",
                actions.len().map(|n| n.to_string()).unwrap_or_else(|_| "another number".into())
            )));
        };
        for a in &four {
            a.hash().map_err(|_| PyTypeError::new_err(format!("action {} is not hashable", repr(a))))?;
        }
        Ok(World {
            actions: Arc::new(four.map(Bound::unbind)),
            apply: function(apply, "apply")?,
            applicable: optional(applicable, "applicable")?,
            equal: optional(equal, "equal")?,
            random_state: optional(random_state, "random_state")?,
            calls: Arc::default(),
        })
    }

    fn __repr__(&self) -> String {
        Python::attach(|py| {
            let names: Vec<String> = self
                .actions
                .iter()
                .map(|a| a.bind(py).repr().map(|r| r.to_string()).unwrap_or_default())
                .collect();
            format!("nhc.World(actions=[{}], …)", names.join(", "))
        })
    }
}

impl World {
    /// Whether `evaluate` can draw samples.
    pub fn has_sampler(&self) -> bool {
        self.random_state.is_some()
    }
    /// Action `k` as the user named it.
    fn action<'py>(&self, py: Python<'py>, k: usize) -> Bound<'py, PyAny> {
        self.actions[k].bind(py).clone()
    }
    /// The tasks this world drives, for a new request: search, plan, search+ and plan+.
    pub fn tasks(&self) -> (Arc<Calls>, Vec<SearchPlan<World>>) {
        let calls = Arc::<Calls>::default();
        let world = World { calls: Arc::clone(&calls), ..self.clone() };
        let tasks = [(false, false), (false, true), (true, false), (true, true)]
            .map(|(plus, plan)| SearchPlan { world: world.clone(), plus, plan });
        (calls, tasks.into())
    }
    /// A user's problem as the core's input: `{"start": n, "goal": n}`, its states' numbers.
    pub fn input(&self, start: &Bound<'_, PyAny>, goal: &Bound<'_, PyAny>) -> Value {
        let number = |s| self.calls.number(&Obj::new(s));
        serde_json::json!({ "start": number(start), "goal": number(goal) })
    }
    /// A search-or-plan answer the core gave (its JSON) in the user's terms: a plan as the
    /// user's actions (`None` where no action joins two output states), a search as
    /// `{"found", "expansions"}`.
    pub fn answer<'py>(&self, py: Python<'py>, answer: &Value) -> PyResult<Bound<'py, PyAny>> {
        let Value::Array(names) = answer else { return crate::convert::to_py(py, answer) };
        let known = self.action_names();
        let actions = names.iter().map(|n| match known.iter().position(|k| n.as_str() == Some(*k)) {
            Some(k) => self.action(py, k),
            None => py.None().into_bound(py),
        });
        Ok(PyList::new(py, actions)?.into_any())
    }
    /// A user function's boolean answer.
    fn boolean(&self, name: &str, f: &Function, args: (&Obj, &Bound<'_, PyAny>)) -> Option<bool> {
        call(name, |py| {
            let r = f.bind(py).call1((args.0.to_py(py), args.1))?;
            r.extract::<bool>().map_err(|_| wrong_type(name, "True or False", &r))
        })
    }
}

impl WorldTrait for World {
    type State = Obj;
    fn name(&self) -> &'static str {
        "python"
    }
    /// `random_state(rng)`.
    fn random_state(&self, rng: &mut SampleRng) -> Obj {
        let Some(f) = &self.random_state else { return Obj::default() };
        call("random_state", |py| Ok(Obj::new(&f.bind(py).call1((python_rng(py, rng)?,))?)))
            .unwrap_or_default()
    }
    /// The number of one of the request's states ([`Calls::number`]).
    fn parse_state(&self, v: &Value) -> Result<Obj, String> {
        match self.calls.object(v)? {
            Obj(None) => Err(format!("expected the number of a state, got {v}")),
            state => Ok(state),
        }
    }
    fn form(&self) -> String {
        "a Python object".into()
    }
    /// The state's number ([`Calls::number`]).
    fn state_json(&self, s: &Obj) -> Value {
        self.calls.number(s)
    }
    fn rows(&self, s: &Obj) -> Vec<String> {
        vec![s.show()]
    }
    fn show(&self, s: &Obj) -> String {
        s.show()
    }
    /// `apply(state, action)`; the empty word stays empty.
    fn apply(&self, s: &Obj, action: usize) -> Obj {
        if s.0.is_none() {
            return Obj::default();
        }
        call("apply", |py| Ok(Obj::new(&self.apply.bind(py).call1((s.to_py(py), self.action(py, action)))?)))
            .unwrap_or_else(|| s.clone())
    }
    /// `applicable(state, action)` for each action, or `apply(state, action) != state`.
    fn applicable(&self, s: &Obj) -> [bool; ACTIONS] {
        if s.0.is_none() {
            return [false; ACTIONS];
        }
        match &self.applicable {
            Some(f) => std::array::from_fn(|k| {
                Python::attach(|py| self.boolean("applicable", f, (s, &self.action(py, k)))).unwrap_or(false)
            }),
            None => std::array::from_fn(|k| !failed() && self.apply(s, k) != *s),
        }
    }
    /// `equal(a, b)`, or `a == b`. After a failed call every state is the goal, so that every
    /// search ends at once.
    fn equal(&self, a: &Obj, b: &Obj) -> bool {
        if failed() {
            return true;
        }
        match (&self.equal, &a.0, &b.0) {
            (Some(f), Some(_), Some(_)) => {
                Python::attach(|py| self.boolean("equal", f, (a, &b.to_py(py))).unwrap_or(true))
            }
            _ => a == b,
        }
    }
}

/// `(a, b)` from a Python pair.
pub fn pair<'py>(x: &Bound<'py, PyAny>, what: &str) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let t = x
        .cast::<PyTuple>()
        .ok()
        .filter(|t| t.len() == 2)
        .ok_or_else(|| PyTypeError::new_err(format!("{what} must be a pair (start, goal)")))?;
    Ok((t.get_item(0)?, t.get_item(1)?))
}
