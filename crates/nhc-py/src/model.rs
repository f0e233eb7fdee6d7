//! `nhc.tasks`, `nhc.load`, `nhc.scripted`, `nhc.sample` and the `Model` class: the registry's
//! tasks and a model's run, evaluation and trace, on built-in domains, the user's own
//! ([`crate::user`]) or a declared algorithm ([`crate::declared`]), all through the core's
//! [`AnyTask`]. Built-in domains run without the GIL, evaluations in parallel; the user's domains
//! call Python as they run, so they run holding the GIL, and their evaluations run their samples
//! one after another ([`user::on_one_thread`]). A declared algorithm runs without the GIL (its calls
//! into Python take it; its ALU results are cached), evaluations in parallel.

use crate::convert::{to_json, to_py, trace_columns};
use crate::declared::PyDeclared;
use crate::errors::{WrongAnswer, model_error, task_error, value_error};
use crate::steps::Indices;
use crate::user::{self, Calls, InPython, Order, UserDomain, World};
use nhc_model::{Variant, theta_len};
use nhc_tasks::model::LearnedModel;
use nhc_tasks::search_plan::SearchPlan;
use nhc_tasks::sort::Sort;
use nhc_tasks::{EvalReport, ModelFile, TaskError};
use nhc_tasks::{
    any_task::{AnyTask, Entry, TraceSource},
    registry,
};
use numpy::PyArray1;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::json;
use std::path::PathBuf;

/// Every task: name, domains (training domain first), ALU operations and |θ| per model variant.
#[pyfunction]
pub fn tasks(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let list: Vec<_> = registry::names()
        .into_iter()
        .filter_map(|name| registry::find(name).ok())
        .map(|t| {
            let params: serde_json::Map<_, _> =
                Variant::ALL.iter().map(|&v| (v.to_string(), theta_len(&t.algorithm().model(v)).into())).collect();
            json!({ "name": t.name(), "domains": registry::domains(t.name()), "ops": t.ops(), "params": params })
        })
        .collect();
    to_py(py, &list)
}

/// A learned model from its file (`models/sort.json`, a run's `model.json`).
///
/// algorithm: the `nhc.Algorithm` a model of a declared algorithm was trained on; a model of
/// another declaration (another digest) is refused.
#[pyfunction]
#[pyo3(signature = (path, algorithm=None))]
pub fn load(path: PathBuf, algorithm: Option<&Bound<'_, PyAny>>) -> PyResult<Model> {
    let declared = algorithm.filter(|a| !a.is_none()).map(PyDeclared::require).transpose()?;
    load_model(path, declared)
}

/// The model in `path`, of the registry's algorithm it names or of `declared`.
pub(crate) fn load_model(path: PathBuf, declared: Option<PyDeclared>) -> PyResult<Model> {
    let file = ModelFile::read(&path).map_err(model_error)?;
    let task = match &declared {
        Some(d) => d.task(),
        None => {
            if let Some(digest) = &file.digest {
                return Err(crate::errors::ModelError::new_err(format!(
                    "{} holds a model of the declared algorithm `{}` (declaration digest {digest}); \
                     load it with nhc.load(path, algorithm=...)",
                    path.display(),
                    file.algorithm
                )));
            }
            registry::find(&file.algorithm)
                .map_err(|e| crate::errors::ModelError::new_err(format!("{}: {e}", path.display())))?
        }
    };
    let learned = ModelFile::load(&path, task).map_err(model_error)?;
    // Its domain by default: the one it was trained on, when built in; one of the user's data
    // modules ("python") is named only.
    let (task, trained_on) = match registry::find_in(&file.algorithm, Some(&file.domain)) {
        Ok(t) if declared.is_none() => (t, None),
        _ if file.domain != task.domain() => (task, Some(file.domain)),
        _ => (task, None),
    };
    Ok(Model {
        task,
        model: nhc_tasks::Model::Learned(Box::new(learned)),
        meta: file.meta,
        declared,
        user: None,
        trained_on,
    })
}

/// The hand-written solution of `task`'s algorithm, as a model (the full NHC).
#[pyfunction]
pub fn scripted(task: &str) -> PyResult<Model> {
    let task = registry::find(task).map_err(task_error)?;
    Ok(Model {
        task,
        model: nhc_tasks::Model::Scripted,
        meta: None,
        declared: None,
        user: None,
        trained_on: None,
    })
}

/// Sample `index` of an evaluation of `task` at `level` under `seed` (the sample
/// `Model.evaluate` and `nhc trace --level --seed --index` use): `(input, answer)`, the input in
/// the form `Model.run` takes and the reference answer.
///
/// task: a task name, or an `nhc.Algorithm` (its sample as its sampler made it, and its
/// reference, a list of words).
/// domain: a domain name (not for an `nhc.Algorithm`: it has its own data).
#[pyfunction]
#[pyo3(signature = (task, level, seed=0, index=0, domain=None))]
pub fn sample<'py>(
    py: Python<'py>,
    task: &Bound<'py, PyAny>,
    level: usize,
    seed: u64,
    index: u64,
    domain: Option<&str>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    if let Some(declared) = PyDeclared::of(task)? {
        if domain.is_some() {
            return Err(value_error(format!(
                "`{}` is a declared algorithm: its samples are its own (no domain)",
                declared.name()
            )));
        }
        let declared = declared.request();
        let task = declared.entry();
        let drawn = crate::declared::detached(py, || task.sample(level, seed, index));
        declared.calls().check()?;
        let (input, answer) = drawn.map_err(task_error)?;
        return Ok((to_py(py, &input)?, declared.answer(py, &answer)?));
    }
    let name: String = task.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "task must be a task name or an nhc.Algorithm, got {}",
            user::repr(task)
        ))
    })?;
    let task = registry::find_in(&name, domain).map_err(task_error)?;
    let (input, answer) = py.detach(|| task.sample(level, seed, index)).map_err(task_error)?;
    Ok((to_py(py, &input)?, to_py(py, &answer)?))
}

/// A model of one algorithm: learned θ under a variant, or the scripted solution.
#[pyclass(module = "nhc", frozen)]
pub struct Model {
    /// The algorithm on the domain it runs on by default: the one it was trained on, when built
    /// in, else the algorithm's training domain.
    pub(crate) task: &'static dyn AnyTask,
    pub(crate) model: nhc_tasks::Model,
    pub(crate) meta: Option<serde_json::Value>,
    /// The declaration, for a model of a declared algorithm.
    pub(crate) declared: Option<PyDeclared>,
    /// The user's data modules it was trained on, which it runs on by default.
    pub(crate) user: Option<UserDomain>,
    /// The domain its file records when `task` is not on it (a model trained on the user's data
    /// modules, loaded from its file: "python").
    pub(crate) trained_on: Option<String>,
}

/// A domain argument: a built-in domain's task, or the model's task on the user's data modules
/// (for one request).
enum Domain {
    Named(&'static dyn AnyTask),
    Order(Entry<InPython<Sort<Order>>>),
    World(Entry<InPython<SearchPlan<World>>>),
    /// A declared algorithm, for one request.
    Declared(PyDeclared),
}

/// The first exception of the user's functions in a request, else `result` (an input refused
/// says why, without the task's name: the user gave Python objects, not a task's JSON).
fn in_python<R>(calls: &Calls, result: Result<R, TaskError>) -> PyResult<R> {
    calls.check()?;
    result.map_err(|e| match e {
        TaskError::Input { source, .. } => value_error(source),
        e => task_error(e),
    })
}

impl Model {
    pub(crate) fn learned(
        task: &'static dyn AnyTask,
        learned: LearnedModel,
        meta: Option<serde_json::Value>,
        declared: Option<PyDeclared>,
    ) -> Model {
        Model {
            task,
            model: nhc_tasks::Model::Learned(Box::new(learned)),
            meta,
            declared,
            user: None,
            trained_on: None,
        }
    }

    /// The model, trained on the user's data modules `user`, runs there by default.
    pub(crate) fn on(self, user: Option<UserDomain>) -> Model {
        Model { user, ..self }
    }

    /// The domain it was trained on.
    fn trained_domain(&self) -> String {
        match (&self.user, &self.trained_on) {
            (Some(u), _) => u.name().to_string(),
            (None, Some(d)) => d.clone(),
            (None, None) => self.task.domain().to_string(),
        }
    }

    fn name(&self) -> &'static str {
        self.task.name()
    }

    /// `None`: the domain it was trained on (the user's data modules it was trained on, else a
    /// built-in domain); a name: that domain; an `Order` or `World`: the user's.
    fn domain_arg(&self, domain: Option<&Bound<'_, PyAny>>) -> PyResult<Domain> {
        let domain = domain.filter(|d| !d.is_none());
        if let Some(declared) = &self.declared {
            return match domain {
                None => Ok(Domain::Declared(declared.request())),
                Some(_) => Err(value_error(format!(
                    "`{}` is a declared algorithm: it runs on its own data only (no domain)",
                    self.name()
                ))),
            };
        }
        let Some(d) = domain else {
            return match &self.user {
                Some(UserDomain::Order(order)) => self.order(order),
                Some(UserDomain::World(world)) => self.world(world).map(Domain::World),
                None => Ok(Domain::Named(self.task)),
            };
        };
        if let Ok(name) = d.extract::<String>() {
            return registry::find_in(self.name(), Some(&name)).map(Domain::Named).map_err(task_error);
        }
        if let Ok(order) = d.extract::<Order>() {
            return self.order(&order);
        }
        if let Ok(world) = d.extract::<World>() {
            return self.world(&world).map(Domain::World);
        }
        Err(PyTypeError::new_err("domain must be a domain name, an nhc.Order or an nhc.World"))
    }

    /// The model's task on a Python order.
    fn order(&self, order: &Order) -> PyResult<Domain> {
        let config = self.model.config(self.task.algorithm());
        user::task_for(order.tasks(), self.task.algorithm(), config, "a Python comparison").map(Domain::Order)
    }

    /// The model's task in a Python world.
    fn world(&self, world: &World) -> PyResult<Entry<InPython<SearchPlan<World>>>> {
        let config = self.model.config(self.task.algorithm());
        user::task_for(world.tasks(), self.task.algorithm(), config, "a Python world")
    }

    /// The model's evaluation on the user's data modules: the core's own ([`AnyTask::evaluate`]),
    /// its samples drawn by the user's sampler one after another ([`user::on_one_thread`]).
    fn evaluate_in_python<T: user::Neutral>(
        &self,
        py: Python<'_>,
        task: Entry<InPython<T>>,
        (level, samples, seed): (usize, usize, u64),
    ) -> PyResult<EvalReport> {
        let task = Entry(task.0.evaluating(level, samples, seed));
        let calls = task.0.calls();
        let report =
            user::on_one_thread(py, &|e| calls.fail(e), || task.evaluate(&self.model, level, samples, seed))?;
        in_python(calls, report)
    }

    /// The world given as `world=` or as functions.
    fn world_arg(
        &self,
        world: Option<World>,
        functions: (Option<&Bound<'_, PyAny>>, Option<&Bound<'_, PyAny>>),
        applicable: Option<&Bound<'_, PyAny>>,
        equal: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<World> {
        // A model trained in a Python world plans there unless given another.
        let trained_in = match &self.user {
            Some(UserDomain::World(w)) => Some(w),
            _ => None,
        };
        match (world, functions, trained_in) {
            (Some(w), (None, None), _) => Ok(w),
            (None, (Some(actions), Some(apply)), _) => World::new(actions, apply, applicable, equal, None),
            (None, (None, None), Some(w)) if applicable.is_none() && equal.is_none() => Ok(w.clone()),
            _ => Err(PyTypeError::new_err(
                "give either actions and apply (and optionally applicable, equal), or world=nhc.World(…)",
            )),
        }
    }

    /// The answer of a run: with `report` the dict {"output", "expected", "correct", "steps"};
    /// else the output, with a [`WrongAnswer`] warning when it differs from the reference (as
    /// `nhc run` exits 3), which names the reference and how to silence it.
    fn answered<'py>(
        py: Python<'py>,
        report: bool,
        output: Bound<'py, PyAny>,
        expected: impl FnOnce() -> PyResult<Bound<'py, PyAny>>,
        correct: bool,
        steps: u64,
    ) -> PyResult<Bound<'py, PyAny>> {
        if report {
            let d = PyDict::new(py);
            d.set_item("output", output)?;
            d.set_item("expected", expected()?)?;
            d.set_item("correct", correct)?;
            d.set_item("steps", steps)?;
            return Ok(d.into_any());
        }
        if !correct {
            let expected = expected()?;
            let message = if output.eq(&expected)? {
                format!(
                    "the model's answer is the reference answer, but its run of {steps} steps leaves the \
                     algorithm's (a scored step differs, or it stops elsewhere; Model.trace shows where); \
                     report=True says so in the report, and warnings.simplefilter('ignore', nhc.WrongAnswer) silences this"
                )
            } else {
                let mut shown = expected.repr()?.to_string();
                if shown.chars().count() > 120 {
                    shown = shown.chars().take(117).collect::<String>() + "...";
                }
                format!(
                    "the model's answer differs from the reference answer {shown} (after {steps} steps); \
                     report=True returns both, and warnings.simplefilter('ignore', nhc.WrongAnswer) silences this"
                )
            };
            let category = py.get_type::<WrongAnswer>();
            PyErr::warn(
                py,
                &category,
                &std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default(),
                1,
            )?;
        }
        Ok(output)
    }

    /// `plan` (`want_plan`) or `search` in a Python world: the answer, or with `report` the
    /// run's report.
    fn answer_in<'py>(
        &self,
        py: Python<'py>,
        want_plan: bool,
        world: World,
        (start, goal): (&Bound<'py, PyAny>, &Bound<'py, PyAny>),
        report: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let task = self.world(&world)?;
        match (task.0.task().plan, want_plan) {
            (false, true) => {
                return Err(value_error(format!(
                    "`{}` searches without a plan; use Model.search",
                    self.name()
                )));
            }
            (true, false) => {
                return Err(value_error(format!("`{}` returns a plan; use Model.plan", self.name())));
            }
            _ => {}
        }
        let world = &task.0.task().world;
        let r = in_python(task.0.calls(), task.run(&self.model, &world.input(start, goal)))?;
        let output = world.answer(py, &r.output)?;
        Self::answered(py, report, output, || world.answer(py, &r.expected), r.correct, r.steps)
    }
}

#[pymethods]
impl Model {
    /// The algorithm's name (`sort`, `plan+`, …).
    #[getter]
    fn task(&self) -> &'static str {
        self.name()
    }

    /// The model variant: `nhc`, `nhc-anc`, `nhc-prev` or `dnc-is-ha`.
    #[getter]
    fn variant(&self) -> String {
        self.model.variant().to_string()
    }

    /// The domain the model was trained on ("python" for the user's data modules).
    #[getter]
    fn domain(&self) -> String {
        self.trained_domain()
    }

    /// Whether this is the hand-written solution rather than learned θ.
    #[getter]
    fn is_scripted(&self) -> bool {
        matches!(self.model, nhc_tasks::Model::Scripted)
    }

    /// θ, in the order of docs/MODEL_FILE.md, as a NumPy float32 array (a copy).
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f32>>> {
        match &self.model {
            nhc_tasks::Model::Learned(m) => Ok(PyArray1::from_slice(py, m.params.theta())),
            nhc_tasks::Model::Scripted => Err(value_error("the scripted solution has no θ")),
        }
    }

    /// Sizes and switches of the algorithmic modules, as a dict.
    #[getter]
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.model.config(self.task.algorithm()))
    }

    /// The model file's provenance (seed, iterations, command), or None.
    #[getter]
    fn meta<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.meta)
    }

    fn __repr__(&self) -> String {
        match &self.model {
            nhc_tasks::Model::Scripted => format!("<nhc.Model {} (scripted)>", self.name()),
            nhc_tasks::Model::Learned(m) => {
                format!("<nhc.Model {} ({}), {} parameters>", self.name(), m.variant, m.params.theta().len())
            }
        }
    }

    /// Writes the model file (atomically), readable by `nhc.load` and the `nhc` command.
    fn save(&self, path: PathBuf) -> PyResult<()> {
        let nhc_tasks::Model::Learned(m) = &self.model else {
            return Err(value_error("the scripted solution has no model file"));
        };
        let mut file = ModelFile::new(self.task, m, self.meta.clone());
        file.domain = self.trained_domain();
        file.save(&path).map_err(model_error)
    }

    /// The model's answer to `input`, as Python values.
    ///
    /// input: as `nhc run --input` takes it (lists of numbers, {"a": …, "b": …}, a postfix
    /// string, {"start": map, "goal": map}); for a sort with `compare`, any Python objects; for
    /// a declared algorithm, a sample as its sampler makes them (the answer is its list of words).
    /// domain: a domain name or an `nhc.Order` (default: the domain the model was trained on: the
    /// `nhc.Order` of `nhc.train(..., domain=order)`, else a built-in domain).
    /// compare(a, b): sort with this comparison (negative, zero or positive, like `cmp`).
    /// report: return {"output", "expected", "correct", "steps"} instead of the answer; without
    /// it, an answer that differs from the reference warns `nhc.WrongAnswer`.
    /// confirm: run an input whose run would take more than an hour at the speed measured here
    /// (built-in domains; without it such an input is refused with its estimate).
    #[pyo3(signature = (input, domain=None, compare=None, report=false, confirm=false))]
    #[allow(clippy::too_many_arguments)] // the keyword arguments of a Python method
    fn run<'py>(
        &self,
        py: Python<'py>,
        input: &Bound<'py, PyAny>,
        domain: Option<&Bound<'py, PyAny>>,
        compare: Option<&Bound<'py, PyAny>>,
        report: bool,
        confirm: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::no_long_work();
        let domain = match compare.filter(|c| !c.is_none()) {
            Some(_) if domain.is_some_and(|d| !d.is_none()) => {
                return Err(value_error("give either compare or domain, not both"));
            }
            Some(c) => self.order(&Order::new(c, None, None)?)?,
            None => self.domain_arg(domain)?,
        };
        match domain {
            Domain::Named(task) => {
                let value = to_json(input)?;
                crate::long_work(task, &self.model, confirm, 1);
                let r = py.detach(|| task.run(&self.model, &value)).map_err(task_error)?;
                Self::answered(
                    py,
                    report,
                    to_py(py, &r.output)?,
                    || to_py(py, &r.expected),
                    r.correct,
                    r.steps,
                )
            }
            Domain::Order(task) => {
                let order = &task.0.task().0;
                let r = in_python(task.0.calls(), task.run(&self.model, &order.input(input)?))?;
                if let Some(why) = order.calls().inconsistency() {
                    return Err(value_error(why));
                }
                let output = order.answer(py, &r.output)?;
                Self::answered(py, report, output, || order.answer(py, &r.expected), r.correct, r.steps)
            }
            Domain::World(_) => Err(value_error("in a Python world, use Model.plan or Model.search")),
            Domain::Declared(declared) => {
                let value = to_json(input)?;
                let task = declared.entry();
                let r = crate::declared::detached(py, || task.run(&self.model, &value));
                declared.calls().check()?;
                let r = r.map_err(task_error)?;
                let output = declared.answer(py, &r.output)?;
                Self::answered(py, report, output, || declared.answer(py, &r.expected), r.correct, r.steps)
            }
        }
    }

    /// The plan from `start` to `goal` in a Python world (plan and plan+ models), as a list of
    /// the user's actions.
    ///
    /// actions: four hashable action names (the Bus's U, R, D, L, in this order).
    /// apply(state, action): the next state. applicable(state, action): whether the action
    /// changes the state (plan+; default apply(state, action) != state). equal(a, b): state
    /// equality (default ==). Or pass world=nhc.World(…) instead of the functions; a model
    /// trained in an `nhc.World` (`nhc.train(..., domain=world)`) plans there without either.
    /// report: return {"output", "expected", "correct", "steps"}; "expected" is the plan of the
    /// breadth-first search the task defines, run on the same functions.
    #[pyo3(signature = (start, goal, actions=None, apply=None, applicable=None, equal=None, world=None, report=false))]
    #[allow(clippy::too_many_arguments)]
    fn plan<'py>(
        &self,
        py: Python<'py>,
        start: &Bound<'py, PyAny>,
        goal: &Bound<'py, PyAny>,
        actions: Option<&Bound<'py, PyAny>>,
        apply: Option<&Bound<'py, PyAny>>,
        applicable: Option<&Bound<'py, PyAny>>,
        equal: Option<&Bound<'py, PyAny>>,
        world: Option<World>,
        report: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let world = self.world_arg(world, (actions, apply), applicable, equal)?;
        self.answer_in(py, true, world, (start, goal), report)
    }

    /// Whether and in which expansion a search model (search, search+) finds `goal` from
    /// `start` in a Python world: {"found": bool, "expansions": int}. Arguments as `plan`.
    #[pyo3(signature = (start, goal, actions=None, apply=None, applicable=None, equal=None, world=None, report=false))]
    #[allow(clippy::too_many_arguments)]
    fn search<'py>(
        &self,
        py: Python<'py>,
        start: &Bound<'py, PyAny>,
        goal: &Bound<'py, PyAny>,
        actions: Option<&Bound<'py, PyAny>>,
        apply: Option<&Bound<'py, PyAny>>,
        applicable: Option<&Bound<'py, PyAny>>,
        equal: Option<&Bound<'py, PyAny>>,
        world: Option<World>,
        report: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let world = self.world_arg(world, (actions, apply), applicable, equal)?;
        self.answer_in(py, false, world, (start, goal), report)
    }

    /// Scores `samples` fresh samples of `level` (MODEL §8), as `nhc eval --json`: a dict with
    /// solved, samples, steps, mean_fitness, seconds and the failed sample indices.
    ///
    /// domain: a domain name, or the user's `nhc.Order` (with a sampler) or `nhc.World` (with
    /// random_state); default: the domain the model was trained on. A declared algorithm's
    /// samples come from its own sampler (no domain).
    /// confirm: evaluate when it would take more than an hour at the speed measured here
    /// (built-in domains; without it such work is refused with its estimate).
    #[pyo3(signature = (level, samples=50, seed=0, domain=None, confirm=false))]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        level: usize,
        samples: usize,
        seed: u64,
        domain: Option<&Bound<'py, PyAny>>,
        confirm: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::no_long_work();
        let report = match self.domain_arg(domain)? {
            Domain::Named(task) => {
                crate::long_work(task, &self.model, confirm, rayon::current_num_threads());
                py.detach(|| task.evaluate(&self.model, level, samples, seed)).map_err(task_error)?
            }
            Domain::Order(task) if task.0.task().0.has_sampler() => {
                self.evaluate_in_python(py, task, (level, samples, seed))?
            }
            Domain::World(task) if task.0.task().world.has_sampler() => {
                self.evaluate_in_python(py, task, (level, samples, seed))?
            }
            Domain::Declared(declared) => {
                let task = Entry(declared.entry().0.drawing(Indices::of(level, samples, seed)));
                let r = crate::declared::detached(py, || task.evaluate(&self.model, level, samples, seed));
                declared.calls().check()?;
                r.map_err(task_error)?
            }
            Domain::Order(_) => return Err(value_error("evaluate on an nhc.Order needs its sampler")),
            Domain::World(_) => return Err(value_error("evaluate on an nhc.World needs its random_state")),
        };
        to_py(py, &report)
    }

    /// Runs the model on every control-distinct input up to a bound, as `nhc verify`
    /// (docs/VERIFICATION.md, "Verification"): a dict with `outcome` ("verified", "counterexample" or
    /// "sampled"; "verified, wrong beyond" or "sampled, wrong beyond" when only a sample beyond
    /// the bound is wrong) and one entry per part in `parts` (what it lists, `inputs`, `failed`,
    /// `right_to`, the `smallest` counterexample with its `input` and `first_wrong` step, the
    /// map's `cells`, and `beyond`: the sizes sampled above the bound, samples and wrong ones
    /// per size, the smallest wrong sample with its `level` and `index`).
    ///
    /// up_to: one bound for every part, or a list of one per part; default: each part's.
    /// beyond: sample each part from just above its bound up to this size; 0: do not.
    /// domain: a domain name; default: the algorithm's listing domain (decimal for the copy
    /// family and sort, symbolic for arithmetic), else the model's. A declared algorithm lists
    /// its inputs with its `shapes`, and is sampled without it; the user's `Order` and `World`
    /// are not verified.
    /// every_length: True to also prove the model right at every length, as `nhc verify
    /// --every-length` (the copy family; others say why not): the dict's `every_length` has
    /// `outcome` ("proved", "wrong", "not proved"), `reason`, and `proof` (`n0`, `modulus`, per
    /// residue class its `regimes`: the repeated blocks, and for repeatCopy its `passes`: the
    /// copy from which passes repeat; `below`: the numbers of objects below `n0`, each proved
    /// by a run of its own); duplicated has `repeats` instead (`objects`: proved for 1..=objects
    /// objects at every number of repeats, `r0`); for duplicated a number instead of True sets
    /// `objects` (default 100).
    /// confirm: verify when it would take more than an hour at the speed measured here (without
    /// it such work is refused with its estimate).
    #[pyo3(signature = (up_to=None, domain=None, beyond=nhc_tasks::verify::BEYOND, every_length=None, confirm=false))]
    #[allow(clippy::too_many_arguments)] // the keyword arguments of a Python method
    fn verify<'py>(
        &self,
        py: Python<'py>,
        up_to: Option<&Bound<'py, PyAny>>,
        domain: Option<&Bound<'py, PyAny>>,
        beyond: u64,
        every_length: Option<&Bound<'py, PyAny>>,
        confirm: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::no_long_work();
        // True, False (None), or duplicated's number of objects (bool is an int in Python).
        let every_length: Option<Option<u64>> = match every_length.filter(|e| !e.is_none()) {
            None => None,
            Some(e) if let Ok(b) = e.cast::<pyo3::types::PyBool>() => b.is_true().then_some(None),
            Some(e) => Some(Some(e.extract::<u64>().map_err(|_| {
                PyTypeError::new_err(
                    "every_length must be True, False, or duplicated's number of objects (an int ≥ 1)",
                )
            })?)),
        };
        let bounds = match up_to.filter(|u| !u.is_none()) {
            None => Vec::new(),
            Some(u) => match u.extract::<u64>() {
                Ok(b) => vec![b],
                Err(_) if u.is_instance_of::<pyo3::types::PyInt>() => return Err(out_of_range_bound(u)),
                Err(_) => {
                    let items = u.extract::<Vec<Bound<'py, PyAny>>>().map_err(|_| {
                        PyTypeError::new_err("up_to must be an int or a list of ints, one per part")
                    })?;
                    if items.is_empty() {
                        return Err(value_error(
                            "up_to = [] gives no bound; give an int, a list of one per part, or None for each part's default",
                        ));
                    }
                    let one = |b: &Bound<'py, PyAny>| match b.extract::<u64>() {
                        Ok(b) => Ok(b),
                        Err(_) if b.is_instance_of::<pyo3::types::PyInt>() => Err(out_of_range_bound(b)),
                        Err(_) => Err(PyTypeError::new_err(format!(
                            "up_to must be an int or a list of ints, one per part; got a {} in the list",
                            b.get_type().name().map(|n| n.to_string()).unwrap_or_default()
                        ))),
                    };
                    items.iter().map(one).collect::<PyResult<Vec<u64>>>()?
                }
            },
        };
        let bounds = nhc_tasks::verify::Bounds(bounds);
        let model = &self.model;
        let check = |task: &dyn nhc_tasks::AnyTask| match every_length {
            Some(objects) => task.verify_every_length(model, &bounds, beyond, objects),
            None => task.verify_beyond(model, &bounds, beyond),
        };
        let listing = (self.declared.is_none() && self.user.is_none() && domain.is_none_or(|d| d.is_none()))
            .then(|| registry::verification_domain(self.name()))
            .flatten();
        let report = match listing {
            Some(d) => {
                let task = registry::find_in(self.name(), Some(d)).map_err(task_error)?;
                crate::long_work(task, model, confirm, rayon::current_num_threads());
                py.detach(|| check(task)).map_err(task_error)?
            }
            None => match self.domain_arg(domain)? {
                Domain::Named(task) => {
                    crate::long_work(task, model, confirm, rayon::current_num_threads());
                    py.detach(|| check(task)).map_err(task_error)?
                }
                Domain::Declared(declared) => {
                    let task = declared.entry();
                    let r = crate::declared::detached(py, || check(&task));
                    declared.calls().check()?;
                    r.map_err(task_error)?
                }
                Domain::Order(_) | Domain::World(_) => {
                    return Err(value_error(
                        "verify runs on built-in domains and declared algorithms; an nhc.Order or nhc.World promises no classes to list",
                    ));
                }
            },
        };
        // Through JSON, so that pairs (cells, map axes) are lists as in `nhc verify --json`.
        to_py(py, &serde_json::to_value(&report).map_err(value_error)?)
    }

    /// Every step of one run, as a dict of NumPy arrays of one entry per step: step, phase,
    /// op (the Bus's operation), scored, correct; per write head i (from 1) writeI_location,
    /// writeI_word0… (the control word written), writeI_free; per read head j readJ_mode
    /// (F1, P2, …), readJ_location, readJ_data, readJ_word0… (control word read), readJ_free,
    /// readJ_update with readJ_update_write0…/readJ_update_erase0… (NaN when no update);
    /// DNC+is+ha adds its gates. `pandas.DataFrame(model.trace(...))` takes it as is.
    ///
    /// Give `input` (as `run` takes it; a (start, goal) pair for a `World`), or `level` with
    /// `seed` and `index` (the sample `evaluate` scores).
    #[pyo3(signature = (input=None, level=None, seed=0, index=0, domain=None))]
    fn trace<'py>(
        &self,
        py: Python<'py>,
        input: Option<&Bound<'py, PyAny>>,
        level: Option<usize>,
        seed: u64,
        index: u64,
        domain: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let input = input.filter(|i| !i.is_none());
        let (rows, _) = match (self.domain_arg(domain)?, input, level) {
            (_, Some(_), Some(_)) | (_, None, None) => {
                return Err(value_error("give either input or level"));
            }
            (Domain::Named(task), input, level) => {
                let source = match (input, level) {
                    (Some(i), _) => TraceSource::Input(to_json(i)?),
                    (None, Some(level)) => TraceSource::Level { level, seed, index },
                    (None, None) => unreachable!("refused above"),
                };
                py.detach(|| task.trace(&self.model, &source)).map_err(task_error)?
            }
            (Domain::Declared(declared), input, level) => {
                let (task, source) = match (input, level) {
                    (Some(i), _) => (declared.entry(), TraceSource::Input(to_json(i)?)),
                    (None, Some(level)) => (
                        Entry(declared.entry().0.drawing(Indices::one(level, seed, index))),
                        TraceSource::Level { level, seed, index },
                    ),
                    (None, None) => unreachable!("refused above"),
                };
                let r = crate::declared::detached(py, || task.trace(&self.model, &source));
                declared.calls().check()?;
                r.map_err(task_error)?
            }
            (Domain::Order(task), Some(input), None) => {
                let input = TraceSource::Input(task.0.task().0.input(input)?);
                in_python(task.0.calls(), task.trace(&self.model, &input))?
            }
            (Domain::World(task), Some(input), None) => {
                let (start, goal) = user::pair(input, "input")?;
                let input = TraceSource::Input(task.0.task().world.input(&start, &goal));
                in_python(task.0.calls(), task.trace(&self.model, &input))?
            }
            (Domain::Order(_) | Domain::World(_), None, Some(_)) => {
                return Err(value_error("a trace on the user's data modules takes an input, not a level"));
            }
        };
        trace_columns(py, &rows)
    }
}

/// The error for an int bound that is no u64: negative, or beyond the largest.
fn out_of_range_bound(b: &Bound<'_, PyAny>) -> PyErr {
    if b.lt(0).unwrap_or(false) {
        value_error(format!("up_to must be at least 0, got {b}"))
    } else {
        value_error(format!("up_to {b} is beyond the largest bound, {}", u64::MAX))
    }
}
