//! The listings are complete (docs/VERIFICATION.md, "Verification"): a solution made wrong at one
//! point of the control's history that some input inside the bound reaches is caught by
//! `verify`, for random inputs of every listed task (ties, zeros, repeated words included). The
//! solution is each task's hand-written one, changed to run another operation at the step whose
//! history (signals, feedback, control words read) equals that input's up to a random step: a
//! change the Controller, Memory and Bus could make, visible only to inputs with that history.
//! And, for the tasks whose class of an input is easy to name, the input and its class's listed
//! representative drive the control through the same history.

use nhc_model::{Agent, BusDecision, MemoryDecision, Observation, Policy};
use nhc_tasks::addition::Addition;
use nhc_tasks::any_task::Entry;
use nhc_tasks::arithmetic::Arithmetic;
use nhc_tasks::copy_family::{Copy, Decimals, Duplicated, RepeatCopy, Reverse};
use nhc_tasks::evaluate::PreparedSample;
use nhc_tasks::sort::Sort;
use nhc_tasks::symbolic::Symbolic;
use nhc_tasks::verify::Bounds;
use nhc_tasks::{SampleRng, Task, Workspace, sample_rng};
use rand::RngExt;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

/// What the algorithmic modules see at a step, bit for bit.
fn seen(obs: &Observation<'_>) -> Vec<u32> {
    [obs.input_controller, obs.input_memory, obs.bus_prev, obs.alu_prev, obs.read_prev]
        .iter()
        .flat_map(|x| x.iter().map(|v| v.to_bits()))
        .collect()
}

/// The hand-written solution, recording what it sees (`target` empty), or running operation
/// `op + 1` at the step whose history equals `target`.
struct Tripped {
    inner: Box<dyn Policy + Send>,
    ops: usize,
    target: Arc<Vec<Vec<u32>>>,
    record: Option<Arc<Mutex<Vec<Vec<u32>>>>>,
    step: usize,
    matching: bool,
    fire: bool,
}

impl Policy for Tripped {
    fn begin(&mut self) {
        (self.step, self.matching, self.fire) = (0, true, false);
        self.inner.begin();
    }
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut MemoryDecision) {
        let now = seen(obs);
        if let Some(r) = &self.record {
            r.lock().expect("one run at a time").push(now.clone());
        }
        if self.matching && self.step < self.target.len() {
            self.matching = self.target[self.step] == now;
            self.fire = self.matching && self.step + 1 == self.target.len();
        }
        self.step += 1;
        self.inner.control(obs, c_c, out)
    }
    fn bus(&mut self, c_ib: &[f32], c_c: &[f32], read_now: &[f32]) -> BusDecision {
        let mut d = self.inner.bus(c_ib, c_c, read_now);
        if std::mem::take(&mut self.fire) {
            d.op = (d.op + 1) % self.ops;
        }
        d
    }
}

/// For `cases` random inputs of `draw` (inside `bounds`) and a random step of each: the solution
/// tripped at that step's history is wrong on the input, and `verify` finds a counterexample no
/// larger than the input. Returns how many inputs a trip made wrong (a trip at an unscored step
/// changes nothing: up to 16 steps are tried per input).
fn trips_are_caught<T: Task>(
    task: T,
    bounds: &[u64],
    cases: u64,
    size: impl Fn(&T::Sample) -> u64,
    draw: impl Fn(&T, &mut SampleRng) -> T::Sample,
) -> u64
where
    T::Sample: Clone,
{
    let entry = Entry(task);
    let task = &entry.0;
    let config = task.algorithm().config.clone();
    let ops = config.ops;
    let mut caught = 0;
    for case in 0..cases {
        let rng = &mut sample_rng(77, 1, case);
        let sample = draw(task, rng);
        let history = Arc::new(Mutex::new(Vec::new()));
        let mut recorder = Agent::Nhc(Box::new(Tripped {
            inner: task.scripted(),
            ops,
            target: Arc::new(Vec::new()),
            record: Some(Arc::clone(&history)),
            step: 0,
            matching: false,
            fire: false,
        }));
        let prepared = PreparedSample::new(task, sample.clone());
        let (_, solved) = prepared.score_in(task, &mut recorder, &mut Workspace::new(&config), None);
        assert!(solved, "the hand-written solution is right on {}", task.sample_json(&sample));
        let history = history.lock().expect("recorded").clone();
        // A step whose change makes the input wrong (a presentation step is not scored).
        let trip = |k: usize| {
            let target = Arc::new(history[..=k].to_vec());
            move || {
                Agent::Nhc(Box::new(Tripped {
                    inner: task.scripted(),
                    ops,
                    target: Arc::clone(&target),
                    record: None,
                    step: 0,
                    matching: true,
                    fire: false,
                }))
            }
        };
        let wrong = (0..16)
            .map(|_| rng.random_range(0..history.len()))
            .find(|&k| !prepared.score_in(task, &mut trip(k)(), &mut Workspace::new(&config), None).1);
        let Some(k) = wrong else { continue };
        let tripped = trip(k);
        caught += 1;
        let r = entry
            .verify_beyond_with(&config, &tripped, "tripped", &Bounds(bounds.to_vec()), 0)
            .expect("a verification");
        let input = task.sample_json(&sample);
        assert_eq!(r.outcome, "counterexample", "{}: tripped at step {k} on {input}", task.algorithm().name);
        let smallest = r.parts.iter().filter_map(|p| p.smallest.as_ref()).map(|c| c.cell[0]).min();
        assert!(smallest.is_some_and(|s| s <= size(&sample)), "{smallest:?} for {input}");
    }
    assert!(
        caught >= cases / 2,
        "{}: only {caught} of {cases} trips made an input wrong",
        task.algorithm().name
    );
    caught
}

/// A list of 1..=`n` small numbers: ties and the default word 0 are common.
fn small_list(rng: &mut SampleRng, n: u64) -> Vec<u64> {
    let len = rng.random_range(1..=n);
    (0..len).map(|_| rng.random_range(0..4)).collect()
}

fn parse<T: Task>(task: &T, v: Value) -> T::Sample {
    task.parse_input(&v).expect("a valid input")
}

#[test]
fn copy_reverse_repeat_copy_and_duplicated() {
    let len = |v: Value| v.as_array().map_or(0, |a| a.len() as u64);
    trips_are_caught(
        Copy(Decimals),
        &[12],
        24,
        |s| len(Copy(Decimals).sample_json(s)),
        |t, rng| parse(t, json!(small_list(rng, 12))),
    );
    trips_are_caught(
        Reverse(Decimals),
        &[12],
        24,
        |s| len(Reverse(Decimals).sample_json(s)),
        |t, rng| parse(t, json!(small_list(rng, 12))),
    );
    let repeat = |s: &_| {
        let v = RepeatCopy(Decimals).sample_json(s);
        len(v["items"].clone()).max(v["copies"].as_u64().unwrap_or(0))
    };
    trips_are_caught(RepeatCopy(Decimals), &[6], 24, repeat, |t, rng| {
        let copies = rng.random_range(1..=6);
        parse(t, json!({"items": small_list(rng, 6), "copies": copies}))
    });
    // Both parts: every run-length sequence of ≤ 8 objects presented, and the grid to 8.
    trips_are_caught(
        Duplicated(Decimals),
        &[8, 8],
        24,
        |s| len(Duplicated(Decimals).sample_json(s)),
        |t, rng| parse(t, json!(small_list(rng, 8))),
    );
}

#[test]
fn sort_with_ties_and_zeros() {
    // Lists of 2..=6 objects (level ℓ sorts ℓ + 1).
    let len = |s: &_| Sort(Decimals).sample_json(s).as_array().map_or(0, |a| a.len() as u64);
    trips_are_caught(Sort(Decimals), &[6], 24, len, |t, rng| {
        let mut xs = small_list(rng, 6);
        if xs.len() < 2 {
            xs.push(rng.random_range(0..4));
        }
        parse(t, json!(xs))
    });
}

#[test]
fn addition_and_arithmetic() {
    trips_are_caught(
        Addition::BINARY,
        &[4],
        24,
        |s| {
            let v = Addition::BINARY.sample_json(s);
            let digits = |k: &str| v[k].as_str().map_or(u64::MAX, |x| x.len() as u64);
            digits("a").max(digits("b"))
        },
        |t, rng| {
            let level = rng.random_range(1..=4);
            t.sample(level, rng)
        },
    );
    trips_are_caught(
        Arithmetic(Symbolic),
        &[5],
        24,
        |s| {
            let v = Arithmetic(Symbolic).sample_json(s);
            v.as_str().map_or(u64::MAX, |e| e.split_whitespace().count() as u64 / 2)
        },
        |t, rng| {
            let level = rng.random_range(1..=5);
            t.sample(level, rng)
        },
    );
}

/// What the hand-written solution sees at every step of `sample`'s run.
fn history<T: Task>(task: &T, sample: T::Sample) -> Vec<Vec<u32>> {
    let config = task.algorithm().config.clone();
    let record = Arc::new(Mutex::new(Vec::new()));
    let mut agent = Agent::Nhc(Box::new(Tripped {
        inner: task.scripted(),
        ops: config.ops,
        target: Arc::new(Vec::new()),
        record: Some(Arc::clone(&record)),
        step: 0,
        matching: false,
        fire: false,
    }));
    PreparedSample::new(task, sample).score_in(task, &mut agent, &mut Workspace::new(&config), None);
    record.lock().expect("recorded").clone()
}

/// The lemma's premise, input by input: a random input and its class's representative (the
/// input the listing runs for it) drive the control through the same history, bit for bit.
fn same_history<T: Task>(task: T, cases: u64, draw: impl Fn(&mut SampleRng) -> (Value, Value)) {
    for case in 0..cases {
        let (input, representative) = draw(&mut sample_rng(78, 1, case));
        let a = history(&task, parse(&task, input.clone()));
        let b = history(&task, parse(&task, representative.clone()));
        assert!(a == b, "{}: {input} and its representative {representative}", task.algorithm().name);
    }
}

/// Ranks of a list's values from 1 in ascending order, or from 0 when its least value is 0 (the
/// default word): the sort listing's representative of its class.
fn ranks(xs: &[u64]) -> Vec<u64> {
    let mut values = xs.to_vec();
    values.sort();
    values.dedup();
    let from = u64::from(values[0] != 0);
    xs.iter().map(|x| values.iter().position(|v| v == x).map_or(0, |r| r as u64 + from)).collect()
}

#[test]
fn random_inputs_follow_their_representatives_control() {
    let positions = |n: usize| (1..=n as u64).collect::<Vec<_>>();
    same_history(Copy(Decimals), 40, |rng| {
        let xs = small_list(rng, 40);
        (json!(xs), json!(positions(xs.len())))
    });
    same_history(Reverse(Decimals), 40, |rng| {
        let xs = small_list(rng, 40);
        (json!(xs), json!(positions(xs.len())))
    });
    same_history(RepeatCopy(Decimals), 40, |rng| {
        let (xs, copies) = (small_list(rng, 12), rng.random_range(1..=12));
        (json!({"items": xs, "copies": copies}), json!({"items": positions(xs.len()), "copies": copies}))
    });
    same_history(Duplicated(Decimals), 40, |rng| {
        let xs = small_list(rng, 16);
        // Run j holds the word j.
        let mut run = 0;
        let runs: Vec<u64> = (0..xs.len())
            .map(|k| {
                run += u64::from(k == 0 || xs[k] != xs[k - 1]);
                run
            })
            .collect();
        (json!(xs), json!(runs))
    });
    same_history(Sort(Decimals), 40, |rng| {
        let mut xs = small_list(rng, 8);
        if xs.len() < 2 {
            xs.push(rng.random_range(0..4));
        }
        (json!(xs), json!(ranks(&xs)))
    });
}
