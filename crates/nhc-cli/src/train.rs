//! `nhc train`: a run of NES on the curriculum with a progress bar, a metrics log, atomic
//! checkpoints, resumption, and at the end the model file and a summary. The run directory
//! itself is [`nhc_train::run_dir`]'s; this module adds the progress bar, the output, and Ctrl-C:
//! the run stops after its current iteration, at a checkpoint, and the command that resumes it
//! is printed.

use crate::cluster;
use crate::interrupt::{self, Interrupted};
use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nhc_model::Variant;
use nhc_tasks::any_task::AnyTask;
use nhc_train::run_dir::{self, Observer, Outcome};
use nhc_train::{
    Advance, IterationLog, MetricsLine, RunOutcome, TaskConfigs, TrainState, Trainer, ValidConfig,
};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// What a new run is asked to do.
pub struct NewRun {
    pub task: &'static dyn AnyTask,
    pub variant: Variant,
    pub seed: u64,
    pub out: PathBuf,
    pub config: ValidConfig,
}

/// The configs of `--recipe`, of `--config FILE` (TOML, with optional `[tasks.NAME]` tables), or
/// the defaults, the paper's; with `--max-iterations` when given.
pub fn configs(path: Option<&Path>, recipe: bool, max_iterations: Option<u64>) -> Result<TaskConfigs> {
    let configs = match (path, recipe) {
        (_, true) => TaskConfigs::recipe(),
        (Some(path), false) => TaskConfigs::from_file(path)?,
        (None, false) => TaskConfigs::single(ValidConfig::paper()),
    };
    Ok(configs.edit(|mut c| {
        if let Some(m) = max_iterations {
            c.max_iterations = m;
        }
        Ok::<_, nhc_train::ConfigError>(c)
    })?)
}

/// Exit code of `nhc train` when the run spent its budget without finishing the curriculum
/// (the model file is written all the same).
pub const EXIT_DID_NOT_LEARN: i32 = 4;

/// A run that ended at its budget: its sentence is printed; `main` exits with
/// [`EXIT_DID_NOT_LEARN`] (after an MPI job's end, which an error would abort).
#[derive(Debug)]
pub struct DidNotLearn;

impl std::fmt::Display for DidNotLearn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the run did not learn")
    }
}

impl std::error::Error for DidNotLearn {}

/// What `nhc train` prints at the end: a sentence, or with `--json` the summary.
#[derive(Debug, Clone, Copy)]
pub struct Show {
    pub quiet: bool,
    pub json: bool,
}

/// `Ok` when the run learned (or this rank only follows), else [`DidNotLearn`].
fn learned(learned: bool) -> Result<()> {
    if learned { Ok(()) } else { Err(DidNotLearn.into()) }
}

/// Starts a run in a new (or empty) directory; in an MPI job, on all its ranks ([`cluster`]).
pub fn start(run: NewRun, show: Show, yes: bool) -> Result<()> {
    interrupt::catch(at_once(&run.out));
    learned(cluster::end((|| {
        let trainer = cluster::join(Trainer::new(run.task, run.variant, run.config, run.seed)?);
        if !cluster::leads() {
            return cluster::follow(trainer).map(|()| true);
        }
        long_work(&trainer, yes)?;
        let mut bar = Bar { quiet: show.quiet, bar: None, levels: 0 };
        let outcome = run_dir::start(trainer, &run.out, &mut bar)?;
        bar.end(outcome, &run.out, show.json)
    })())?)
}

/// Continues the run in `dir` from its last checkpoint; in an MPI job, rank 0 reads it and
/// sends its state to the other ranks.
pub fn resume(dir: &Path, show: Show, yes: bool) -> Result<()> {
    interrupt::catch(at_once(dir));
    learned(cluster::end((|| {
        if cluster::place().1 > 1 {
            let state = match cluster::leads() {
                true => serde_json::to_vec(&run_dir::load_checkpoint(dir)?.state)?,
                false => Vec::new(),
            };
            let state: TrainState = serde_json::from_slice(&cluster::broadcast(state))?;
            if !cluster::leads() {
                let task = nhc_tasks::registry::find_in(&state.task, Some(&state.domain))?;
                return cluster::follow(cluster::join(Trainer::from_state(task, state)?)).map(|()| true);
            }
        }
        // The checkpoint's config passes the long-work check again, as a new run's does.
        if let Ok(cp) = run_dir::load_checkpoint(dir) {
            let task = nhc_tasks::registry::find_in(&cp.state.task, Some(&cp.state.domain))?;
            long_work(&Trainer::from_state(task, cp.state)?, yes)?;
        }
        let mut bar = Bar { quiet: show.quiet, bar: None, levels: 0 };
        let outcome = run_dir::resume_with(dir, &mut bar, &cluster::join)?;
        bar.end(outcome, dir, show.json)
    })())?)
}

/// The long-work check of a run (docs/DESIGN.md, "Long work"): one learning iteration at the
/// curriculum's highest level and a run that learns once a level
/// ([`nhc_train::trainer::work_steps`]), at the speed of the run's θ measured here on all
/// threads, are announced from 5 s and refused past an hour unless `yes`.
fn long_work(trainer: &Trainer, yes: bool) -> Result<()> {
    let model = nhc_tasks::Model::Learned(Box::new(trainer.learned()?));
    nhc_tasks::any_task::limit_work(trainer.task(), &model, rayon::current_num_threads(), yes);
    // Announced without a bar: the run draws its own.
    nhc_io::limits::set_work_notice(|line, _| diag!("{line}"));
    Ok(nhc_train::trainer::check_work(trainer.task(), trainer.config())?)
}

/// The command that resumes the run in `dir`, as the user can type it.
fn resume_command(dir: &Path) -> String {
    format!("nhc train --resume {}", crate::eval::shell_word(&dir.to_string_lossy()))
}

/// What a second Ctrl-C prints: the run ends at once, its last checkpoint still there.
fn at_once(dir: &Path) -> String {
    format!("stopped at once: the run resumes from its last checkpoint with: {}", resume_command(dir))
}

/// The progress bar (hidden with `--quiet`, and when stderr is not a terminal), drawn once the
/// run has started: it fills as the curriculum's levels are solved (levels 1..=L, then the mixed
/// level L+1), so a finished run ends full whatever its iteration count.
struct Bar {
    quiet: bool,
    bar: Option<ProgressBar>,
    /// The curriculum's ordinary levels (L); the bar has L + 1 cells.
    levels: usize,
}

/// The bar's text: the level being trained (of L+1), and the counts of the run so far.
fn status(level: usize, levels: usize, log: Option<&IterationLog>, state: (u64, u64, u64)) -> String {
    let (iteration, learning, restarts) = state;
    let mixed = if level > levels { " (mixed)" } else { "" };
    let fitness = log.map_or(String::new(), |l| {
        format!("  fitness {:.4}  perfect streak {}", l.fitness_raw, l.perfect_streak)
    });
    format!(
        "level {level}/{}{mixed}  iteration {iteration}{fitness}  learning iterations {learning}  restarts {restarts}",
        levels + 1
    )
}

impl Observer for Bar {
    fn started(&mut self, trainer: &Trainer) {
        let state = trainer.state();
        let levels = state.curriculum.levels;
        let bar = ProgressBar::new(levels as u64 + 1);
        if self.quiet {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        bar.set_style(
            ProgressStyle::with_template("{prefix} [{elapsed_precise}] {bar:30} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        let task = trainer.task();
        bar.set_prefix(match state.variant {
            Variant::Nhc => task.name().to_string(),
            v => format!("{} ({v})", task.name()),
        });
        let level = state.curriculum.level;
        bar.set_position(level.saturating_sub(1) as u64);
        let counts = (state.iteration, state.learning_iterations, state.restarts);
        bar.set_message(status(level, levels, None, counts));
        self.bar = Some(bar);
        self.levels = levels;
    }

    fn iteration(&mut self, line: &MetricsLine) -> ControlFlow<()> {
        if interrupt::requested() {
            return ControlFlow::Break(());
        }
        let Some(bar) = &self.bar else { return ControlFlow::Continue(()) };
        let l = &line.log;
        // The levels solved after this iteration, and the level the next one trains.
        let (solved, next) = match l.advance {
            Advance::Stay => (l.level - 1, l.level),
            Advance::NextLevel => (l.level, l.level + 1),
            Advance::Finished => (l.level, l.level),
            Advance::Restart | Advance::FailedCheck => (0, 1),
            Advance::Relearn => (l.level - 1, l.level),
        };
        bar.set_position(solved as u64);
        if let Some(c) = l.check {
            let then = match l.advance {
                Advance::FailedCheck => ": restart",
                Advance::Relearn => ": back to the mixed level to learn the samples it failed",
                _ => "",
            };
            bar.println(format!("{c}{then}"));
        }
        if l.iteration.is_multiple_of(10) || l.advance != Advance::Stay {
            let counts = (l.iteration, l.learning_iterations, l.restarts);
            bar.set_message(status(next, self.levels, Some(l), counts));
        }
        ControlFlow::Continue(())
    }
}

impl Bar {
    /// Finishes the bar (full when the run solved the mixed level; where the run ended when the
    /// cap or Ctrl-C ended it) and prints the run's sentence (with `json`, its summary), or how to
    /// resume a stopped run. `Ok(true)` when the run learned.
    fn end(self, outcome: Outcome, dir: &Path, json: bool) -> Result<bool> {
        if let Some(bar) = &self.bar {
            if let Outcome::Finished { summary, .. } = &outcome
                && summary.outcome == RunOutcome::Solved
            {
                bar.set_position(self.levels as u64 + 1);
            }
            bar.abandon();
            // What follows starts on a line of its own.
            if !bar.is_hidden() {
                diag!();
            }
        }
        let summary = match outcome {
            Outcome::Finished { summary, .. } => summary,
            Outcome::Stopped { iteration } => {
                return Err(Interrupted(format!(
                    "stopped: the run is saved at its last checkpoint (iteration {iteration}); resume it with: {}",
                    resume_command(dir)
                ))
                .into());
            }
        };
        let sentence = summary.sentence(self.levels, &dir.join("model.json"));
        let solved = summary.outcome == RunOutcome::Solved;
        if json {
            crate::emit(&format!("{}\n", serde_json::to_string(&summary)?))?;
            if !solved {
                diag!("note: {sentence}");
            }
        } else {
            crate::emit(&format!("{sentence}\n"))?;
        }
        Ok(solved)
    }
}
