//! `nhc.sweep`: the sweep of `nhc sweep` ([`nhc_train::sweep`]), driven from Python. The runs
//! train on worker threads without the GIL; the callback sees each run's line when it is done,
//! and Ctrl-C stops every run after a checkpoint, so the same call continues the sweep.

use crate::convert::to_py;
use crate::errors::{task_error, value_error, with_note};
use nhc_model::Variant;
use nhc_train::MetricsLine;
use nhc_train::sweep::{EVAL_SEED, LEVELS, SweepError, SweepLine, SweepObserver, SweepSpec};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Calls the user's callback with each run's line; the first exception (the callback's, or
/// Ctrl-C) stops the sweep and is raised when it returns.
struct PySweepObserver {
    callback: Option<Py<PyAny>>,
    error: Mutex<Option<PyErr>>,
    stopped: AtomicBool,
}

impl PySweepObserver {
    fn stop(&self, e: PyErr) {
        if let Ok(mut slot) = self.error.lock() {
            slot.get_or_insert(e);
        }
        self.stopped.store(true, Ordering::SeqCst);
    }
    fn go_on(&self) -> ControlFlow<()> {
        if self.stopped.load(Ordering::SeqCst) { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    }
}

impl SweepObserver for PySweepObserver {
    fn iteration(&self, _: &str, _: u64, _: &MetricsLine) -> ControlFlow<()> {
        self.go_on()
    }

    fn finished(&self, line: &SweepLine) -> ControlFlow<()> {
        if let Some(cb) = &self.callback {
            let called = Python::attach(|py| -> PyResult<()> {
                let record = to_py(py, line)?;
                cb.bind(py).call1((record,)).map(|_| ()).map_err(|e| {
                    let (task, seed) = (&line.summary.task, line.summary.seed);
                    with_note(py, e, &format!("raised in the callback of nhc.sweep for {task} seed {seed}"))
                })
            });
            if let Err(e) = called {
                self.stop(e);
            }
        }
        self.go_on()
    }
}

/// Task names: one name, `"all"`, or a list of names.
fn task_names(tasks: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Ok(name) = tasks.extract::<String>() {
        return Ok(vec![name]);
    }
    tasks.extract::<Vec<String>>().map_err(|_| {
        PyTypeError::new_err(format!(
            "tasks must be a task name or a list of names, got {}",
            tasks.repr().map_or_else(|_| "?".into(), |r| r.to_string())
        ))
    })
}

/// A sweep that cannot start is a bad request (`ValueError`); runs that failed, or a file that
/// cannot be written, are a `RuntimeError` naming them.
fn sweep_error(e: SweepError) -> PyErr {
    match e {
        SweepError::Task(e) => task_error(e),
        SweepError::Runs(_)
        | SweepError::Pool(_)
        | SweepError::Write { .. }
        | SweepError::Serialize { .. } => PyRuntimeError::new_err(e.to_string()),
        e => value_error(e),
    }
}

/// Trains every run of `tasks` (seeds 1..=runs) in the sweep directory `out`, `jobs` at a time,
/// evaluates each at `levels` (`samples` samples each, sample seed `eval_seed`), writes
/// `out/sweep.jsonl` and returns its lines as dicts (the same keys), as `nhc sweep` does; the
/// same arguments give the same lines, whatever `jobs`. Resumable: a finished run is not trained
/// again, an interrupted one resumes, an evaluated level is not evaluated again.
///
/// tasks: a task name, "all", or a list of names.
/// config: None (the paper's protocol), a dict of config fields, or the path of a TOML file.
/// callback(line): called with each run's line once it is trained and evaluated (from the
/// thread that ran it).
/// variant: nhc, nhc-anc, nhc-prev or dnc-is-ha.
/// Ctrl-C stops every run after a checkpoint and raises KeyboardInterrupt; the same call
/// continues the sweep.
#[pyfunction]
#[pyo3(signature = (tasks, out, runs=15, config=None, variant="nhc", jobs=None, levels=None, samples=50, eval_seed=EVAL_SEED, callback=None))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of a Python function
pub fn sweep<'py>(
    py: Python<'py>,
    tasks: &Bound<'py, PyAny>,
    out: PathBuf,
    runs: u64,
    config: Option<&Bound<'py, PyAny>>,
    variant: &str,
    jobs: Option<usize>,
    levels: Option<Vec<usize>>,
    samples: usize,
    eval_seed: u64,
    callback: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let callback = callback.filter(|c| !c.is_none());
    if let Some(c) = callback.filter(|c| !c.is_callable()) {
        return Err(PyTypeError::new_err(format!("callback must be callable, got {}", c.repr()?)));
    }
    let spec = SweepSpec {
        tasks: task_names(tasks)?,
        variant: variant.parse::<Variant>().map_err(value_error)?,
        runs,
        jobs: jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        levels: levels.unwrap_or_else(|| LEVELS.to_vec()),
        samples,
        eval_seed,
        config: crate::train::config(config)?.validate().map_err(value_error)?,
        out,
    };
    let observer = PySweepObserver {
        callback: callback.map(|c| c.clone().unbind()),
        error: Mutex::new(None),
        stopped: AtomicBool::new(false),
    };
    // The sweep runs on a thread of its own; this one checks for Ctrl-C meanwhile.
    let result = py.detach(|| {
        std::thread::scope(|scope| {
            let running = scope.spawn(|| nhc_train::sweep(&spec, &observer));
            while !running.is_finished() {
                std::thread::sleep(std::time::Duration::from_millis(50));
                if let Err(e) = Python::attach(|py| py.check_signals()) {
                    observer.stop(e);
                }
            }
            running.join()
        })
    });
    let error = observer.error.into_inner().ok().flatten();
    let lines = match (result, error) {
        (_, Some(e)) => {
            let note = format!(
                "the sweep in {} stopped; the same call continues it (finished runs are kept)",
                spec.out.display()
            );
            return Err(with_note(py, e, &note));
        }
        (Ok(lines), None) => lines.map_err(sweep_error)?,
        (Err(_), None) => return Err(PyRuntimeError::new_err("the sweep panicked")),
    };
    let dicts = lines.iter().map(|l| to_py(py, l)).collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, dicts)
}
