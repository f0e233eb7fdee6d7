//! Run directories: a run of NES on the curriculum with a metrics log, atomic checkpoints,
//! resumption, and at the end the model file and a summary. `nhc train` drives them; any other
//! front end can drive the same directories through [`start`] and [`resume`].
//!
//! A run directory holds `config.json` (task, domain, variant, seed, hyperparameters),
//! `checkpoint.json` (the trainer state, [`Checkpoint`]), `metrics.jsonl` (one [`MetricsLine`]
//! per iteration), `lock` (one process per directory, [`crate::lock`]), and when finished
//! `model.json` and `summary.json` ([`RunSummary`]).

use crate::lock::{LockError, lock};
use crate::records::{Curve, MetricsLine, RunSummary};
use crate::trainer::{TrainError, TrainState, Trainer};
use nhc_io::limits::{LimitError, MAX_STATE_BYTES, read_text};
use nhc_io::write_atomic;
use nhc_model::{ParamsError, Variant};
use nhc_tasks::model::LearnedModel;
use nhc_tasks::{AnyTask, ModelError, ModelFile, TaskError};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufWriter, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Instant;
use thiserror::Error;

/// Iterations between checkpoints, at the least...
pub const CHECKPOINT_EVERY: u64 = 250;
/// ...and seconds: each checkpoint is an fsync, which fast runs would otherwise wait on.
pub const CHECKPOINT_SECONDS: f64 = 1.0;

/// The checkpoint: trainer state plus the wall time spent so far. On disk it carries the
/// SHA-256 digest of both ([`CheckpointFile`]), so an edited or damaged file is refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub state: TrainState,
    pub seconds: f64,
}

/// `checkpoint.json` as written: the state's and the seconds' JSON text exactly, and the digest
/// of the two texts ([`digest`]; text, not numbers: serde_json may read a float one ulp off).
#[derive(Serialize, Deserialize)]
struct CheckpointFile<'a> {
    #[serde(borrow)]
    state: &'a serde_json::value::RawValue,
    #[serde(borrow)]
    seconds: &'a serde_json::value::RawValue,
    #[serde(default)]
    digest: Option<String>,
}

/// The SHA-256 of a checkpoint's state and seconds texts, in hex.
fn digest(state: &str, seconds: &str) -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(state.as_bytes());
    h.update(b"\n");
    h.update(seconds.as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// A run directory that cannot be started, resumed or written.
#[derive(Debug, Error)]
pub enum RunDirError {
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error("{} already holds a run; use `nhc train --resume {}`", path.display(), path.display())]
    AlreadyRun { path: PathBuf },
    #[error("{} holds no checkpoint.json: is it a run directory?", dir.display())]
    NotRunDir { dir: PathBuf },
    #[error("{} is damaged", path.display())]
    Damaged { path: PathBuf, source: serde_json::Error },
    /// The checkpoint's contents do not match the digest written with them.
    #[error(
        "{} {what}: it was edited or damaged since it was written; restore it, or start the run again in a new directory",
        path.display()
    )]
    Digest { path: PathBuf, what: &'static str },
    #[error("{} cannot be resumed", path.display())]
    Resume { path: PathBuf, source: TrainError },
    /// The training time recorded is none a run can have taken.
    #[error(
        "{} records {seconds:?} s of training, which no run takes; restore it, or start the run again in a new directory",
        path.display()
    )]
    Seconds { path: PathBuf, seconds: f64 },
    /// A line of `metrics.jsonl` at or before the checkpoint does not read (1-based `line`).
    #[error(
        "{} line {line} is damaged ({error}); the checkpoint is at iteration {checkpoint}: repair or remove that line, then resume",
        path.display()
    )]
    MetricsLine { path: PathBuf, line: usize, checkpoint: u64, error: serde_json::Error },
    /// A line of a finished run's `metrics.jsonl` does not read (1-based `line`).
    #[error("{} line {line} is damaged", path.display())]
    Metrics { path: PathBuf, line: usize, source: serde_json::Error },
    #[error("cannot create {}", path.display())]
    Create { path: PathBuf, source: std::io::Error },
    #[error("cannot open {}", path.display())]
    Open { path: PathBuf, source: std::io::Error },
    #[error("cannot read {}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cannot write {}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
    #[error("cannot write {}", path.display())]
    Serialize { path: PathBuf, source: serde_json::Error },
    #[error(transparent)]
    File(#[from] LimitError),
    #[error(transparent)]
    Task(#[from] TaskError),
    #[error(transparent)]
    Train(#[from] TrainError),
    #[error(transparent)]
    Params(#[from] ParamsError),
    #[error(transparent)]
    Model(#[from] ModelError),
}

/// What a front end sees of a run while it trains.
pub trait Observer {
    /// Called once before the first iteration, with the trainer as resumed/started.
    fn started(&mut self, trainer: &Trainer) {
        let _ = trainer;
    }
    /// After each iteration, with its line of `metrics.jsonl` (already written). Returning
    /// `ControlFlow::Break(())` stops the run cleanly: a checkpoint is written and the run
    /// returns [`Outcome::Stopped`].
    fn iteration(&mut self, line: &MetricsLine) -> ControlFlow<()>;
    /// Called after each iteration, before its line is written: `true` discards the iteration
    /// (e.g. a declared algorithm's Python function failed during it) and stops the run at its
    /// last checkpoint, which is left as it was ([`Outcome::Stopped`] with that iteration).
    fn discard(&mut self) -> bool {
        false
    }
}

/// An observer that watches nothing and never stops the run.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Observer for Silent {
    fn iteration(&mut self, _: &MetricsLine) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}

/// How a run ended.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// The run is done (its summary says how it ended): `model.json` and `summary.json` are
    /// written.
    Finished { summary: Box<RunSummary>, model: Box<LearnedModel> },
    /// The observer stopped the run after `iteration`; the checkpoint is there to resume from.
    Stopped { iteration: u64 },
}

/// Starts `trainer`'s run in `out`, a new (or empty) directory, created if needed.
pub fn start(trainer: Trainer, out: &Path, observer: &mut dyn Observer) -> Result<Outcome, RunDirError> {
    let _lock = lock(out)?;
    if out.join("checkpoint.json").exists() {
        return Err(RunDirError::AlreadyRun { path: out.into() });
    }
    let metrics = out.join("metrics.jsonl");
    std::fs::File::create(&metrics).map_err(|source| RunDirError::Create { path: metrics, source })?;
    drive(trainer, out, 0.0, observer)
}

/// Continues the run in `dir` from its last checkpoint.
pub fn resume(dir: &Path, observer: &mut dyn Observer) -> Result<Outcome, RunDirError> {
    resume_with(dir, observer, &|t| t)
}

/// [`resume`] for a task that is not in the registry (a declared algorithm): the checkpoint must
/// be of `task` (name and declaration digest).
pub fn resume_on(
    dir: &Path,
    task: &'static dyn AnyTask,
    observer: &mut dyn Observer,
) -> Result<Outcome, RunDirError> {
    resume_from(dir, observer, &|t| t, Some((task, false)))
}

/// [`resume_on`] after the declaration changed (e.g. a function fixed after it raised): the
/// checkpoint must be of an algorithm of `task`'s name, and the run goes on under `task`'s
/// declaration, whose digest it records from then on.
pub fn resume_redeclared(
    dir: &Path,
    task: &'static dyn AnyTask,
    observer: &mut dyn Observer,
) -> Result<Outcome, RunDirError> {
    resume_from(dir, observer, &|t| t, Some((task, true)))
}

/// [`resume`], with the trainer made from the checkpoint passed through `prepare` first (e.g.
/// [`Trainer::with_peers`]).
pub fn resume_with(
    dir: &Path,
    observer: &mut dyn Observer,
    prepare: &dyn Fn(Trainer) -> Trainer,
) -> Result<Outcome, RunDirError> {
    resume_from(dir, observer, prepare, None)
}

fn resume_from(
    dir: &Path,
    observer: &mut dyn Observer,
    prepare: &dyn Fn(Trainer) -> Trainer,
    task: Option<(&'static dyn AnyTask, bool)>,
) -> Result<Outcome, RunDirError> {
    let path = dir.join("checkpoint.json");
    if !path.exists() {
        return Err(RunDirError::NotRunDir { dir: dir.into() });
    }
    let _lock = lock(dir)?;
    let mut cp = read_checkpoint(&path)?;
    truncate_metrics(&dir.join("metrics.jsonl"), cp.state.iteration)?;
    let task = match task {
        Some((task, redeclared)) => {
            if redeclared {
                cp.state.digest = task.digest();
            }
            task
        }
        None => nhc_tasks::registry::find_in(&cp.state.task, Some(&cp.state.domain))?,
    };
    let trainer =
        Trainer::from_state(task, cp.state).map_err(|source| RunDirError::Resume { path, source })?;
    drive(prepare(trainer), dir, cp.seconds, observer)
}

/// The last checkpoint of the run in `dir` (without taking the lock).
pub fn load_checkpoint(dir: &Path) -> Result<Checkpoint, RunDirError> {
    let path = dir.join("checkpoint.json");
    if !path.exists() {
        return Err(RunDirError::NotRunDir { dir: dir.into() });
    }
    read_checkpoint(&path)
}

/// The longest training a checkpoint may record: ten years.
const MAX_RUN_SECONDS: f64 = 3.2e8;

/// Reads a checkpoint and checks its digest: the state is trusted only as written.
fn read_checkpoint(path: &Path) -> Result<Checkpoint, RunDirError> {
    let text = read_text(path, "checkpoint", MAX_STATE_BYTES)?;
    let damaged = |source| RunDirError::Damaged { path: path.into(), source };
    let file: CheckpointFile = serde_json::from_str(&text).map_err(damaged)?;
    let refused = |what| RunDirError::Digest { path: path.into(), what };
    match &file.digest {
        None => return Err(refused("carries no digest")),
        Some(d) if *d != digest(file.state.get(), file.seconds.get()) => {
            return Err(refused("does not match its digest"));
        }
        Some(_) => {}
    }
    let state = serde_json::from_str(file.state.get()).map_err(damaged)?;
    let seconds: f64 = serde_json::from_str(file.seconds.get()).map_err(damaged)?;
    if !(0.0..=MAX_RUN_SECONDS).contains(&seconds) {
        return Err(RunDirError::Seconds { path: path.into(), seconds });
    }
    Ok(Checkpoint { state, seconds })
}

/// Drops metric lines written after the checkpoint, so a resumed run logs each iteration once.
/// Lines up to the checkpoint must all read; a damaged one there is an error that names it (a
/// damaged line after the checkpoint, e.g. cut by a kill, is dropped with the others).
fn truncate_metrics(path: &Path, upto: u64) -> Result<(), RunDirError> {
    let Ok(file) = std::fs::File::open(path) else { return Ok(()) };
    let mut kept = Vec::new();
    for (k, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|source| RunDirError::Read { path: path.into(), source })?;
        match serde_json::from_str::<MetricsLine>(&line) {
            Ok(m) if m.log.iteration <= upto => kept.push(line),
            Ok(_) => break,
            Err(error) if (kept.len() as u64) < upto => {
                return Err(RunDirError::MetricsLine {
                    path: path.into(),
                    line: k + 1,
                    checkpoint: upto,
                    error,
                });
            }
            Err(_) => break,
        }
    }
    let mut text = kept.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    write_file(path, text.as_bytes())
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), RunDirError> {
    write_atomic(path, bytes).map_err(|source| RunDirError::Write { path: path.into(), source })
}

fn to_json<T: Serialize>(value: &T, path: &Path, pretty: bool) -> Result<String, RunDirError> {
    let text = if pretty { serde_json::to_string_pretty(value) } else { serde_json::to_string(value) };
    text.map_err(|source| RunDirError::Serialize { path: path.into(), source })
}

fn save_checkpoint(
    trainer: &Trainer,
    dir: &Path,
    seconds: f64,
    log: &mut BufWriter<std::fs::File>,
) -> Result<(), RunDirError> {
    let metrics = |source| RunDirError::Write { path: dir.join("metrics.jsonl"), source };
    log.flush().map_err(metrics)?;
    log.get_ref().sync_data().map_err(metrics)?;
    let path = dir.join("checkpoint.json");
    let raw = |text| {
        serde_json::value::RawValue::from_string(text)
            .map_err(|source| RunDirError::Serialize { path: path.clone(), source })
    };
    let state = raw(to_json(trainer.state(), &path, false)?)?;
    let seconds = raw(to_json(&seconds, &path, false)?)?;
    let digest = Some(digest(state.get(), seconds.get()));
    let file = CheckpointFile { state: &state, seconds: &seconds, digest };
    write_file(&path, to_json(&file, &path, false)?.as_bytes())
}

fn drive(
    mut trainer: Trainer,
    dir: &Path,
    seconds_before: f64,
    observer: &mut dyn Observer,
) -> Result<Outcome, RunDirError> {
    let state = trainer.state();
    let task = trainer.task();
    let config_json = serde_json::json!({
        "task": task.name(), "domain": task.domain(), "variant": state.variant, "seed": state.seed,
        "train": state.config, "model": trainer.model(),
    });
    let path = dir.join("config.json");
    write_file(&path, to_json(&config_json, &path, true)?.as_bytes())?;
    // Buffered: lines after the last checkpoint are dropped on resume anyway.
    let metrics = dir.join("metrics.jsonl");
    let mut log = BufWriter::new(
        std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&metrics)
            .map_err(|source| RunDirError::Open { path: metrics.clone(), source })?,
    );
    let start = Instant::now();
    let elapsed = |start: &Instant| seconds_before + start.elapsed().as_secs_f64();
    save_checkpoint(&trainer, dir, elapsed(&start), &mut log)?;
    let (mut last_save, mut saved) = (Instant::now(), trainer.state().iteration);

    observer.started(&trainer);
    let outcome = loop {
        if let Some(outcome) = trainer.outcome() {
            break outcome;
        }
        let line = MetricsLine { log: trainer.step()?, wall_seconds: elapsed(&start) };
        if observer.discard() {
            return Ok(Outcome::Stopped { iteration: saved });
        }
        let text = to_json(&line, &metrics, false)?;
        writeln!(log, "{text}").map_err(|source| RunDirError::Write { path: metrics.clone(), source })?;
        let iteration = line.log.iteration;
        if observer.iteration(&line).is_break() {
            save_checkpoint(&trainer, dir, elapsed(&start), &mut log)?;
            return Ok(Outcome::Stopped { iteration });
        }
        if iteration.is_multiple_of(CHECKPOINT_EVERY)
            && last_save.elapsed().as_secs_f64() >= CHECKPOINT_SECONDS
        {
            save_checkpoint(&trainer, dir, elapsed(&start), &mut log)?;
            (last_save, saved) = (Instant::now(), iteration);
        }
    };
    save_checkpoint(&trainer, dir, elapsed(&start), &mut log)?;

    let s = trainer.summary();
    let state = trainer.state();
    let summary = RunSummary {
        task: task.name().to_string(),
        domain: task.domain().to_string(),
        variant: state.variant,
        config: Some(trainer.model().clone()),
        seed: state.seed,
        iterations: s.iterations,
        learning_iterations: s.learning_iterations,
        margin_updates: s.margin_updates,
        last_level_learned: s.last_level_learned,
        last_level_solved: s.last_level_solved,
        restarts: s.restarts,
        failed_checks: s.failed_checks,
        outcome,
        wall_seconds: elapsed(&start),
        steps: state.steps,
        steps_per_second: state.steps as f64 / elapsed(&start).max(1e-9),
        lineages: Some(trainer.lineages()),
    };
    let meta = model_meta(&trainer);
    let model = trainer.learned()?;
    ModelFile::new(task, &model, Some(meta)).save(&dir.join("model.json"))?;
    let path = dir.join("summary.json");
    write_file(&path, to_json(&summary, &path, true)?.as_bytes())?;
    Ok(Outcome::Finished { summary: Box::new(summary), model: Box::new(model) })
}

/// The provenance a model file of `trainer`'s run carries: seed, iterations, how the run ended
/// (`outcome`, as in its summary), and the command that reproduces it.
pub fn model_meta(trainer: &Trainer) -> serde_json::Value {
    let (state, s) = (trainer.state(), trainer.summary());
    let variant = match state.variant {
        Variant::Nhc => String::new(),
        v => format!(" --variant {v}"),
    };
    let (task, seed) = (trainer.task(), state.seed);
    let name = task.name();
    // A declared algorithm is trained from its declaration, and a built-in on another domain
    // (e.g. a Python one) from Python; the trainer knows neither file.
    let built_in = nhc_tasks::find(name).is_ok_and(|t| t.domain() == task.domain());
    let command = match task.digest() {
        Some(_) => format!("python -m nhc train --algorithm FILE:NAME{variant} --seed {seed}"),
        None if built_in => format!("nhc train --task {name}{variant} --seed {seed}"),
        None => format!("nhc.train({name:?}, {seed}, domain=…) on domain `{}`", task.domain()),
    };
    serde_json::json!({
        "seed": state.seed, "iterations": s.iterations, "learning_iterations": s.learning_iterations,
        "outcome": s.outcome, "command": command,
    })
}

/// The sentence of the finished run in `dir` ([`RunSummary::sentence`]), from its summary.json
/// and its checkpoint (the curriculum's levels).
pub fn sentence(dir: &Path) -> Result<String, RunDirError> {
    let path = dir.join("summary.json");
    let text = read_text(&path, "summary file", MAX_STATE_BYTES)?;
    let summary: RunSummary =
        serde_json::from_str(&text).map_err(|source| RunDirError::Damaged { path, source })?;
    let levels = load_checkpoint(dir)?.state.curriculum.levels;
    Ok(summary.sentence(levels, &dir.join("model.json")))
}

/// What a run directory's metrics.jsonl says: θ's raw fitness per iteration, and the number of
/// learning iterations spent on each level (index 0 = level 1).
#[derive(Debug, Clone, PartialEq)]
pub struct RunMetrics {
    pub fitness: Vec<f64>,
    pub learning_per_level: Vec<u64>,
}

impl RunMetrics {
    /// The run's learning curve, thinned for a sweep line.
    pub fn curve(&self) -> Curve {
        Curve::thin(&self.fitness, &self.learning_per_level)
    }
}

/// Reads the metrics.jsonl of the run in `dir`.
pub fn read_metrics(dir: &Path) -> Result<RunMetrics, RunDirError> {
    let path = dir.join("metrics.jsonl");
    let text = read_text(&path, "metrics file", 4 * MAX_STATE_BYTES)?;
    let mut m = RunMetrics { fitness: Vec::new(), learning_per_level: Vec::new() };
    for (i, l) in text.lines().enumerate() {
        let v: MetricsLine = serde_json::from_str(l).map_err(|source| RunDirError::Metrics {
            path: path.clone(),
            line: i + 1,
            source,
        })?;
        let level = v.log.level;
        m.fitness.push(v.log.fitness_raw);
        if m.learning_per_level.len() < level {
            m.learning_per_level.resize(level, 0);
        }
        if v.log.update.learned() && level > 0 {
            m.learning_per_level[level - 1] += 1;
        }
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A metrics line of `level` that learned or not, the other fields as a run writes them.
    fn line(iteration: u64, level: usize, learned: bool) -> String {
        let update = if learned { crate::Update::Mistake } else { crate::Update::SkipMaxFitness };
        let log = crate::IterationLog {
            iteration,
            level,
            fitness_raw: 0.5,
            update,
            failed: usize::from(learned),
            best_offspring: None,
            offspring_raw: Vec::new(),
            offspring_shaped: Vec::new(),
            offspring_steps: Vec::new(),
            advance: crate::Advance::Stay,
            check: None,
            perfect_streak: 0,
            restarts: 0,
            learning_iterations: 0,
            steps: 0,
        };
        serde_json::to_string(&MetricsLine { log, wall_seconds: 0.0 }).unwrap_or_default()
    }

    /// Learning iterations are counted on the level of their batch.
    #[test]
    fn learning_is_counted_per_level() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let lines =
            [line(1, 1, true), line(2, 1, true), line(3, 1, false), line(4, 3, true), line(5, 11, false)];
        std::fs::write(dir.path().join("metrics.jsonl"), lines.join("\n"))?;
        let m = read_metrics(dir.path())?;
        assert_eq!(m.learning_per_level, vec![2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(m.fitness.len(), 5);
        Ok(())
    }
}
