//! `nhc.train` and `nhc.resume`: the trainer of `nhc train` (MODEL §6–§7), driven from Python.
//! The iterations run without the GIL; between two iterations the callback sees the record and
//! Ctrl-C is checked, so an interrupt stops the run cleanly (with `out`, after a checkpoint).
//! The same task, seed and config give the same θ as `nhc train`: the trainer is the same.
//! A declared algorithm ([`crate::declared`]) trains by the same trainer, and so does a built-in
//! algorithm on the user's data modules ([`crate::user`]: `domain=nhc.Order(...)` or
//! `nhc.World(...)`); an iteration in which one of the user's Python functions failed is
//! discarded (`Observer::discard`), so its run directory stays at its last checkpoint and resumes
//! once the function is fixed.

use crate::convert::{to_json, to_py};
use crate::declared::{self, PyDeclared};
use crate::errors::{task_error, value_error, with_note};
use crate::model::Model;
use crate::user::{Calls, UserDomain};
use nhc_model::Variant;
use nhc_tasks::{AnyTask, registry};
use nhc_train::run_dir::{self, Observer, Outcome, RunDirError};
use nhc_train::{ConfigError, MetricsLine, TaskConfigs, Trainer, ValidConfig};
use pyo3::exceptions::{PyFileExistsError, PyFileNotFoundError, PyTypeError};
use pyo3::prelude::*;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Calls the user's callback after each iteration and checks for Ctrl-C; the first exception
/// stops the run and is raised when it returns. For a declared algorithm or the user's data
/// modules, an iteration in which one of the user's functions failed (`calls`) is discarded and
/// stops the run.
struct PyObserver {
    callback: Option<Py<PyAny>>,
    error: Option<PyErr>,
    calls: Option<Arc<Calls>>,
    /// Ctrl-C caught by the main thread while the run calls Python from other threads.
    interrupt: Arc<declared::Interrupt>,
}

impl PyObserver {
    fn new(callback: Option<&Bound<'_, PyAny>>, calls: Option<Arc<Calls>>) -> PyResult<PyObserver> {
        let callback = callback.filter(|c| !c.is_none());
        if let Some(c) = callback.filter(|c| !c.is_callable()) {
            return Err(PyTypeError::new_err(format!("callback must be callable, got {}", c.repr()?)));
        }
        Ok(PyObserver {
            callback: callback.map(|c| c.clone().unbind()),
            error: None,
            calls,
            interrupt: Arc::default(),
        })
    }
    /// Whether one of the user's functions failed.
    fn failed(&self) -> bool {
        self.calls.as_ref().is_some_and(|c| c.failed())
    }
    /// The exception that stopped the run: the user's functions' first, else the callback's or
    /// Ctrl-C's.
    fn take_error(&mut self) -> Option<PyErr> {
        match self.calls.as_ref().map(|c| c.check()) {
            Some(Err(e)) => Some(e),
            _ => self.error.take(),
        }
    }
}

impl Observer for PyObserver {
    /// An iteration in which one of the user's functions failed is not written, nor checkpointed.
    fn discard(&mut self) -> bool {
        self.failed()
    }

    /// The callback gets the iteration's line of `metrics.jsonl` as a dict, the same keys.
    fn iteration(&mut self, line: &MetricsLine) -> ControlFlow<()> {
        let result = Python::attach(|py| -> PyResult<()> {
            if let Some(cb) = &self.callback {
                let record = to_py(py, line)?;
                cb.bind(py).call1((record,)).map_err(|e| {
                    with_note(
                        py,
                        e,
                        &format!("raised in the callback of nhc.train at iteration {}", line.log.iteration),
                    )
                })?;
            }
            match self.interrupt.take() {
                Some(e) => Err(e),
                None => py.check_signals(),
            }
        });
        match result {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                self.error = Some(e);
                ControlFlow::Break(())
            }
        }
    }
}

/// The training configs: the recipe's (`recipe=True`) or the paper's defaults, then `config`
/// on top: None, a dict of fields (over every task's config), or the path of a TOML file as
/// `nhc train --config` takes (not with the recipe).
pub(crate) fn configs(config: Option<&Bound<'_, PyAny>>, recipe: bool) -> PyResult<TaskConfigs> {
    let base = if recipe { TaskConfigs::recipe() } else { TaskConfigs::single(ValidConfig::paper()) };
    let Some(c) = config.filter(|c| !c.is_none()) else { return Ok(base) };
    if let Ok(path) = c.extract::<PathBuf>() {
        if recipe {
            return Err(value_error(
                "give recipe=True or a config file, not both (a dict of fields goes over the recipe)",
            ));
        }
        if !path.exists() {
            return Err(PyFileNotFoundError::new_err(format!("no such config file: {}", path.display())));
        }
        return TaskConfigs::from_file(&path)
            .map_err(|e| value_error(format!("config {}: {e}", path.display())));
    }
    let serde_json::Value::Object(fields) = to_json(c)? else {
        return Err(PyTypeError::new_err(format!(
            "config must be a dict of fields or the path of a TOML file, got {}",
            c.repr()?
        )));
    };
    if let Some(e) = nhc_train::config::kind_error(&fields) {
        return Err(value_error(e));
    }
    base.edit(|c| {
        let mut all = serde_json::to_value(&c).map_err(|e| ConfigError::Fields(e.to_string()))?;
        if let serde_json::Value::Object(all) = &mut all {
            all.extend(fields.clone());
        }
        serde_json::from_value(all).map_err(|e| ConfigError::Fields(e.to_string()))
    })
    .map_err(value_error)
}

/// `e` with its sources, e.g. why a checkpoint cannot be resumed.
fn with_sources(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let next = s.to_string();
        if !text.contains(&next) {
            text = format!("{text}: {next}");
        }
        source = s.source();
    }
    text
}

fn run_dir_error(e: RunDirError) -> PyErr {
    match e {
        RunDirError::AlreadyRun { .. } => PyFileExistsError::new_err(e.to_string()),
        RunDirError::NotRunDir { .. } => PyFileNotFoundError::new_err(e.to_string()),
        e => value_error(with_sources(&e)),
    }
}

/// What of a training run calls Python.
enum InPy {
    /// A built-in algorithm on a built-in domain: nothing.
    No,
    /// A declared algorithm (a request of its own).
    Declared(PyDeclared),
    /// A built-in algorithm on the user's data modules, with the request's calls.
    User(UserDomain, Arc<Calls>),
}

impl InPy {
    /// The request's calls, whose first failure stops the run.
    fn calls(&self) -> Option<Arc<Calls>> {
        match self {
            InPy::No => None,
            InPy::Declared(d) => Some(Arc::clone(d.calls())),
            InPy::User(_, calls) => Some(Arc::clone(calls)),
        }
    }
    fn declared(&self) -> Option<PyDeclared> {
        match self {
            InPy::Declared(d) => Some(d.clone()),
            _ => None,
        }
    }
    fn user(&self) -> Option<UserDomain> {
        match self {
            InPy::User(u, _) => Some(u.clone()),
            _ => None,
        }
    }
    /// Runs `job` without the GIL where the run's calls into Python go best: a built-in domain on
    /// rayon's threads; a declared algorithm on the threads that call into Python cheaply
    /// ([`declared::watched`]); the user's data modules, which call Python at every model step,
    /// on one thread that holds the GIL ([`crate::user::on_one_thread`]). Ctrl-C goes to
    /// `interrupt`, for the observer to stop the run at a checkpoint.
    fn detached<R: Send>(
        &self,
        py: Python<'_>,
        interrupt: &declared::Interrupt,
        job: impl FnOnce() -> R + Send,
    ) -> PyResult<R> {
        match self {
            InPy::No => Ok(py.detach(job)),
            InPy::Declared(_) => declared::watched(py, interrupt, job),
            InPy::User(..) => crate::user::on_one_thread(py, &|e| interrupt.put(e), job),
        }
    }
    /// The call that resumes the run in `dir`.
    fn resume_call(&self, dir: &Path) -> String {
        let dir = format!("{:?}", dir.display().to_string());
        match self {
            InPy::No => format!("nhc.resume({dir})"),
            InPy::Declared(_) => format!("nhc.resume({dir}, algorithm=...)"),
            InPy::User(..) => format!("nhc.resume({dir}, domain=...)"),
        }
    }
}

/// The model of a finished run directory, or the exception that stopped it.
fn finish(
    py: Python<'_>,
    outcome: Outcome,
    mut observer: PyObserver,
    dir: &Path,
    inpy: &InPy,
) -> PyResult<Model> {
    match outcome {
        Outcome::Finished { .. } => {
            Ok(crate::model::load_model(dir.join("model.json"), inpy.declared())?.on(inpy.user()))
        }
        Outcome::Stopped { iteration } => {
            let failed = observer.failed();
            let e = observer.take_error().unwrap_or_else(|| value_error("training stopped"));
            let (shown, resume) = (dir.display(), inpy.resume_call(dir));
            let note = match failed {
                true => format!(
                    "training stopped: the iteration after {iteration} failed and was discarded; the checkpoint \
                     of iteration {iteration} in {shown} resumes the run once the function is fixed: {resume}"
                ),
                false => format!(
                    "training stopped after iteration {iteration}; the checkpoint in {shown} resumes it: {resume}"
                ),
            };
            Err(with_note(py, e, &note))
        }
    }
}

/// The task a training run trains, and what of it calls Python: a registry name on its training
/// domain or on `domain` (a domain name, or the user's `nhc.Order` or `nhc.World`: a new request),
/// or an `nhc.Algorithm` (checked cheaply first; a new request).
fn task_arg(
    py: Python<'_>,
    task: &Bound<'_, PyAny>,
    domain: Option<&Bound<'_, PyAny>>,
    variant: Variant,
) -> PyResult<(&'static dyn AnyTask, InPy)> {
    let domain = domain.filter(|d| !d.is_none());
    if let Some(declared) = PyDeclared::of(task)? {
        if domain.is_some() {
            return Err(value_error(format!(
                "`{}` is a declared algorithm: it trains on its own data (no domain)",
                declared.name()
            )));
        }
        declared.quick_check(py)?;
        let run = declared.request();
        return Ok((run.leak(), InPy::Declared(run)));
    }
    let name: String = task.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "task must be a task name or an nhc.Algorithm, got {}",
            crate::user::repr(task)
        ))
    })?;
    let Some(domain) = domain else { return Ok((registry::find(&name).map_err(task_error)?, InPy::No)) };
    if let Ok(domain) = domain.extract::<String>() {
        return Ok((registry::find_in(&name, Some(&domain)).map_err(task_error)?, InPy::No));
    }
    let Some(user) = UserDomain::of(domain) else {
        return Err(PyTypeError::new_err(format!(
            "domain must be a domain name, an nhc.Order or an nhc.World, got {}",
            crate::user::repr(domain)
        )));
    };
    let algorithm = registry::find(&name).map_err(task_error)?.algorithm();
    let (task, calls) = user.training_task(algorithm, algorithm.model(variant))?;
    Ok((task, InPy::User(user, calls)))
}

/// Trains `task`'s algorithm from scratch with NES on the curriculum (as `nhc train`), and
/// returns the model.
///
/// task: a task name, or an `nhc.Algorithm` (an algorithm of one's own; its cheap checks,
/// `nhc.check(algorithm, levels=range(1, 4), samples=2, smoke=False)`, run first).
/// seed: the run's seed; the same task, seed and config give the same θ as
/// `nhc train --task TASK --seed SEED`, on any number of threads.
/// config: None (the paper's protocol), a dict of config fields (e.g. {"max_iterations": 2000}),
/// or the path of a TOML file as `nhc train --config` takes.
/// recipe: train with the recipe (ours, beyond the paper: configs/recipe.toml, as
/// `nhc train --recipe`); a dict `config` then changes fields of the recipe.
/// out: a run directory, as `nhc train --out` writes it (checkpoints, metrics.jsonl, model.json);
/// an interrupted run resumes with `nhc.resume(out)` or `nhc train --resume out`.
/// callback(record): called after every iteration with a dict, the iteration's line of the run
/// directory's metrics.jsonl (iteration, level, fitness_raw, update, advance, perfect_streak,
/// restarts, learning_iterations, wall_seconds, …).
/// variant: nhc, nhc-anc, nhc-prev or dnc-is-ha.
/// domain: the data the algorithm learns on (default: its training domain): a domain name, or
/// the user's data modules, an `nhc.Order` with a sampler (sort) or an `nhc.World` with
/// random_state (search, plan, search+, plan+). On the user's data modules the run calls them at
/// every model step, on one thread; the model records the domain "python" and runs on them by
/// default; `nhc.resume(out, domain=...)` continues its run. A failure in the user's functions
/// stops training with the user's exception (with `out`, at the last checkpoint).
/// Ctrl-C stops training between two iterations and raises KeyboardInterrupt (with `out`, after
/// writing a checkpoint).
/// confirm: start a run estimated to take more than an hour at the speed of its θ measured here
/// (a built-in task on a built-in domain; without it such a config is refused with its estimate).
#[pyfunction]
#[pyo3(signature = (task, seed, config=None, out=None, callback=None, variant="nhc", domain=None, recipe=false, confirm=false))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of a Python function
pub fn train(
    py: Python<'_>,
    task: &Bound<'_, PyAny>,
    seed: u64,
    config: Option<&Bound<'_, PyAny>>,
    out: Option<PathBuf>,
    callback: Option<&Bound<'_, PyAny>>,
    variant: &str,
    domain: Option<&Bound<'_, PyAny>>,
    recipe: bool,
    confirm: bool,
) -> PyResult<Model> {
    let variant: Variant = variant.parse().map_err(value_error)?;
    let configs = self::configs(config, recipe)?;
    let (task, inpy) = task_arg(py, task, domain, variant)?;
    let config = configs.get(task.name()).clone();
    let mut observer = PyObserver::new(callback, inpy.calls())?;
    let interrupt = Arc::clone(&observer.interrupt);
    let trainer = inpy.detached(py, &interrupt, || Trainer::new(task, variant, config, seed))?;
    if let Some(e) = observer.take_error() {
        return Err(e);
    }
    let trainer = trainer.map_err(value_error)?;
    if matches!(inpy, InPy::No) {
        long_work(&trainer, confirm)?;
    }
    match out {
        Some(dir) => {
            let outcome = inpy.detached(py, &interrupt, || run_dir::start(trainer, &dir, &mut observer))?;
            if observer.failed() && outcome.is_err() {
                return Err(observer.take_error().unwrap_or_else(|| value_error("training stopped")));
            }
            finish(py, outcome.map_err(run_dir_error)?, observer, &dir, &inpy)
        }
        None => {
            let mut trainer = trainer;
            let start = std::time::Instant::now();
            let stopped = inpy.detached(py, &interrupt, || -> Result<bool, nhc_train::TrainError> {
                while !trainer.done() {
                    let line =
                        MetricsLine { log: trainer.step()?, wall_seconds: start.elapsed().as_secs_f64() };
                    if observer.discard() || observer.iteration(&line).is_break() {
                        return Ok(true);
                    }
                }
                Ok(false)
            })?;
            if let Some(e) = observer.failed().then(|| observer.take_error()).flatten() {
                return Err(e);
            }
            if stopped.map_err(value_error)? {
                return Err(observer.take_error().unwrap_or_else(|| value_error("training stopped")));
            }
            let learned = trainer.learned().map_err(value_error)?;
            let meta = Some(run_dir::model_meta(&trainer));
            // A model on the user's data modules is the registry's algorithm that runs on them.
            let task = match &inpy {
                InPy::User(..) => registry::find(task.name()).map_err(task_error)?,
                _ => task,
            };
            Ok(Model::learned(task, learned, meta, inpy.declared()).on(inpy.user()))
        }
    }
}

/// The long-work check of a run on a built-in task, as `nhc train`'s (docs/DESIGN.md, "Long
/// work"): one learning iteration at the highest level and a run that learns once a level, at
/// the speed of its θ measured here, are refused past an hour unless `confirm`.
fn long_work(trainer: &Trainer, confirm: bool) -> PyResult<()> {
    let model = nhc_tasks::Model::Learned(Box::new(trainer.learned().map_err(value_error)?));
    crate::long_work(trainer.task(), &model, confirm, rayon::current_num_threads());
    nhc_train::trainer::check_work(trainer.task(), trainer.config()).map_err(value_error)
}

/// The sentence `nhc train` ends with, for the finished run in `out`: what it learned, in how many
/// learning iterations, and where its model is (or that it did not learn).
#[pyfunction]
pub fn run_sentence(out: PathBuf) -> PyResult<String> {
    run_dir::sentence(&out).map_err(run_dir_error)
}

/// Continues the run in `out` (written by `nhc.train(..., out=...)` or `nhc train --out`) from
/// its last checkpoint to its end, and returns the model. callback as in `train`.
///
/// algorithm: the `nhc.Algorithm` of a declared algorithm's run (its name is not a registry
/// task); a run of another declaration (another digest) is refused.
/// domain: the `nhc.Order` or `nhc.World` of a run on the user's data modules (its checkpoint
/// names the domain "python" only).
/// redeclared: with algorithm, go on under a declaration that changed since the run started
/// (e.g. a function fixed after it raised); the run records the new digest from then on.
#[pyfunction]
#[pyo3(signature = (out, callback=None, algorithm=None, domain=None, redeclared=false))]
pub fn resume(
    py: Python<'_>,
    out: PathBuf,
    callback: Option<&Bound<'_, PyAny>>,
    algorithm: Option<&Bound<'_, PyAny>>,
    domain: Option<&Bound<'_, PyAny>>,
    redeclared: bool,
) -> PyResult<Model> {
    if redeclared && algorithm.is_none_or(|a| a.is_none()) {
        return Err(value_error("redeclared=True resumes a declared algorithm's run: give its algorithm"));
    }
    let declared = algorithm.filter(|a| !a.is_none()).map(PyDeclared::require).transpose()?;
    let user = match domain.filter(|d| !d.is_none()) {
        None => None,
        Some(d) => Some(UserDomain::of(d).ok_or_else(|| {
            PyTypeError::new_err(format!(
                "domain must be an nhc.Order or an nhc.World (a run on a built-in domain resumes without it), got {}",
                crate::user::repr(d)
            ))
        })?),
    };
    // A request of its own: its first failure stops this run only.
    let (task, inpy) = match (declared, user) {
        (Some(_), Some(_)) => {
            return Err(value_error(
                "a declared algorithm trains on its own data: give algorithm or domain, not both",
            ));
        }
        (Some(d), None) => {
            let run = d.request();
            (Some(run.leak()), InPy::Declared(run))
        }
        (None, Some(user)) => {
            let cp = run_dir::load_checkpoint(&out).map_err(run_dir_error)?;
            let state = &cp.state;
            if state.digest.is_some() || state.domain != user.name() {
                return Err(value_error(format!(
                    "the run in {} trains `{}` on the domain `{}`, not on the user's data modules: resume it \
                     without domain{}",
                    out.display(),
                    state.task,
                    state.domain,
                    if state.digest.is_some() { " (with algorithm=...)" } else { "" }
                )));
            }
            let algorithm = registry::find(&state.task).map_err(task_error)?.algorithm();
            let (task, calls) = user.training_task(algorithm, algorithm.model(state.variant))?;
            (Some(task), InPy::User(user, calls))
        }
        (None, None) => {
            if let Ok(cp) = run_dir::load_checkpoint(&out) {
                let state = &cp.state;
                if let Some(digest) = &state.digest {
                    return Err(value_error(format!(
                        "the run in {} trains the declared algorithm `{}` (declaration digest {digest}): \
                         pass it, nhc.resume(out, algorithm=...)",
                        out.display(),
                        state.task
                    )));
                }
                if registry::find(&state.task).is_ok()
                    && registry::find_in(&state.task, Some(&state.domain)).is_err()
                {
                    return Err(value_error(format!(
                        "the run in {} trains `{}` on the user's data modules (domain `{}`): pass them, \
                         nhc.resume(out, domain=nhc.Order(...)) or domain=nhc.World(...)",
                        out.display(),
                        state.task,
                        state.domain
                    )));
                }
            }
            (None, InPy::No)
        }
    };
    let mut observer = PyObserver::new(callback, inpy.calls())?;
    let interrupt = Arc::clone(&observer.interrupt);
    let outcome = match task {
        Some(task) if redeclared => {
            inpy.detached(py, &interrupt, || run_dir::resume_redeclared(&out, task, &mut observer))?
        }
        Some(task) => inpy.detached(py, &interrupt, || run_dir::resume_on(&out, task, &mut observer))?,
        None => py.detach(|| run_dir::resume(&out, &mut observer)),
    };
    if observer.failed() && outcome.is_err() {
        return Err(observer.take_error().unwrap_or_else(|| value_error("training stopped")));
    }
    finish(py, outcome.map_err(run_dir_error)?, observer, &out, &inpy)
}
