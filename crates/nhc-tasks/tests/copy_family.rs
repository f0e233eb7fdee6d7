//! The copy family's scripted solutions solve every sample (MODEL §9), checked against
//! independent computations of each task, not against the trace alone.

use nhc_model::{BusDecision, Config, Machine, MemoryDecision, Observation, Policy, run_scored};
use nhc_tasks::Task;
use nhc_tasks::copy_family::binary::Object;
use nhc_tasks::copy_family::{Binary, Copy, Duplicated, RepeatCopy, Reverse, Sequence};
use nhc_tasks::evaluate::score_sample;
use nhc_tasks::sample_rng;
use proptest::prelude::*;

/// Runs the scripted solution and returns (solved by trace, answer).
fn run<T: Task>(task: T, sample: &T::Sample) -> (bool, T::Answer) {
    let mut machine = Machine::new(&task.algorithm().config);
    let mut modules = task.modules(sample);
    let trace = task.trace(sample);
    let mut policy = task.scripted();
    let out = run_scored(&mut machine, &mut modules, &mut policy, &trace, Default::default(), |_, _| {});
    (out.solved(), task.answer(&modules))
}

/// A scripted solution seeing only what the learned modules see under `bus_feedback` (MODEL
/// §2 step 2): without it, c_b_{t−1} is an empty slice, so reading it panics.
struct AsLearned<P> {
    policy: P,
    bus_feedback: bool,
}

impl<P: Policy> Policy for AsLearned<P> {
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut MemoryDecision) {
        let bus_prev = if self.bus_feedback { obs.bus_prev } else { &[] };
        self.policy.control(&Observation { bus_prev, ..*obs }, c_c, out)
    }
    fn bus(&mut self, c_ib: &[f32], c_c: &[f32], read_now: &[f32]) -> BusDecision {
        self.policy.bus(c_ib, c_c, read_now)
    }
}

fn solves_levels<T: Task>(task: T, levels: &[usize], samples: u64) {
    solves_levels_with(&task, &task.algorithm().config, levels, samples);
}

/// The scripted solution, run under `config` and seeing what the learned modules would, solves
/// `samples` samples of each level.
fn solves_levels_with<T: Task>(task: &T, config: &Config, levels: &[usize], samples: u64) {
    for &level in levels {
        let mut m = Machine::new(config);
        for i in 0..samples {
            let sample = task.sample(level, &mut sample_rng(7, level, i));
            let mut policy = AsLearned { policy: task.scripted(), bus_feedback: config.bus_feedback };
            let (outcome, solved) = score_sample(task, &mut m, &mut policy, &sample);
            assert!(solved, "{} level {level} sample {i}: {outcome:?}", task.algorithm().name);
            assert_eq!(outcome.fitness(), 1.0);
        }
    }
}

#[test]
fn scripted_copy_family_solves_levels_1_10_100_1000() {
    solves_levels(Copy(Binary), &[1, 2, 10, 100, 1000], 20);
    solves_levels(Reverse(Binary), &[1, 2, 10, 100, 1000], 20);
    solves_levels(RepeatCopy(Binary), &[1, 2, 10, 100], 20);
    solves_levels(RepeatCopy(Binary), &[1000], 2);
    solves_levels(Duplicated(Binary), &[1, 2, 10, 100], 20);
    solves_levels(Duplicated(Binary), &[1000], 2);
}

/// The scripts never read the Bus feedback: with it off (the paper's copy family), they solve
/// levels 1–11 and 100.
#[test]
fn scripted_copy_family_solves_without_bus_feedback() {
    fn check<T: Task>(task: T) {
        let config = Config { bus_feedback: false, ..task.algorithm().config.clone() };
        let levels: Vec<usize> = (1..=11).chain([100]).collect();
        solves_levels_with(&task, &config, &levels, 100);
    }
    check(Copy(Binary));
    check(Reverse(Binary));
    check(RepeatCopy(Binary));
    check(Duplicated(Binary));
}

fn objects() -> impl Strategy<Value = Vec<Object>> {
    prop::collection::vec(0u8..64, 1..40)
}

proptest! {
    #[test]
    fn copy_outputs_the_list(items in objects()) {
        let s = Sequence { items: items.clone(), passes: 1 };
        prop_assert_eq!(run(Copy(Binary), &s), (true, items));
    }

    #[test]
    fn reverse_outputs_the_list_backwards(items in objects()) {
        let s = Sequence { items: items.clone(), passes: 1 };
        let mut expected = items;
        expected.reverse();
        prop_assert_eq!(run(Reverse(Binary), &s), (true, expected));
    }

    #[test]
    fn repeat_copy_outputs_the_list_c_times(items in objects(), copies in 1usize..12) {
        let s = Sequence { items: items.clone(), passes: copies };
        let expected: Vec<Object> = (0..copies).flat_map(|_| items.iter().copied()).collect();
        prop_assert_eq!(run(RepeatCopy(Binary), &s), (true, expected));
    }

    #[test]
    fn duplicated_drops_repeats(runs in prop::collection::vec((0u8..64, 1usize..6), 1..30)) {
        let mut items = Vec::new();
        let mut expected = Vec::new();
        for (x, n) in runs {
            if expected.last() == Some(&x) {
                continue; // consecutive runs of one object merge into one
            }
            expected.push(x);
            items.extend(std::iter::repeat_n(x, n));
        }
        let s = Sequence { items, passes: 1 };
        prop_assert_eq!(run(Duplicated(Binary), &s), (true, expected));
    }
}

#[test]
fn samplers_make_level_sized_problems() {
    let mut rng = sample_rng(1, 5, 0);
    // duplicated and repeatCopy: n objects, n uniform in 1..=ℓ; each shown ℓ times / ℓ passes.
    for i in 0..50 {
        let s = Duplicated(Binary).sample(5, &mut sample_rng(1, 5, i));
        let mut distinct = s.items.clone();
        distinct.dedup();
        assert!((1..=5).contains(&distinct.len()));
        assert_eq!(s.items.len(), 5 * distinct.len(), "consecutive objects differ, each shown ℓ times");
        let r = RepeatCopy(Binary).sample(4, &mut sample_rng(1, 4, i));
        assert!((1..=4).contains(&r.items.len()) && r.passes == 4);
    }
    assert_eq!(Copy(Binary).sample(9, &mut rng).items.len(), 9);
}

/// duplicated's samples of any shape (the recipe's check): runs of lengths 1..=ℓ each, runs of
/// length 1 beside longer ones among them, and the scripted solution solves them.
#[test]
fn duplicated_any_shape_draws_runs_of_their_own_lengths() {
    let mut lengths = std::collections::BTreeSet::new();
    for i in 0..200 {
        let s = Duplicated(Binary).any_shape(6, &mut sample_rng(1, 6, i));
        let runs: Vec<usize> = s.items.chunk_by(|a, b| a == b).map(<[Object]>::len).collect();
        assert!((1..=6).contains(&runs.len()) && runs.iter().all(|r| (1..=6).contains(r)), "{runs:?}");
        lengths.extend(runs.windows(2).filter(|w| w[0] != w[1]).map(|w| (w[0], w[1])));
        assert!(run(Duplicated(Binary), &s).0, "{:?}", s.items);
    }
    assert!(lengths.contains(&(1, 2)) && lengths.contains(&(2, 1)), "{lengths:?}");
}

/// The write free gate's two readings (MODEL §3): freeing repeats on write keeps duplicated's
/// kept list whole under every link reading when a freed write is only left unmarked; when it is
/// released (removed from the linkage), only under `tail`.
#[test]
fn duplicated_script_under_the_link_and_free_gate_readings() {
    use nhc_model::{FreeWrite, Links};
    let task = Duplicated(Binary);
    let solved = |links, free_write| {
        let config = Config { links, free_write, ..task.algorithm().config.clone() };
        let mut m = Machine::new(&config);
        (0..20)
            .filter(|&i| {
                let sample = task.sample(10, &mut sample_rng(7, 10, i));
                let mut policy = AsLearned { policy: task.scripted(), bus_feedback: false };
                score_sample(&task, &mut m, &mut policy, &sample).1
            })
            .count()
    };
    for links in Links::ALL {
        assert_eq!(solved(links, FreeWrite::Unmarked), 20, "{links:?}");
        let want = if links == Links::Tail { 20 } else { 0 };
        assert_eq!(solved(links, FreeWrite::Release), want, "{links:?}");
    }
}
