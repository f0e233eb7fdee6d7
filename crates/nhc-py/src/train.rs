//! `nhc.train` and `nhc.resume`: the trainer of `nhc train` (MODEL §6–§7), driven from Python.
//! The iterations run without the GIL; between two iterations the callback sees the record and
//! Ctrl-C is checked, so an interrupt stops the run cleanly (with `out`, after a checkpoint).
//! The same task, seed and config give the same θ as `nhc train`: the trainer is the same.

use crate::convert::{to_json, to_py};
use crate::errors::{task_error, value_error, with_note};
use crate::model::Model;
use nhc_model::Variant;
use nhc_tasks::model::LearnedModel;
use nhc_train::run_dir::{self, Observer, Outcome, RunDirError};
use nhc_train::{MetricsLine, TrainConfig, Trainer};
use pyo3::exceptions::{PyFileExistsError, PyFileNotFoundError};
use pyo3::prelude::*;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// Calls the user's callback after each iteration and checks for Ctrl-C; the first exception
/// stops the run and is raised when it returns.
struct PyObserver {
    callback: Option<Py<PyAny>>,
    error: Option<PyErr>,
}

impl PyObserver {
    fn new(callback: Option<&Bound<'_, PyAny>>) -> PyResult<PyObserver> {
        let callback = callback.filter(|c| !c.is_none());
        if let Some(c) = callback.filter(|c| !c.is_callable()) {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "callback must be callable, got {}",
                c.repr()?
            )));
        }
        Ok(PyObserver { callback: callback.map(|c| c.clone().unbind()), error: None })
    }
}

impl Observer for PyObserver {
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
            py.check_signals()
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

fn run_dir_error(e: RunDirError) -> PyErr {
    match e {
        RunDirError::AlreadyRun { .. } => PyFileExistsError::new_err(e.to_string()),
        RunDirError::NotRunDir { .. } => PyFileNotFoundError::new_err(e.to_string()),
        e => value_error(e),
    }
}

/// The model of a finished run directory, or the exception that stopped it.
fn finish(py: Python<'_>, outcome: Outcome, observer: PyObserver, dir: &Path) -> PyResult<Model> {
    match outcome {
        Outcome::Finished { .. } => crate::model::load(dir.join("model.json")),
        Outcome::Stopped { iteration } => {
            let e = observer.error.unwrap_or_else(|| value_error("training stopped"));
            let note = format!(
                "training stopped after iteration {iteration}; the checkpoint in {} resumes it: nhc.resume({:?})",
                dir.display(),
                dir.display().to_string()
            );
            Err(with_note(py, e, &note))
        }
    }
}

/// Trains `task`'s algorithm from scratch with NES on the curriculum (as `nhc train`), and
/// returns the model.
///
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
    task: &str,
    seed: u64,
    config: Option<&Bound<'_, PyAny>>,
    out: Option<PathBuf>,
    callback: Option<&Bound<'_, PyAny>>,
    variant: &str,
) -> PyResult<Model> {
    let task = nhc_tasks::registry::find(task).map_err(task_error)?;
    let variant: Variant = variant.parse().map_err(value_error)?;
    let config = self::config(config)?.validate().map_err(value_error)?;
    let trainer = Trainer::new(task, variant, config, seed).map_err(value_error)?;
    let mut observer = PyObserver::new(callback)?;
    match out {
        Some(dir) => {
            let outcome =
                py.detach(|| run_dir::start(trainer, &dir, &mut observer)).map_err(run_dir_error)?;
            finish(py, outcome, observer, &dir)
        }
        None => {
            let mut trainer = trainer;
            let start = std::time::Instant::now();
            let stopped = py.detach(|| -> Result<bool, nhc_train::TrainError> {
                while !trainer.done() {
                    let line =
                        MetricsLine { log: trainer.step()?, wall_seconds: start.elapsed().as_secs_f64() };
                    if observer.iteration(&line).is_break() {
                        return Ok(true);
                    }
                }
                Ok(false)
            });
            if stopped.map_err(value_error)? {
                return Err(observer.error.unwrap_or_else(|| value_error("training stopped")));
            }
            let learned = LearnedModel { variant, params: trainer.params().map_err(value_error)? };
            Ok(Model::learned(task, learned, Some(run_dir::model_meta(&trainer))))
        }
    }
}

/// Continues the run in `out` (written by `nhc.train(..., out=...)` or `nhc train --out`) from
/// its last checkpoint to its end, and returns the model. callback as in `train`.
#[pyfunction]
#[pyo3(signature = (out, callback=None))]
pub fn resume(py: Python<'_>, out: PathBuf, callback: Option<&Bound<'_, PyAny>>) -> PyResult<Model> {
    let mut observer = PyObserver::new(callback)?;
    let outcome = py.detach(|| run_dir::resume(&out, &mut observer)).map_err(run_dir_error)?;
    finish(py, outcome, observer, &out)
}
