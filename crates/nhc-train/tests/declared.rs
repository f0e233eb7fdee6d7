//! copy and sort declared as one's own algorithms ([`Declared`], docs/OWN_ALGORITHM.md) train to
//! the same θ, bit for bit, as the built-in tasks for the same seed, and evaluate identically: the
//! declared path adds nothing and loses nothing. The declarations are written as a user would,
//! from the paper's description, without the built-in tasks' code.

use nhc_model::{Trace, Variant};
use nhc_tasks::any_task::Entry;
use nhc_tasks::model::LearnedModel;
use nhc_tasks::{Algorithm, AnyTask, Declared, Model, Own, SampleRng, Stop, Stream, find};
use nhc_train::{TrainConfig, Trainer};
use rand::RngExt;

/// copy: output the ℓ presented 6-bit objects in order, then `M`.
#[derive(Debug, Clone, Copy)]
struct MyCopy;

const COPY: Algorithm = Algorithm::declare("copy", &["O", "M"], 4, 1, 0, true);

impl Declared for MyCopy {
    type Word = u8;
    type Sample = Vec<u8>;
    fn algorithm(&self) -> &'static Algorithm {
        &COPY
    }
    fn sample(&self, level: usize, rng: &mut SampleRng) -> Vec<u8> {
        (0..level).map(|_| rng.random_range(0..64u8)).collect()
    }
    fn input(&self, s: &Vec<u8>) -> Stream<u8> {
        Stream::first_inner_last(s.clone(), 0, Stop { op: 1, count: 1 })
    }
    fn program(&self, s: &Vec<u8>) -> Trace<u8> {
        let mut t = Trace::new(1);
        s.iter().for_each(|_| t.push_unscored());
        s.iter().for_each(|&x| t.push(0, &[Some(x)]));
        t.push(1, &[None]);
        t
    }
    fn reference(&self, s: &Vec<u8>) -> Vec<u8> {
        s.clone()
    }
}

/// sort: ℓ+1 bytes, output in ascending order by selection with repeated scans; `C` compares the
/// candidate (head 1) with the walker (head 2), `S` skips an object already output, `O` outputs
/// the candidate once the walker has passed the list. The ALU's feedback is
/// `[cmp, 1 − cmp, s, o]` with `cmp = candidate ≤ walker`.
#[derive(Debug, Clone, Copy)]
struct MySort;

const SORT: Algorithm = Algorithm::declare("sort", &["C", "S", "O"], 4, 2, 4, false);

impl Declared for MySort {
    type Word = u8;
    type Sample = Vec<u8>;
    fn algorithm(&self) -> &'static Algorithm {
        &SORT
    }
    fn sample(&self, level: usize, rng: &mut SampleRng) -> Vec<u8> {
        (0..=level).map(|_| rng.random_range(0..=255u8)).collect()
    }
    fn input(&self, s: &Vec<u8>) -> Stream<u8> {
        Stream::first_inner_last(s.clone(), 2, Stop { op: 2, count: s.len() })
    }
    fn program(&self, s: &Vec<u8>) -> Trace<u8> {
        let (n, mut t) = (s.len(), Trace::new(2));
        s.iter().for_each(|_| t.push_unscored());
        let mut done = vec![false; n];
        let (mut c, mut w) = (0, 1);
        for scan in 1..=n {
            for w in w..n {
                if done[c] || done[w] {
                    t.push(1, &[(!done[c]).then_some(s[c]), Some(s[w])]);
                    c = if done[c] { w } else { c };
                } else {
                    t.push(0, &[Some(s[c]), Some(s[w])]);
                    c = if s[c] <= s[w] { c } else { w };
                }
            }
            t.push(2, &[Some(s[c]), Some(0)]);
            done[c] = true;
            (c, w) = if scan < n { (0, 0) } else { (c, w) };
        }
        t
    }
    fn reference(&self, s: &Vec<u8>) -> Vec<u8> {
        let mut sorted = s.clone();
        sorted.sort();
        sorted
    }
    fn alu(&self, op: usize, reads: &[u8], feedback: &mut [f32]) -> u8 {
        let cmp = reads[0] <= reads[1];
        let f = |b: bool| if b { 1.0 } else { 0.0 };
        feedback.copy_from_slice(&[f(cmp), f(!cmp), f(op == 1), f(op == 2)]);
        reads[0]
    }
}

/// Trains `a` and `b` side by side from `seed` for `iterations` (or until both are done)
/// and asserts that every iteration's log and the final θ are equal; returns the learned model.
fn same_training(
    a: &'static dyn AnyTask,
    b: &'static dyn AnyTask,
    seed: u64,
    iterations: u64,
) -> Result<Model, Box<dyn std::error::Error>> {
    let config = || TrainConfig::default().validate();
    let mut ta = Trainer::new(a, Variant::Nhc, config()?, seed)?;
    let mut tb = Trainer::new(b, Variant::Nhc, config()?, seed)?;
    assert_eq!(ta.model(), tb.model());
    while !ta.done() && ta.state().iteration < iterations {
        let (la, lb) = (ta.step()?, tb.step()?);
        assert_eq!(format!("{la:?}"), format!("{lb:?}"));
    }
    assert_eq!(ta.done(), tb.done());
    // The comparison covers level-ups (and, for copy, restarts), not only level 1.
    assert!(ta.summary().last_level_solved >= 1, "{:?}", ta.summary());
    let (pa, pb) = (ta.params()?, tb.params()?);
    assert_eq!(pa.theta(), pb.theta(), "θ differs after {} iterations", ta.state().iteration);
    Ok(Model::Learned(Box::new(LearnedModel { variant: Variant::Nhc, params: pa })))
}

/// Both tasks score the model alike, sample by sample.
fn same_evaluation(a: &dyn AnyTask, b: &dyn AnyTask, model: &Model, level: usize) {
    let (ra, rb) = match (a.evaluate(model, level, 20, 1000), b.evaluate(model, level, 20, 1000)) {
        (Ok(ra), Ok(rb)) => (ra, rb),
        (ra, rb) => panic!("evaluation failed: {ra:?} {rb:?}"),
    };
    let key = |r: &nhc_tasks::EvalReport| (r.solved, r.steps, r.mean_fitness, r.failed.clone());
    assert_eq!(key(&ra), key(&rb), "level {level}");
}

#[test]
fn declared_copy_trains_to_the_built_in_theta() -> Result<(), Box<dyn std::error::Error>> {
    let own: &'static dyn AnyTask = Box::leak(Box::new(Entry(Own(MyCopy))));
    let built_in = find("copy")?;
    let model = same_training(built_in, own, 1, 8_000)?;
    for level in [3, 30] {
        same_evaluation(built_in, own, &model, level);
    }
    Ok(())
}

#[test]
fn declared_sort_trains_to_the_built_in_theta() -> Result<(), Box<dyn std::error::Error>> {
    let own: &'static dyn AnyTask = Box::leak(Box::new(Entry(Own(MySort))));
    let built_in = find("sort")?;
    let model = same_training(built_in, own, 1, 3000)?;
    for level in [3, 12] {
        same_evaluation(built_in, own, &model, level);
    }
    Ok(())
}
