//! A tiny training run: the saved data modules load, and what they learned of sokoban is measured
//! on held-out states against the world's exact rules.

#![allow(clippy::unwrap_used)] // test helpers: a failed unwrap is a failing test

use nhc_learned::{LearnConfig, Outcome, learn};
use nhc_tasks::search_plan::World;
use nhc_tasks::search_plan::learned::{DataNets, Learned};
use nhc_tasks::search_plan::sokoban::Sokoban;
use std::ops::ControlFlow;
use std::sync::Arc;

#[test]
fn a_tiny_run_learns_most_of_the_world() {
    let dir = tempfile::tempdir().unwrap();
    let config = LearnConfig {
        states: 4000,
        held_out: 500,
        replay: 1000,
        action_hidden: vec![256],
        mask_hidden: vec![64],
        epochs: 10,
        batch: 32,
        learning_rate: 3e-3,
        ..LearnConfig::new("sokoban6")
    };
    let outcome = learn(&config, dir.path(), &mut |line| {
        eprintln!("{line}");
        ControlFlow::Continue(())
    })
    .unwrap();
    let Outcome::Done(accuracy) = outcome else { panic!("{outcome:?}") };
    eprintln!("{accuracy:?}");
    assert_eq!(accuracy.states, 500);
    // A few epochs of 4 000 states: the action model beats copying the state (which gets ~98 %
    // of the fields right), the mask and the equality beat chance.
    assert!(accuracy.action_fields > 0.99, "{accuracy:?}");
    assert!(accuracy.mask_states > 0.5, "{accuracy:?}");
    assert!(accuracy.equality_pairs > 0.9, "{accuracy:?}");
    let nets = Arc::new(DataNets::load(dir.path()).unwrap());
    assert_eq!(nets.meta.world, "sokoban6");
    assert!(nets.meta.training["accuracy"]["states"] == 500);
    // They run on the world they were trained on, and on no other.
    assert!(Learned::new(Sokoban::<6>, nets.clone()).is_ok());
    assert!(Learned::new(Sokoban::<8>, nets).is_err());
    assert!(learn(&LearnConfig::new("mars"), dir.path(), &mut |_| ControlFlow::Continue(())).is_err());
    let _ = Sokoban::<6>.name();
}

/// With a share of the equality's unequal pairs one cell apart, E_t tells a state from itself
/// with one cell changed far more often than when it sees only moves and other states.
#[test]
fn one_cell_pairs_teach_the_equality_every_cell() {
    let cells = |equality_cell_pairs: f64| {
        let dir = tempfile::tempdir().unwrap();
        let config = LearnConfig {
            states: 2000,
            held_out: 500,
            action_hidden: vec![16],
            mask_hidden: vec![16],
            epochs: 5,
            batch: 32,
            learning_rate: 3e-3,
            equality_cell_pairs,
            ..LearnConfig::new("sokoban6")
        };
        let outcome = learn(&config, dir.path(), &mut |_| ControlFlow::Continue(())).unwrap();
        let Outcome::Done(accuracy) = outcome else { panic!("{outcome:?}") };
        let blind = DataNets::load(dir.path()).unwrap().equality_one_cell_blind();
        eprintln!("{equality_cell_pairs}: {accuracy:?}, one-cell changes judged equal {blind:?}");
        (accuracy.equality_cells.unwrap(), blind)
    };
    let ((without, blind_without), (with, blind_with)) = (cells(0.0), cells(0.5));
    assert!(with > 0.99 && with > without + 0.1, "{without} {with}");
    // Every cell of 6 × 6, every pair of its 4 codes: all told apart with the one-cell pairs,
    // most judged equal without.
    assert_eq!((blind_without.1, blind_with.1), (216, 216));
    assert!(blind_with.0 == 0 && blind_without.0 > 50, "{blind_without:?} {blind_with:?}");
}
