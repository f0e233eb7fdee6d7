//! arithmetic on boolean algebra (MODEL §10: decimal → boolean, `AND`, `OR`): the scripted
//! solution and the decimal-trained model (models/arithmetic.json, θ unchanged) solve the
//! boolean domain. Answers are checked against a boolean evaluator written here (`&&`, `||` on a
//! stack of bools), independently of the task's reference and of the ALU.

use nhc_tasks::arithmetic::{Arithmetic, Expression, Token};
use nhc_tasks::boolean::{Boolean, Operator, Word};
use nhc_tasks::{Model, ModelFile, SampleRng, Task, sample_rng};
use nhc_tasks::{
    any_task::{AnyTask, TraceSource},
    registry::find_in,
};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::path::Path;

const TASK: Arithmetic<Boolean> = Arithmetic(Boolean);

/// Training levels, then the paper's long ones.
const LEVELS: [usize; 13] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 100, 1000];

/// Independent value of a postfix string of `0`, `1`, `AND`, `OR`: `None` if it is not one
/// expression.
fn independent_value(text: &str) -> Option<bool> {
    let mut stack: Vec<bool> = Vec::new();
    for t in text.split_whitespace() {
        let v = match t {
            "0" => false,
            "1" => true,
            "AND" | "OR" => {
                let y = stack.pop()?;
                let x = stack.pop()?;
                if t == "AND" { x && y } else { x || y }
            }
            _ => return None,
        };
        stack.push(v);
    }
    match stack.as_slice() {
        [v] => Some(*v),
        _ => None,
    }
}

/// The answer JSON of a truth value: 0 or 1.
fn bit(b: bool) -> Value {
    json!(u8::from(b))
}

fn boolean() -> &'static dyn AnyTask {
    find_in("arithmetic", Some("boolean")).expect("boolean is registered")
}

/// The decimal-trained arithmetic model, loaded for the boolean domain.
fn learned() -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/arithmetic.json");
    let model = ModelFile::load(&path, boolean()).expect("models/arithmetic.json loads");
    Model::Learned(Box::new(model))
}

/// A random postfix string with `ops` operators and any tree shape (push or reduce by a coin
/// flip whenever both are possible), for the test's own evaluator.
fn random_expression(ops: usize, rng: &mut SampleRng) -> String {
    let (mut out, mut depth) = (Vec::new(), 0usize);
    let (mut pushes, mut reduces) = (ops + 1, ops);
    while pushes + reduces > 0 {
        if depth >= 2 && reduces > 0 && (pushes == 0 || rng.random_bool(0.5)) {
            out.push(if rng.random_bool(0.5) { "AND" } else { "OR" });
            (depth, reduces) = (depth - 1, reduces - 1);
        } else {
            out.push(if rng.random_bool(0.5) { "1" } else { "0" });
            (depth, pushes) = (depth + 1, pushes - 1);
        }
    }
    out.join(" ")
}

#[test]
fn registered_as_a_domain_of_arithmetic() {
    let task = boolean();
    assert_eq!((task.name(), task.domain()), ("arithmetic", "boolean"));
    assert_eq!(
        nhc_tasks::find("arithmetic").unwrap().domain(),
        "decimal",
        "decimal stays the training domain"
    );
    assert_eq!(task.config(), nhc_tasks::find("arithmetic").unwrap().config());
    assert!(task.takes_text());
}

#[test]
fn sampler_draws_boolean_expressions_of_the_level() {
    let (mut operands, mut operators) = (HashSet::new(), HashSet::new());
    for level in [1usize, 2, 5, 11, 100] {
        for i in 0..50 {
            let e = TASK.sample(level, &mut sample_rng(5, level, i));
            assert_eq!(e.tokens.len(), 2 * level + 1);
            for t in &e.tokens {
                match *t {
                    Token::Value(v) => operands.insert(v),
                    Token::Op(o) => operators.insert(o.symbol()),
                };
            }
            let text = e.to_string();
            assert_eq!(TASK.reference(&e).and_then(Word::value), independent_value(&text), "{text}");
            assert_eq!(TASK.parse_input(&json!(text)).unwrap(), e, "printed samples parse back");
        }
    }
    assert_eq!(operands, HashSet::from([Word::Zero, Word::One]));
    assert_eq!(operators, HashSet::from(["AND", "OR"]));
}

/// (a) The scripted solution solves every sample at levels 1–11, 100 and 1000, and every
/// sample's reference is the independent evaluator's value.
#[test]
fn scripted_solves_every_level() {
    let task = boolean();
    for level in LEVELS {
        let samples = if level >= 1000 { 20 } else { 100 };
        let r = task.evaluate(&Model::Scripted, level, samples, 7).unwrap();
        assert_eq!(r.solved, samples, "level {level}: failed {:?}", r.failed);
        assert_eq!(r.steps, (3 * level * samples) as u64, "3ℓ steps a sample");
        for i in 0..samples as u64 {
            let e = TASK.sample(level, &mut sample_rng(7, level, i));
            let text = e.to_string();
            assert!(independent_value(&text).is_some(), "{text}");
            assert_eq!(TASK.reference(&e).and_then(Word::value), independent_value(&text));
        }
    }
}

/// (b) The decimal-trained model solves 50 of 50 samples at every level, θ unchanged.
#[test]
fn learned_decimal_model_solves_boolean_levels() {
    let (task, model) = (boolean(), learned());
    let mut failures = Vec::new();
    for level in LEVELS {
        let r = task.evaluate(&model, level, 50, 0).unwrap();
        if r.solved != 50 {
            failures.push(format!("level {level}: {}/50, failed samples {:?}", r.solved, r.failed));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// (c) User expressions through the learned model: hand-checked values, then 200 random
/// expressions against the test's own evaluator.
#[test]
fn learned_model_answers_user_expressions() {
    let (task, model) = (boolean(), learned());
    let answer = |text: &str| {
        let r = task.run(&model, &json!(text)).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(r.correct, "{text}: {r:?}");
        assert_eq!(r.output, r.expected, "{text}");
        r.output
    };
    assert_eq!(answer("1 0 AND 1 OR"), json!(1));
    let hand_checked = [
        ("1 0 AND", 0),
        ("1 1 AND", 1),
        ("0 0 OR", 0),
        ("0 1 OR", 1),
        ("1 1 AND 0 AND", 0),
        ("0 1 OR 1 AND", 1),
        ("1 0 0 OR AND", 0),
        ("0 1 1 AND OR", 1),
        ("0 0 1 0 OR OR AND", 0),
        ("1 0 1 0 OR AND OR", 1),
        ("1 1 1 1 AND AND AND", 1),
        ("1 0 and 1 or", 1),
    ];
    for (text, value) in hand_checked {
        assert_eq!(answer(text), json!(value), "{text}");
    }
    // Long left- and right-leaning chains.
    assert_eq!(answer(&format!("1{}", " 0 OR".repeat(500))), json!(1));
    assert_eq!(answer(&format!("0{}", " 1 AND".repeat(500))), json!(0));
    assert_eq!(answer(&format!("{}{}", "1 ".repeat(300), "AND ".repeat(299))), json!(1));
    assert_eq!(answer(&format!("{}0 {}", "1 ".repeat(299), "OR ".repeat(299))), json!(1));

    let mut rng = SampleRng::seed_from_u64(2024);
    for k in 0..200 {
        let ops = 1 + k % 60;
        let text = random_expression(ops, &mut rng);
        let expected = independent_value(&text).expect("the generator builds expressions");
        assert_eq!(answer(&text), bit(expected), "{text}");
    }
}

/// (d) What the domain cannot take is refused with a plain message, never a panic, through the
/// task and through the registry.
#[test]
fn bad_input_is_refused_plainly() {
    let err = |v: Value| TASK.parse_input(&v).unwrap_err().to_string();
    assert!(err(json!("1 0 XOR")).contains("unknown token `XOR`; expected 0, 1, AND or OR"));
    assert!(err(json!("1 0 +")).contains("unknown token `+`"));
    assert!(err(json!("1 0 &&")).contains("unknown token `&&`"));
    assert!(err(json!("true false AND")).contains("unknown token `true`"));
    assert!(err(json!("2 1 AND")).contains("operand `2` is not a truth value"));
    assert!(err(json!("01 1 AND")).contains("operand `01` is not a truth value"));
    assert!(err(json!("-1 1 AND")).contains("unknown token `-1`"));
    assert!(err(json!("1 AND")).contains("fewer than two operands"));
    assert!(err(json!("AND 1 1")).contains("fewer than two operands"));
    assert!(err(json!("1 0 AND 1")).contains("2 values are left"));
    assert!(err(json!("1 0")).contains("at least one operator"));
    assert!(err(json!("1")).contains("at least one operator"));
    assert!(err(json!("")).contains("empty"));
    assert!(err(json!(1)).contains("at least one operator")); // a bare number: one token
    assert!(err(json!(["1", "0", "AND"])).contains("JSON string"));
    assert!(err(json!(null)).contains("JSON string"));

    let (task, model) = (boolean(), learned());
    let e = task.run(&model, &json!("1 0 XOR")).unwrap_err().to_string();
    assert!(e.contains("input for task `arithmetic`") && e.contains("unknown token `XOR`"), "{e}");
    assert!(task.check_input(&json!("5 6 * 3 +")).is_err(), "decimal tokens are not boolean");
    assert!(task.check_input(&json!("1 0 AND 1 OR")).is_ok());
}

proptest! {
    #[test]
    fn parse_agrees_with_the_independent_evaluator(
        tokens in prop::collection::vec(prop_oneof![Just("0"), Just("1"), Just("AND"), Just("OR"), Just("2"), Just("XOR")], 0..16)
    ) {
        let text = tokens.join(" ");
        let has_op = tokens.iter().any(|t| *t == "AND" || *t == "OR");
        match TASK.parse_input(&json!(text)) {
            Ok(e) => {
                prop_assert!(has_op);
                prop_assert_eq!(TASK.reference(&e).and_then(Word::value), independent_value(&text));
                prop_assert!(independent_value(&text).is_some());
            }
            Err(_) => prop_assert!(!has_op || independent_value(&text).is_none()),
        }
    }

    #[test]
    fn parse_never_panics_on_any_string(text in any::<String>()) {
        let _ = TASK.parse_input(&json!(text));
    }
}

/// Data words show as `0`, `1`, `AND`, `OR`; answers print as the numbers 0 and 1, as decimal's
/// values print as numbers.
#[test]
fn words_and_answers_as_text() {
    let shown: Vec<String> =
        [Word::Zero, Word::One, Word::And, Word::Or].iter().map(|w| TASK.show(w)).collect();
    assert_eq!(shown, ["0", "1", "AND", "OR"]);
    assert_eq!(TASK.answer_json(&Some(Word::One)), json!(1));
    assert_eq!(TASK.answer_json(&Some(Word::Zero)), json!(0));
    assert_eq!(TASK.answer_json(&None), json!(null));
    let e: Expression<Word, Operator> = TASK.parse_input(&json!(" 1\t0 and\n1 Or ")).unwrap();
    assert_eq!(e.to_string(), "1 0 AND 1 OR");

    // A trace of the learned model shows the data words readably, operators on head 1 at `C`.
    let (task, model) = (boolean(), learned());
    let (rows, report) = task.trace(&model, &TraceSource::Level { level: 3, seed: 1, index: 0 }).unwrap();
    assert!(report.correct);
    let words: HashSet<&str> = ["0", "1", "AND", "OR"].into();
    for r in &rows {
        for (_, _, data) in &r.reads {
            assert!(words.contains(data.as_str()), "step {}: `{data}`", r.step);
        }
        if r.op == "C" {
            assert!(r.reads[0].2 == "AND" || r.reads[0].2 == "OR", "step {}: {:?}", r.step, r.reads);
        }
    }
}
