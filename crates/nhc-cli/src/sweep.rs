//! `nhc sweep`: trains every run of a list of tasks (seeds 1..=runs), several runs at a time,
//! then evaluates each at the test levels (MODEL §8). Resumable: a finished run (summary.json)
//! is not trained again, an interrupted one resumes from its checkpoint, an evaluated one
//! (eval.json) is not evaluated again.
//!
//! Layout: `DIR/TASK-SEED/` is a `nhc train` run directory plus `eval.json`; `DIR/sweep.jsonl`
//! holds one line per run, `{"dir": …, "summary": …, "eval": {"LEVEL": EvalReport, …}}`.

use crate::plots::Curve;
use crate::train;
use anyhow::{Context, Result, bail};
use nhc_io::{limits, write_atomic};
use nhc_model::Variant;
use nhc_tasks::{EvalReport, Model, find};
use nhc_train::{RunSummary, ValidConfig};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What to sweep.
pub struct Sweep {
    /// Task names, or `all`.
    pub tasks: Vec<String>,
    pub variant: Variant,
    pub runs: u64,
    pub out: PathBuf,
    /// Runs trained at the same time, each on one thread (results do not depend on it).
    pub jobs: usize,
    /// Test levels.
    pub levels: Vec<usize>,
    pub samples: usize,
    /// Seed of the evaluation samples (never a training seed's samples).
    pub eval_seed: u64,
    pub config: ValidConfig,
}

/// One line of `sweep.jsonl`: a run, its summary and its evaluations by level.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SweepLine {
    /// The run directory.
    pub dir: PathBuf,
    pub summary: RunSummary,
    /// Evaluation by test level (as a string: JSON keys).
    pub eval: BTreeMap<String, EvalReport>,
    /// What the run's figures need. Every sweep writes it; `null` only in committed sweeps whose
    /// runs predate the record (they were never recorded).
    pub curve: Option<Curve>,
}

/// A run directory's evaluations, by test level.
type Evals = BTreeMap<String, EvalReport>;

/// Most runs per task of one sweep.
pub const MAX_RUNS: u64 = 10_000;
/// Most runs trained at the same time.
pub const MAX_JOBS: u64 = 1_024;

/// The evaluation seed used by `nhc sweep` unless told otherwise.
pub const EVAL_SEED: u64 = 1000;

pub fn run(s: Sweep) -> Result<()> {
    if s.runs == 0 {
        bail!("--runs must be at least 1");
    }
    // Everything is checked before the first run trains.
    limits::at_most("--runs", s.runs, MAX_RUNS)?;
    limits::at_most("--jobs", s.jobs as u64, MAX_JOBS)?;
    if s.samples == 0 {
        bail!("--samples must be at least 1");
    }
    limits::at_most("--samples", s.samples as u64, limits::MAX_SAMPLES as u64)?;
    if s.levels.is_empty() {
        bail!("give at least one test level");
    }
    let tasks: Vec<String> = if s.tasks.iter().any(|t| t == "all") {
        nhc_tasks::names().into_iter().map(String::from).collect()
    } else {
        s.tasks.iter().map(|t| find(t).map(|t| t.name().to_string())).collect::<Result<_, _>>()?
    };
    for task in &tasks {
        let t = find(task)?;
        for &level in &s.levels {
            t.check_level(level)?;
        }
    }
    let _lock = nhc_train::lock::lock(&s.out)?;
    // `jobs` runs evaluate at the same time: each gets its share of the memory limit.
    limits::set_memory_limit((limits::memory_limit() / s.jobs.max(1) as u64).max(1));
    let jobs: Vec<(String, u64)> =
        tasks.iter().flat_map(|t| (1..=s.runs).map(move |seed| (t.clone(), seed))).collect();
    let next = AtomicUsize::new(0);
    let errors = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..s.jobs.max(1) {
            scope.spawn(|| {
                let report = |msg: String| {
                    if let Ok(mut v) = errors.lock() {
                        v.push(msg);
                    }
                };
                let pool = match rayon::ThreadPoolBuilder::new().num_threads(1).build() {
                    Ok(p) => p,
                    Err(e) => return report(format!("thread pool: {e}")),
                };
                while let Some((task, seed)) = jobs.get(next.fetch_add(1, Ordering::SeqCst)) {
                    if let Err(e) = pool.install(|| one(&s, task, *seed)) {
                        report(format!("{task} seed {seed}: {e:#}"));
                    }
                }
            });
        }
    });
    let errors = errors.into_inner().unwrap_or_default();
    if !errors.is_empty() {
        bail!("{} run(s) failed:\n{}", errors.len(), errors.join("\n"));
    }
    let mut lines = String::new();
    for (task, seed) in &jobs {
        let dir = run_dir(&s.out, task, *seed);
        let line = SweepLine {
            summary: read_json(&dir.join("summary.json"))?,
            eval: read_json(&dir.join("eval.json"))?,
            curve: Some(crate::plots::read_metrics(&dir)?.curve()),
            dir,
        };
        lines.push_str(&serde_json::to_string(&line)?);
        lines.push('\n');
    }
    let path = s.out.join("sweep.jsonl");
    write_atomic(&path, lines.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    crate::emit(&format!("{} runs: {}\n", jobs.len(), s.out.join("sweep.jsonl").display()))?;
    Ok(())
}

fn run_dir(out: &Path, task: &str, seed: u64) -> PathBuf {
    out.join(format!("{task}-{seed}"))
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let text = limits::read_text(path, "run file", limits::MAX_STATE_BYTES)?;
    serde_json::from_str(&text).with_context(|| format!("{} is damaged", path.display()))
}

/// Trains (or resumes, or skips) one run, then evaluates it at every test level.
fn one(s: &Sweep, task: &str, seed: u64) -> Result<()> {
    let dir = run_dir(&s.out, task, seed);
    if !dir.join("summary.json").exists() {
        if dir.join("checkpoint.json").exists() {
            train::resume(&dir, true)?;
        } else {
            let run = train::NewRun {
                task: find(task)?,
                variant: s.variant,
                seed,
                out: dir.clone(),
                config: s.config.clone(),
            };
            train::start(run, true)?;
        }
    }
    let eval_path = dir.join("eval.json");
    let mut eval: Evals = match eval_path.exists() {
        true => read_json(&eval_path)?,
        false => Evals::new(),
    };
    let t = find(task)?;
    let model = Model::from_arg(&dir.join("model.json").to_string_lossy(), t, Some(s.variant))?;
    for &level in &s.levels {
        let key = level.to_string();
        if eval.contains_key(&key) {
            continue;
        }
        let report = t.evaluate(&model, level, s.samples, s.eval_seed)?;
        eval.insert(key, report);
        write_atomic(&eval_path, serde_json::to_string_pretty(&eval)?.as_bytes())
            .with_context(|| format!("cannot write {}", eval_path.display()))?;
    }
    Ok(())
}
