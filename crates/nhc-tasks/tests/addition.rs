//! addition (MODEL §9): the scripted solution adds every sample, checked against additions done
//! without the NHC (u128, and a big integer on 32-bit limbs); the data modules, the trace and the
//! user-input parser on their own.

use nhc_model::run_scored;
use nhc_model::{BusDecision, DataModules, Machine, MemoryDecision, Observation, Policy, Signals};
use nhc_tasks::addition::{
    Addition, AdditionModules, BASE, Digit, Digits, OP_ADD, OP_CARRY, OP_NOP, Operands,
};
use nhc_tasks::evaluate::score_sample;
use nhc_tasks::{Model, Task, find, sample_rng};
use proptest::prelude::*;
use serde_json::{Value, json};

const TASK: Addition = Addition::BINARY;

// ---- independent arithmetic ----

/// Big-endian binary digits → little-endian 32-bit limbs.
fn limbs(bits: &[Digit]) -> Vec<u32> {
    let mut out = vec![0u32; bits.len().div_ceil(32)];
    for (k, &b) in bits.iter().rev().enumerate() {
        out[k / 32] |= u32::from(b) << (k % 32);
    }
    out
}

/// a + b on 32-bit limbs, as `digits` binary digits, low to high.
fn big_sum(a: &[Digit], b: &[Digit], digits: usize) -> Vec<Digit> {
    let (x, y) = (limbs(a), limbs(b));
    let mut sum = Vec::new();
    let mut carry = 0u64;
    for k in 0..x.len().max(y.len()) {
        let s = u64::from(*x.get(k).unwrap_or(&0)) + u64::from(*y.get(k).unwrap_or(&0)) + carry;
        sum.push(s as u32);
        carry = s >> 32;
    }
    sum.push(carry as u32);
    (0..digits).map(|k| (sum.get(k / 32).copied().unwrap_or(0) >> (k % 32) & 1) as Digit).collect()
}

/// `x` as `len` binary digits, big-endian.
fn bits_of(x: u128, len: usize) -> Vec<Digit> {
    (0..len).rev().map(|k| if k < 128 { (x >> k & 1) as Digit } else { 0 }).collect()
}

/// Binary digits, low to high, as a number.
fn value_low_to_high(d: &[Digit]) -> u128 {
    d.iter().rev().fold(0, |acc, &b| acc << 1 | u128::from(b))
}

// ---- running the scripted solution ----

/// Runs `policy` on `s`: (solved by trace, fitness, answer).
fn run_with<P: Policy>(s: &Operands, policy: &mut P) -> (bool, f64, Vec<Digit>) {
    let mut machine = Machine::new(&TASK.algorithm().config.clone());
    let mut modules = TASK.modules(s);
    let out = run_scored(&mut machine, &mut modules, policy, &TASK.trace(s), Default::default(), |_, _| {});
    (out.solved(), out.fitness(), TASK.answer(&modules))
}

fn run(s: &Operands) -> (bool, f64, Vec<Digit>) {
    run_with(s, &mut TASK.scripted())
}

/// Runs a + b (big-endian digits) and checks the run against the limb addition.
fn check(a: &[Digit], b: &[Digit]) {
    let s = Operands::new(a, b);
    let (solved, fitness, answer) = run(&s);
    assert!(solved, "a = {a:?}, b = {b:?}");
    assert_eq!(fitness, 1.0);
    assert_eq!(answer, big_sum(a, b, s.len()), "a = {a:?}, b = {b:?}");
    assert_eq!(answer, TASK.reference(&s));
}

fn solves_level(level: usize, samples: u64) {
    let mut machine = Machine::new(&TASK.algorithm().config.clone());
    for i in 0..samples {
        let s = TASK.sample(level, &mut sample_rng(11, level, i));
        let (outcome, solved) = score_sample(&TASK, &mut machine, &mut TASK.scripted(), &s);
        assert!(solved, "level {level} sample {i}: {outcome:?}");
        assert_eq!(outcome.fitness(), 1.0);
        assert_eq!(TASK.reference(&s), big_sum(s.a(), s.b(), level + 1), "level {level} sample {i}");
    }
}

#[test]
fn scripted_solves_levels_1_2_10_100() {
    for level in [1, 2, 10, 100] {
        solves_level(level, 50);
    }
}

#[test]
fn scripted_solves_level_1000_quickly() {
    let start = std::time::Instant::now();
    solves_level(1000, 10);
    let per_sample = start.elapsed().as_secs_f64() / 10.0;
    assert!(per_sample < 0.5, "{per_sample} s per level-1000 sample");
}

/// A script remade before every step decides the same: it keeps nothing from step to step
/// besides what the memory, the feedback and the head positions hold.
#[test]
fn scripted_keeps_no_state_between_steps() {
    struct Fresh(Box<dyn Policy + Send>);
    impl Policy for Fresh {
        fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut MemoryDecision) {
            self.0 = TASK.scripted();
            self.0.control(obs, c_c, out);
        }
        fn bus(&mut self, c_ib: &[f32], c_c: &[f32], read_now: &[f32]) -> BusDecision {
            self.0 = TASK.scripted();
            self.0.bus(c_ib, c_c, read_now)
        }
    }
    for i in 0..20 {
        let s = TASK.sample(30, &mut sample_rng(5, 30, i));
        let (solved, _, answer) = run_with(&s, &mut Fresh(TASK.scripted()));
        assert!(solved);
        assert_eq!(answer, big_sum(s.a(), s.b(), 31));
    }
}

// ---- hard cases ----

#[test]
fn carry_runs_through_every_bit() {
    for l in [1, 2, 3, 10, 64, 127, 128, 129, 1000] {
        let ones = vec![1; l];
        check(&ones, &[1]);
        check(&[1], &ones);
        let (_, _, answer) = run(&Operands::new(&ones, &[1]));
        let mut expected = vec![0; l];
        expected.push(1); // 2^l
        assert_eq!(answer, expected, "2^{l} − 1 + 1");
    }
}

#[test]
fn zero_operands() {
    for l in [1, 5, 64, 300] {
        let zeros = vec![0; l];
        let x: Vec<Digit> = (0..l).map(|k| (k % 3 == 0) as Digit).collect();
        check(&zeros, &x);
        check(&x, &zeros);
        check(&zeros, &zeros);
        assert_eq!(run(&Operands::new(&zeros, &zeros)).2, vec![0; l + 1]);
    }
}

#[test]
fn both_all_ones() {
    for l in [1, 2, 7, 100, 1000] {
        let ones = vec![1; l];
        check(&ones, &ones);
        // (2^l − 1)·2 = 2^(l+1) − 2: a 0, then l ones.
        let mut expected = vec![0];
        expected.extend(vec![1; l]);
        assert_eq!(run(&Operands::new(&ones, &ones)).2, expected);
    }
}

#[test]
fn operands_of_very_different_lengths() {
    check(&[1], &vec![1; 500]);
    check(&[1, 0, 1, 1, 0, 1], &[1]);
    check(&[0], &[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
}

#[test]
fn alternating_carries() {
    // 0101…01 + 0011…11 mixes runs of carries and no carries.
    let a: Vec<Digit> = (0..200).map(|k| (k % 2) as Digit).collect();
    let b: Vec<Digit> = (0..200).map(|k| (k % 7 < 4) as Digit).collect();
    check(&a, &b);
}

proptest! {
    #[test]
    fn adds_like_u128(a in any::<u64>(), b in any::<u64>(), la in 1usize..=64, lb in 1usize..=64) {
        let (a, b) = (u128::from(a) & ((1u128 << la) - 1), u128::from(b) & ((1u128 << lb) - 1));
        let s = Operands::new(&bits_of(a, la), &bits_of(b, lb));
        let (solved, fitness, answer) = run(&s);
        prop_assert!(solved);
        prop_assert_eq!(fitness, 1.0);
        prop_assert_eq!(answer.len(), la.max(lb) + 1);
        prop_assert_eq!(value_low_to_high(&answer), a + b);
    }

    #[test]
    fn adds_like_big_integers(
        a in prop::collection::vec(0u8..2, 1..300),
        b in prop::collection::vec(0u8..2, 1..300),
    ) {
        let s = Operands::new(&a, &b);
        let (solved, _, answer) = run(&s);
        prop_assert!(solved);
        prop_assert_eq!(answer, big_sum(&a, &b, a.len().max(b.len()) + 1));
    }

    #[test]
    fn user_input_runs_like_u128(a in any::<u64>(), b in any::<u64>()) {
        let input = json!({"a": format!("{a:b}"), "b": format!("{b:b}")});
        let report = find("addition").unwrap().run(&Model::Scripted, &input).unwrap();
        prop_assert!(report.correct);
        prop_assert_eq!(report.output, Value::String(format!("{:b}", u128::from(a) + u128::from(b))));
    }

    #[test]
    fn parse_input_never_panics(a in ".{0,12}", b in any::<Option<String>>()) {
        let _ = TASK.parse_input(&json!({"a": a, "b": b}));
    }
}

// ---- level semantics, trace, data modules ----

#[test]
fn samples_are_two_l_bit_numbers_with_a_leading_zero() {
    for level in [1, 2, 3, 10, 57] {
        let mut ones = 0;
        for i in 0..20 {
            let s = TASK.sample(level, &mut sample_rng(3, level, i));
            assert_eq!((s.a().len(), s.b().len(), s.len()), (level + 1, level + 1, level + 1));
            assert_eq!((s.a()[0], s.b()[0]), (0, 0), "extra leading 0");
            assert!(s.a().iter().chain(s.b()).all(|&d| d < BASE));
            ones += s.a().iter().chain(s.b()).filter(|&&d| d == 1).count();
        }
        assert!(ones > 0, "random digits at level {level}");
    }
}

#[test]
fn trace_scores_nop_presentation_then_aligned_digits() {
    // a = 0 1 0 1 1 (11), b = 0 0 1 1 0 (6): places low to high (1,0), (1,1), (0,1), (1,0), (0,0).
    let s = Operands::new(&[1, 0, 1, 1], &[1, 1, 0]);
    let t = TASK.trace(&s);
    assert_eq!((t.len(), t.scored()), (15, 15));
    for k in 0..10 {
        let e = t.step(k);
        assert_eq!((e.op, e.reads), (Some(OP_NOP), &[None, None][..]));
    }
    let sum_steps: Vec<(usize, [Option<Digit>; 2])> =
        (10..15).map(|k| (t.step(k).op.unwrap(), [t.step(k).reads[0], t.step(k).reads[1]])).collect();
    assert_eq!(
        sum_steps,
        vec![
            (OP_ADD, [Some(1), Some(0)]),
            (OP_ADD, [Some(1), Some(1)]),
            (OP_CARRY, [Some(0), Some(1)]),
            (OP_CARRY, [Some(1), Some(0)]),
            (OP_CARRY, [Some(0), Some(0)]),
        ]
    );
    assert_eq!(TASK.reference(&s), vec![1, 0, 0, 0, 1]); // 17
}

#[test]
fn input_presents_a_then_b_then_sums_and_stops() {
    let s = Operands::new(&[1, 1], &[1]);
    let mut m = TASK.modules(&s);
    let mut sig = Signals::new(&TASK.algorithm().config.clone());
    let mut seen = Vec::new();
    while let Some(d) = m.input(None, &mut sig) {
        seen.push((d, sig.controller.clone(), m.phase()));
        assert_eq!((&sig.controller, &sig.controller), (&sig.memory, &sig.bus), "c_ic = c_im = c_ib");
        assert!(seen.len() <= 9);
    }
    let (a, b, c) = (vec![1.0, 0.0, 0.0], vec![0.0, 1.0, 0.0], vec![0.0, 0.0, 1.0]);
    let expected = vec![
        (0, a.clone(), "a"),
        (1, a.clone(), "a"),
        (1, a, "a"),
        (0, b.clone(), "b"),
        (0, b.clone(), "b"),
        (1, b, "b"),
        (0, c.clone(), "sum"),
        (0, c.clone(), "sum"),
        (0, c, "sum"),
    ];
    assert_eq!(seen, expected);
}

#[test]
fn alu_adds_in_any_base() {
    let s = Operands::new(&[0], &[0]);
    let mut fb = [9.0f32; 3];
    for (base, v1, v2, op, d_out, c_a) in [
        (2, 0, 0, OP_ADD, 0, [0.0, 1.0, 0.0]),
        (2, 1, 0, OP_ADD, 1, [0.0, 1.0, 0.0]),
        (2, 1, 1, OP_ADD, 0, [1.0, 0.0, 0.0]),
        (2, 0, 0, OP_CARRY, 1, [0.0, 1.0, 0.0]),
        (2, 1, 1, OP_CARRY, 1, [1.0, 0.0, 0.0]),
        (2, 1, 1, OP_NOP, 0, [0.0, 1.0, 1.0]),
        (10, 7, 2, OP_ADD, 9, [0.0, 1.0, 0.0]),
        (10, 7, 2, OP_CARRY, 0, [1.0, 0.0, 0.0]),
        (10, 9, 9, OP_CARRY, 9, [1.0, 0.0, 0.0]),
        (10, 4, 4, OP_NOP, 0, [0.0, 1.0, 1.0]),
    ] {
        let mut m = AdditionModules::new(&s, Digits { base });
        assert_eq!(m.alu(&[v1, v2], op, &mut fb), d_out, "base {base}: {v1} {v2} op {op}");
        assert_eq!(fb, c_a, "base {base}: {v1} {v2} op {op}");
    }
}

#[test]
fn alu_collects_sum_digits_only_in_the_sum_phase() {
    let s = Operands::new(&[1], &[1]); // 2 digits each: 2 a, 2 b, 2 sum steps
    let mut m = AdditionModules::new(&s, Digits { base: BASE });
    let mut sig = Signals::new(&TASK.algorithm().config.clone());
    let mut fb = [0.0; 3];
    for op in [OP_ADD, OP_CARRY, OP_ADD, OP_ADD, OP_ADD, OP_NOP] {
        m.input(None, &mut sig).unwrap();
        m.alu(&[1, 0], op, &mut fb);
    }
    assert_eq!(m.sum(), &[1], "presentation ops and N add no digit");
    assert!(m.input(None, &mut sig).is_none());
}

#[test]
fn config_is_the_papers() {
    let c = TASK.algorithm().config.clone();
    assert_eq!(c.check(), Ok(()));
    assert_eq!((c.controller, c.word, c.write_heads, c.read_heads, c.ops), (6, 4, 1, 2, 3));
    assert_eq!((c.input_controller, c.alu_feedback, c.free_gates), (3, 3, false));
    assert_eq!(TASK.algorithm().ops, &["A", "C", "N"]);
    let params = nhc_model::Layout::new(&c).len();
    assert!((300..=650).contains(&params), "{params} parameters (paper: 300–650)");
}

// ---- user input ----

#[test]
fn parse_input_pads_and_adds_the_leading_zero() {
    let s = TASK.parse_input(&json!({"a": "1011", "b": "110"})).unwrap();
    assert_eq!((s.a(), s.b()), (&[0, 1, 0, 1, 1][..], &[0, 0, 1, 1, 0][..]));
    let s = TASK.parse_input(&json!({"b": "1", "a": "0"})).unwrap();
    assert_eq!((s.a(), s.b()), (&[0, 0][..], &[0, 1][..]));
}

#[test]
fn parse_input_errors_are_plain() {
    for (input, needle) in [
        (json!({"a": "1"}), "missing key `b`"),
        (json!({"b": "1"}), "missing key `a`"),
        (json!({"a": "", "b": "1"}), "at least one digit"),
        (json!({"a": "1", "b": ""}), "at least one digit"),
        (json!({"a": "102", "b": "1"}), "`a`, the 3rd character: expected 0 or 1, got `2`"),
        (json!({"a": "1", "b": " 1"}), "`b`, the 1st character: expected 0 or 1, got ` `"),
        (json!({"a": "1", "b": "-1"}), "expected 0 or 1"),
        (json!({"a": 101, "b": "1"}), "string"),
        (json!({"a": "1", "b": [1, 0]}), "string"),
        (json!({"a": "1", "b": null}), "string"),
        (json!({"a": "1", "b": "1", "c": "1"}), "unknown key `c`"),
        (json!(["1", "1"]), "addition takes"),
        (json!("1011"), "addition takes"),
    ] {
        let err = TASK.parse_input(&input).expect_err(&input.to_string());
        assert!(err.0.contains(needle), "{input}: `{}` lacks `{needle}`", err.0);
    }
}

#[test]
fn run_prints_the_sum_without_leading_zeros() {
    let task = find("addition").unwrap();
    for (a, b, sum) in [
        ("1011", "110", "10001"),
        ("0", "0", "0"),
        ("000", "0", "0"),
        ("0001", "0", "1"),
        ("1", "1", "10"),
        ("1111111111", "1", "10000000000"),
        (
            "1",
            "111111111111111111111111111111111111111111111111111111111111111111111",
            "1000000000000000000000000000000000000000000000000000000000000000000000",
        ),
    ] {
        let report = task.run(&Model::Scripted, &json!({"a": a, "b": b})).unwrap();
        assert!(report.correct, "{a} + {b}");
        assert_eq!(report.output, json!(sum), "{a} + {b}");
        assert_eq!(report.expected, json!(sum), "{a} + {b}");
    }
}

#[test]
fn registry_lists_addition_in_table_order_and_evaluates_it() {
    let names = nhc_tasks::names();
    let pos = |n: &str| names.iter().position(|x| *x == n);
    assert!(pos("addition") < pos("copy"));
    let task = find("addition").unwrap();
    let report = task.evaluate(&Model::Scripted, 1000, 4, 2).unwrap();
    assert_eq!((report.solved, report.steps, report.mean_fitness), (4, 4 * 3 * 1001, 1.0));
    assert_eq!(task.domain(), "binary");
}

/// a + b for decimal digit strings (most significant first), by limbs of 10⁹: an independent
/// big-integer addition. Returns the sum's digits, most significant first, without leading zeros.
fn decimal_sum(a: &str, b: &str) -> String {
    let limbs = |s: &str| -> Vec<u64> {
        let d: Vec<u8> = s.bytes().map(|c| c - b'0').collect();
        d.rchunks(9).map(|c| c.iter().fold(0u64, |acc, &x| acc * 10 + u64::from(x))).collect()
    };
    let (x, y) = (limbs(a), limbs(b));
    let (mut out, mut carry) = (Vec::new(), 0u64);
    for k in 0..x.len().max(y.len()) {
        let s = x.get(k).unwrap_or(&0) + y.get(k).unwrap_or(&0) + carry;
        out.push(s % 1_000_000_000);
        carry = s / 1_000_000_000;
    }
    out.push(carry);
    let text: String = out.iter().rev().map(|l| format!("{l:09}")).collect();
    let t = text.trim_start_matches('0');
    if t.is_empty() { "0".into() } else { t.into() }
}

/// The decimal domain: the same algorithm on digits 0–9. The scripted solution adds every sample
/// (checked against limb arithmetic), user input reads decimal digit strings, and the registry
/// finds it as `--domain decimal`.
#[test]
fn decimal_domain_adds_decimal_numbers() {
    let dec = Addition::DECIMAL;
    assert_eq!((dec.domain(), dec.algorithm().name), ("decimal", "addition"));
    let mut m = Machine::new(&dec.algorithm().config);
    for (level, samples) in [(1, 100), (5, 50), (30, 20), (1000, 3)] {
        for i in 0..samples {
            let s = dec.sample(level, &mut sample_rng(13, level, i));
            assert!(s.a().iter().chain(s.b()).all(|&d| d < 10));
            let (outcome, solved) = score_sample(&dec, &mut m, &mut dec.scripted(), &s);
            assert!(solved, "level {level} sample {i}: {outcome:?}");
            let text = |x: &[Digit]| x.iter().map(|d| char::from(b'0' + d)).collect::<String>();
            assert_eq!(dec.answer_json(&dec.reference(&s)), json!(decimal_sum(&text(s.a()), &text(s.b()))));
        }
    }
    let task = nhc_tasks::registry::find_in("addition", Some("decimal")).unwrap();
    let report = task.run(&Model::Scripted, &json!({"a": "999", "b": "1"})).unwrap();
    assert_eq!((report.output, report.correct), (json!("1000"), true));
    let err = task.run(&Model::Scripted, &json!({"a": "12a", "b": "1"})).unwrap_err().to_string();
    assert!(err.contains("expected a digit of base 10"), "{err}");
}
