//! Training the DNC by backpropagation on a task's curriculum (paper, "Details to the Comparison
//! Methods"): each iteration draws a batch from the NHC's curriculum and bad memories, runs the
//! DNC on it with teacher forcing, and takes one Adam step on the cross-entropy of every expected
//! target. An iteration is perfect when the DNC's argmax gets every target of every sample right
//! (the NHC's solve rule then counts it); it counts as learning when it is not.
//!
//! A run directory holds `config.json` ([`DncTrainConfig`]), `checkpoint.json` ([`State`]) with
//! the tensors of the same iteration (`tensors-<iteration>.safetensors`: parameters and Adam's
//! moments, written first), `metrics.jsonl` (one [`DncLine`] per iteration), `lock`, and when
//! done `summary.json` ([`DncSummary`]).

use crate::episodes::{Batch, episodes, sizes};
use crate::{Dnc, DncError, Params};
use candle_core::{DType, Device, Tensor};
use nhc_grad::{Adam, AdamConfig};
use nhc_io::write_atomic;
use nhc_tasks::registry::find_in;
use nhc_tasks::{AnyTask, EpisodeShape, SampleRng};
use nhc_train::TrainConfig;
pub use nhc_train::backprop::{DncLine, DncOutcome, DncSummary};
use nhc_train::curriculum::{Curriculum, Progress};
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Iterations between checkpoints at the least, and seconds.
const CHECKPOINT_ITERATIONS: u64 = 50;
const CHECKPOINT_SECONDS: f64 = 60.0;

/// The curriculum and bad memories of the NHC (MODEL §7), with its batch size.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CurriculumConfig {
    pub batch: usize,
    pub levels: usize,
    pub perfect_to_solve: u64,
    pub perfect_to_solve_after_learning: u64,
    pub bad_memories: usize,
    pub share_earlier: f64,
    pub share_bad: f64,
}

impl Default for CurriculumConfig {
    /// The NHC's ([`TrainConfig::default`]).
    fn default() -> Self {
        let t = TrainConfig::default();
        CurriculumConfig {
            batch: t.batch,
            levels: t.levels,
            perfect_to_solve: t.perfect_to_solve,
            perfect_to_solve_after_learning: t.perfect_to_solve_after_learning,
            bad_memories: t.bad_memories,
            share_earlier: t.share_earlier,
            share_bad: t.share_bad,
        }
    }
}

impl CurriculumConfig {
    /// The NHC's training config with these curriculum fields (what [`Curriculum`] reads).
    fn train_config(&self) -> TrainConfig {
        TrainConfig {
            batch: self.batch,
            levels: self.levels,
            perfect_to_solve: self.perfect_to_solve,
            perfect_to_solve_after_learning: self.perfect_to_solve_after_learning,
            bad_memories: self.bad_memories,
            share_earlier: self.share_earlier,
            share_bad: self.share_bad,
            ..TrainConfig::default()
        }
    }
}

/// One run's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DncTrainConfig {
    pub task: String,
    pub domain: String,
    pub seed: u64,
    /// The iteration cap (the paper: 500 000).
    pub iterations: u64,
    /// LSTM units (the paper: 64; 256 for search).
    pub hidden: usize,
    pub adam: AdamConfig,
    pub curriculum: CurriculumConfig,
}

impl DncTrainConfig {
    /// The paper's settings for `task` on `domain` (its DNC domain when `None`, see
    /// [`dnc_domain`]), with `iterations` as the cap.
    pub fn paper(task: &str, domain: Option<&str>, seed: u64, iterations: u64) -> Result<Self, TrainError> {
        let t = find_in(task, Some(domain.unwrap_or(dnc_domain(task))))?;
        Ok(DncTrainConfig {
            task: t.name().into(),
            domain: t.domain().into(),
            seed,
            iterations,
            hidden: if t.name() == "search" { 256 } else { 64 },
            adam: AdamConfig::default(),
            curriculum: CurriculumConfig::default(),
        })
    }
}

/// The domain the DNC trains on: the NHC's training domain, except arithmetic mod 10 (paper,
/// "Details to the Comparison Methods").
pub fn dnc_domain(task: &str) -> &'static str {
    match task {
        "arithmetic" => "mod10",
        _ => find_in(task, None).map_or("", |t| t.domain()),
    }
}

/// What the trainer carries between iterations (with the tensors of the same iteration).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct State {
    pub iteration: u64,
    pub curriculum: Curriculum,
    pub rng: rand_chacha::ChaCha8Rng,
    pub adam_steps: u64,
    pub learning_iterations: u64,
    /// The last level whose batch had a mistake (0: none).
    pub last_level_learned: usize,
    pub seconds: f64,
    /// The tensors file of this iteration.
    pub tensors: String,
}

/// Errors of a DNC run.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error(transparent)]
    Task(#[from] nhc_tasks::TaskError),
    #[error(transparent)]
    Dnc(#[from] DncError),
    #[error(transparent)]
    Candle(#[from] candle_core::Error),
    #[error(transparent)]
    Grad(#[from] nhc_grad::GradError),
    #[error(transparent)]
    Read(#[from] nhc_io::limits::LimitError),
    #[error("{}: not a checkpoint's tensors: {source}", path.display())]
    Tensors { path: PathBuf, source: candle_core::Error },
    #[error(
        "a level-{level} sample needs a memory of {locations} locations: its link matrix (N²) would exceed {max} entries"
    )]
    TooLarge { level: usize, locations: usize, max: usize },
    #[error("task `{task}` on domain `{domain}` has no field encoding for the DNC")]
    NoFields { task: String, domain: String },
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: {source}", path.display())]
    Json { path: PathBuf, source: serde_json::Error },
    #[error("{} holds a run with other settings (config.json)", path.display())]
    Different { path: PathBuf },
    #[error("{} holds no DNC run (config.json)", path.display())]
    NoRun { path: PathBuf },
    #[error(transparent)]
    Lock(#[from] nhc_train::lock::LockError),
}

/// What a front end sees while a run trains.
pub trait DncObserver {
    fn started(&mut self, config: &DncTrainConfig, state: &State) {
        let _ = (config, state);
    }
    /// After each iteration; `Break` stops the run after a checkpoint.
    fn iteration(&mut self, line: &DncLine) -> ControlFlow<()>;
}

/// A DNC with its task, ready to train or evaluate.
pub struct Bound {
    pub task: &'static dyn AnyTask,
    pub shape: EpisodeShape,
    pub dnc: Dnc,
}

impl Bound {
    /// A fresh DNC for `config`'s task, parameters from its seed.
    pub fn new(config: &DncTrainConfig) -> Result<Self, TrainError> {
        let task = find_in(&config.task, Some(&config.domain))?;
        let shape = task.episode_shape().ok_or_else(|| TrainError::NoFields {
            task: config.task.clone(),
            domain: config.domain.clone(),
        })?;
        let params =
            Params::init(&sizes(task, &shape, config.hidden), DType::F32, &Device::Cpu, config.seed)?;
        Ok(Bound { task, shape, dnc: Dnc::new(params) })
    }

    /// The batch of `keys` (level, generator) as tensors.
    pub fn batch(&self, keys: impl IntoIterator<Item = (usize, SampleRng)>) -> Result<Batch, TrainError> {
        let eps = episodes(self.task, keys)?;
        Ok(Batch::new(&eps, &self.shape, &Device::Cpu)?)
    }
}

/// The outcome of [`train`].
#[derive(Debug, Clone)]
pub enum Finished {
    Done(DncSummary),
    Stopped { iteration: u64 },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> TrainError + '_ {
    move |source| TrainError::Io { path: path.into(), source }
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, TrainError> {
    let text = nhc_io::limits::read_text(path, "run file", nhc_io::limits::MAX_STATE_BYTES)?;
    serde_json::from_str(&text).map_err(|source| TrainError::Json { path: path.into(), source })
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), TrainError> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|source| TrainError::Json { path: path.into(), source })?;
    write_atomic(path, text.as_bytes()).map_err(io(path))
}

/// Trains the run `config` in `dir`: a new run in a new or empty directory, or the run there
/// resumed from its checkpoint when `dir` holds the same config (or `config` is `None`). A
/// finished run is not trained again: its summary is returned.
pub fn train(
    config: Option<DncTrainConfig>,
    dir: &Path,
    observer: &mut dyn DncObserver,
) -> Result<Finished, TrainError> {
    let _lock = nhc_train::lock::lock(dir)?;
    let (config_path, checkpoint_path) = (dir.join("config.json"), dir.join("checkpoint.json"));
    let existing: Option<DncTrainConfig> =
        if config_path.exists() { Some(read_json(&config_path)?) } else { None };
    let config = match (config, existing) {
        (Some(c), Some(old)) if c != old => return Err(TrainError::Different { path: dir.into() }),
        (_, Some(old)) => old,
        (Some(c), None) => {
            Bound::new(&c)?; // a run that cannot start leaves no config behind
            write_json(&config_path, &c)?;
            c
        }
        (None, None) => return Err(TrainError::NoRun { path: dir.into() }),
    };
    let summary_path = dir.join("summary.json");
    if summary_path.exists() {
        return Ok(Finished::Done(read_json(&summary_path)?));
    }
    let bound = Bound::new(&config)?;
    let mut adam = Adam::new(bound.dnc.params.named(), config.adam)?;
    let tc = config.curriculum.train_config();
    let mut state = if checkpoint_path.exists() {
        let state: State = read_json(&checkpoint_path)?;
        let tensors = load_tensors(&dir.join(&state.tensors))?;
        bound.dnc.params.restore(&tensors)?;
        adam.restore(&tensors, state.adam_steps)?;
        truncate_metrics(&dir.join("metrics.jsonl"), state.iteration)?;
        state
    } else {
        State {
            iteration: 0,
            curriculum: Curriculum::new(&tc),
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(config.seed),
            adam_steps: 0,
            learning_iterations: 0,
            last_level_learned: 0,
            seconds: 0.0,
            tensors: String::new(),
        }
    };
    observer.started(&config, &state);
    let metrics_path = dir.join("metrics.jsonl");
    let mut metrics = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&metrics_path)
        .map_err(io(&metrics_path))?;
    let start = Instant::now();
    let base = state.seconds;
    let mut saved = (state.iteration, 0.0);
    let mut stop = false;
    while !state.curriculum.finished && state.iteration < config.iterations && !stop {
        let keys = state.curriculum.batch(&tc, &mut state.rng);
        let level = state.curriculum.level;
        let batch = bound.batch(keys.iter().map(|(_, k)| (k.level, SampleRng::seed_from_u64(k.seed))))?;
        let logits = batch.logits(&bound.dnc)?;
        let loss = batch.loss(&logits)?;
        let verdicts = batch.verdicts(&logits)?;
        let loss_value = loss.to_dtype(DType::F64)?.to_scalar::<f64>()?;
        let grad_norm = adam.step(&loss.backward()?)?;
        let solved = verdicts.iter().filter(|v| v.solved).count();
        let perfect = solved == verdicts.len();
        for ((_, key), v) in keys.iter().zip(&verdicts) {
            if !v.solved {
                state.curriculum.bad.push(*key);
            }
        }
        if !perfect {
            state.learning_iterations += 1;
            state.last_level_learned = level;
        }
        // No restarts here, so the fitness the restart rule reads is only recorded.
        let solved_share = solved as f64 / verdicts.len().max(1) as f64;
        let _: Progress = state.curriculum.record(&tc, perfect, !perfect, solved_share);
        state.iteration += 1;
        state.adam_steps = adam.steps;
        state.seconds = base + start.elapsed().as_secs_f64();
        let (right, targets) = verdicts.iter().fold((0, 0), |(r, t), v| (r + v.right, t + v.targets));
        let line = DncLine {
            iteration: state.iteration,
            level,
            loss: loss_value,
            solved,
            batch: verdicts.len(),
            accuracy: right as f64 / targets.max(1) as f64,
            grad_norm,
            learning_iterations: state.learning_iterations,
            last_level_learned: state.last_level_learned,
            last_level_solved: state.curriculum.last_solved,
            seconds: state.seconds,
        };
        let text = serde_json::to_string(&line)
            .map_err(|source| TrainError::Json { path: metrics_path.clone(), source })?;
        writeln!(metrics, "{text}").map_err(io(&metrics_path))?;
        stop = observer.iteration(&line).is_break();
        if stop
            || state.iteration >= saved.0 + CHECKPOINT_ITERATIONS
                && state.seconds >= saved.1 + CHECKPOINT_SECONDS
        {
            checkpoint(dir, &bound, &adam, &mut state, &mut metrics)?;
            saved = (state.iteration, state.seconds);
        }
    }
    checkpoint(dir, &bound, &adam, &mut state, &mut metrics)?;
    if stop && !state.curriculum.finished && state.iteration < config.iterations {
        return Ok(Finished::Stopped { iteration: state.iteration });
    }
    let summary = DncSummary {
        task: config.task.clone(),
        domain: config.domain.clone(),
        seed: config.seed,
        iterations: state.iteration,
        learning_iterations: state.learning_iterations,
        last_level_learned: state.last_level_learned,
        last_level_solved: state.curriculum.last_solved,
        outcome: if state.curriculum.finished { DncOutcome::Solved } else { DncOutcome::Cap },
        wall_seconds: state.seconds,
        parameters: bound.dnc.params.len(),
    };
    write_json(&dir.join("summary.json"), &summary)?;
    Ok(Finished::Done(summary))
}

/// Writes the tensors of this iteration, then checkpoint.json naming them, then removes older
/// tensor files: a kill at any point leaves a checkpoint whose tensors exist.
fn checkpoint(
    dir: &Path,
    bound: &Bound,
    adam: &Adam,
    state: &mut State,
    metrics: &mut std::fs::File,
) -> Result<(), TrainError> {
    let metrics_path = dir.join("metrics.jsonl");
    metrics.flush().map_err(io(&metrics_path))?;
    metrics.sync_data().map_err(io(&metrics_path))?;
    let name = format!("tensors-{}.safetensors", state.iteration);
    let mut tensors: HashMap<String, Tensor> = adam.moments();
    tensors.extend(bound.dnc.params.tensors());
    nhc_grad::save_tensors(&tensors, &dir.join(&name), "tensors-")?;
    state.tensors = name;
    write_json(&dir.join("checkpoint.json"), state)?;
    Ok(())
}

/// Drops metric lines after the checkpoint's iteration (written before a kill), so a resumed
/// run logs each iteration once.
fn truncate_metrics(path: &Path, upto: u64) -> Result<(), TrainError> {
    let Ok(file) = std::fs::File::open(path) else { return Ok(()) };
    let mut kept = String::new();
    for line in std::io::BufReader::new(file).lines() {
        let line = line.map_err(io(path))?;
        match serde_json::from_str::<DncLine>(&line) {
            Ok(l) if l.iteration <= upto => {
                kept.push_str(&line);
                kept.push('\n');
            }
            _ => break,
        }
    }
    write_atomic(path, kept.as_bytes()).map_err(io(path))
}

/// The tensors of a checkpoint.
fn load_tensors(path: &Path) -> Result<HashMap<String, Tensor>, TrainError> {
    candle_core::safetensors::load(path, &Device::Cpu)
        .map_err(|source| TrainError::Tensors { path: path.into(), source })
}

/// The DNC of the run in `dir` at its last checkpoint, with its config.
pub fn load(dir: &Path) -> Result<(DncTrainConfig, Bound), TrainError> {
    let config: DncTrainConfig = read_json(&dir.join("config.json"))?;
    let state: State = read_json(&dir.join("checkpoint.json"))?;
    let bound = Bound::new(&config)?;
    let tensors = load_tensors(&dir.join(&state.tensors))?;
    bound.dnc.params.restore(&tensors)?;
    Ok((config, bound))
}

/// The metrics of the run in `dir`.
pub fn read_metrics(dir: &Path) -> Result<Vec<DncLine>, TrainError> {
    let path = dir.join("metrics.jsonl");
    let file = std::fs::File::open(&path).map_err(io(&path))?;
    let mut out = Vec::new();
    for line in std::io::BufReader::new(file).lines() {
        let line = line.map_err(io(&path))?;
        out.push(
            serde_json::from_str(&line).map_err(|source| TrainError::Json { path: path.clone(), source })?,
        );
    }
    Ok(out)
}
