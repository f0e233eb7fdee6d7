//! Training the DNC on a task's curriculum: it learns copy's first levels, a stopped run resumes
//! to the uninterrupted result, and evaluation follows `nhc eval`'s samples.

#![allow(clippy::unwrap_used)] // test helpers: a failed unwrap is a failing test

use nhc_dnc::eval::evaluate;
use nhc_dnc::train::{
    CurriculumConfig, DncLine, DncObserver, DncTrainConfig, Finished, load, read_metrics, train,
};
use std::ops::ControlFlow;

/// Stops the run after `at` iterations (never with `None`).
struct StopAt(Option<u64>);

impl DncObserver for StopAt {
    fn iteration(&mut self, line: &DncLine) -> ControlFlow<()> {
        if Some(line.iteration) == self.0 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    }
}

/// copy with a short solve rule (a level is solved after 20 perfect iterations, 40 after a
/// mistake) and a smaller batch, so that a test can watch levels pass.
fn quick(task: &str, iterations: u64) -> DncTrainConfig {
    let mut c = DncTrainConfig::paper(task, None, 1, iterations).unwrap();
    c.hidden = 32;
    c.curriculum = CurriculumConfig {
        batch: 16,
        perfect_to_solve: 20,
        perfect_to_solve_after_learning: 40,
        ..Default::default()
    };
    c.adam.learning_rate = 3e-3;
    c
}

#[test]
fn the_dnc_learns_copy_past_level_2() {
    let dir = tempfile::tempdir().unwrap();
    let Finished::Done(summary) = train(Some(quick("copy", 1500)), dir.path(), &mut StopAt(None)).unwrap()
    else {
        panic!("the run was not stopped")
    };
    assert!(summary.last_level_solved >= 2, "{summary:?}");
    let lines = read_metrics(dir.path()).unwrap();
    assert_eq!(lines.len() as u64, summary.iterations);
    assert!(lines.windows(2).all(|w| w[1].iteration == w[0].iteration + 1));
    // What the curriculum solved, the DNC solves on fresh samples of level 2.
    let (_, bound) = load(dir.path()).unwrap();
    let report = evaluate(&bound, 2, 20, 7).unwrap();
    assert!(report.solved >= 15, "{report:?}");
}

#[test]
fn a_stopped_run_resumes_to_the_uninterrupted_result() {
    let config = quick("sort", 120);
    let whole = tempfile::tempdir().unwrap();
    train(Some(config.clone()), whole.path(), &mut StopAt(None)).unwrap();
    let parts = tempfile::tempdir().unwrap();
    let stopped = train(Some(config.clone()), parts.path(), &mut StopAt(Some(37))).unwrap();
    assert!(matches!(stopped, Finished::Stopped { iteration: 37 }));
    // Other settings for a directory that holds a run are refused; the same settings resume it.
    let other = DncTrainConfig { seed: 2, ..config.clone() };
    assert!(train(Some(other), parts.path(), &mut StopAt(None)).is_err());
    train(Some(config), parts.path(), &mut StopAt(None)).unwrap();
    let strip = |mut l: DncLine| {
        l.seconds = 0.0;
        l
    };
    let a: Vec<_> = read_metrics(whole.path()).unwrap().into_iter().map(strip).collect();
    let b: Vec<_> = read_metrics(parts.path()).unwrap().into_iter().map(strip).collect();
    assert_eq!(a, b);
    let (_, x) = load(whole.path()).unwrap();
    let (_, y) = load(parts.path()).unwrap();
    for ((_, p), (_, q)) in x.dnc.params.named().iter().zip(y.dnc.params.named()) {
        let (p, q) = (
            p.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
            q.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
        );
        assert_eq!(p, q);
    }
    // A finished run is not trained again.
    let Finished::Done(s) = train(None, whole.path(), &mut StopAt(None)).unwrap() else { panic!() };
    assert_eq!(s.iterations, 120);
    assert_eq!(read_metrics(whole.path()).unwrap().len(), 120);
    assert!(train(None, tempfile::tempdir().unwrap().path(), &mut StopAt(None)).is_err());
}

#[test]
fn evaluation_refuses_what_it_cannot_run() {
    assert!(DncTrainConfig::paper("nosuch", None, 1, 1).is_err());
    let dir = tempfile::tempdir().unwrap();
    train(Some(quick("reverse", 2)), dir.path(), &mut StopAt(None)).unwrap();
    let (_, bound) = load(dir.path()).unwrap();
    assert!(evaluate(&bound, 0, 5, 1).is_err());
    assert!(evaluate(&bound, 3, 0, 1).is_err());
    let r = evaluate(&bound, 3, 4, 1).unwrap();
    assert_eq!(r.progress.len(), 4);
}

/// Iterations per second of the paper's settings per task, at levels 1, 5 and 10 (no assertion;
/// run with `--ignored --nocapture` in `--profile ci`).
#[test]
#[ignore]
fn iterations_per_second() {
    use nhc_dnc::train::Bound;
    use nhc_tasks::sample_rng;
    for task in ["search", "addition", "sort", "arithmetic", "copy", "repeatCopy", "reverse", "duplicated"] {
        let config = DncTrainConfig::paper(task, None, 1, 1).unwrap();
        let bound = Bound::new(&config).unwrap();
        let mut adam = nhc_grad::Adam::new(bound.dnc.params.named(), config.adam).unwrap();
        let mut line = format!("{task:>10}:");
        for level in [1, 5, 10] {
            let start = std::time::Instant::now();
            let reps = 3;
            for r in 0..reps {
                let batch = bound.batch((0..32).map(|i| (level, sample_rng(r, level, i)))).unwrap();
                let logits = batch.logits(&bound.dnc).unwrap();
                adam.step(&batch.loss(&logits).unwrap().backward().unwrap()).unwrap();
            }
            let per = start.elapsed().as_secs_f64() / reps as f64;
            line += &format!("  level {level}: {:.3} s/iteration", per);
        }
        eprintln!("{line}");
    }
}
