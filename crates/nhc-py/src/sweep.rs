//! `nhc.sweep`: the sweep of `nhc sweep` ([`nhc_train::sweep`]), driven from Python. The runs
//! train on worker threads without the GIL; the callback sees each run's line when it is done,
//! and Ctrl-C stops every run after a checkpoint, so the same call continues the sweep.
//!
//! A sweep with declared algorithms (`nhc.Algorithm`) among its tasks is driven here
//! ([`sweep_declared`]), as [`nhc_train::sweep`] drives one of registry tasks (which finds its
//! tasks by name only): the same run directories (`DIR/TASK-SEED`, [`run_dir`]), `eval.json`
//! and `sweep.jsonl` lines, resumable the same way. A declared run trains and evaluates on the
//! threads that call into Python cheaply ([`declared::install`]); the first failure of one of its
//! functions discards that iteration (its directory stays at its last checkpoint), stops the
//! sweep and is raised.

use crate::convert::to_py;
use crate::declared::{self, PyDeclared};
use crate::errors::{task_error, value_error, with_note};
use crate::steps::Indices;
use crate::user::{Calls, repr};
use nhc_io::limits;
use nhc_io::write_atomic;
use nhc_model::Variant;
use nhc_tasks::any_task::Entry;
use nhc_tasks::{AnyTask, EvalReport, Model, registry};
use nhc_train::run_dir::{self, Observer, Outcome};
use nhc_train::sweep::{
    self as core_sweep, EVAL_SEED, LEVELS, RunError, RunFailure, SeedRange, SweepError, SweepLine,
    SweepObserver, SweepSpec,
};
use nhc_train::{MetricsLine, Trainer};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList, PyRange};
use std::collections::{BTreeMap, HashSet};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

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

/// One task of a sweep with declared algorithms.
enum SweepTask {
    Registry(&'static dyn AnyTask),
    Declared(PyDeclared),
}

impl SweepTask {
    fn name(&self) -> &'static str {
        match self {
            SweepTask::Registry(t) => t.name(),
            SweepTask::Declared(d) => d.name(),
        }
    }
    /// The task a model file of its runs loads on.
    fn task(&self) -> &'static dyn AnyTask {
        match self {
            SweepTask::Registry(t) => *t,
            SweepTask::Declared(d) => d.task(),
        }
    }
}

/// The tasks argument: one name, `"all"`, an `nhc.Algorithm`, or a list of these. Names alone
/// (`Err`) are the sweep of `nhc sweep`; with declared algorithms among them, the tasks (`Ok`;
/// `"all"`: every registry task), whose names must differ (each names its runs' directories).
fn sweep_tasks(py: Python<'_>, tasks: &Bound<'_, PyAny>) -> PyResult<Result<Vec<SweepTask>, Vec<String>>> {
    let wrong = || {
        PyTypeError::new_err(format!(
            "tasks must be a task name, an nhc.Algorithm, or a list of these, got {}",
            repr(tasks)
        ))
    };
    if let Ok(name) = tasks.extract::<String>() {
        return Ok(Err(vec![name]));
    }
    let items: Vec<Bound<'_, PyAny>> = match PyDeclared::of(tasks)? {
        Some(_) => vec![tasks.clone()],
        None => tasks.try_iter().map_err(|_| wrong())?.collect::<PyResult<_>>()?,
    };
    let mut declared = Vec::with_capacity(items.len());
    for item in &items {
        declared.push(PyDeclared::of(item)?);
    }
    if declared.iter().all(Option::is_none) {
        return items
            .iter()
            .map(|t| t.extract::<String>().map_err(|_| wrong()))
            .collect::<PyResult<_>>()
            .map(Err);
    }
    let mut out = Vec::new();
    for (item, declared) in items.iter().zip(declared) {
        match declared {
            Some(d) => {
                d.quick_check(py)?;
                out.push(SweepTask::Declared(d));
            }
            None => {
                let name: String = item.extract().map_err(|_| wrong())?;
                let names = if name == "all" { registry::names() } else { vec![name.as_str()] };
                for name in names {
                    out.push(SweepTask::Registry(registry::find(name).map_err(task_error)?));
                }
            }
        }
    }
    let mut seen = HashSet::new();
    if let Some(t) = out.iter().find(|t| !seen.insert(t.name())) {
        return Err(PyValueError::new_err(format!(
            "two tasks of the sweep are named `{}`: their runs would share directories ({}-1, …); \
             give a declared algorithm a name of its own",
            t.name(),
            t.name()
        )));
    }
    Ok(Ok(out))
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

/// A run's iterations, seen by the sweep's observer, which may stop the sweep; an iteration in
/// which one of a declared algorithm's functions failed (`calls`) is discarded.
struct RunWatch<'a> {
    observer: &'a PySweepObserver,
    calls: Option<Arc<Calls>>,
}

impl Observer for RunWatch<'_> {
    fn iteration(&mut self, _: &MetricsLine) -> ControlFlow<()> {
        self.observer.go_on()
    }
    fn discard(&mut self) -> bool {
        self.calls.as_ref().is_some_and(|c| c.failed())
    }
}

/// The sweep `spec` of `tasks`, some of them declared algorithms: as [`nhc_train::sweep`] runs
/// one of registry tasks (checks first, the directory locked, the memory limit shared among the
/// jobs, each run trained or resumed or skipped, then evaluated at the levels it lacks), writes
/// `DIR/sweep.jsonl` and returns its lines. A declared algorithm's failing function stops the
/// sweep, its exception kept by `observer`.
fn sweep_declared(
    spec: &SweepSpec,
    tasks: &[SweepTask],
    observer: &PySweepObserver,
) -> Result<Vec<SweepLine>, SweepError> {
    spec.check()?;
    for task in tasks {
        for &level in &spec.levels {
            task.task().check_level(level)?;
        }
    }
    let runs: Vec<(&SweepTask, u64)> =
        tasks.iter().flat_map(|t| spec.seeds.seeds().map(move |seed| (t, seed))).collect();
    let _lock = nhc_train::lock::lock(&spec.out)?;
    let jobs = spec.jobs.max(1);
    // A registry run trains on a pool of one thread, as in `nhc sweep`.
    let next = AtomicUsize::new(0);
    let (lines, failures) = core_sweep::run_jobs(
        jobs,
        runs.len(),
        &|| Some(next.fetch_add(1, Ordering::SeqCst)),
        &|| observer.go_on().is_break(),
        &|k, pool| {
            let (task, seed) = runs[k];
            let line = one(spec, task, seed, observer, pool)
                .map_err(|error| Box::new(RunFailure { task: task.name().to_string(), seed, error }))?;
            let _ = observer.finished(&line);
            Ok(line)
        },
    )?;
    if !failures.is_empty() {
        return Err(SweepError::Runs(failures));
    }
    let lines: Vec<SweepLine> = lines.into_iter().flatten().collect();
    if observer.go_on().is_break() || lines.len() < runs.len() {
        return Err(SweepError::Stopped);
    }
    core_sweep::write_lines(&spec.out, &lines)?;
    Ok(lines)
}

/// Stops the sweep with the first failure of a declared algorithm's functions in the run `seed`
/// of `task`, if one failed (`calls`): `Err(Stopped)`.
fn failed(
    observer: &PySweepObserver,
    calls: &Calls,
    task: &str,
    seed: u64,
    dir: &Path,
) -> Result<(), RunError> {
    match calls.check() {
        Ok(()) => Ok(()),
        Err(e) => {
            let note = format!(
                "raised in run {task} seed {seed} of the sweep; {} stays at its last checkpoint",
                dir.display()
            );
            observer.stop(Python::attach(|py| with_note(py, e, &note)));
            Err(RunError::Stopped)
        }
    }
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, RunError> {
    let text = limits::read_text(path, "run file", limits::MAX_STATE_BYTES)?;
    serde_json::from_str(&text).map_err(|source| RunError::Damaged { path: path.into(), source })
}

/// Trains (or resumes, or skips) the run `seed` of `task`, then evaluates it at every test level
/// it lacks: its line of `sweep.jsonl`. A registry task runs on `pool`, a declared algorithm on
/// the threads of [`declared::install`], a request of its own for its training and for each
/// evaluation.
fn one(
    spec: &SweepSpec,
    task: &SweepTask,
    seed: u64,
    observer: &PySweepObserver,
    pool: &rayon::ThreadPool,
) -> Result<SweepLine, RunError> {
    let name = task.name();
    let dir = core_sweep::run_dir(&spec.out, name, seed);
    if !dir.join("summary.json").exists() {
        let resumes = dir.join("checkpoint.json").exists();
        let outcome = match task {
            SweepTask::Registry(t) => pool.install(|| -> Result<Outcome, RunError> {
                let mut watch = RunWatch { observer, calls: None };
                Ok(match resumes {
                    true => run_dir::resume(&dir, &mut watch)?,
                    false => {
                        let trainer = Trainer::new(*t, spec.variant, spec.config.get(name).clone(), seed)?;
                        run_dir::start(trainer, &dir, &mut watch)?
                    }
                })
            })?,
            SweepTask::Declared(d) => {
                let run = d.request();
                let t = run.leak();
                let outcome = declared::install(|| -> Result<Outcome, RunError> {
                    let mut watch = RunWatch { observer, calls: Some(Arc::clone(run.calls())) };
                    Ok(match resumes {
                        true => run_dir::resume_on(&dir, t, &mut watch)?,
                        false => {
                            let trainer = Trainer::new(t, spec.variant, spec.config.get(name).clone(), seed)?;
                            run_dir::start(trainer, &dir, &mut watch)?
                        }
                    })
                });
                failed(observer, run.calls(), name, seed, &dir)?;
                outcome?
            }
        };
        if let Outcome::Stopped { .. } = outcome {
            return Err(RunError::Stopped);
        }
    }
    let eval_path = dir.join("eval.json");
    let mut eval: BTreeMap<String, EvalReport> =
        if eval_path.exists() { read_json(&eval_path)? } else { BTreeMap::new() };
    let model = Model::from_arg(&dir.join("model.json").to_string_lossy(), task.task(), Some(spec.variant))?;
    for &level in &spec.levels {
        let key = level.to_string();
        if eval.contains_key(&key) {
            continue;
        }
        if observer.go_on().is_break() {
            return Err(RunError::Stopped);
        }
        let (samples, seed_e) = (spec.samples, spec.eval_seed);
        let report = match task {
            SweepTask::Registry(t) => pool.install(|| t.evaluate(&model, level, samples, seed_e))?,
            SweepTask::Declared(d) => {
                let run = d.request();
                let t = Entry(run.entry().0.drawing(Indices::of(level, samples, seed_e)));
                let report = declared::install(|| t.evaluate(&model, level, samples, seed_e));
                failed(observer, run.calls(), name, seed, &dir)?;
                report?
            }
        };
        eval.insert(key, report);
        let json = serde_json::to_string_pretty(&eval)
            .map_err(|source| RunError::Serialize { path: eval_path.clone(), source })?;
        write_atomic(&eval_path, json.as_bytes())
            .map_err(|source| RunError::Write { path: eval_path.clone(), source })?;
    }
    // Read back as `nhc sweep` reads them, so that the lines are the same to the last bit.
    Ok(SweepLine {
        summary: read_json(&dir.join("summary.json"))?,
        eval: read_json(&eval_path)?,
        curve: Some(run_dir::read_metrics(&dir)?.curve()),
        dir,
        seeds: Some(spec.seeds),
        verify: None,
    })
}

/// The default of `runs` (the signature of [`sweep`]), seeds 1–15 when `seeds` is not given.
const RUNS: u64 = 15;

/// The seeds of `nhc.sweep`: `seeds` (a `range` of step 1, a string `"101-115"`, or one seed as
/// an int) or else 1..=`runs`; `seeds` with a `runs` other than its default is refused.
fn sweep_seeds(runs: u64, seeds: Option<&Bound<'_, PyAny>>) -> PyResult<SeedRange> {
    let Some(seeds) = seeds.filter(|s| !s.is_none()) else {
        return SeedRange::runs(runs).map_err(value_error);
    };
    if runs != RUNS {
        return Err(PyValueError::new_err(format!(
            "give runs or seeds, not both (runs={runs} is seeds=range(1, {}))",
            u128::from(runs) + 1
        )));
    }
    // A Python int as a seed: 0 to 2^64 − 1.
    let seed = |v: &Bound<'_, PyAny>| -> PyResult<u64> {
        v.extract::<u64>().map_err(|_| {
            PyValueError::new_err(format!(
                "seeds must lie in 0..={}, got {}; give e.g. range(1, 16)",
                u64::MAX,
                repr(seeds)
            ))
        })
    };
    if let Ok(text) = seeds.extract::<String>() {
        return text.parse::<SeedRange>().map_err(value_error);
    }
    if seeds.is_instance_of::<PyRange>() {
        let (start, stop, step) = (seeds.getattr("start")?, seeds.getattr("stop")?, seeds.getattr("step")?);
        if step.extract::<i64>().ok() != Some(1) {
            return Err(PyValueError::new_err(format!(
                "seeds must be a range of step 1, got {}; give e.g. range(1, 16)",
                repr(seeds)
            )));
        }
        if stop.le(&start)? {
            return Err(PyValueError::new_err(format!(
                "seeds {} is empty; give e.g. range(1, 16) for seeds 1 to 15",
                repr(seeds)
            )));
        }
        let last = stop.sub(1)?;
        return SeedRange::new(seed(&start)?, seed(&last)?).map_err(value_error);
    }
    if seeds.is_instance_of::<PyInt>() {
        let one = seed(seeds)?;
        return SeedRange::new(one, one).map_err(value_error);
    }
    Err(PyTypeError::new_err(format!(
        "seeds must be a range, a string FIRST-LAST or one seed, got {}",
        repr(seeds)
    )))
}

/// Trains every run of `tasks` (a run per seed) in the sweep directory `out`, `jobs` at a time,
/// evaluates each at `levels` (`samples` samples each, sample seed `eval_seed`), writes
/// `out/sweep.jsonl` and returns its lines as dicts (the same keys), as `nhc sweep` does; the
/// same arguments give the same lines, whatever `jobs`. Resumable: a finished run is not trained
/// again, an interrupted one resumes, an evaluated level is not evaluated again.
///
/// tasks: a task name, "all", an `nhc.Algorithm` (an algorithm of one's own: its cheap checks
/// run first), or a list of these; a declared algorithm's runs are `out/NAME-SEED` as the
/// built-ins' are, so its name must differ from the other tasks'. A failure of its functions
/// stops the sweep with the user's exception (the run at its last checkpoint; the same call
/// continues the sweep once the function is fixed).
/// runs: seeds 1 to runs, as `nhc sweep --runs`.
/// seeds: in place of runs, the seeds as a range of step 1 (`range(101, 116)`: seeds 101 to
/// 115), a string (`"101-115"`, as `nhc sweep --seeds`) or one seed (`7`); each line records
/// them (`"seeds": "101-115"`).
/// config: None (the paper's protocol), a dict of config fields, or the path of a TOML file.
/// recipe: every run with the recipe (ours, beyond the paper: configs/recipe.toml, as
/// `nhc sweep --recipe`); a dict `config` then changes fields of the recipe.
/// callback(line): called with each run's line once it is trained and evaluated (from the
/// thread that ran it).
/// variant: nhc, nhc-anc, nhc-prev or dnc-is-ha.
/// Ctrl-C stops every run after a checkpoint and raises KeyboardInterrupt; the same call
/// continues the sweep.
#[pyfunction]
#[pyo3(signature = (tasks, out, runs=15, seeds=None, config=None, variant="nhc", jobs=None, levels=None, samples=50, eval_seed=EVAL_SEED, callback=None, recipe=false))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of a Python function
pub fn sweep<'py>(
    py: Python<'py>,
    tasks: &Bound<'py, PyAny>,
    out: PathBuf,
    runs: u64,
    seeds: Option<&Bound<'py, PyAny>>,
    config: Option<&Bound<'py, PyAny>>,
    variant: &str,
    jobs: Option<usize>,
    levels: Option<Vec<usize>>,
    samples: usize,
    eval_seed: u64,
    callback: Option<&Bound<'py, PyAny>>,
    recipe: bool,
) -> PyResult<Bound<'py, PyList>> {
    let callback = callback.filter(|c| !c.is_none());
    if let Some(c) = callback.filter(|c| !c.is_callable()) {
        return Err(PyTypeError::new_err(format!("callback must be callable, got {}", c.repr()?)));
    }
    let seeds = sweep_seeds(runs, seeds)?;
    let tasks = sweep_tasks(py, tasks)?;
    let spec = SweepSpec {
        tasks: match &tasks {
            Err(names) => names.clone(),
            Ok(tasks) => tasks.iter().map(|t| t.name().to_string()).collect(),
        },
        variant: variant.parse::<Variant>().map_err(value_error)?,
        seeds,
        jobs: jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        levels: levels.unwrap_or_else(|| LEVELS.to_vec()),
        samples,
        eval_seed,
        config: crate::train::configs(config, recipe)?,
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
            let running = scope.spawn(|| match &tasks {
                Err(_) => nhc_train::sweep(&spec, &observer),
                Ok(tasks) => sweep_declared(&spec, tasks, &observer),
            });
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
