//! Sweeps through the library: the lines do not depend on the number of jobs, a sweep stopped by
//! its observer is continued by running it again, and a sweep that cannot start touches nothing.

use nhc_model::Variant;
use nhc_train::sweep::{self, Quiet, SeedRange, SweepError, SweepLine, SweepObserver, SweepSpec};
use nhc_train::{MetricsLine, RunSummary, TaskConfigs, TrainConfig};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Mutex;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Two runs each of copy and reverse, on two short levels, capped at 200 learning iterations.
fn spec(out: &Path, jobs: usize) -> Result<SweepSpec, Box<dyn std::error::Error>> {
    let config = TrainConfig {
        levels: 2,
        perfect_to_solve: 20,
        perfect_to_solve_after_learning: 20,
        max_iterations: 200,
        ..TrainConfig::default()
    };
    Ok(SweepSpec {
        tasks: vec!["copy".into(), "reverse".into()],
        variant: Variant::Nhc,
        seeds: SeedRange::runs(2)?,
        out: out.to_path_buf(),
        jobs,
        levels: vec![5, 20],
        samples: 5,
        eval_seed: sweep::EVAL_SEED,
        config: TaskConfigs::single(config.validate()?),
    })
}

/// A line without what two runs of the same sweep may differ in: wall times, the directory.
fn untimed(line: &SweepLine) -> Result<serde_json::Value, serde_json::Error> {
    let mut v = serde_json::to_value(line)?;
    v["dir"] = serde_json::Value::Null;
    for key in ["wall_seconds", "steps_per_second"] {
        v["summary"][key] = serde_json::Value::Null;
    }
    if let Some(eval) = v["eval"].as_object_mut() {
        eval.values_mut().for_each(|e| e["seconds"] = serde_json::Value::Null);
    }
    Ok(v)
}

fn untimed_all(lines: &[SweepLine]) -> Result<Vec<serde_json::Value>, serde_json::Error> {
    lines.iter().map(untimed).collect()
}

/// Stops the sweep at iteration 30 of any run; counts the summaries and lines it saw.
#[derive(Default)]
struct StopAt30 {
    trained: Mutex<Vec<RunSummary>>,
    finished: Mutex<usize>,
}

impl SweepObserver for StopAt30 {
    fn iteration(&self, _: &str, _: u64, line: &MetricsLine) -> ControlFlow<()> {
        if line.log.iteration == 30 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    }
    fn trained(&self, summary: &RunSummary) -> ControlFlow<()> {
        if let Ok(mut v) = self.trained.lock() {
            v.push(summary.clone());
        }
        ControlFlow::Continue(())
    }
    fn finished(&self, _: &SweepLine) -> ControlFlow<()> {
        if let Ok(mut n) = self.finished.lock() {
            *n += 1;
        }
        ControlFlow::Continue(())
    }
}

#[test]
fn sweep_lines_do_not_depend_on_jobs_and_a_stopped_sweep_continues() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let one = sweep::sweep(&spec(&tmp.path().join("one"), 1)?, &Quiet)?;
    let names: Vec<(&str, u64)> = one.iter().map(|l| (l.summary.task.as_str(), l.summary.seed)).collect();
    assert_eq!(names, [("copy", 1), ("copy", 2), ("reverse", 1), ("reverse", 2)]);
    assert!(one.iter().all(|l| l.eval.len() == 2 && l.curve.is_some() && l.summary.lineages.is_some()));
    let seeds = SeedRange::runs(2)?;
    assert!(one.iter().all(|l| l.seeds == Some(seeds)));
    let written = std::fs::read_to_string(tmp.path().join("one/sweep.jsonl"))?;
    assert!(written.lines().all(|l| l.contains(r#""seeds":"1-2""#)), "{written}");
    let read: Vec<SweepLine> = written.lines().map(serde_json::from_str).collect::<Result<_, _>>()?;
    assert_eq!(untimed_all(&read)?, untimed_all(&one)?);

    let two = sweep::sweep(&spec(&tmp.path().join("two"), 2)?, &Quiet)?;
    assert_eq!(untimed_all(&two)?, untimed_all(&one)?);

    let dir = tmp.path().join("stopped");
    let stop = StopAt30::default();
    let err = sweep::sweep(&spec(&dir, 2)?, &stop).err().ok_or("the observer stops the sweep")?;
    assert!(matches!(err, SweepError::Stopped), "{err:?}");
    assert!(dir.join("copy-1/checkpoint.json").exists() && !dir.join("sweep.jsonl").exists());
    let again = StopAt30::default();
    let resumed = sweep::sweep(&spec(&dir, 1)?, &Quiet)?;
    assert_eq!(untimed_all(&resumed)?, untimed_all(&one)?);
    // Run once more, nothing trains and every line is reported.
    let same = sweep::sweep(&spec(&dir, 2)?, &again)?;
    assert_eq!(same, resumed);
    assert_eq!(
        (again.trained.lock().map(|v| v.len()).ok(), again.finished.lock().map(|n| *n).ok()),
        (Some(0), Some(4))
    );
    Ok(())
}

#[test]
fn a_sweep_that_cannot_start_touches_nothing() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let out = tmp.path().join("sweep");
    let refused = |s: SweepSpec| sweep::sweep(&s, &Quiet).err();
    assert!(matches!(refused(SweepSpec { samples: 0, ..spec(&out, 1)? }), Some(SweepError::NoSamples)));
    assert!(matches!(refused(SweepSpec { levels: vec![], ..spec(&out, 1)? }), Some(SweepError::NoLevels)));
    let unknown = refused(SweepSpec { tasks: vec!["nope".into()], ..spec(&out, 1)? });
    assert!(unknown.is_some_and(|e| e.to_string().starts_with("unknown task `nope`")));
    let level = refused(SweepSpec { levels: vec![10, 0], ..spec(&out, 1)? });
    assert!(level.is_some_and(|e| e.to_string() == "level must be at least 1, got 0"));
    assert!(!out.exists());
    Ok(())
}

/// Committed sweep lines, written before lines carried their seeds, load and write back
/// unchanged (as JSON values: Python wrote some numbers in another form): no `seeds` key
/// appears.
#[test]
fn committed_lines_without_seeds_round_trip() -> TestResult {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../results/full.jsonl");
    for text in std::fs::read_to_string(path)?.lines() {
        let line: SweepLine = serde_json::from_str(text)?;
        assert_eq!(line.seeds, None);
        assert_eq!(serde_json::to_value(&line)?, serde_json::from_str::<serde_json::Value>(text)?);
    }
    Ok(())
}
