//! `nhc train`: a run of NES on the curriculum with a progress bar, a metrics log, atomic
//! checkpoints, resumption, and at the end the model file and a summary. The run directory
//! itself is [`nhc_train::run_dir`]'s; this module adds the progress bar and the output.

use crate::cluster;
use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nhc_model::Variant;
use nhc_tasks::any_task::AnyTask;
use nhc_train::run_dir::{self, Observer, Outcome};
use nhc_train::{Advance, MetricsLine, RunOutcome, TrainConfig, TrainState, Trainer, ValidConfig};
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

/// The config in `path` (TOML), or the defaults.
pub fn config_or_default(path: Option<&Path>) -> Result<TrainConfig> {
    path.map_or_else(|| Ok(TrainConfig::default()), load_config)
}

/// Reads a TrainConfig from a TOML file.
pub fn load_config(path: &Path) -> Result<TrainConfig> {
    Ok(TrainConfig::from_file(path)?)
}

/// Starts a run in a new (or empty) directory; in an MPI job, on all its ranks ([`cluster`]).
pub fn start(run: NewRun, quiet: bool) -> Result<()> {
    cluster::end((|| {
        let trainer = cluster::join(Trainer::new(run.task, run.variant, run.config, run.seed)?);
        if !cluster::leads() {
            return cluster::follow(trainer);
        }
        let mut bar = Bar { quiet, bar: None };
        let outcome = run_dir::start(trainer, &run.out, &mut bar)?;
        bar.end(outcome)
    })())
}

/// Continues the run in `dir` from its last checkpoint; in an MPI job, rank 0 reads it and
/// sends its state to the other ranks.
pub fn resume(dir: &Path, quiet: bool) -> Result<()> {
    cluster::end((|| {
        if cluster::place().1 > 1 {
            let state = match cluster::leads() {
                true => serde_json::to_vec(&run_dir::load_checkpoint(dir)?.state)?,
                false => Vec::new(),
            };
            let state: TrainState = serde_json::from_slice(&cluster::broadcast(state))?;
            if !cluster::leads() {
                let task = nhc_tasks::registry::find_in(&state.task, Some(&state.domain))?;
                return cluster::follow(cluster::join(Trainer::from_state(task, state)?));
            }
        }
        let mut bar = Bar { quiet, bar: None };
        let outcome = run_dir::resume_with(dir, &mut bar, &cluster::join)?;
        bar.end(outcome)
    })())
}

/// The progress bar (hidden with `--quiet`), drawn once the run has started.
struct Bar {
    quiet: bool,
    bar: Option<ProgressBar>,
}

impl Observer for Bar {
    fn started(&mut self, trainer: &Trainer) {
        let bar = ProgressBar::new(trainer.config().max_iterations);
        if self.quiet {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix} [{elapsed_precise}] {bar:30} {pos} learning iterations (cap {len})  {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        let task = trainer.task();
        bar.set_prefix(match trainer.state().variant {
            Variant::Nhc => task.name().to_string(),
            v => format!("{} ({v})", task.name()),
        });
        bar.set_position(trainer.state().learning_iterations);
        self.bar = Some(bar);
    }

    fn iteration(&mut self, line: &MetricsLine) -> ControlFlow<()> {
        let Some(bar) = &self.bar else { return ControlFlow::Continue(()) };
        let l = &line.log;
        bar.set_position(l.learning_iterations);
        if let Some(c) = l.check {
            bar.println(c.to_string());
        }
        if l.iteration.is_multiple_of(10) || l.advance != Advance::Stay {
            bar.set_message(l.status());
        }
        ControlFlow::Continue(())
    }
}

impl Bar {
    /// Finishes the bar and prints the summary line (and a note when the cap ended the run).
    fn end(self, outcome: Outcome) -> Result<()> {
        // The bar stays where the run ended (a finished run's learning iterations, not the cap),
        // and what follows starts on a line of its own.
        if let Some(bar) = &self.bar {
            bar.abandon();
            if !bar.is_hidden() {
                eprintln!();
            }
        }
        let Outcome::Finished { summary, .. } = outcome else { return Ok(()) };
        crate::emit(&format!("{}\n", serde_json::to_string(&summary)?))?;
        if summary.outcome == RunOutcome::Cap {
            eprintln!("note: the run ended at the iteration cap without solving the mixed level");
        }
        Ok(())
    }
}
