//! The every-length proof (`every_length::prove`): its abstract machine steps as the machine
//! does, the shipped copy and reverse models are proved and right at every length listed, and
//! models built to go wrong past a large length, or perturbed at random, are never proved where
//! they are wrong.

use nhc_model::{
    Agent, BusDecision, Config, Machine, MemoryDecision, Observation, Params, Policy, ReadMode, StepRecord,
};
use nhc_tasks::copy_family::copy::ForwardScript;
use nhc_tasks::copy_family::{
    OP_MARK, OP_OUTPUT, Sequence, SequenceModules, SignalSet, plan_mark, word_first, word_last, word_marked,
};
use nhc_tasks::every_length::{Order, Step, prove, steps};
use nhc_tasks::{Model, ModelFile, any_task::AnyTask, registry::find_in};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::ops::ControlFlow;
use std::path::Path;

fn task(name: &str) -> &'static dyn AnyTask {
    find_in(name, None).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A model file's config and θ.
fn params(path: &str, name: &str) -> Params {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../{path}"));
    match Model::Learned(Box::new(ModelFile::load(&path, task(name)).unwrap_or_else(|e| panic!("{e}")))) {
        Model::Learned(m) => m.params.clone(),
        Model::Scripted => unreachable!("a file"),
    }
}

fn policy(p: &Params) -> Box<dyn Policy + Send> {
    match Agent::learned(p.clone()) {
        Agent::Nhc(p) => p,
        _ => unreachable!("the NHC"),
    }
}

const SHIPPED: [(&str, &str, Order); 4] = [
    ("models/copy.json", "copy", Order::Forward),
    ("models/recipe/copy.json", "copy", Order::Forward),
    ("models/reverse.json", "reverse", Order::Backward),
    ("models/recipe/reverse.json", "reverse", Order::Backward),
];

/// The machine's steps on objects 1..=n (0 is the default word), as the abstract machine
/// records them, and whether the run was right: every output in order (copy) or reversed, then
/// `M`, then the Input stops.
fn machine(config: &Config, policy: &mut dyn Policy, order: Order, n: u64) -> (Vec<Step>, bool) {
    let sample = Sequence { items: (1..=n).collect::<Vec<u64>>(), passes: 1 };
    let mut modules = SequenceModules::new(&sample, SignalSet::FirstInnerLast);
    let mut m = Machine::<u64>::new(config);
    let mut out = Vec::new();
    let mut right = true;
    let run = m.run(&mut modules, policy, 2 * n + 2, |r: &StepRecord<'_, u64, MemoryDecision>| {
        let mode = match r.decision.read_modes[0] {
            ReadMode::Halt(_) => 'H',
            ReadMode::Forward(_) => 'F',
            ReadMode::Backward(_) => 'B',
            ReadMode::Parent(_) => 'P',
            ReadMode::Child(_) => 'C',
        };
        let object = (r.reads[0] != 0).then(|| r.reads[0] as i64 - 1);
        out.push(Step {
            mode,
            op: r.op,
            object,
            word: r.control_reads.iter().map(|x| x.to_bits()).collect(),
        });
        if r.step >= n {
            let k = r.step - n;
            let want = match order {
                Order::Forward => k as i64,
                Order::Backward => n as i64 - 1 - k as i64,
            };
            let ok = if k < n { r.op == OP_OUTPUT && object == Some(want) } else { r.op == OP_MARK };
            if !ok {
                right = false;
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    (out, right && run.steps == 2 * n + 1)
}

/// The first length of `from..=top` the machine gets wrong (in parallel).
fn wrong_in(p: &Params, order: Order, from: u64, top: u64) -> Option<u64> {
    (from..=top)
        .into_par_iter()
        .map_init(|| policy(p), |pol, n| (!machine(p.config(), pol.as_mut(), order, n).1).then_some(n))
        .flatten()
        .min()
}

#[test]
fn the_abstract_machine_steps_as_the_machine_does() {
    for (path, name, order) in SHIPPED {
        let p = params(path, name);
        let mut pol = policy(&p);
        for n in (3..=90).chain([257, 263, 300]) {
            let (abstract_steps, right) = steps(p.config(), pol.as_mut(), order, n);
            let (real, real_right) = machine(p.config(), pol.as_mut(), order, n);
            assert_eq!(abstract_steps, real, "{path} n = {n}");
            assert_eq!(right, real_right, "{path} n = {n}");
        }
    }
    // The scripted solutions too (copy frees every output-phase write).
    for (name, order) in [("copy", Order::Forward), ("reverse", Order::Backward)] {
        let config = task(name).algorithm().config.clone();
        let mut pol = task(name).scripted();
        for n in 3..=40 {
            let (a, right) = steps(&config, pol.as_mut(), order, n);
            let (real, real_right) = machine(&config, pol.as_mut(), order, n);
            assert_eq!(a, real, "{name} {n}");
            assert!(right && real_right, "{name} {n}");
        }
    }
}

#[test]
fn the_shipped_copy_and_reverse_models_are_proved_and_right_past_their_bound() {
    for (path, name, order) in SHIPPED {
        let p = params(path, name);
        let t = std::time::Instant::now();
        let proof = prove(p.config(), policy(&p).as_mut(), order).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert!(t.elapsed().as_secs() < 10, "{path}: {:?}", t.elapsed());
        assert!(proof.n0 < 1_000, "{path}: {proof:?}");
        let top = proof.n0 + proof.modulus + 500;
        assert_eq!(wrong_in(&p, order, 1, top), None, "{path}");
    }
    // The scripted solutions.
    for (name, order) in [("copy", Order::Forward), ("reverse", Order::Backward)] {
        let config = task(name).algorithm().config.clone();
        let proof =
            prove(&config, task(name).scripted().as_mut(), order).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(proof.n0 < 100, "{name}: {proof:?}");
    }
}

/// The bound: every shipped model the proof covers is right at every length to 10 000.
/// `cargo test --release -p nhc-tasks --test every_length -- --ignored` (minutes).
#[test]
#[ignore]
fn the_proved_models_are_right_at_every_length_to_10000() {
    for (path, name, order) in SHIPPED {
        let p = params(path, name);
        assert!(prove(p.config(), policy(&p).as_mut(), order).is_ok(), "{path}");
        assert_eq!(wrong_in(&p, order, 1, 10_000), None, "{path}");
    }
}

/// copy's scripted solution (the head stays on the head object while the list is presented),
/// except that the head object's word creeps up by 2⁻²³ in its entry 2 at every presentation
/// step until it reaches `until`, and the first output step ends the pass (`M`) if that entry
/// is past `trip`: right while the list is short enough that the word has not crossed `trip`,
/// wrong beyond. All of it lives in the memory's words, none in the policy.
struct Creep {
    inner: ForwardScript,
    trip: f32,
    until: f32,
}

impl Policy for Creep {
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut MemoryDecision) {
        self.inner.control(obs, c_c, out);
        let w = obs.read_prev;
        let output = obs.input_controller[3] > 0.5;
        if !output && word_first(w) && w[2] < self.until {
            out.prev_gate[0] = true;
            out.prev_write[2] = f32::EPSILON / 2.0;
        }
        if output && word_first(w) && !word_marked(w) && !word_last(w) && w[2] > self.trip {
            plan_mark(c_c, true);
        }
    }
    fn bus(&mut self, c_ib: &[f32], c_c: &[f32], read_now: &[f32]) -> BusDecision {
        self.inner.bus(c_ib, c_c, read_now)
    }
}

/// A [`Creep`] that trips after `trip_steps` presentation steps and stops creeping after
/// `until_steps` (both exact: k·2⁻²³ is an f32 for k < 2²⁴).
fn creep(trip_steps: u32, until_steps: u32) -> Creep {
    let step = f32::EPSILON / 2.0;
    Creep {
        inner: ForwardScript { signals: SignalSet::FirstInnerLast },
        trip: trip_steps as f32 * step,
        until: until_steps as f32 * step,
    }
}

#[test]
fn a_word_that_creeps_past_a_threshold_is_not_proved() {
    let config = task("copy").algorithm().config.clone();
    // Right to 20 000 objects, wrong beyond; the word stops creeping at 30 000.
    let mut model = creep(20_000, 30_000);
    for n in [3, 50, 1_000, 19_990] {
        assert!(machine(&config, &mut model, Order::Forward, n).1, "right at {n}");
    }
    assert!(!machine(&config, &mut model, Order::Forward, 25_000).1, "wrong at 25 000");
    let r = prove(&config, &mut model, Order::Forward);
    let e = r.expect_err("a model wrong past 20 000 objects is not proved");
    assert!(e.reason.contains("wrong") || e.reason.contains("no repeating block"), "{e}");
    // A word that creeps for longer than the proof looks: a reason, never a proof.
    let mut model = creep(2_000_000, 3_000_000);
    let e = prove(&config, &mut model, Order::Forward).expect_err("not proved");
    assert!(e.reason.contains("no repeating block"), "{e}");
}

#[test]
fn perturbed_models_are_proved_only_where_they_are_right() {
    let mut proved = 0;
    for (path, name, order) in SHIPPED {
        let p = params(path, name);
        for seed in 0..6u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let scale = [0.01f32, 0.03, 0.1][seed as usize % 3];
            let theta: Vec<f32> = p.theta().iter().map(|x| x + scale * (rng.random::<f32>() - 0.5)).collect();
            let q = Params::new(p.config().clone(), theta).expect("same layout");
            if let Ok(proof) = prove(q.config(), policy(&q).as_mut(), order) {
                proved += 1;
                // The proof speaks of lengths from n0 on; below, lengths are listed.
                let top = proof.n0 + proof.modulus + 300;
                assert_eq!(wrong_in(&q, order, proof.n0, top), None, "{path} seed {seed}: {proof:?}");
            }
        }
    }
    eprintln!("perturbed: {proved} of 24 proved");
    assert!(proved > 0, "some perturbed model is proved");
}
