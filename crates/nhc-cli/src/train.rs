//! `nhc train`: a run of NES on the curriculum with a progress bar, a metrics log, atomic
//! checkpoints, resumption, and at the end the model file and a summary.
//!
//! A run directory holds `config.json` (task, domain, variant, seed, hyperparameters), `checkpoint.json`
//! (the trainer state), `metrics.jsonl` (one line per iteration), and when finished
//! `model.json` and `summary.json`.

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nhc_model::Variant;
use nhc_tasks::ModelFile;
use nhc_tasks::limits::{MAX_STATE_BYTES, read_text};
use nhc_tasks::model::{LearnedModel, write_atomic};
use nhc_tasks::registry::AnyTask;
use nhc_train::{IterationLog, MetricsLine, RunSummary, TrainConfig, TrainState, Trainer, ValidConfig};
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
    pub task: &'static dyn AnyTask,
    pub variant: Variant,
    pub seed: u64,
    pub out: PathBuf,
    pub config: ValidConfig,
}

/// The checkpoint file: trainer state plus the wall time spent so far.
#[derive(Serialize, Deserialize)]
struct Checkpoint {
    state: TrainState,
    seconds: f64,
}

/// The config in `path` (TOML), or the defaults.
pub fn config_or_default(path: Option<&Path>) -> Result<TrainConfig> {
    path.map_or_else(|| Ok(TrainConfig::default()), load_config)
}

/// Reads a TrainConfig from a TOML file.
pub fn load_config(path: &Path) -> Result<TrainConfig> {
    let text = read_text(path, "config", MAX_STATE_BYTES)?;
    TrainConfig::from_toml(&text).with_context(|| format!("config {}", path.display()))
}

/// Starts a run in a new (or empty) directory.
pub fn start(run: NewRun, quiet: bool) -> Result<()> {
    let trainer = Trainer::new(run.task, run.variant, run.config, run.seed)?;
    let _lock = crate::lock::lock(&run.out)?;
    if run.out.join("checkpoint.json").exists() {
        bail!("{} already holds a run; use `nhc train --resume {}`", run.out.display(), run.out.display());
    }
    let metrics = run.out.join("metrics.jsonl");
    std::fs::File::create(&metrics).with_context(|| format!("cannot create {}", metrics.display()))?;
    drive(trainer, &run.out, 0.0, quiet)
}

/// Continues the run in `dir` from its last checkpoint.
pub fn resume(dir: &Path, quiet: bool) -> Result<()> {
    let path = dir.join("checkpoint.json");
    if !path.exists() {
        bail!("{} holds no checkpoint.json: is it a run directory?", dir.display());
    }
    let _lock = crate::lock::lock(dir)?;
    let text = read_text(&path, "checkpoint", MAX_STATE_BYTES)?;
    let cp: Checkpoint =
        serde_json::from_str(&text).with_context(|| format!("{} is damaged", path.display()))?;
    truncate_metrics(&dir.join("metrics.jsonl"), cp.state.iteration)?;
    let task = nhc_tasks::registry::find_in(&cp.state.task, cp.state.domain.as_deref())?;
    let trainer = Trainer::from_state(task, cp.state)
        .with_context(|| format!("{} cannot be resumed", path.display()))?;
    drive(trainer, dir, cp.seconds, quiet)
}

/// Drops metric lines written after the checkpoint, so a resumed run logs each iteration once.
/// Lines up to the checkpoint must all read; a damaged one there is an error that names it (a
/// damaged line after the checkpoint, e.g. cut by a kill, is dropped with the others).
fn truncate_metrics(path: &Path, upto: u64) -> Result<()> {
    let Ok(file) = std::fs::File::open(path) else { return Ok(()) };
    let mut kept = Vec::new();
    for (k, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {}", path.display()))?;
        match serde_json::from_str::<MetricsLine>(&line) {
            Ok(m) if m.iteration <= upto => kept.push(line),
            Ok(_) => break,
            Err(e) if (kept.len() as u64) < upto => bail!(
                "{} line {} is damaged ({e}); the checkpoint is at iteration {upto}: repair or remove that line, then resume",
                path.display(),
                k + 1
            ),
            Err(_) => break,
        }
    }
    let mut text = kept.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    write_atomic(path, text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

fn save_checkpoint(
    trainer: &Trainer,
    dir: &Path,
    seconds: f64,
    log: &mut std::io::BufWriter<std::fs::File>,
) -> Result<()> {
    let metrics = || format!("cannot write {}", dir.join("metrics.jsonl").display());
    log.flush().with_context(metrics)?;
    log.get_ref().sync_data().with_context(metrics)?;
    let cp = Checkpoint { state: trainer.state().clone(), seconds };
    let path = dir.join("checkpoint.json");
    write_atomic(&path, serde_json::to_string(&cp)?.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

fn drive(mut trainer: Trainer, dir: &Path, seconds_before: f64, quiet: bool) -> Result<()> {
    let state = trainer.state();
    let task = trainer.task();
    let config_json = serde_json::json!({
        "task": task.name(), "domain": task.domain(), "variant": state.variant, "seed": state.seed,
        "train": state.config, "model": trainer.model(),
    });
    let write = |name: &str, text: String| -> Result<()> {
        let path = dir.join(name);
        write_atomic(&path, text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))
    };
    write("config.json", serde_json::to_string_pretty(&config_json)?)?;
    // Buffered: lines after the last checkpoint are dropped on resume anyway.
    let mut log = std::io::BufWriter::new(
        std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(dir.join("metrics.jsonl"))
            .with_context(|| format!("cannot open {}", dir.join("metrics.jsonl").display()))?,
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
    bar.set_prefix(match state.variant {
        Variant::Nhc => task.name().to_string(),
        v => format!("{} ({v})", task.name()),
    });
    bar.set_position(trainer.state().learning_iterations);
    let mut streak: u64 = 0;
    while !trainer.done() {
        let l: IterationLog = trainer.step()?;
        streak = if l.perfect { streak + 1 } else { 0 };
        writeln!(log, "{}", serde_json::to_string(&MetricsLine::new(&l, elapsed(&start)))?)
            .with_context(|| format!("cannot write {}", dir.join("metrics.jsonl").display()))?;
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
    let summary = RunSummary {
        task: task.name().to_string(),
        domain: Some(task.domain().to_string()),
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
        finished: s.finished,
        wall_seconds: elapsed(&start),
        steps: state.steps,
        steps_per_second: state.steps as f64 / elapsed(&start).max(1e-9),
    };
    let variant = match state.variant {
        Variant::Nhc => String::new(),
        v => format!(" --variant {v}"),
    };
    let meta = serde_json::json!({
        "seed": state.seed, "iterations": s.iterations, "learning_iterations": s.learning_iterations,
        "finished": s.finished,
        "command": format!("nhc train --task {}{variant} --seed {}", task.name(), state.seed),
    });
    let model = LearnedModel { variant: state.variant, params: trainer.params()? };
    ModelFile::new(task.algorithm(), task.domain(), &model, Some(meta)).save(&dir.join("model.json"))?;
    write("summary.json", serde_json::to_string_pretty(&summary)?)?;
    crate::emit(&format!("{}\n", serde_json::to_string(&summary)?))?;
    if !s.finished {
        eprintln!("note: the run ended at the iteration cap without solving the mixed level");
    }
    Ok(())
}
