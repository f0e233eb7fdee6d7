//! `nhc sweep`: the sweep of [`nhc_train::sweep`] (a run per task and seed of a range, several
//! at a time, each evaluated at the test levels, MODEL §8; resumable) under the command's flags.
//! It prints the summary of each run trained here, shows the runs done on a progress bar (on a
//! terminal), and ends with the number of runs and the path of `DIR/sweep.jsonl`. Ctrl-C stops
//! every run at a checkpoint and prints the command that resumes the sweep (the same one).

use crate::interrupt::{self, Interrupted};
use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use nhc_io::limits;
use nhc_train::sweep::{MAX_JOBS, MAX_RUNS, SeedRange, SweepError, SweepLine, SweepObserver, SweepSpec};
use nhc_train::{MetricsLine, RunOutcome, RunSummary};
use std::ops::ControlFlow;
use std::sync::Mutex;

/// Runs per task when neither --runs nor --seeds is given: seeds 1–15.
const RUNS: u64 = 15;

/// The seeds of `--runs N` (seeds 1 to N, default [`RUNS`]) or `--seeds FIRST-LAST`, not both.
pub fn seeds(runs: Option<u64>, seeds: Option<&str>) -> Result<SeedRange> {
    match (runs, seeds) {
        (Some(_), Some(_)) => bail!("give --runs or --seeds, not both (--runs N is --seeds 1-N)"),
        (None, Some(seeds)) => Ok(seeds.parse::<SeedRange>().context("--seeds")?),
        (runs, None) => {
            let runs = runs.unwrap_or(RUNS);
            if runs == 0 {
                bail!("--runs must be at least 1");
            }
            limits::at_most("--runs", runs, MAX_RUNS)?;
            Ok(SeedRange::runs(runs)?)
        }
    }
}

/// `nhc sweep`: the flags checked by their names, then [`nhc_train::sweep`] with a progress bar.
pub fn run(spec: SweepSpec) -> Result<()> {
    let s = &spec;
    // The flags are checked, by their names, before the first run trains (the seeds by
    // [`seeds`]).
    limits::at_most("--jobs", s.jobs as u64, MAX_JOBS)?;
    if s.samples == 0 {
        bail!("--samples must be at least 1");
    }
    limits::at_most("--samples", s.samples as u64, limits::MAX_SAMPLES as u64)?;
    if s.levels.is_empty() {
        bail!("give at least one test level");
    }
    let again = std::env::args().skip(1).map(|a| crate::eval::shell_word(&a)).collect::<Vec<_>>().join(" ");
    interrupt::catch(format!(
        "stopped at once: every run resumes from its last checkpoint; run the same command again to resume \
         the sweep: nhc {again}"
    ));
    let shown = Shown { bar: ProgressBar::no_length(), error: Mutex::new(None) };
    if !crate::cluster::leads() {
        shown.bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let result = match crate::cluster::sweep(&spec, &shown) {
        Err(e) if interrupt::requested() && matches!(e.downcast_ref(), Some(SweepError::Stopped)) => {
            Err(Interrupted(format!(
                "stopped: every run is saved at its last checkpoint; run the same command again to resume \
                 the sweep: nhc {again}"
            ))
            .into())
        }
        r => r.map(|_| ()),
    };
    shown.bar.finish_and_clear();
    if let Some(e) = shown.error.into_inner().ok().flatten() {
        return Err(e);
    }
    crate::cluster::end(result)?;
    if !crate::cluster::leads() {
        return Ok(());
    }
    let runs = std::fs::read_to_string(spec.out.join("sweep.jsonl"))?.lines().count();
    crate::emit(&format!("{runs} runs: {}\n", spec.out.join("sweep.jsonl").display()))
}

/// What the command shows of a sweep: the runs done, and each run trained here as its summary
/// line (an error writing it stops the sweep and is returned).
struct Shown {
    bar: ProgressBar,
    error: Mutex<Option<anyhow::Error>>,
}

impl SweepObserver for Shown {
    fn started(&self, runs: &[(String, u64)]) {
        self.bar.set_length(runs.len() as u64);
        self.bar.set_style(
            ProgressStyle::with_template(
                "[{elapsed_precise}] {bar:30} {pos}/{len} runs trained and evaluated",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
    }

    /// Ctrl-C stops every run after its current iteration, at a checkpoint.
    fn iteration(&self, _: &str, _: u64, _: &MetricsLine) -> ControlFlow<()> {
        if interrupt::requested() { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    }

    fn trained(&self, summary: &RunSummary) -> ControlFlow<()> {
        let printed = self.bar.suspend(|| -> Result<()> {
            crate::emit(&format!("{}\n", serde_json::to_string(summary)?))?;
            if summary.outcome == RunOutcome::Cap {
                diag!("note: the run ended at the iteration cap without solving the mixed level");
            }
            Ok(())
        });
        match printed {
            Ok(()) if interrupt::requested() => ControlFlow::Break(()),
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                if let Ok(mut slot) = self.error.lock() {
                    slot.get_or_insert(e);
                }
                ControlFlow::Break(())
            }
        }
    }

    fn finished(&self, _: &SweepLine) -> ControlFlow<()> {
        self.bar.inc(1);
        if interrupt::requested() { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    }
}
