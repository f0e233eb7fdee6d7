//! The user's own data modules in Python (MODEL §10: a transfer changes only the data modules).
//! The algorithmic modules never see data, so a learned sort runs with a Python comparison
//! ([`Order`], the ALU's `compare`) and a learned search or planner in a Python world
//! ([`World`]: the action model A, the action mask a and the equality test E_t). Each is a
//! domain of the registry's algorithm: `Sort<PyOrder>` and `SearchPlan<PyWorld>` are
//! [`Task`](nhc_tasks::Task)s, run by the same code as every built-in domain.
//!
//! A data word is a Python object ([`Obj`]). The core calls the user's functions while it runs;
//! the first exception (or wrong return type) is kept ([`Calls`]) with where it happened, every
//! later call returns a neutral value without calling Python (so the run ends quickly), and the
//! exception reaches the caller when the run returns.

use crate::errors::with_note;
use nhc_tasks::search_plan::{ACTIONS, SearchPlan, World as WorldTrait};
use nhc_tasks::sort::{Order as OrderTrait, Sort, SortDomain};
use nhc_tasks::{InputError, SampleRng};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use rand::Rng;
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Where the core is when it calls the user's functions, for the note on an exception.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Drawing sample `index` of level `level` (the sampler, then the expected trace and the
    /// reference).
    Drawing { level: usize, index: u64 },
    /// Checking that a problem's goal can be reached.
    Checking,
    /// Building the expected trace and the reference of the input.
    Preparing,
    /// At a step of the model's run (`step` is set by the run).
    Running,
    /// While the model ran on sample `index` of an evaluation.
    Scoring { index: u64 },
}

thread_local! {
    static FAILURE: RefCell<Option<PyErr>> = const { RefCell::new(None) };
    static PLACE: Cell<Place> = const { Cell::new(Place::Preparing) };
    static STEP: Cell<u64> = const { Cell::new(0) };
}

/// The user's functions called by one run, on this thread: the first failure and where it
/// happened. Runs on Python domains happen on the calling thread, holding the GIL.
pub struct Calls;

impl Calls {
    /// Starts a run at `place`, forgetting any earlier failure.
    pub fn begin(place: Place) -> Calls {
        FAILURE.with(|f| f.borrow_mut().take());
        Calls::at(place);
        Calls
    }
    /// Moves on to `place` (with [`Place::Running`], step 0).
    pub fn at(place: Place) {
        PLACE.with(|p| p.set(place));
        STEP.with(|s| s.set(0));
    }
    /// The model finished step `step` (from 0): the next calls belong to step `step + 1`.
    pub fn after_step(step: u64) {
        STEP.with(|s| s.set(step + 1));
    }
    /// Whether a call has failed.
    pub fn failed() -> bool {
        FAILURE.with(|f| f.borrow().is_some())
    }
    /// The first failure, if any, as the exception to raise.
    pub fn check(&self) -> PyResult<()> {
        match FAILURE.with(|f| f.borrow_mut().take()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
    /// Calls the user's function `name` through `f`; on its first failure keeps the exception
    /// with a note on where it happened. `None` when this or an earlier call failed.
    fn call<T>(name: &str, f: impl FnOnce(Python<'_>) -> PyResult<T>) -> Option<T> {
        if Calls::failed() {
            return None;
        }
        Python::attach(|py| match f(py) {
            Ok(x) => Some(x),
            Err(e) => {
                let e = with_note(py, e, &format!("raised in `{name}` {}", Calls::where_now()));
                FAILURE.with(|f| *f.borrow_mut() = Some(e));
                None
            }
        })
    }
    fn where_now() -> String {
        match PLACE.with(Cell::get) {
            Place::Drawing { level, index } => format!("while drawing sample {index} of level {level}"),
            Place::Checking => "while checking that the goal can be reached".to_string(),
            Place::Preparing => "while computing the expected trace and the reference".to_string(),
            Place::Running => format!("at model step {}", STEP.with(Cell::get)),
            Place::Scoring { index } => format!("while the model ran on sample {index}"),
        }
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
            (Some(a), Some(b)) => Calls::call("==", |py| a.bind(py).eq(b.bind(py))).unwrap_or(false),
            _ => false,
        }
    }
}

impl Eq for Obj {}

/// Python's `hash()` (states must be hashable, like dictionary keys).
impl Hash for Obj {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let h = match &self.0 {
            Some(o) => Calls::call("hash (states must be hashable)", |py| o.bind(py).hash()).unwrap_or(0),
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

/// The data modules of sort on Python objects: `compare(a, b)` returns a negative number, zero
/// or a positive number, like a classic `cmp`; the ALU's `compare(o1, o2)` is `cmp(o1, o2) ≤ 0`.
#[pyclass(module = "nhc", frozen, from_py_object)]
#[derive(Clone)]
pub struct Order {
    compare: Function,
    sampler: Option<Function>,
    reference: Option<Function>,
}

#[pymethods]
impl Order {
    /// Sort's data modules in Python.
    ///
    /// compare(a, b): negative, zero or positive, like a classic `cmp` (the learned sort keeps
    /// a before b when compare(a, b) <= 0, so equal objects keep their order).
    /// sampler(level, rng): a list of level + 1 objects for `Model.evaluate` (rng is a
    /// `random.Random` of the sample's own).
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
    /// The sort task on this order.
    pub fn task(&self) -> Sort<Order> {
        Sort(self.clone())
    }
}

/// The empty word is smaller than every object, as 0 among bytes and "" among strings.
impl OrderTrait for Order {
    type Item = Obj;
    fn compare(&self, o1: &Obj, o2: &Obj) -> bool {
        let (Some(a), Some(b)) = (&o1.0, &o2.0) else { return o1.0.is_none() };
        Calls::call("compare", |py| {
            let r = self.compare.bind(py).call1((a.bind(py), b.bind(py)))?;
            let wanted = "a number (negative, zero or positive)";
            if r.is_instance_of::<pyo3::types::PyString>() || r.is_none() {
                return Err(wrong_type("compare", wanted, &r));
            }
            let x: f64 = r.extract().map_err(|_| wrong_type("compare", wanted, &r))?;
            if x.is_nan() {
                return Err(wrong_type("compare", wanted, &r));
            }
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
        Calls::call("sampler", |py| {
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
        Calls::call("reference", |py| {
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
    fn parse(&self, _: &Value) -> Result<Vec<Obj>, InputError> {
        Err(InputError::new("a Python order takes its objects from Python"))
    }
    fn json(&self, items: &[Obj]) -> Value {
        items.iter().map(Obj::show).collect::<Vec<_>>().into()
    }
    fn show(&self, x: &Obj) -> String {
        x.show()
    }
}

use pyo3::types::IntoPyDict;

/// The data modules of search and plan in a Python world.
#[pyclass(module = "nhc", frozen, from_py_object)]
#[derive(Clone)]
pub struct World {
    actions: Arc<[Py<PyAny>; ACTIONS]>,
    apply: Function,
    applicable: Option<Function>,
    equal: Option<Function>,
    random_state: Option<Function>,
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
    /// random_state(rng): a random start state for `Model.evaluate` (rng is a `random.Random`);
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
    pub fn action<'py>(&self, py: Python<'py>, k: usize) -> Bound<'py, PyAny> {
        self.actions[k].bind(py).clone()
    }
    /// The task of the family (`plus`: search+/plan+; `plan`: plan, plan+) in this world.
    pub fn task(&self, plus: bool, plan: bool) -> SearchPlan<World> {
        SearchPlan { world: self.clone(), plus, plan }
    }
    /// A user function's boolean answer.
    fn boolean(&self, name: &str, f: &Function, args: (&Obj, &Bound<'_, PyAny>)) -> Option<bool> {
        Calls::call(name, |py| {
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
        Calls::call("random_state", |py| Ok(Obj::new(&f.bind(py).call1((python_rng(py, rng)?,))?)))
            .unwrap_or_default()
    }
    fn parse_state(&self, _: &Value) -> Result<Obj, String> {
        Err("a Python world takes its states from Python".into())
    }
    fn form(&self) -> String {
        "a Python object".into()
    }
    /// The state's `repr()` (a Python state has no JSON form).
    fn state_json(&self, s: &Obj) -> Value {
        s.show().into()
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
        Calls::call("apply", |py| {
            Ok(Obj::new(&self.apply.bind(py).call1((s.to_py(py), self.action(py, action)))?))
        })
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
            None => std::array::from_fn(|k| !Calls::failed() && self.apply(s, k) != *s),
        }
    }
    /// `equal(a, b)`, or `a == b`. After a failed call every state is the goal, so that every
    /// search ends at once.
    fn equal(&self, a: &Obj, b: &Obj) -> bool {
        if Calls::failed() {
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

/// A user's list for sort: at least one object.
pub fn input_objects(list: &Bound<'_, PyAny>) -> PyResult<Vec<Obj>> {
    let items = objects(list, "input")?;
    if items.is_empty() {
        return Err(PyValueError::new_err("the list must hold at least one object"));
    }
    Ok(items)
}

/// The objects of data words as a Python list.
pub fn to_list<'py>(py: Python<'py>, items: &[Obj]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, items.iter().map(|o| o.to_py(py)))
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
