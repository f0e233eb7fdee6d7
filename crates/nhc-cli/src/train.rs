//! `nhc train`: a run of NES on the curriculum with a progress bar, a metrics log, atomic
//! checkpoints, resumption, and at the end the model file and a summary.
//!
//! A run directory holds `config.json` (task, seed, hyperparameters), `checkpoint.json`
//! (the trainer state), `metrics.jsonl` (one line per iteration), and when finished
//! `model.json` and `summary.json`.

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nhc_tasks::model::write_atomic;
use nhc_tasks::{ModelFile, Task, with_task};
use nhc_train::{IterationLog, TrainConfig, TrainState, Trainer};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Iterations between checkpoints, at the least...
const CHECKPOINT_EVERY: u64 = 250;
/// ...and seconds: each checkpoint is an fsync, which fast runs would otherwise wait on.
const CHECKPOINT_SECONDS: f64 = 1.0;

/// What a new run is asked to do.
pub struct NewRun {
    pub task: String,
    pub seed: u64,
    pub out: PathBuf,
    pub config: TrainConfig,
}

/// The checkpoint file: trainer state plus the wall time spent so far.
#[derive(Serialize, Deserialize)]
struct Checkpoint {
    state: TrainState,
    seconds: f64,
}

/// The run's summary.json.
#[derive(Serialize)]
struct SummaryFile {
    task: String,
    seed: u64,
    iterations: u64,
    learning_iterations: u64,
    /// Updates that did not count as learning iterations (`margin_update_is_learning = false`).
    margin_updates: u64,
    last_level_learned: usize,
    last_level_solved: usize,
    restarts: u64,
    /// Restarts because the generalization check failed (included in `restarts`).
    failed_checks: u64,
    finished: bool,
    wall_seconds: f64,
    /// Model steps run in training (θ, offspring, checks).
    steps: u64,
    steps_per_second: f64,
}

/// The config in `path` (TOML), or the defaults.
pub fn config_or_default(path: Option<&Path>) -> Result<TrainConfig> {
    path.map_or_else(|| Ok(TrainConfig::default()), load_config)
}

/// Reads a TrainConfig from a TOML file.
pub fn load_config(path: &Path) -> Result<TrainConfig> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read config {}", path.display()))?;
    TrainConfig::from_toml(&text).with_context(|| format!("config {}", path.display()))
}

/// Starts a run in a new (or empty) directory.
pub fn start(run: NewRun, quiet: bool) -> Result<()> {
    if run.out.join("checkpoint.json").exists() {
        bail!("{} already holds a run; use `nhc train --resume {}`", run.out.display(), run.out.display());
    }
    std::fs::create_dir_all(&run.out).with_context(|| format!("cannot create {}", run.out.display()))?;
    let out = run.out.clone();
    with_task!(run.task.as_str(), T => {
        let trainer = Trainer::<T>::new(run.config, run.seed)?;
        std::fs::File::create(out.join("metrics.jsonl"))?;
        drive(trainer, &out, 0.0, quiet)
    })?
}

/// Continues the run in `dir` from its last checkpoint.
pub fn resume(dir: &Path, quiet: bool) -> Result<()> {
    let path = dir.join("checkpoint.json");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}: is {} a run directory?", path.display(), dir.display()))?;
    let cp: Checkpoint =
        serde_json::from_str(&text).with_context(|| format!("{} is damaged", path.display()))?;
    truncate_metrics(&dir.join("metrics.jsonl"), cp.state.iteration)?;
    let task = cp.state.task.clone();
    with_task!(task.as_str(), T => {
        let trainer = Trainer::<T>::from_state(cp.state)?;
        drive(trainer, dir, cp.seconds, quiet)
    })?
}

/// Drops metric lines written after the checkpoint, so a resumed run logs each iteration once.
fn truncate_metrics(path: &Path, upto: u64) -> Result<()> {
    let Ok(file) = std::fs::File::open(path) else { return Ok(()) };
    let mut kept = Vec::new();
    for line in std::io::BufReader::new(file).lines() {
        let line = line?;
        let it = serde_json::from_str::<serde_json::Value>(&line).ok().and_then(|v| v["iteration"].as_u64());
        match it {
            Some(i) if i <= upto => kept.push(line),
            _ => break,
        }
    }
    let mut text = kept.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    write_atomic(path, text.as_bytes())?;
    Ok(())
}

fn save_checkpoint<T: Task>(
    trainer: &Trainer<T>,
    dir: &Path,
    seconds: f64,
    log: &mut std::io::BufWriter<std::fs::File>,
) -> Result<()> {
    log.flush()?;
    log.get_ref().sync_data()?;
    let cp = Checkpoint { state: trainer.state().clone(), seconds };
    write_atomic(&dir.join("checkpoint.json"), serde_json::to_string(&cp)?.as_bytes())?;
    Ok(())
}

fn drive<T: Task>(mut trainer: Trainer<T>, dir: &Path, seconds_before: f64, quiet: bool) -> Result<()> {
    let state = trainer.state();
    let config_json = serde_json::json!({ "task": T::NAME, "seed": state.seed, "train": state.config });
    write_atomic(&dir.join("config.json"), serde_json::to_string_pretty(&config_json)?.as_bytes())?;
    // Buffered: lines after the last checkpoint are dropped on resume anyway.
    let mut log = std::io::BufWriter::new(
        std::fs::OpenOptions::new().append(true).create(true).open(dir.join("metrics.jsonl"))?,
    );
    let start = Instant::now();
    let elapsed = |start: &Instant| seconds_before + start.elapsed().as_secs_f64();
    save_checkpoint(&trainer, dir, elapsed(&start), &mut log)?;
    let mut last_save = Instant::now();

    let bar = ProgressBar::new(trainer.config().max_iterations);
    if quiet {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_prefix(T::NAME);
    bar.set_position(trainer.state().learning_iterations);
    let mut streak: u64 = 0;
    while !trainer.done() {
        let l: IterationLog = trainer.step();
        streak = if l.perfect { streak + 1 } else { 0 };
        let (raw, shaped): (Vec<f64>, Vec<f64>) = l.offspring.iter().flatten().copied().unzip();
        let line = serde_json::json!({
            "iteration": l.iteration, "level": l.level, "fitness_raw": l.fitness_raw,
            "best_offspring": l.best_offspring, "offspring_raw": raw, "offspring_shaped": shaped,
            "perfect": l.perfect, "max_fitness": l.max_fitness, "updated": l.updated,
            "learned": l.learned, "failed": l.failed, "check": l.check,
            "restarts": l.restarts, "learning_iterations": l.learning_iterations, "steps": l.steps,
            "wall_seconds": elapsed(&start),
        });
        writeln!(log, "{line}")?;
        bar.set_position(l.learning_iterations);
        if let Some(c) = l.check {
            let verdict = if c.passed() { "passed" } else { "failed: restart" };
            bar.println(format!(
                "generalization check at level {}: {}/{} solved, {verdict}",
                c.level, c.solved, c.samples
            ));
        }
        if l.iteration.is_multiple_of(10) || l.solved_level.is_some() {
            bar.set_message(format!(
                "learning iterations (cap)  iteration {:>6}  level {:>2}  fitness {:.4}  perfect streak {:>4}  restarts {}",
                l.iteration, l.level, l.fitness_raw, streak, l.restarts
            ));
        }
        if l.iteration.is_multiple_of(CHECKPOINT_EVERY)
            && last_save.elapsed().as_secs_f64() >= CHECKPOINT_SECONDS
        {
            save_checkpoint(&trainer, dir, elapsed(&start), &mut log)?;
            last_save = Instant::now();
        }
    }
    save_checkpoint(&trainer, dir, elapsed(&start), &mut log)?;
    bar.finish();

    let s = trainer.summary();
    let state = trainer.state();
    let summary = SummaryFile {
        task: T::NAME.to_string(),
        seed: state.seed,
        iterations: s.iterations,
        learning_iterations: s.learning_iterations,
        margin_updates: s.margin_updates,
        last_level_learned: s.last_level_learned,
        last_level_solved: s.last_level_solved,
        restarts: s.restarts,
        failed_checks: s.failed_checks,
        finished: s.finished,
        wall_seconds: elapsed(&start),
        steps: state.steps,
        steps_per_second: state.steps as f64 / elapsed(&start).max(1e-9),
    };
    let meta = serde_json::json!({
        "seed": state.seed, "iterations": s.iterations, "learning_iterations": s.learning_iterations,
        "finished": s.finished, "command": format!("nhc train --task {} --seed {}", T::NAME, state.seed),
    });
    ModelFile::new(T::NAME, &trainer.params()?, Some(meta)).save(&dir.join("model.json"))?;
    write_atomic(&dir.join("summary.json"), serde_json::to_string_pretty(&summary)?.as_bytes())?;
    println!("{}", serde_json::to_string(&summary)?);
    if !s.finished {
        eprintln!("note: the run ended at the iteration cap without solving the mixed level");
    }
    Ok(())
}

/// Training throughput (`nhc bench --train`): for each task, a fresh run (seed 1, default config)
/// is placed at curriculum level 1, 2, …, 10 in turn and `iterations` iterations are timed at
/// each; prints iterations and model steps per second over all levels.
pub fn throughput(tasks: &[String], iterations: u64) -> Result<()> {
    let names: Vec<String> = if tasks.is_empty() {
        nhc_tasks::names().into_iter().map(String::from).collect()
    } else {
        tasks.to_vec()
    };
    println!("| task | iterations | seconds | iterations/s | steps | steps/s |");
    println!("|---|---:|---:|---:|---:|---:|");
    for name in &names {
        let (n, steps, secs) = with_task!(name.as_str(), T => {
            let (mut n, mut steps, mut secs) = (0u64, 0u64, 0.0f64);
            for level in 1..=10 {
                let mut state = Trainer::<T>::new(TrainConfig::default(), 1)?.into_state();
                state.curriculum.level = level;
                let mut trainer = Trainer::<T>::from_state(state)?;
                let start = Instant::now();
                for _ in 0..iterations {
                    steps += trainer.step().steps;
                    n += 1;
                }
                secs += start.elapsed().as_secs_f64();
            }
            (n, steps, secs)
        })?;
        println!(
            "| {name} | {n} | {secs:.2} | {:.1} | {steps} | {:.3e} |",
            n as f64 / secs,
            steps as f64 / secs
        );
    }
    Ok(())
}
