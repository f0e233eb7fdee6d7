//! `nhc.train` and `nhc.resume`: the trainer of `nhc train` (MODEL §6–§7), driven from Python.
//! The iterations run without the GIL; between two iterations the callback sees the record and
//! Ctrl-C is checked, so an interrupt stops the run cleanly (with `out`, after a checkpoint).
//! The same task, seed and config give the same θ as `nhc train`: the trainer is the same.
//! A declared algorithm ([`crate::declared`]) trains by the same trainer; an iteration in which
//! one of its Python functions failed is discarded (`Observer::discard`), so its run directory
//! stays at its last checkpoint and resumes once the function is fixed.

use crate::convert::{to_json, to_py};
use crate::declared::{self, PyDeclared};
use crate::errors::{task_error, value_error, with_note};
use crate::model::Model;
use crate::user::Calls;
use nhc_model::Variant;
use nhc_tasks::AnyTask;
use nhc_tasks::model::LearnedModel;
use nhc_train::run_dir::{self, Observer, Outcome, RunDirError};
use nhc_train::{MetricsLine, TrainConfig, Trainer};
use pyo3::exceptions::{PyFileExistsError, PyFileNotFoundError, PyTypeError};
use pyo3::prelude::*;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Calls the user's callback after each iteration and checks for Ctrl-C; the first exception
/// stops the run and is raised when it returns. For a declared algorithm, an iteration in which
/// one of its functions failed (`calls`) is discarded and stops the run.
struct PyObserver {
    callback: Option<Py<PyAny>>,
    error: Option<PyErr>,
    calls: Option<Arc<Calls>>,
    /// Ctrl-C caught by the main thread while a declared algorithm trains on other threads.
    interrupt: Arc<declared::Interrupt>,
}

impl PyObserver {
    fn new(callback: Option<&Bound<'_, PyAny>>, declared: Option<&PyDeclared>) -> PyResult<PyObserver> {
        let callback = callback.filter(|c| !c.is_none());
        if let Some(c) = callback.filter(|c| !c.is_callable()) {
            return Err(PyTypeError::new_err(format!("callback must be callable, got {}", c.repr()?)));
        }
        let calls = declared.map(|d| Arc::clone(d.calls()));
        Ok(PyObserver {
            callback: callback.map(|c| c.clone().unbind()),
            error: None,
            calls,
            interrupt: Arc::default(),
        })
    }
    /// Whether a declared algorithm's function failed.
    fn failed(&self) -> bool {
        self.calls.as_ref().is_some_and(|c| c.failed())
    }
    /// The exception that stopped the run: a declared function's first, else the callback's or
    /// Ctrl-C's.
    fn take_error(&mut self) -> Option<PyErr> {
        match self.calls.as_ref().map(|c| c.check()) {
            Some(Err(e)) => Some(e),
            _ => self.error.take(),
        }
    }
}

impl Observer for PyObserver {
    /// An iteration in which a declared function failed is not written, nor checkpointed.
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

/// A training config: None (the defaults, the paper's protocol), a dict of its fields, or the
/// path of a TOML file as `nhc train --config` takes.
pub(crate) fn config(config: Option<&Bound<'_, PyAny>>) -> PyResult<TrainConfig> {
    let Some(c) = config.filter(|c| !c.is_none()) else { return Ok(TrainConfig::default()) };
    if let Ok(path) = c.extract::<PathBuf>() {
        if !path.exists() {
            return Err(PyFileNotFoundError::new_err(format!("no such config file: {}", path.display())));
        }
        return TrainConfig::from_file(&path)
            .map_err(|e| value_error(format!("config {}: {e}", path.display())));
    }
    serde_json::from_value(to_json(c)?).map_err(|e| value_error(format!("config: {e}")))
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

/// The model of a finished run directory, or the exception that stopped it.
fn finish(
    py: Python<'_>,
    outcome: Outcome,
    mut observer: PyObserver,
    dir: &Path,
    declared: Option<PyDeclared>,
) -> PyResult<Model> {
    match outcome {
        Outcome::Finished { .. } => crate::model::load_model(dir.join("model.json"), declared),
        Outcome::Stopped { iteration } => {
            let failed = observer.failed();
            let e = observer.take_error().unwrap_or_else(|| value_error("training stopped"));
            let (shown, again) = (dir.display(), format!("{:?}", dir.display().to_string()));
            let resume = match &declared {
                Some(_) => format!("nhc.resume({again}, algorithm=...)"),
                None => format!("nhc.resume({again})"),
            };
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

/// Runs `job` without the GIL: for a declared algorithm on the threads that call into Python
/// cheaply, watched for Ctrl-C ([`declared::watched`]).
fn detached<R: Send>(
    py: Python<'_>,
    declared: bool,
    interrupt: &declared::Interrupt,
    job: impl FnOnce() -> R + Send,
) -> PyResult<R> {
    match declared {
        true => declared::watched(py, interrupt, job),
        false => Ok(py.detach(job)),
    }
}

/// A task argument: a registry name, or an `nhc.Algorithm` (checked cheaply first) for a new
/// request of its own.
fn task_arg(py: Python<'_>, task: &Bound<'_, PyAny>) -> PyResult<(&'static dyn AnyTask, Option<PyDeclared>)> {
    if let Some(declared) = PyDeclared::of(task)? {
        declared.quick_check(py)?;
        let run = declared.request();
        return Ok((run.leak(), Some(run)));
    }
    let name: String = task.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "task must be a task name or an nhc.Algorithm, got {}",
            crate::user::repr(task)
        ))
    })?;
    Ok((nhc_tasks::registry::find(&name).map_err(task_error)?, None))
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
/// out: a run directory, as `nhc train --out` writes it (checkpoints, metrics.jsonl, model.json);
/// an interrupted run resumes with `nhc.resume(out)` or `nhc train --resume out`.
/// callback(record): called after every iteration with a dict, the iteration's line of the run
/// directory's metrics.jsonl (iteration, level, fitness_raw, update, advance, perfect_streak,
/// restarts, learning_iterations, wall_seconds, …).
/// variant: nhc, nhc-anc, nhc-prev or dnc-is-ha.
/// Ctrl-C stops training between two iterations and raises KeyboardInterrupt (with `out`, after
/// writing a checkpoint).
#[pyfunction]
#[pyo3(signature = (task, seed, config=None, out=None, callback=None, variant="nhc"))]
pub fn train(
    py: Python<'_>,
    task: &Bound<'_, PyAny>,
    seed: u64,
    config: Option<&Bound<'_, PyAny>>,
    out: Option<PathBuf>,
    callback: Option<&Bound<'_, PyAny>>,
    variant: &str,
) -> PyResult<Model> {
    let variant: Variant = variant.parse().map_err(value_error)?;
    let config = self::config(config)?.validate().map_err(value_error)?;
    let (task, declared) = task_arg(py, task)?;
    let mut observer = PyObserver::new(callback, declared.as_ref())?;
    let interrupt = Arc::clone(&observer.interrupt);
    let trainer = detached(py, declared.is_some(), &interrupt, || Trainer::new(task, variant, config, seed))?;
    if let Some(e) = observer.take_error() {
        return Err(e);
    }
    let trainer = trainer.map_err(value_error)?;
    match out {
        Some(dir) => {
            let outcome = detached(py, declared.is_some(), &interrupt, || {
                run_dir::start(trainer, &dir, &mut observer)
            })?;
            if observer.failed() && outcome.is_err() {
                return Err(observer.take_error().unwrap_or_else(|| value_error("training stopped")));
            }
            finish(py, outcome.map_err(run_dir_error)?, observer, &dir, declared)
        }
        None => {
            let mut trainer = trainer;
            let start = std::time::Instant::now();
            let stopped =
                detached(py, declared.is_some(), &interrupt, || -> Result<bool, nhc_train::TrainError> {
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
            let learned = LearnedModel { variant, params: trainer.params().map_err(value_error)? };
            Ok(Model::learned(task, learned, Some(run_dir::model_meta(&trainer)), declared))
        }
    }
}

/// Continues the run in `out` (written by `nhc.train(..., out=...)` or `nhc train --out`) from
/// its last checkpoint to its end, and returns the model. callback as in `train`.
///
/// algorithm: the `nhc.Algorithm` of a declared algorithm's run (its name is not a registry
/// task); a run of another declaration (another digest) is refused.
#[pyfunction]
#[pyo3(signature = (out, callback=None, algorithm=None))]
pub fn resume(
    py: Python<'_>,
    out: PathBuf,
    callback: Option<&Bound<'_, PyAny>>,
    algorithm: Option<&Bound<'_, PyAny>>,
) -> PyResult<Model> {
    let declared = algorithm.filter(|a| !a.is_none()).map(PyDeclared::require).transpose()?;
    // A request of its own: its first failure stops this run only.
    let declared = declared.map(|d| d.request());
    let mut observer = PyObserver::new(callback, declared.as_ref())?;
    let outcome = match &declared {
        Some(d) => {
            let (task, interrupt) = (d.leak(), Arc::clone(&observer.interrupt));
            declared::watched(py, &interrupt, || run_dir::resume_on(&out, task, &mut observer))?
        }
        None => {
            if let Ok(cp) = run_dir::load_checkpoint(&out)
                && let Some(digest) = &cp.state.digest
            {
                return Err(value_error(format!(
                    "the run in {} trains the declared algorithm `{}` (declaration digest {digest}): \
                     pass it, nhc.resume(out, algorithm=...)",
                    out.display(),
                    cp.state.task
                )));
            }
            py.detach(|| run_dir::resume(&out, &mut observer))
        }
    };
    if observer.failed() && outcome.is_err() {
        return Err(observer.take_error().unwrap_or_else(|| value_error("training stopped")));
    }
    finish(py, outcome.map_err(run_dir_error)?, observer, &out, declared)
}
