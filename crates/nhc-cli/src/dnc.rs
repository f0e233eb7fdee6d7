//! `nhc dnc`: the DNC trained by backpropagation (crate `nhc-dnc`, on candle), the baseline row
//! of Table 1. Built only with the feature `dnc` (`cargo build --release --features dnc`); the
//! default build answers with that command instead.

use clap::Subcommand;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum DncCommand {
    /// Train the DNC on a task's curriculum (resumable: the same command continues the run).
    Train {
        #[arg(long)]
        task: String,
        /// The data domain (default: the task's DNC domain; arithmetic: mod10).
        #[arg(long)]
        domain: Option<String>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
        /// The iteration cap (the paper's: 500 000).
        #[arg(long, default_value_t = 500_000)]
        iterations: u64,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Evaluate a trained DNC (a run directory) on fresh samples of one level, the samples
    /// `nhc eval` draws with the same seed.
    Eval {
        /// The run directory.
        #[arg(long)]
        run: PathBuf,
        #[arg(long, allow_negative_numbers = true)]
        level: i128,
        #[arg(long, default_value_t = 50)]
        samples: usize,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Train every run of some tasks under one iteration budget (seeds 1..=runs, several at a
    /// time, resumable) and evaluate each at the test levels; writes DIR/dnc.jsonl.
    Row {
        /// Task names, comma-separated.
        #[arg(long, value_delimiter = ',', required = true)]
        tasks: Vec<String>,
        #[arg(long, default_value_t = 3)]
        runs: u64,
        #[arg(long)]
        iterations: u64,
        #[arg(long)]
        out: PathBuf,
        /// Runs trained at the same time (default: the number of cores).
        #[arg(long)]
        jobs: Option<usize>,
        /// Test levels, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "10,100", allow_hyphen_values = true)]
        levels: Vec<i128>,
        #[arg(long, default_value_t = 50)]
        samples: usize,
    },
}

#[cfg(not(feature = "dnc"))]
pub fn run(_: DncCommand) -> anyhow::Result<()> {
    anyhow::bail!(
        "this nhc is built without the DNC baseline; build it with `cargo build --release --features dnc`"
    )
}

#[cfg(feature = "dnc")]
pub use with_candle::run;

#[cfg(feature = "dnc")]
mod with_candle {
    use super::DncCommand;
    use anyhow::{Result, bail};
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    use nhc_dnc::row::{RowObserver, RowSpec, row};
    use nhc_dnc::train::{DncLine, DncObserver, DncTrainConfig, Finished, State, load, train};
    use nhc_io::limits;
    use nhc_train::backprop::DncRunLine;
    use std::ops::ControlFlow;

    pub fn run(command: DncCommand) -> Result<()> {
        match command {
            DncCommand::Train { task, domain, seed, out, iterations, quiet } => {
                if iterations == 0 {
                    bail!("--iterations must be at least 1");
                }
                let config = DncTrainConfig::paper(&task, domain.as_deref(), seed, iterations)?;
                let mut bar = Bar { quiet, bar: None };
                let finished = train(Some(config), &out, &mut bar)?;
                if let Some(b) = &bar.bar {
                    b.abandon();
                }
                match finished {
                    Finished::Done(summary) => {
                        crate::emit(&format!("{}\n", serde_json::to_string(&summary)?))
                    }
                    Finished::Stopped { iteration } => {
                        crate::emit(&format!("stopped after iteration {iteration}\n"))
                    }
                }
            }
            DncCommand::Eval { run, level, samples, seed, json } => {
                limits::at_most("--samples", samples as u64, limits::MAX_SAMPLES as u64)?;
                let (_, bound) = load(&run)?;
                let r = nhc_dnc::eval::evaluate(&bound, crate::level(level)?, samples, seed)?;
                if json {
                    return crate::emit(&format!("{}\n", serde_json::to_string(&r)?));
                }
                let mean = r.progress.iter().sum::<f64>() / r.progress.len().max(1) as f64;
                crate::emit(&format!(
                    "{} ({}) level {}: {}/{} solved; on average {:.1}% of a sample's steps right before the first mistake ({:.1} s)\n",
                    r.task,
                    r.domain,
                    r.level,
                    r.solved,
                    r.samples,
                    100.0 * mean,
                    r.seconds
                ))
            }
            DncCommand::Row { tasks, runs, iterations, out, jobs, levels, samples } => {
                if runs == 0 || iterations == 0 || samples == 0 {
                    bail!("--runs, --iterations and --samples must be at least 1");
                }
                limits::at_most("--samples", samples as u64, limits::MAX_SAMPLES as u64)?;
                let jobs =
                    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
                let spec = RowSpec {
                    tasks,
                    runs,
                    iterations,
                    out: out.clone(),
                    jobs,
                    levels: levels.into_iter().map(crate::level).collect::<Result<_>>()?,
                    samples,
                    eval_seed: nhc_train::sweep::EVAL_SEED,
                };
                let lines = row(&spec, &Printed)?;
                crate::emit(&format!("{} runs: {}\n", lines.len(), out.join("dnc.jsonl").display()))
            }
        }
    }

    /// Prints each finished run's summary and evaluations.
    struct Printed;

    impl RowObserver for Printed {
        fn finished(&self, line: &DncRunLine) {
            let s = &line.summary;
            let evals: Vec<String> =
                line.eval.iter().map(|(l, e)| format!("level {l}: {}/{}", e.solved, e.samples)).collect();
            diag!(
                "{}-{}: {} iterations, last level learned {} solved {}, {} ({:.0} s)",
                s.task,
                s.seed,
                s.iterations,
                s.last_level_learned,
                s.last_level_solved,
                evals.join(", "),
                s.wall_seconds
            );
        }
    }

    /// The progress bar of `nhc dnc train`.
    struct Bar {
        quiet: bool,
        bar: Option<ProgressBar>,
    }

    impl DncObserver for Bar {
        fn started(&mut self, config: &DncTrainConfig, state: &State) {
            let bar = ProgressBar::new(config.iterations);
            if self.quiet {
                bar.set_draw_target(ProgressDrawTarget::hidden());
            }
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix} [{elapsed_precise}] {bar:30} {pos}/{len} iterations  {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.set_prefix(format!("{} (DNC)", config.task));
            bar.set_position(state.iteration);
            self.bar = Some(bar);
        }

        fn iteration(&mut self, line: &DncLine) -> ControlFlow<()> {
            if let Some(bar) = &self.bar {
                bar.set_position(line.iteration);
                if line.iteration.is_multiple_of(10) {
                    bar.set_message(line.status());
                }
            }
            ControlFlow::Continue(())
        }
    }
}
