//! The DNC's row of Table 1: every run of some tasks (seeds 1..=runs) trained under one iteration
//! budget, several at a time, then evaluated at the test levels; resumable like `nhc sweep` (a
//! finished run is not trained again, a stopped one resumes, a level in its `eval.json` is not
//! evaluated again). Layout: `DIR/TASK-SEED/` is a run directory ([`crate::train`]) plus
//! `eval.json`; `DIR/dnc.jsonl` holds one [`DncRunLine`] per finished run, in task and seed
//! order, whatever order the runs finished in, rewritten as each run finishes. A test level is
//! evaluated only when the run solved a sample of the level below it (the paper leaves such
//! cells empty, "–"): a DNC that solves nothing at level 10 would spend hours failing level 100
//! (sort's level 100 takes a memory of 10 402 locations, a link matrix of 10⁸ entries).

use crate::eval::evaluate;
use crate::train::{DncObserver, DncTrainConfig, Finished, TrainError, load, read_metrics, train};
use nhc_io::write_atomic;
use nhc_train::backprop::{DncEvalReport, DncLine, DncRunLine};
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What to run.
#[derive(Debug, Clone)]
pub struct RowSpec {
    pub tasks: Vec<String>,
    /// Seeds 1..=runs per task.
    pub runs: u64,
    /// The iteration budget of every run.
    pub iterations: u64,
    pub out: PathBuf,
    /// Runs trained at the same time.
    pub jobs: usize,
    pub levels: Vec<usize>,
    pub samples: usize,
    pub eval_seed: u64,
}

/// What a front end sees of a row.
pub trait RowObserver: Sync {
    /// A run is done (trained and evaluated here or before).
    fn finished(&self, line: &DncRunLine);
    /// Whether to stop: runs in training stop after a checkpoint, no new run starts.
    fn stop(&self) -> bool {
        false
    }
}

/// Stops a run when the row's observer says so.
struct Stopper<'a>(&'a dyn RowObserver);

impl DncObserver for Stopper<'_> {
    fn iteration(&mut self, _: &DncLine) -> ControlFlow<()> {
        if self.0.stop() { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    }
}

/// Runs the row `spec`; returns the lines of the finished runs (all of them unless stopped).
pub fn row(spec: &RowSpec, observer: &dyn RowObserver) -> Result<Vec<DncRunLine>, TrainError> {
    let mut configs = Vec::new();
    for task in &spec.tasks {
        for seed in 1..=spec.runs {
            let c = DncTrainConfig::paper(task, None, seed, spec.iterations)?;
            for &level in &spec.levels {
                nhc_tasks::registry::find_in(&c.task, Some(&c.domain))?.check_level(level)?;
            }
            configs.push(c);
        }
    }
    let queue = Mutex::new(configs.iter().enumerate().collect::<Vec<_>>().into_iter());
    let done: Mutex<Vec<(usize, DncRunLine)>> = Mutex::new(Vec::new());
    let error: Mutex<Option<TrainError>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..spec.jobs.max(1) {
            scope.spawn(|| {
                loop {
                    if observer.stop() || error.lock().is_ok_and(|e| e.is_some()) {
                        return;
                    }
                    let Some((k, config)) = queue.lock().ok().and_then(|mut q| q.next()) else { return };
                    match run_one(spec, config, observer) {
                        Ok(Some(line)) => {
                            observer.finished(&line);
                            // dnc.jsonl holds every run finished so far, so a report can be
                            // drawn while the row is under way.
                            let written = done.lock().map_or(Ok(()), |mut d| {
                                d.push((k, line));
                                d.sort_by_key(|(k, _)| *k);
                                let lines: Vec<DncRunLine> = d.iter().map(|(_, l)| l.clone()).collect();
                                write_lines(&spec.out.join("dnc.jsonl"), &lines)
                            });
                            if let Err(e) = written {
                                if let Ok(mut slot) = error.lock() {
                                    slot.get_or_insert(e);
                                }
                                return;
                            }
                        }
                        Ok(None) => return,
                        Err(e) => {
                            if let Ok(mut slot) = error.lock() {
                                slot.get_or_insert(e);
                            }
                            return;
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = error.into_inner().ok().flatten() {
        return Err(e);
    }
    let mut done = done.into_inner().unwrap_or_default();
    done.sort_by_key(|(k, _)| *k);
    let lines: Vec<DncRunLine> = done.into_iter().map(|(_, l)| l).collect();
    write_lines(&spec.out.join("dnc.jsonl"), &lines)?;
    Ok(lines)
}

/// The directory of a run.
pub fn run_dir(out: &Path, config: &DncTrainConfig) -> PathBuf {
    out.join(format!("{}-{}", config.task, config.seed))
}

/// Trains (or resumes, or skips) one run and evaluates it: its line, `None` when stopped.
fn run_one(
    spec: &RowSpec,
    config: &DncTrainConfig,
    observer: &dyn RowObserver,
) -> Result<Option<DncRunLine>, TrainError> {
    let dir = run_dir(&spec.out, config);
    let summary = match train(Some(config.clone()), &dir, &mut Stopper(observer))? {
        Finished::Done(s) => s,
        Finished::Stopped { .. } => return Ok(None),
    };
    let eval_path = dir.join("eval.json");
    let mut eval: BTreeMap<String, DncEvalReport> = match std::fs::read_to_string(&eval_path) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|source| TrainError::Json { path: eval_path.clone(), source })?,
        Err(_) => BTreeMap::new(),
    };
    let (_, bound) = load(&dir)?;
    let mut levels = spec.levels.clone();
    levels.sort_unstable();
    for (k, &level) in levels.iter().enumerate() {
        if eval.contains_key(&level.to_string()) {
            continue;
        }
        // A level above one where no sample was solved is not evaluated (the paper's "–").
        if k > 0 && eval.get(&levels[k - 1].to_string()).is_none_or(|e| e.solved == 0) {
            break;
        }
        if observer.stop() {
            return Ok(None);
        }
        eval.insert(level.to_string(), evaluate(&bound, level, spec.samples, spec.eval_seed)?);
        let text = serde_json::to_string_pretty(&eval)
            .map_err(|source| TrainError::Json { path: eval_path.clone(), source })?;
        write_atomic(&eval_path, text.as_bytes())
            .map_err(|source| TrainError::Io { path: eval_path.clone(), source })?;
    }
    Ok(Some(DncRunLine::new(summary, eval, &read_metrics(&dir)?)))
}

fn write_lines(path: &Path, lines: &[DncRunLine]) -> Result<(), TrainError> {
    let mut text = String::new();
    for l in lines {
        text += &serde_json::to_string(l).map_err(|source| TrainError::Json { path: path.into(), source })?;
        text.push('\n');
    }
    write_atomic(path, text.as_bytes()).map_err(|source| TrainError::Io { path: path.into(), source })
}
