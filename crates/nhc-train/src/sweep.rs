//! Sweeps: every run of some tasks (a range of seeds, [`SeedRange`]) trained, several at a time,
//! then evaluated at the test levels (MODEL §8). Resumable: a run with `summary.json` is not
//! trained again, one with only a checkpoint resumes, a level already in its `eval.json` is not
//! evaluated again; so an interrupted sweep is continued by running it again.
//!
//! Layout: `DIR/TASK-SEED/` is a run directory ([`crate::run_dir`]) plus `eval.json`;
//! `DIR/sweep.jsonl` holds one [`SweepLine`] per run, in the order of the tasks, then the seeds.
//! Each run trains on a rayon pool of one thread (runs are many and batches short, so separate
//! runs use the cores better); results do not depend on the number of jobs. Runs start in order
//! of their task's expected training time, longest first; `sweep.jsonl` keeps the order above.

use crate::lock::{LockError, lock};
use crate::records::{Curve, MetricsLine, RunSummary};
use crate::run_dir::{self, Observer, Outcome, RunDirError};
pub use crate::seeds::{SeedRange, SeedsError};
use crate::task_configs::TaskConfigs;
use crate::trainer::{TrainError, Trainer};
use nhc_io::limits::{self, LimitError};
use nhc_io::write_atomic;
use nhc_model::Variant;
use nhc_tasks::{EvalReport, Model, ModelError, TaskError, find};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use thiserror::Error;

/// Most runs per task of one sweep.
pub const MAX_RUNS: u64 = 10_000;
/// Most runs trained at the same time.
pub const MAX_JOBS: u64 = 1_024;
/// The seed of the evaluation samples, unless told otherwise: no training seed draws them.
pub const EVAL_SEED: u64 = 1000;
/// The test levels, unless told otherwise: the last training level, then the paper's (MODEL §8).
pub const LEVELS: [usize; 4] = [10, 100, 500, 1000];

/// What to sweep.
#[derive(Debug, Clone)]
pub struct SweepSpec {
    /// Task names, or `all` among them for every task.
    pub tasks: Vec<String>,
    pub variant: Variant,
    /// The seeds of each task's runs.
    pub seeds: SeedRange,
    /// The sweep directory.
    pub out: PathBuf,
    /// Runs trained at the same time, each on one thread.
    pub jobs: usize,
    /// Test levels.
    pub levels: Vec<usize>,
    /// Samples per test level.
    pub samples: usize,
    /// Seed of the evaluation samples ([`EVAL_SEED`] unless told otherwise).
    pub eval_seed: u64,
    /// Hyperparameters of each task's runs.
    pub config: TaskConfigs,
}

impl SweepSpec {
    /// The counts a sweep needs before any work: jobs and samples within their bounds, and at
    /// least one test level (a [`SeedRange`] is within its bounds).
    pub fn check(&self) -> Result<(), SweepError> {
        limits::at_most("the number of jobs", self.jobs as u64, MAX_JOBS)?;
        if self.samples == 0 {
            return Err(SweepError::NoSamples);
        }
        limits::at_most("the number of samples", self.samples as u64, limits::MAX_SAMPLES as u64)?;
        if self.levels.is_empty() {
            return Err(SweepError::NoLevels);
        }
        Ok(())
    }
}

/// One line of `sweep.jsonl`: a run, its summary and its evaluations by level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepLine {
    /// The run directory.
    pub dir: PathBuf,
    pub summary: RunSummary,
    /// Evaluation by test level (as a string: JSON keys).
    pub eval: BTreeMap<String, EvalReport>,
    /// What the run's figures need. Every sweep writes it; `null` only in committed sweeps whose
    /// runs predate the record (it was never recorded).
    pub curve: Option<Curve>,
    /// The seeds of the sweep that ran it (`"1-15"`); absent in sweeps older than the record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seeds: Option<SeedRange>,
    /// The run's verification (`nhc verify` at the default bounds, added by
    /// scripts/verify_runs.py); absent until verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<RunVerification>,
}

/// The small record of a run's `nhc verify` report (docs/VERIFICATION.md, "Verification").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunVerification {
    pub domain: String,
    /// `verified`, `counterexample` or `sampled`; `verified, wrong beyond` or `sampled, wrong
    /// beyond` when only a sample beyond a bound is wrong.
    pub outcome: String,
    pub parts: Vec<VerifiedPart>,
    /// `nhc verify --every-length` (copy, reverse, repeatCopy, duplicated); absent where it was
    /// not asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every_length: Option<EveryLengthRecord>,
}

/// The small record of a run's every-length proof (docs/VERIFICATION.md, "Every length").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EveryLengthRecord {
    /// `proved`, `wrong` or `not proved`.
    pub outcome: String,
    /// The proof's n₀ (lengths from it on by the symbolic run) and modulus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n0: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modulus: Option<u64>,
    /// repeatCopy: the most copies a run of the proof took before its passes repeated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passes: Option<u64>,
    /// duplicated: the proof covers 1..=this many objects, each at every number of repeats
    /// (`n0` is then the largest r₀ of its symbolic runs in the number of repeats).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objects: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One part of a run's verification.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifiedPart {
    pub what: String,
    pub exhaustive: bool,
    pub axes: [String; 2],
    pub layer: String,
    pub bound: u64,
    pub right_to: u64,
    pub inputs: u64,
    pub failed: u64,
    pub smallest: Option<Smallest>,
    /// A two-parameter part with a wrong input: its cells as rows, the second axis from the
    /// top down (`+` right, `x` wrong, `.` not listed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub map: Option<Vec<String>>,
    /// The samples beyond the bound; absent in records older than the stage, or where the part
    /// has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beyond: Option<BeyondRecord>,
}

/// A part's samples beyond its bound (the small record of `nhc_tasks::verify::Beyond`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BeyondRecord {
    /// Sizes in the part's layer unit, and per size the samples and the wrong ones.
    pub sizes: Vec<u64>,
    pub samples: Vec<u64>,
    pub failed: Vec<u64>,
    /// The smallest wrong sample as `nhc trace --level L --seed S --index I` finds it: [L, S, I].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smallest: Option<[u64; 3]>,
}

impl BeyondRecord {
    /// The smallest size with a wrong sample.
    pub fn wrong_from(&self) -> Option<u64> {
        self.sizes.iter().zip(&self.failed).find(|(_, f)| **f > 0).map(|(s, _)| *s)
    }
}

/// A part's smallest counterexample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Smallest {
    pub shape: String,
    pub cell: [u64; 2],
    pub input: serde_json::Value,
}

/// A sweep that cannot start, or runs that failed.
#[derive(Debug, Error)]
pub enum SweepError {
    #[error("the number of samples must be at least 1")]
    NoSamples,
    #[error("the tasks name {0} twice; give each task once")]
    TaskTwice(String),
    #[error("give at least one test level")]
    NoLevels,
    #[error(transparent)]
    Limit(#[from] LimitError),
    #[error(transparent)]
    Task(#[from] TaskError),
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error("thread pool: {0}")]
    Pool(#[from] rayon::ThreadPoolBuildError),
    /// Some runs failed; the others are done.
    #[error("{} run(s) failed:\n{}", .0.len(), .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Runs(Vec<RunFailure>),
    /// The observer stopped the sweep; running it again continues it.
    #[error("the sweep was stopped; running it again continues it")]
    Stopped,
    #[error("cannot write {}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
    #[error("cannot write {}", path.display())]
    Serialize { path: PathBuf, source: serde_json::Error },
}

/// A run of the sweep that failed.
#[derive(Debug)]
pub struct RunFailure {
    pub task: String,
    pub seed: u64,
    pub error: RunError,
}

impl std::fmt::Display for RunFailure {
    /// `TASK seed SEED: ` and the error with its causes, each after a colon.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} seed {}: {}", self.task, self.seed, self.error)?;
        let mut cause = std::error::Error::source(&self.error);
        while let Some(c) = cause {
            write!(f, ": {c}")?;
            cause = c.source();
        }
        Ok(())
    }
}

/// Why one run failed.
#[derive(Debug, Error)]
pub enum RunError {
    #[error(transparent)]
    RunDir(#[from] RunDirError),
    #[error(transparent)]
    Train(#[from] TrainError),
    #[error(transparent)]
    Task(#[from] TaskError),
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error(transparent)]
    Limit(#[from] LimitError),
    #[error("{} is damaged", path.display())]
    Damaged { path: PathBuf, source: serde_json::Error },
    #[error("cannot write {}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
    #[error("cannot write {}", path.display())]
    Serialize { path: PathBuf, source: serde_json::Error },
    /// The observer stopped the sweep while this run trained or before it evaluated.
    #[error("stopped")]
    Stopped,
    /// Another process of a shared sweep did not finish this run (its own error says why).
    #[error("{} was not trained and evaluated at every test level", dir.display())]
    NotFinished { dir: PathBuf },
}

/// What a front end sees of a sweep. Its methods are called from the worker threads, so it is
/// `Sync`; any of them may stop the sweep (every run then stops after a checkpoint).
pub trait SweepObserver: Sync {
    /// Once, before the first run: the runs, in the order of `sweep.jsonl`.
    fn started(&self, runs: &[(String, u64)]) {
        let _ = runs;
    }
    /// After each iteration of a run that trains (not of one trained before).
    fn iteration(&self, task: &str, seed: u64, line: &MetricsLine) -> ControlFlow<()> {
        let _ = (task, seed, line);
        ControlFlow::Continue(())
    }
    /// A run trained to its end in this sweep (not one trained before): its summary.
    fn trained(&self, summary: &RunSummary) -> ControlFlow<()> {
        let _ = summary;
        ControlFlow::Continue(())
    }
    /// A run is trained and evaluated at every level: its line of `sweep.jsonl`.
    fn finished(&self, line: &SweepLine) -> ControlFlow<()> {
        let _ = line;
        ControlFlow::Continue(())
    }
}

/// An observer that watches nothing and never stops the sweep.
#[derive(Debug, Clone, Copy, Default)]
pub struct Quiet;

impl SweepObserver for Quiet {}

/// The run directory of `task`'s run `seed` in the sweep directory `out`.
pub fn run_dir(out: &Path, task: &str, seed: u64) -> PathBuf {
    out.join(format!("{task}-{seed}"))
}

/// Median seconds to train one run of each task (full NHC, paper protocol, one core:
/// results/full.jsonl), only to order a sweep's runs.
const EXPECTED_SECONDS: &[(&str, u32)] = &[
    ("arithmetic", 111),
    ("duplicated", 89),
    ("sort", 66),
    ("plan", 42),
    ("plan+", 36),
    ("search", 34),
    ("repeatCopy", 25),
    ("search+", 23),
    ("addition", 14),
    ("reverse", 10),
    ("copy", 10),
];

/// A run's expected training time for ordering; a task without a measurement counts as longest.
fn expected_seconds(task: &str) -> u32 {
    EXPECTED_SECONDS.iter().find(|(t, _)| *t == task).map_or(u32::MAX, |(_, s)| *s)
}

/// Where a sweep's jobs get their next run: this process's counter, or one shared by several
/// processes (the `nhc` binary's MPI ranks: rank 0 hands out runs as jobs become free).
pub trait Dispatch: Sync {
    /// The place in the start order of the next run for one of this process's jobs, of `runs`;
    /// `None` once every run is handed out.
    fn next(&self, runs: usize) -> Option<usize>;
}

/// One process's counter.
#[derive(Debug, Default)]
pub struct Counter(AtomicUsize);

impl Dispatch for Counter {
    fn next(&self, runs: usize) -> Option<usize> {
        let k = self.0.fetch_add(1, Ordering::SeqCst);
        (k < runs).then_some(k)
    }
}

/// How a process takes part in a sweep that several processes share (docs/DESIGN.md, "Sweeps
/// over ranks"). The run directories must be on a filesystem every process sees.
pub struct Part<'a> {
    /// Where this process's jobs get their runs.
    pub dispatch: &'a dyn Dispatch,
    /// The one process that locks the sweep directory and writes `sweep.jsonl`.
    pub leads: bool,
    /// Returns once every process has trained and evaluated the runs it was given.
    pub all_done: &'a dyn Fn(),
}

/// The runs of `spec`, (task, seed), in the order of `sweep.jsonl`: its tasks (`all`: every
/// task), then its seeds, ascending.
pub fn runs(spec: &SweepSpec) -> Result<Vec<(String, u64)>, SweepError> {
    let tasks: Vec<String> = if spec.tasks.iter().any(|t| t == "all") {
        nhc_tasks::names().into_iter().map(String::from).collect()
    } else {
        spec.tasks.iter().map(|t| find(t).map(|t| t.name().to_string())).collect::<Result<_, _>>()?
    };
    if let Some(k) = (1..tasks.len()).find(|&k| tasks[..k].contains(&tasks[k])) {
        return Err(SweepError::TaskTwice(tasks[k].clone()));
    }
    Ok(tasks.iter().flat_map(|t| spec.seeds.seeds().map(move |seed| (t.clone(), seed))).collect())
}

/// Runs the sweep `spec` (training what is not trained, evaluating what is not evaluated), writes
/// `DIR/sweep.jsonl` and returns its lines. Everything is checked before the first run trains.
/// While it runs, the memory limit is shared among the jobs.
pub fn sweep(spec: &SweepSpec, observer: &dyn SweepObserver) -> Result<Vec<SweepLine>, SweepError> {
    let counter = Counter::default();
    sweep_part(spec, observer, &Part { dispatch: &counter, leads: true, all_done: &|| {} })
}

/// This process's part of a sweep shared by several: its jobs train the runs `part.dispatch`
/// hands out; then the leading process reads every run's line from its directory and writes
/// `DIR/sweep.jsonl`, the same file as [`sweep`]'s. Returns the lines (the leader's: all).
pub fn sweep_part(
    spec: &SweepSpec,
    observer: &dyn SweepObserver,
    part: &Part<'_>,
) -> Result<Vec<SweepLine>, SweepError> {
    spec.check()?;
    let runs = runs(spec)?;
    for (task, _) in &runs {
        let t = find(task)?;
        for &level in &spec.levels {
            t.check_level(level)?;
        }
    }
    let _lock = if part.leads { Some(lock(&spec.out)?) } else { None };
    let jobs = spec.jobs.max(1);
    observer.started(&runs);
    // The longest expected runs start first, so that no job is left with a long run at the end.
    let mut order: Vec<usize> = (0..runs.len()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(expected_seconds(&runs[k].0)));
    let stop = AtomicBool::new(false);
    let jobs_done = run_jobs(
        jobs,
        runs.len(),
        &|| part.dispatch.next(runs.len()).and_then(|p| order.get(p).copied()),
        &|| stop.load(Ordering::SeqCst),
        &|k, pool| {
            let (task, seed) = &runs[k];
            let watch = Watch { observer, task, seed: *seed, stop: &stop };
            let result = pool.install(|| one(spec, task, *seed, &watch));
            if let Ok(line) = &result
                && observer.finished(line).is_break()
            {
                stop.store(true, Ordering::SeqCst);
            }
            result.map_err(|error| Box::new(RunFailure { task: task.clone(), seed: *seed, error }))
        },
    );
    (part.all_done)();
    let (mut lines, mut failures) = jobs_done?;
    if !part.leads {
        return if failures.is_empty() { Ok(Vec::new()) } else { Err(SweepError::Runs(failures)) };
    }
    // The runs other processes trained: their lines from their directories.
    if !stop.load(Ordering::SeqCst) {
        for (line, (task, seed)) in lines.iter_mut().zip(&runs) {
            if line.is_none() && !failures.iter().any(|f| f.task == *task && f.seed == *seed) {
                match finished(spec, task, *seed) {
                    Ok(l) => *line = Some(l),
                    Err(error) => failures.push(RunFailure { task: task.clone(), seed: *seed, error }),
                }
            }
        }
    }
    if !failures.is_empty() {
        return Err(SweepError::Runs(failures));
    }
    let lines: Vec<SweepLine> = lines.into_iter().flatten().collect();
    if stop.load(Ordering::SeqCst) || lines.len() < runs.len() {
        return Err(SweepError::Stopped);
    }
    write_lines(&spec.out, &lines)?;
    Ok(lines)
}

/// Runs `count` runs on `jobs` worker threads, each training on a rayon pool of one thread of
/// its own: `next` hands out the run indices (`None`: no more), `run(k, pool)` trains and
/// evaluates run k; a worker ends when `stopped` says so or a run was stopped
/// ([`RunError::Stopped`]). Returns each run's line by index (`None`: not run here) and the
/// failures. The memory limit is shared among the jobs while they run.
#[allow(clippy::type_complexity)]
pub fn run_jobs(
    jobs: usize,
    count: usize,
    next: &(dyn Fn() -> Option<usize> + Sync),
    stopped: &(dyn Fn() -> bool + Sync),
    run: &(dyn Fn(usize, &rayon::ThreadPool) -> Result<SweepLine, Box<RunFailure>> + Sync),
) -> Result<(Vec<Option<SweepLine>>, Vec<RunFailure>), SweepError> {
    let jobs = jobs.max(1);
    let _memory = MemoryShare::new(jobs);
    let lines: Vec<Mutex<Option<SweepLine>>> = (0..count).map(|_| Mutex::new(None)).collect();
    let failures = Mutex::new(Vec::new());
    let pool_error = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                let pool = match rayon::ThreadPoolBuilder::new().num_threads(1).build() {
                    Ok(p) => p,
                    Err(e) => {
                        if let Ok(mut p) = pool_error.lock() {
                            *p = Some(e);
                        }
                        return;
                    }
                };
                loop {
                    let Some(k) = next().filter(|&k| k < count) else { return };
                    if stopped() {
                        return;
                    }
                    match run(k, &pool) {
                        Ok(line) => {
                            if let Ok(mut slot) = lines[k].lock() {
                                *slot = Some(line);
                            }
                        }
                        Err(failure) if matches!(failure.error, RunError::Stopped) => return,
                        Err(failure) => {
                            if let Ok(mut v) = failures.lock() {
                                v.push(*failure);
                            }
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = pool_error.into_inner().ok().flatten() {
        return Err(SweepError::Pool(e));
    }
    let lines = lines.into_iter().map(|l| l.into_inner().ok().flatten()).collect();
    Ok((lines, failures.into_inner().unwrap_or_default()))
}

/// Writes `out/sweep.jsonl`, a line per run, atomically.
pub fn write_lines(out: &Path, lines: &[SweepLine]) -> Result<(), SweepError> {
    let path = out.join("sweep.jsonl");
    let mut text = String::new();
    for line in lines {
        let json = serde_json::to_string(line)
            .map_err(|source| SweepError::Serialize { path: path.clone(), source })?;
        text.push_str(&json);
        text.push('\n');
    }
    write_atomic(&path, text.as_bytes()).map_err(|source| SweepError::Write { path, source })
}

/// The memory limit divided among `jobs` runs evaluating at the same time, restored when dropped.
struct MemoryShare(u64);

impl MemoryShare {
    fn new(jobs: usize) -> Self {
        let limit = limits::memory_limit();
        limits::set_memory_limit((limit / jobs as u64).max(1));
        MemoryShare(limit)
    }
}

impl Drop for MemoryShare {
    fn drop(&mut self) {
        limits::set_memory_limit(self.0);
    }
}

/// A run's iterations, shown to the sweep's observer, which may stop the sweep.
#[derive(Clone, Copy)]
struct Watch<'a> {
    observer: &'a dyn SweepObserver,
    task: &'a str,
    seed: u64,
    stop: &'a AtomicBool,
}

impl Observer for Watch<'_> {
    fn iteration(&mut self, line: &MetricsLine) -> ControlFlow<()> {
        if self.observer.iteration(self.task, self.seed, line).is_break() {
            self.stop.store(true, Ordering::SeqCst);
        }
        if self.stop.load(Ordering::SeqCst) { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    }
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, RunError> {
    let text = limits::read_text(path, "run file", limits::MAX_STATE_BYTES)?;
    serde_json::from_str(&text).map_err(|source| RunError::Damaged { path: path.into(), source })
}

/// The line of a run another process trained and evaluated, read from its directory.
fn finished(spec: &SweepSpec, task: &str, seed: u64) -> Result<SweepLine, RunError> {
    let dir = run_dir(&spec.out, task, seed);
    let eval_path = dir.join("eval.json");
    if !dir.join("summary.json").exists() || !eval_path.exists() {
        return Err(RunError::NotFinished { dir });
    }
    let eval: BTreeMap<String, EvalReport> = read_json(&eval_path)?;
    if spec.levels.iter().any(|l| !eval.contains_key(&l.to_string())) {
        return Err(RunError::NotFinished { dir });
    }
    Ok(SweepLine {
        summary: read_json(&dir.join("summary.json"))?,
        eval,
        curve: Some(run_dir::read_metrics(&dir)?.curve()),
        dir,
        seeds: Some(spec.seeds),
        verify: None,
    })
}

/// Trains (or resumes, or skips) one run, then evaluates it at every test level: its line.
fn one(spec: &SweepSpec, task: &str, seed: u64, watch: &Watch<'_>) -> Result<SweepLine, RunError> {
    let dir = run_dir(&spec.out, task, seed);
    let t = find(task)?;
    if !dir.join("summary.json").exists() {
        let mut watch = *watch;
        let outcome = if dir.join("checkpoint.json").exists() {
            run_dir::resume(&dir, &mut watch)?
        } else {
            let trainer = Trainer::new(t, spec.variant, spec.config.get(task).clone(), seed)?;
            run_dir::start(trainer, &dir, &mut watch)?
        };
        match outcome {
            Outcome::Finished { summary, .. } => {
                if watch.observer.trained(&summary).is_break() {
                    watch.stop.store(true, Ordering::SeqCst);
                }
            }
            Outcome::Stopped { .. } => return Err(RunError::Stopped),
        }
    }
    let eval_path = dir.join("eval.json");
    let mut eval: BTreeMap<String, EvalReport> =
        if eval_path.exists() { read_json(&eval_path)? } else { BTreeMap::new() };
    let model = Model::from_arg(&dir.join("model.json").to_string_lossy(), t, Some(spec.variant))?;
    for &level in &spec.levels {
        let key = level.to_string();
        if eval.contains_key(&key) {
            continue;
        }
        if watch.stop.load(Ordering::SeqCst) {
            return Err(RunError::Stopped);
        }
        let report = t.evaluate(&model, level, spec.samples, spec.eval_seed)?;
        eval.insert(key, report);
        let json = serde_json::to_string_pretty(&eval)
            .map_err(|source| RunError::Serialize { path: eval_path.clone(), source })?;
        write_atomic(&eval_path, json.as_bytes())
            .map_err(|source| RunError::Write { path: eval_path.clone(), source })?;
    }
    finished(spec, task, seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every task of the table exists under that name, so a renamed task is not silently
    /// ordered as the longest.
    #[test]
    fn expected_times_name_known_tasks() {
        for (task, _) in EXPECTED_SECONDS {
            assert_eq!(find(task).map(|t| t.name()).ok(), Some(*task));
        }
        assert_eq!(expected_seconds("a task of one's own"), u32::MAX);
    }
}
