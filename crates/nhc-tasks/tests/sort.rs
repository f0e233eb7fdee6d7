//! sort (MODEL §9): the scripted solution sorts every sample, checked against `slice::sort`, not
//! against the trace alone; data modules, trace and user input on their own.

use nhc_model::{DataModules, Machine, Outcome, Signals, Trace, UpdateFeedback, run_scored};
use nhc_tasks::evaluate::score_sample;
use nhc_tasks::sort::{
    Bytes, Number, OP_COMPARE, OP_OUTPUT, OP_SKIP, Order, Sort, SortModules, SortScript, config, trace,
};
use nhc_tasks::{Task, sample_rng};
use proptest::prelude::*;
use serde_json::json;

const TASK: Sort<Bytes> = Sort(Bytes);

/// An order given by a function.
#[derive(Clone)]
struct By<D>(fn(&D, &D) -> bool);

impl<D: Clone + Default + PartialEq + std::fmt::Debug + Send + Sync + 'static> Order for By<D> {
    type Item = D;
    fn compare(&self, a: &D, b: &D) -> bool {
        (self.0)(a, b)
    }
}

fn less_equal(a: &Number, b: &Number) -> bool {
    a <= b
}

/// Runs the scripted solution on `items` under `compare`, with the trace built for that compare.
fn run_with<D>(items: &[D], compare: fn(&D, &D) -> bool) -> (Outcome, Vec<D>, Machine<D>)
where
    D: Clone + Default + PartialEq + std::fmt::Debug + Send + Sync + 'static,
{
    let mut machine = Machine::new(&config());
    let order = By(compare);
    let mut modules = SortModules::new(&order, items);
    let out = run_scored(
        &mut machine,
        &mut modules,
        &mut SortScript,
        &trace(&order, items),
        Default::default(),
        |_, _| {},
    );
    (out, modules.outputs().to_vec(), machine)
}

fn sorted(items: &[Number]) -> Vec<Number> {
    let mut v = items.to_vec();
    v.sort();
    v
}

/// Solved with fitness 1 and the output equals `slice::sort`.
fn sorts(items: &[Number]) {
    let (out, answer, _) = run_with(items, less_equal);
    assert!(out.solved(), "{items:?}: {out:?}");
    assert_eq!(out.fitness(), 1.0, "{items:?}");
    assert_eq!(answer, sorted(items), "{items:?}");
}

#[test]
fn scripted_solves_levels_1_2_10_100_1000() {
    for (level, samples) in [(1, 50), (2, 50), (10, 50), (100, 20), (1000, 2)] {
        let mut m = Machine::new(&config());
        for i in 0..samples {
            let items = TASK.sample(level, &mut sample_rng(11, level, i));
            assert_eq!(items.len(), level + 1);
            let (outcome, solved) = score_sample(&TASK, &mut m, &mut TASK.scripted(), &items);
            assert!(solved, "level {level} sample {i}: {outcome:?}");
            assert_eq!(outcome.fitness(), 1.0);
            sorts(&items);
        }
    }
}

#[test]
fn level_1000_takes_n_squared_plus_2n_minus_1_steps() {
    let items = TASK.sample(1000, &mut sample_rng(3, 1000, 0));
    let (out, answer, _) = run_with(&items, less_equal);
    assert!(out.solved());
    assert_eq!(answer, sorted(&items));
    let n = items.len() as u64;
    assert_eq!(out.steps, n * n + 2 * n - 1, "n presentation steps, then n scans of about n + 1 steps");
}

#[test]
fn hard_cases() {
    sorts(&[7]);
    sorts(&[0, 0]);
    sorts(&[255, 0]);
    sorts(&[0, 255]);
    sorts(&[9; 40]);
    sorts(&[0; 17]);
    sorts(&[255; 17]);
    sorts(&(0..=255).collect::<Vec<u8>>());
    sorts(&(0..=255).rev().collect::<Vec<u8>>());
    sorts(&[0, 255, 0, 255, 255, 0, 0, 255]);
    sorts(&[255, 255, 255, 0]);
    sorts(&[0, 0, 0, 255]);
    sorts(&[3, 1, 3, 1, 2, 2, 3, 1]);
    sorts(&[1, 2, 3, 3, 2, 1, 1, 2, 3]);
}

proptest! {
    #[test]
    fn sorts_random_lists(items in prop::collection::vec(any::<u8>(), 1..60)) {
        let (out, answer, _) = run_with(&items, less_equal);
        prop_assert!(out.solved());
        prop_assert_eq!(out.fitness(), 1.0);
        prop_assert_eq!(answer, sorted(&items));
    }

    #[test]
    fn sorts_lists_with_many_ties(items in prop::collection::vec(0u8..4, 1..60)) {
        let (out, answer, _) = run_with(&items, less_equal);
        prop_assert!(out.solved());
        prop_assert_eq!(answer, sorted(&items));
    }

    /// The trace alone already asks for the sorted list: its `O` steps expect the sorted objects.
    #[test]
    fn trace_outputs_the_sorted_list(items in prop::collection::vec(any::<u8>(), 1..60)) {
        let t = trace(&Bytes, &items);
        let outputs: Vec<Number> = (0..t.len())
            .map(|k| t.step(k))
            .filter(|s| s.op == Some(OP_OUTPUT))
            .map(|s| s.reads[0].expect("O expects the candidate's object"))
            .collect();
        prop_assert_eq!(outputs, sorted(&items));
    }

    /// Any input, even nonsense, parses to a list or to a plain error.
    #[test]
    fn parse_input_never_panics(
        xs in prop::collection::vec(prop_oneof![0i64..=255, -3i64..300, any::<i64>()], 0..10),
        f in any::<f64>(),
    ) {
        let _ = TASK.parse_input(&json!({ "items": xs.clone() }));
        let _ = TASK.parse_input(&json!([1, f]));
        let parsed = TASK.parse_input(&json!(xs.clone()));
        let fits = !xs.is_empty() && xs.iter().all(|x| (0..=255).contains(x));
        prop_assert_eq!(parsed.is_ok(), fits);
        if let Ok(v) = parsed {
            prop_assert_eq!(v.iter().map(|&x| i64::from(x)).collect::<Vec<_>>(), xs);
        }
    }
}

/// The ALU's `compare` is all that defines the order: `≥` sorts descending, and strings sort with
/// the same scripted solution (the data-module swap of MODEL §10).
#[test]
fn compare_is_swappable() {
    let items: Vec<Number> = vec![4, 200, 0, 4, 77, 255, 1];
    let (out, answer, _) = run_with(&items, |a: &Number, b: &Number| a >= b);
    assert!(out.solved());
    let mut descending = items.clone();
    descending.sort_by(|a, b| b.cmp(a));
    assert_eq!(answer, descending);

    let words: Vec<String> =
        ["pear", "apple", "fig", "apple", "kiwi", "", "banana"].iter().map(|s| s.to_string()).collect();
    let (out, answer, _) = run_with(&words, |a: &String, b: &String| a <= b);
    assert!(out.solved());
    let mut expected = words.clone();
    expected.sort();
    assert_eq!(answer, expected);
}

#[test]
fn input_signals_and_stop_rule() {
    let mut m = SortModules::new(&Bytes, &[5u8, 6, 7]);
    let mut s = Signals::new(&config());
    let mut feedback = [0.0; 4];
    assert_eq!(m.input(None, &mut s), Some(5));
    assert_eq!(s.controller, [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(m.input(None, &mut s), Some(6));
    assert_eq!(s.controller, [0.0, 1.0, 0.0, 0.0]);
    assert_eq!(m.input(None, &mut s), Some(7));
    assert_eq!(s.controller, [0.0, 0.0, 1.0, 0.0]);
    assert_eq!((&s.memory, &s.bus), (&s.controller, &s.controller), "c_ic = c_im = c_ib");
    assert_eq!(m.phase(), "input");
    for k in 0..3 {
        assert_eq!(m.input(Some(&9), &mut s), Some(0), "d_i = 0 in the sort phase, whatever d_out");
        assert_eq!(s.controller, [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(m.phase(), "sort");
        m.alu(&[1, 2], OP_COMPARE, &mut feedback);
        m.alu(&[1, 2], OP_SKIP, &mut feedback);
        m.alu(&[k, 2], OP_OUTPUT, &mut feedback);
    }
    assert_eq!(m.input(None, &mut s), None, "stops after T_s outputs");
    assert_eq!(m.outputs(), [0, 1, 2]);

    let mut one = SortModules::new(&Bytes, &[3u8]);
    one.input(None, &mut s);
    assert_eq!(s.controller, [1.0, 0.0, 1.0, 0.0], "a one-object list is first and last");
}

#[test]
fn alu_compares_and_counts_only_sort_phase_outputs() {
    let mut m = SortModules::new(&Bytes, &[5u8, 6]);
    let mut s = Signals::new(&config());
    let mut c_a = [0.0; 4];
    m.input(None, &mut s);
    assert_eq!(m.alu(&[5, 5], OP_OUTPUT, &mut c_a), 5);
    assert_eq!(c_a, [1.0, 0.0, 0.0, 1.0]);
    assert!(m.outputs().is_empty(), "an O in the presentation is not an output");
    m.input(None, &mut s);
    m.input(None, &mut s);
    assert_eq!(m.alu(&[8, 3], OP_COMPARE, &mut c_a), 8, "d_out = o1");
    assert_eq!(c_a, [0.0, 1.0, 0.0, 0.0], "cmp = o1 ≤ o2");
    assert_eq!(m.alu(&[3, 3], OP_COMPARE, &mut c_a), 3);
    assert_eq!(c_a, [1.0, 0.0, 0.0, 0.0], "ties compare true");
    m.alu(&[2, 9], OP_SKIP, &mut c_a);
    assert_eq!(c_a, [1.0, 0.0, 1.0, 0.0]);
    m.alu(&[9, 2], OP_OUTPUT, &mut c_a);
    assert_eq!(c_a, [0.0, 1.0, 0.0, 1.0]);
    assert_eq!(m.outputs(), [9]);
}

fn ops(t: &Trace<Number>) -> Vec<Option<usize>> {
    (0..t.len()).map(|k| t.step(k).op).collect()
}

#[test]
fn trace_by_hand() {
    // [2, 1]: presentation; scan 1 compares 2 with 1 and outputs 1; scan 2 starts on 2 with both
    // heads, skips 1 (already output) and outputs 2.
    let t = trace(&Bytes, &[2, 1]);
    let (c, s, o) = (Some(OP_COMPARE), Some(OP_SKIP), Some(OP_OUTPUT));
    assert_eq!(ops(&t), [None, None, c, o, c, s, o]);
    assert_eq!(t.step(2).reads, [Some(2), Some(1)]);
    assert_eq!(t.step(3).reads, [Some(1), Some(0)], "O: the walker reads past the list");
    assert_eq!(t.step(4).reads, [Some(2), Some(2)]);
    assert_eq!(t.step(5).reads, [Some(2), Some(1)]);
    assert_eq!(t.step(6).reads, [Some(2), Some(0)]);

    // [1, 2]: 1 is output first; scan 2 starts on it (already output) with both heads, so the
    // candidate has no object yet (`None`) until it moves to 2.
    let t = trace(&Bytes, &[1, 2]);
    assert_eq!(ops(&t), [None, None, c, o, s, s, o]);
    assert_eq!(t.step(4).reads, [None, Some(1)]);
    assert_eq!(t.step(5).reads, [None, Some(2)]);
    assert_eq!(t.step(6).reads, [Some(2), Some(0)]);

    // Equal minima: the first one is output first (compare true keeps the candidate).
    let t = trace(&Bytes, &[4, 4]);
    assert_eq!(ops(&t), [None, None, c, o, s, s, o]);

    // One object: present it, output it.
    let t = trace(&Bytes, &[9]);
    assert_eq!(ops(&t), [None, o]);
    assert_eq!(t.scored(), 1);
}

#[test]
fn trace_length_is_quadratic() {
    for n in 1..30u64 {
        let items: Vec<Number> = (0..n).map(|k| (k * 37 % 11) as u8).collect();
        let t = trace(&Bytes, &items);
        assert_eq!(t.len() as u64, n * n + 2 * n - 1);
        assert_eq!(t.scored() as u64, n * n + n - 1, "only the presentation is unscored");
    }
}

/// Already-output objects are marked through the previous-update head (MODEL §9): after a run
/// every object's control word carries the output flag, except the last one output (the run
/// stops before the step that would mark it), and no other word does.
#[test]
fn outputs_are_marked_in_control_memory() {
    let items: Vec<Number> = vec![10, 30, 20, 10, 0];
    let (out, _, machine) = run_with(&items, less_equal);
    assert!(out.solved());
    let mem = machine.memory();
    assert_eq!(mem.len() as u64, out.steps, "one write per step, nothing freed");
    for loc in 0..mem.len() {
        let expected: &[f32] = match loc {
            1 => &[1.0, 0.0, 0.0, 0.0], // 30, output last
            l if l < items.len() => &[1.0, 1.0, 0.0, 0.0],
            _ => &[0.0; 4],
        };
        assert_eq!(mem.control(loc), expected, "location {loc}");
    }
}

#[test]
fn parse_input_accepts_lists_of_bytes() {
    assert_eq!(TASK.parse_input(&json!([3, 0, 255, 3])), Ok(vec![3, 0, 255, 3]));
    assert_eq!(TASK.parse_input(&json!([42])), Ok(vec![42]));
    let err = |v: serde_json::Value| TASK.parse_input(&v).unwrap_err().to_string();
    assert!(err(json!({"items": [1]})).contains("array"));
    assert!(err(json!("[1, 2]")).contains("array"));
    assert!(err(json!([])).contains("at least one"));
    assert!(err(json!([1, 256])).contains("the 2nd number, 256, is out of the range"));
    assert!(err(json!([-1])).contains("out of the range"));
    assert!(err(json!([3, -1])).contains("the 2nd number, -1, is out of the range 0–255"));
    assert!(err(json!([0, 1, 2.5])).contains("the 3rd number must be an integer 0–255, got 2.5"));
    assert!(err(json!([1.5])).contains("integer"));
    assert!(err(json!([2.0])).contains("integer"));
    assert!(err(json!(["7"])).contains("integer"));
    assert!(err(json!([true])).contains("integer"));
    assert!(err(json!([null])).contains("integer"));
    assert!(err(json!([[1]])).contains("integer"));
    assert!(err(json!([1e300])).contains("integer"));
}

#[test]
fn answer_json_and_show() {
    assert_eq!(TASK.answer_json(&vec![0, 7, 255]), json!([0, 7, 255]));
    assert_eq!(TASK.show(&200), "200");
    assert_eq!(TASK.algorithm().ops, ["C", "S", "O"]);
}

#[test]
fn registered_in_paper_order() {
    let names = nhc_tasks::names();
    let at = |t: &str| names.iter().position(|n| *n == t);
    assert!(at("addition") < at("sort") && at("sort") < at("arithmetic") && at("arithmetic") < at("copy"));
    let task = nhc_tasks::find("sort").expect("sort is registered");
    assert_eq!(task.config(), config());
    let report = task.run(&nhc_tasks::Model::Scripted, &json!([9, 3, 3, 250, 0])).expect("runs");
    assert!(report.correct);
    assert_eq!(report.output, json!([0, 3, 3, 9, 250]));
    assert_eq!((task.ops(), task.domain()), (&["C", "S", "O"][..], "bytes"));
}

/// sort's samples of any shape (the recipe's check): 1..=ℓ+1 objects, lists of one among them,
/// sorted by the scripted solution as `slice::sort` does.
#[test]
fn sort_any_shape_draws_every_length_up_to_the_levels() {
    let lengths: std::collections::BTreeSet<usize> = (0..300)
        .map(|i| {
            let items = TASK.any_shape(5, &mut sample_rng(1, 5, i));
            sorts(&items);
            items.len()
        })
        .collect();
    assert_eq!(lengths, (1..=6).collect());
}

/// The scripted sort with its previous-update gates ĝ changed by a function of the decision.
struct Regated(fn(&mut nhc_model::MemoryDecision));

impl nhc_model::Policy for Regated {
    fn control(
        &mut self,
        obs: &nhc_model::Observation<'_>,
        c_c: &mut [f32],
        out: &mut nhc_model::MemoryDecision,
    ) {
        SortScript.control(obs, c_c, out);
        (self.0)(out);
    }
    fn bus(&mut self, input_bus: &[f32], c_c: &[f32], read_now: &[f32]) -> nhc_model::BusDecision {
        SortScript.bus(input_bus, c_c, read_now)
    }
}

/// ĝ open on every other step, v̂ = ê = 0: memory as the script's, an update on every read as the
/// drifting models make.
fn nudging() -> Regated {
    Regated(|out| {
        if !out.prev_gate[0] {
            out.prev_gate.fill(true);
            out.prev_write.fill(0.0);
            out.prev_erase.fill(0.0);
        }
    })
}

/// ĝ = 0 throughout: the output object is never marked, as in the runs that never pass level 1.
fn lazy() -> Regated {
    Regated(|out| out.prev_gate.fill(false))
}

#[test]
fn update_feedback_marks_updates_the_expected_program_does_not_make() {
    use nhc_tasks::evaluate::PreparedSample;
    let mut m = Machine::new(&config());
    for i in 0..20 {
        let items = TASK.sample(6, &mut sample_rng(5, 6, i));
        let plain = PreparedSample::new(&TASK, items.clone());
        assert!(plain.trace.knows_updates());
        let mut fed = plain.clone();
        fed.trace = fed.trace.with_update_feedback(UpdateFeedback::NoExtra);
        // The script updates where its expected program does: right with feedback, fitness 1.
        let (o, solved) = fed.score(&TASK, &mut m, &mut SortScript);
        assert!(solved && o.fitness() == 1.0, "{o:?}");
        // Updates that change nothing are no mistake without feedback, and wrong with it at the
        // first scored step, the sort phase's first.
        assert!(plain.score(&TASK, &mut m, &mut nudging()).1);
        let (o, solved) = fed.score(&TASK, &mut m, &mut nudging());
        assert!(!solved);
        assert_eq!(o.first_mistake, Some(items.len() as u64), "{o:?}");
    }
}

#[test]
fn exact_update_feedback_also_marks_updates_the_model_does_not_make() {
    use nhc_tasks::evaluate::PreparedSample;
    let mut m = Machine::new(&config());
    for i in 0..20u64 {
        let n = 2 + (i % 6) as usize;
        let items = TASK.sample(n - 1, &mut sample_rng(7, n - 1, i));
        assert_eq!(items.len(), n);
        let plain = PreparedSample::new(&TASK, items.clone());
        let with = |f| {
            let mut p = plain.clone();
            p.trace = p.trace.with_update_feedback(f);
            p
        };
        let (exact, no_extra) = (with(UpdateFeedback::Exact), with(UpdateFeedback::NoExtra));
        // The script updates exactly where its expected program does.
        let (o, solved) = exact.score(&TASK, &mut m, &mut SortScript);
        assert!(solved && o.fitness() == 1.0, "{o:?}");
        // n unscored steps, n − 1 scan steps, the first output: the update the expected program
        // makes is at step 2n. Exact feedback holds its absence wrong there; without it the
        // first mistake comes where the unmarked object misleads the scan, at 2n or later.
        let (o, solved) = exact.score(&TASK, &mut m, &mut lazy());
        assert!(!solved);
        assert_eq!(o.first_mistake, Some(2 * n as u64), "{o:?}");
        let (o, solved) = no_extra.score(&TASK, &mut m, &mut lazy());
        assert!(!solved);
        assert!(o.first_mistake.is_some_and(|t| t >= 2 * n as u64), "{o:?}");
    }
}
