//! End-to-end training on copy: learning happens, and runs are deterministic across thread
//! counts and checkpoints. Bounds are set from measurements (see the comments) with margin.
#![allow(clippy::unwrap_used)] // test helpers: a failed unwrap is a failing test

use nhc_model::Variant;
use nhc_tasks::any_task::AnyTask;
use nhc_train::{
    Advance, Ending, IterationLog, Lineage, OnFailedCheck, RunOutcome, TrainConfig, TrainError, TrainState,
    Trainer, Update, check_levels,
};

fn copy() -> &'static dyn AnyTask {
    nhc_tasks::find("copy").unwrap()
}

fn run(config: TrainConfig, seed: u64, iterations: u64) -> (Trainer, Vec<IterationLog>) {
    let mut t = Trainer::new(copy(), Variant::Nhc, config.validate().unwrap(), seed).unwrap();
    let mut logs = Vec::new();
    while !t.done() && t.state().iteration < iterations {
        logs.push(t.step().unwrap());
    }
    (t, logs)
}

/// Levels solved after 3 perfect iterations, so short runs climb to levels that need learning.
fn quick() -> TrainConfig {
    TrainConfig { perfect_to_solve: 3, perfect_to_solve_after_learning: 3, ..Default::default() }
}

fn bits(theta: &[f32]) -> Vec<u32> {
    theta.iter().map(|x| x.to_bits()).collect()
}

/// CI smoke test: with the default hyperparameters (the paper's protocol), seed 2 learns copy
/// through all 11 levels (measured: finished at iteration 10 575 with 75 learning iterations,
/// no restart).
#[test]
fn copy_learns_all_levels_from_scratch() {
    let (t, logs) = run(TrainConfig::default(), 2, 20_000);
    let s = t.summary();
    assert_eq!(s.outcome, Some(RunOutcome::Solved), "{s:?}");
    assert_eq!(s.last_level_solved, 11);
    assert!(logs.iter().all(|l| l.check.is_none()), "no generalization check by default");
    assert!(s.learning_iterations < 3000, "{s:?}");
    assert_eq!(logs.last().map(|l| l.advance), Some(Advance::Finished));
    assert_consistent(&logs);
    let lineages = t.lineages();
    assert_eq!(lineages.len() as u64, s.restarts + 1);
    assert_eq!(lineages.last().map(|l| (l.ending, l.level)), Some((Ending::Finished, 11)));
    assert_eq!(lineages.iter().map(|l| l.learning_iterations).sum::<u64>(), s.learning_iterations);
}

/// MODEL §6: θ is left alone only at maximum fitness, so a batch solved with a Bus margin below
/// full is still learned from; with `no_update_at = "solved"` it is not. With
/// `margin_update_is_learning` off, such updates are counted apart from learning iterations.
#[test]
fn updates_stop_only_at_maximum_fitness() {
    use nhc_train::config::NoUpdateAt;
    let only = |logs: &[IterationLog], allowed: &[Update]| logs.iter().all(|l| allowed.contains(&l.update));
    let count = |logs: &[IterationLog], u: Update| logs.iter().filter(|l| l.update == u).count() as u64;
    let (t, logs) = run(quick(), 6, 400);
    assert!(only(&logs, &[Update::Mistake, Update::Margin, Update::SkipMaxFitness]));
    assert!(count(&logs, Update::Margin) > 0, "a margin-only update must occur");
    assert!(logs.iter().all(|l| !l.update.max_fitness() || l.fitness_raw == 1.0));
    assert_eq!(t.summary().margin_updates, 0);
    assert_consistent(&logs);

    let solved = TrainConfig { no_update_at: NoUpdateAt::Solved, ..quick() };
    let (_, logs) = run(solved, 6, 400);
    assert!(only(&logs, &[Update::Mistake, Update::SkipSolved, Update::SkipMaxFitness]));
    assert!(count(&logs, Update::SkipSolved) > 0);
    assert_consistent(&logs);

    let apart = TrainConfig { margin_update_is_learning: false, ..quick() };
    let (t, logs) = run(apart, 6, 400);
    assert!(only(&logs, &[Update::Mistake, Update::MarginApart, Update::SkipMaxFitness]));
    let margin_only = count(&logs, Update::MarginApart);
    assert!(margin_only > 0);
    let s = t.summary();
    assert_eq!(s.margin_updates, margin_only);
    assert_eq!(s.learning_iterations, count(&logs, Update::Mistake));
    assert_consistent(&logs);
}

/// What the two enums of an iteration record allow together, and what the counters say: the
/// combinations the trainer produces, and no other.
fn assert_consistent(logs: &[IterationLog]) {
    let mut learning = 0;
    for l in logs {
        let u = l.update;
        learning += u64::from(u.learned());
        assert_eq!(l.learning_iterations, learning, "iteration {}", l.iteration);
        assert_eq!(l.failed > 0, u == Update::Mistake, "{l:?}");
        assert_eq!(!l.offspring_raw.is_empty(), u.updated(), "{l:?}");
        assert_eq!(l.offspring_shaped.len(), l.offspring_raw.len(), "{l:?}");
        assert_eq!(l.offspring_steps.len(), l.offspring_raw.len(), "{l:?}");
        assert!(l.offspring_steps.iter().sum::<u64>() < l.steps, "θ runs too: {l:?}");
        assert_eq!(l.best_offspring.is_some(), u.updated(), "{l:?}");
        assert!(!l.advance.solved() || u.perfect(), "{l:?}");
        assert!(l.advance != Advance::Restart || u.learned(), "{l:?}");
        let checked = matches!(l.advance, Advance::Finished | Advance::FailedCheck | Advance::Relearn)
            && l.check.is_some();
        assert!(l.check.is_none() || checked, "{l:?}");
        let failed = matches!(l.advance, Advance::FailedCheck | Advance::Relearn);
        assert_eq!(l.check.is_some_and(|c| !c.passed()), failed, "{l:?}");
        if l.advance.restarted() || l.advance == Advance::NextLevel {
            assert_eq!(l.perfect_streak, 0, "{l:?}");
        }
    }
}

#[test]
fn one_and_two_threads_are_bit_identical() -> Result<(), Box<dyn std::error::Error>> {
    let go = |n: usize| -> Result<(TrainState, Vec<IterationLog>), rayon::ThreadPoolBuildError> {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(n).build()?;
        Ok(pool.install(|| {
            let (t, logs) = run(quick(), 3, 60);
            (t.into_state(), logs)
        }))
    };
    let (a, la) = go(1)?;
    let (b, lb) = go(2)?;
    assert!(la.iter().filter(|l| l.update.updated()).count() > 10, "the test must exercise updates");
    assert_eq!(bits(&a.nes.theta), bits(&b.nes.theta));
    assert_eq!(serde_json::to_string(&a)?, serde_json::to_string(&b)?);
    assert_eq!(la, lb);
    Ok(())
}

#[test]
fn checkpoint_resume_matches_uninterrupted_run() -> Result<(), Box<dyn std::error::Error>> {
    let (straight, _) = run(quick(), 4, 60);
    let (half, _) = run(quick(), 4, 30);
    let json = serde_json::to_string(&half.into_state())?;
    let mut resumed = Trainer::from_state(copy(), serde_json::from_str(&json)?)?;
    while resumed.state().iteration < 60 {
        resumed.step().unwrap();
    }
    assert_eq!(bits(straight.theta()), bits(resumed.theta()));
    assert_eq!(serde_json::to_string(straight.state())?, serde_json::to_string(resumed.state())?);
    Ok(())
}

#[test]
fn restart_draws_fresh_theta_and_keeps_counting() {
    let config = TrainConfig { restart_after: 5, restart: nhc_train::RestartTrigger::Level, ..quick() };
    let (t, logs) = run(config, 1, 80);
    let mut since = 0;
    for l in &logs {
        since += u64::from(l.update.learned());
        assert_eq!(l.advance == Advance::Restart, since == 5, "iteration {}", l.iteration);
        if l.advance.restarted() || l.advance.solved() {
            since = 0;
        }
    }
    assert_consistent(&logs);
    let s = t.summary();
    let restarts = logs.iter().filter(|l| l.advance.restarted()).count() as u64;
    assert!(restarts >= 2, "{restarts} restarts");
    assert_eq!((s.iterations, s.restarts), (80, restarts));
    assert_eq!(s.learning_iterations, logs.iter().filter(|l| l.update.learned()).count() as u64);
}

/// The stagnation trigger restarts exactly when θ's batch fitness has not beaten its best on the
/// level for `restart_after` iterations (the best starting again at each level-up), counted
/// from the logs alone.
#[test]
fn stagnation_restarts_when_the_best_fitness_stops_improving() {
    use nhc_train::RestartTrigger;
    let config = TrainConfig {
        restart_after: 6,
        restart: RestartTrigger::Stagnation,
        restart_counts: nhc_train::Count::All,
        ..quick()
    };
    let (_, logs) = run(config, 1, 150);
    let (mut best, mut since) = (None::<f64>, 0);
    for l in &logs {
        if best.is_none_or(|b| l.fitness_raw > b) {
            (best, since) = (Some(l.fitness_raw), 0);
        } else {
            since += 1;
        }
        assert_eq!(l.advance == Advance::Restart, since == 6, "iteration {}", l.iteration);
        if l.advance.restarted() || l.advance.solved() {
            (best, since) = (None, 0);
        }
    }
    assert!(logs.iter().any(|l| l.advance == Advance::Restart));
}

/// A budget of all iterations stops the run after that many, perfect ones included; the
/// lineages' iterations add up to the run's.
#[test]
fn a_budget_of_all_iterations_counts_every_iteration() {
    use nhc_train::Count;
    let config = TrainConfig { restart_after: 5, max_iterations: 40, budget: Count::All, ..quick() };
    let (t, logs) = run(config, 1, u64::MAX);
    let s = t.summary();
    assert_eq!((s.iterations, s.outcome), (40, Some(RunOutcome::Cap)));
    assert_eq!(t.lineages().iter().map(|l| l.iterations).sum::<u64>(), logs.len() as u64);
}

/// The Bus feedback override and the write free gate's reading reach the model: θ loses the
/// Bus feedback's weights, and both are recorded in the model's config.
#[test]
fn the_bus_feedback_override_and_free_write_reach_the_model() {
    use nhc_model::FreeWrite;
    let on = Trainer::new(copy(), Variant::Nhc, TrainConfig::default().validate().unwrap(), 1).unwrap();
    let config = TrainConfig {
        bus_feedback: Some(!on.model().bus_feedback),
        free_write: FreeWrite::Unmarked,
        ..Default::default()
    };
    let off = Trainer::new(copy(), Variant::Nhc, config.validate().unwrap(), 1).unwrap();
    assert_eq!(off.model().bus_feedback, !on.model().bus_feedback);
    assert_eq!(off.model().free_write, FreeWrite::Unmarked);
    let ops = copy().algorithm().ops.len() * on.model().controller;
    assert_eq!(on.theta().len().abs_diff(off.theta().len()), ops);
}

/// Every lineage is recorded: the restarts (here after 5 learning iterations on a level), then
/// the one the cap cut; their learning iterations add up to the run's, and a resumed run records
/// the same ones.
#[test]
fn lineages_add_up_to_the_runs_learning_iterations() -> Result<(), Box<dyn std::error::Error>> {
    let config = TrainConfig {
        restart_after: 5,
        restart: nhc_train::RestartTrigger::Level,
        max_iterations: 42,
        ..quick()
    };
    let (t, logs) = run(config.clone(), 1, u64::MAX);
    assert!(t.done());
    let s = t.summary();
    assert_eq!(s.outcome, Some(RunOutcome::Cap));
    let lineages = t.lineages();
    assert_eq!(lineages.iter().map(|l| l.learning_iterations).sum::<u64>(), s.learning_iterations);
    assert!(s.restarts >= 2, "{s:?}");
    // From the logs: a lineage per restart, at the level of the iteration that restarted it,
    // then the one the cap cut.
    let mut want = Vec::new();
    let (mut learned, mut iterations) = (0, 0);
    for l in &logs {
        learned += u64::from(l.update.learned());
        iterations += 1;
        if let Some(ending) = l.advance.ending() {
            want.push(Lineage { learning_iterations: learned, iterations, level: l.level, ending });
            (learned, iterations) = (0, 0);
        }
    }
    let last = logs.last().ok_or("no iteration")?;
    want.push(Lineage { learning_iterations: learned, iterations, level: last.level, ending: Ending::Cap });
    assert!(learned > 0 && !last.advance.restarted());
    assert_eq!(lineages, want);
    assert_eq!(lineages.len() as u64, s.restarts + 1);

    // A restart exactly at the cap leaves no empty lineage behind.
    let at_cap = logs.iter().rfind(|l| l.advance.restarted()).ok_or("no restart")?.learning_iterations;
    let (t, _) = run(TrainConfig { max_iterations: at_cap, ..config.clone() }, 1, u64::MAX);
    assert_eq!(t.lineages(), want[..want.len() - 1]);

    // Resumed after the first restart: the same lineages.
    let first = logs.iter().find(|l| l.advance.restarted()).ok_or("no restart")?.iteration;
    let (half, _) = run(config.clone(), 1, first + 1);
    let state: TrainState = serde_json::from_str(&serde_json::to_string(half.state())?)?;
    let mut resumed = Trainer::from_state(copy(), state)?;
    resumed.run(|_| {})?;
    assert_eq!(resumed.lineages(), lineages);
    Ok(())
}

/// A curriculum of level 1 only (one object) and a check that asks for 30 objects: the check fails.
fn failing_check() -> TrainConfig {
    TrainConfig {
        levels: 1,
        perfect_to_solve: 5,
        perfect_to_solve_after_learning: 10,
        check_level: 30,
        check_samples: 20,
        ..Default::default()
    }
}

/// A lineage that solves the mixed level but fails the generalization check is dropped.
#[test]
fn failed_generalization_check_restarts_the_lineage() {
    let (t, logs) = run(failing_check(), 1, 3_000);
    let failed: Vec<&IterationLog> = logs.iter().filter(|l| l.check.is_some_and(|c| !c.passed())).collect();
    assert!(!failed.is_empty(), "no check failed in {} iterations", logs.len());
    for l in &failed {
        assert_eq!(l.advance, Advance::FailedCheck);
        assert_eq!(l.check.map(|c| (c.level, c.samples)), Some((30, 20)));
    }
    assert_consistent(&logs);
    let s = t.summary();
    assert_eq!(s.failed_checks, failed.len() as u64);
    assert!(s.restarts >= s.failed_checks);
    let lineages = t.state().curriculum.ended_lineages.clone();
    let checks: Vec<&Lineage> = lineages.iter().filter(|l| l.ending == Ending::Check).collect();
    assert_eq!(checks.len(), failed.len());
    assert!(checks.iter().all(|l| l.level == 2), "the mixed level of a one-level curriculum");
}

/// With `on_failed_check = "relearn"` the same failing check keeps the lineage: no restart, the
/// mixed level again with the failed samples (drawn by `any_shape`) in the bad memories, and the
/// lineage that finishes at last has passed a check.
#[test]
fn failed_generalization_check_can_send_the_lineage_back_to_learn() {
    let config =
        TrainConfig { on_failed_check: OnFailedCheck::Relearn, check_any_shape: true, ..failing_check() };
    let (t, logs) = run(config, 1, 3_000);
    assert_consistent(&logs);
    let failed: Vec<&IterationLog> = logs.iter().filter(|l| l.check.is_some_and(|c| !c.passed())).collect();
    assert!(!failed.is_empty(), "no check failed in {} iterations", logs.len());
    assert!(failed.iter().all(|l| l.advance == Advance::Relearn && l.level == 2), "{failed:?}");
    let s = t.summary();
    assert_eq!(s.failed_checks, failed.len() as u64);
    assert!(t.state().curriculum.ended_lineages.iter().all(|l| l.ending != Ending::Check));
    // The iteration after a failed check trains the mixed level on a batch that holds check
    // samples (levels beyond the curriculum) from the bad memories.
    let after = logs.iter().position(|l| l.advance == Advance::Relearn).map(|i| &logs[i + 1]);
    assert_eq!(after.map(|l| l.level), Some(2));
    assert!(t.state().curriculum.bad.iter().any(|k| k.level > 2 && k.any_shape) || t.done());
    if t.done() {
        let last = logs.last().and_then(|l| l.check);
        assert!(last.is_some_and(|c| c.passed()), "a finished lineage passed its check: {last:?}");
    }
}

#[test]
fn from_state_rejects_other_task_and_bad_theta() {
    let t = Trainer::new(copy(), Variant::Nhc, TrainConfig::default().validate().unwrap(), 0).unwrap();
    let mut s = t.into_state();
    s.task = "reverse".into();
    assert!(Trainer::from_state(copy(), s.clone()).is_err());
    s.task = "copy".into();
    s.variant = Variant::NhcAnc;
    assert!(Trainer::from_state(copy(), s.clone()).is_err(), "θ of the full NHC is not NHC-anc's");
    s.variant = Variant::Nhc;
    s.nes.theta.pop();
    assert!(Trainer::from_state(copy(), s.clone()).is_err());
    assert!(TrainConfig { batch: 0, ..Default::default() }.validate().is_err());
    let mut json = serde_json::to_value(&s).unwrap();
    json["config"]["batch"] = 0.into();
    assert!(serde_json::from_value::<TrainState>(json).is_err(), "a checkpoint's config is checked");
}

/// The check's 200 samples of `configs/check99.toml` cover every level from 11 to 99, in
/// order, so a solution that fails only at some lengths (e.g. odd multiples of 10) cannot pass
/// on one lucky level.
#[test]
fn check_levels_cover_every_level_beyond_the_curriculum() {
    let check = TrainConfig { check_level: 99, ..TrainConfig::default() };
    let levels = check_levels(&check);
    assert_eq!(levels.len(), 200);
    assert_eq!((levels[0], levels[199]), (11, 99));
    assert!(levels.windows(2).all(|w| w[0] <= w[1] && w[1] - w[0] <= 1));
    let one = TrainConfig { check_samples: 1, ..check };
    assert_eq!(check_levels(&one), vec![99]);
    let low = TrainConfig { check_level: 11, check_samples: 3, ..TrainConfig::default() };
    assert_eq!(check_levels(&low), vec![11, 11, 11]);
}

/// Every variant trains through the same loop, on its own config, and resumes from a checkpoint.
#[test]
fn variants_train_with_their_own_configs() {
    for variant in Variant::ALL {
        let mut t = Trainer::new(copy(), variant, quick().validate().unwrap(), 1).unwrap();
        let m = t.model().clone();
        assert_eq!(m, copy().algorithm().model(variant));
        assert_eq!(t.theta().len(), nhc_model::theta_len(&m));
        let logs: Vec<IterationLog> = (0..20).map(|_| t.step().unwrap()).collect();
        assert!(logs.iter().any(|l| l.update.updated()), "{variant}: θ must be updated");
        let json = serde_json::to_string(t.state()).unwrap();
        let back = Trainer::from_state(copy(), serde_json::from_str(&json).unwrap()).unwrap();
        assert_eq!(back.state().variant, variant);
    }
}

/// A config that throws θ out of range stops training with an error at once, not with a
/// checkpoint of nulls; a checkpoint whose θ is not a model's is refused on resume.
#[test]
fn diverging_theta_stops_training_and_bad_checkpoints_are_refused() {
    let wild = TrainConfig { learning_rate: 100.0, sigma: 1e-6, ..TrainConfig::default() };
    let mut t = Trainer::new(copy(), Variant::Nhc, wild.validate().unwrap(), 1).unwrap();
    let err = (0..50).find_map(|_| t.step().err()).expect("θ must leave the range");
    assert!(err.to_string().contains("θ left the range of a model"), "{err}");

    let good = Trainer::new(copy(), Variant::Nhc, quick().validate().unwrap(), 1).unwrap().into_state();
    let mut json = serde_json::to_value(&good).unwrap();
    for bad in [serde_json::json!(1e39), serde_json::json!(3e38), serde_json::Value::Null] {
        json["nes"]["theta"][0] = bad.clone();
        let refused = match serde_json::from_value::<TrainState>(json.clone()) {
            Err(_) => true,
            Ok(state) => Trainer::from_state(copy(), state).is_err(),
        };
        assert!(refused, "θ[0] = {bad}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, ..Default::default() })]

    /// Any TOML text, and any value of any field, is a valid config or a plain error.
    #[test]
    fn any_config_text_is_read_or_refused(text in "[ -~\n]{0,80}", field in 0usize..13, value in proptest::num::f64::ANY) {
        let _ = TrainConfig::from_toml(&text);
        let name = TrainConfig::default().bounded()[field].0;
        let _ = TrainConfig::from_toml(&format!("{name} = {value:?}"));
        let _ = TrainConfig::from_toml(&format!("{name} = {}", value as i64));
    }

    /// Any change to one field of a checkpoint reads or is refused, and a state that reads
    /// resumes or is refused: never a panic.
    #[test]
    fn any_checkpoint_field_reads_or_is_refused(key in 0usize..8, value in proptest::num::i64::ANY, x in proptest::num::f64::ANY) {
        let state = Trainer::new(copy(), Variant::Nhc, quick().validate().unwrap(), 1).unwrap().into_state();
        let mut json = serde_json::to_value(&state).unwrap();
        let fields = ["task", "variant", "config", "nes", "curriculum", "iteration", "rng", "seed"];
        json[fields[key]] = serde_json::json!(value);
        if let Ok(s) = serde_json::from_value::<TrainState>(json.clone()) {
            let _ = Trainer::from_state(copy(), s);
        }
        json = serde_json::to_value(&state).unwrap();
        json["curriculum"]["level"] = serde_json::json!(value);
        json["config"]["sigma"] = serde_json::json!(x);
        if let Ok(s) = serde_json::from_value::<TrainState>(json)
            && let Ok(mut t) = Trainer::from_state(copy(), s)
        {
            let _ = t.step();
        }
    }
}

/// Values each within their bounds whose product is not (10⁹ episodes an iteration) are refused
/// before the run starts, with the estimate; the paper's config is far below it.
#[test]
fn a_config_whose_iteration_costs_too_much_is_refused_with_its_estimate() {
    let costly = TrainConfig { population: 10_000, batch: 100_000, ..TrainConfig::default() };
    let err = Trainer::new(copy(), Variant::Nhc, costly.validate().unwrap(), 1).err().unwrap();
    let text = err.to_string();
    assert!(text.starts_with("one iteration of this config would run about "), "{text}");
    assert!(
        text.contains("1000100000 episodes")
            && text.ends_with("lower population, batch, levels or check_samples"),
        "{text}"
    );
    let check = TrainConfig { check_level: 99, check_samples: 100_000, ..TrainConfig::default() };
    Trainer::new(nhc_tasks::find("sort").unwrap(), Variant::Nhc, check.validate().unwrap(), 1).unwrap();
    Trainer::new(copy(), Variant::Nhc, TrainConfig::default().validate().unwrap(), 1).unwrap();
}

#[test]
fn update_feedback_only_where_the_expected_program_says_where_it_updates() {
    let config = || TrainConfig { update_feedback: true, ..TrainConfig::default() }.validate().unwrap();
    let err = Trainer::new(nhc_tasks::find("copy").unwrap(), Variant::Nhc, config(), 1).err();
    assert!(matches!(&err, Some(TrainError::UpdateFeedback(t)) if t == "copy"), "{err:?}");
    assert!(err.map(|e| e.to_string().contains("update_feedback = false")).unwrap_or(false));
    let mut t = Trainer::new(nhc_tasks::find("sort").unwrap(), Variant::Nhc, config(), 1).unwrap();
    t.step().unwrap();
}

#[test]
fn update_feedback_from_leaves_earlier_levels_as_the_papers() {
    let sort = || nhc_tasks::find("sort").unwrap();
    let first = |config: TrainConfig| {
        let mut t = Trainer::new(sort(), Variant::Nhc, config.validate().unwrap(), 3).unwrap();
        let log = t.step().unwrap();
        assert_eq!(log.level, 1);
        log.offspring_raw
    };
    let paper = first(TrainConfig::default());
    let on = TrainConfig { update_feedback: true, ..TrainConfig::default() };
    // From level 2: level 1 scores as without feedback, offspring for offspring.
    assert_eq!(first(TrainConfig { update_feedback_from: 2, ..on.clone() }), paper);
    // From level 1: a random θ opens ĝ where sort's program updates nothing, and scores less.
    let fed = first(on);
    assert!(fed.iter().zip(&paper).all(|(f, p)| f <= p) && fed != paper, "{fed:?} {paper:?}");
}

/// The early check: once level 1 of a four-level curriculum is solved, θ must solve samples of
/// levels 2–4; a lineage that fails is restarted (ending `check` on level 2), one that passes
/// moves on; the check is logged on the iteration that solved level 1 and nowhere else.
#[test]
fn early_check_restarts_a_lineage_that_fails_the_later_levels() {
    let config = TrainConfig { levels: 4, early_check: 1, check_samples: 12, ..quick() };
    let (t, logs) = run(config, 1, 3_000);
    assert_consistent(&logs);
    let checked: Vec<&IterationLog> = logs.iter().filter(|l| l.check.is_some()).collect();
    assert!(!checked.is_empty(), "level 1 was never solved in {} iterations", logs.len());
    for l in &checked {
        let c = l.check.unwrap();
        assert_eq!((l.level, c.from, c.level, c.samples), (1, 2, 4, 12), "{l:?}");
        let want = if c.passed() { Advance::NextLevel } else { Advance::FailedCheck };
        assert_eq!(l.advance, want);
    }
    let failed = checked.iter().filter(|l| !l.check.unwrap().passed()).count();
    assert!(failed > 0, "copy's first level does not yet generalize: some check fails");
    let s = t.summary();
    assert_eq!(s.failed_checks, failed as u64);
    let ended = &t.state().curriculum.ended_lineages;
    let by_check: Vec<&Lineage> = ended.iter().filter(|l| l.ending == Ending::Check).collect();
    assert_eq!(by_check.len(), failed);
    assert!(by_check.iter().all(|l| l.level == 2), "{by_check:?}");
    // A config whose early check has no later level is refused.
    let bad = TrainConfig { levels: 4, early_check: 4, ..quick() }.validate();
    assert!(bad.is_err_and(|e| e.to_string().contains("early_check")));
}

/// IPOP restarts: every lineage's offspring number the population after its restarts (4, 8,
/// then 8), and the run stays deterministic.
#[test]
fn restarts_grow_the_population_up_to_its_cap() {
    let config = TrainConfig { population: 4, population_growth: 2, population_max: 8, ..failing_check() };
    let (t, logs) = run(config.clone(), 1, 2_000);
    assert!(t.summary().restarts >= 2, "{:?}", t.summary());
    let mut restarts = 0;
    for l in &logs {
        if !l.offspring_raw.is_empty() {
            assert_eq!(l.offspring_raw.len(), config.population_after(restarts), "{l:?}");
        }
        restarts = l.restarts;
    }
    let (again, _) = run(config, 1, 2_000);
    assert_eq!(bits(t.theta()), bits(again.theta()));
}

/// `deadline`: a lineage still on level `deadline_level` or below after that many learning
/// iterations restarts, with the paper's patience far away; one past that level goes on learning
/// beyond it.
#[test]
fn a_lineage_stuck_before_its_deadline_level_restarts_at_the_deadline() {
    for (deadline_level, deadline) in [(1, 20), (2, 110)] {
        let config = TrainConfig { levels: 4, deadline, deadline_level, ..quick() };
        let (t, logs) = run(config.clone(), 1, 3_000);
        assert_consistent(&logs);
        let ended = &t.state().curriculum.ended_lineages;
        assert!(
            !ended.is_empty(),
            "no lineage needed {deadline} learning iterations to pass level {deadline_level}"
        );
        for l in ended {
            assert!(l.level <= deadline_level, "{l:?}");
            assert_eq!((l.learning_iterations, l.ending), (deadline, Ending::Restart), "{l:?}");
        }
        assert!(ended.iter().any(|l| l.level == deadline_level), "{ended:?}");
        let s = t.state();
        assert!(s.curriculum.level > deadline_level && s.current_learning() > deadline, "{:?}", t.summary());
        let (again, _) = run(config, 1, 3_000);
        assert_eq!(bits(t.theta()), bits(again.theta()));
    }
    let paper = run(quick(), 1, 3_000).0;
    assert!(paper.state().curriculum.ended_lineages.is_empty(), "the paper's patience restarts nothing here");
}
