//! arithmetic (MODEL §9): the scripted solution solves every sample, checked against a postfix
//! evaluator written here, independently of the task's own reference; the sampler, the data
//! modules and the user-input parser.
#![allow(clippy::unwrap_used)] // test helpers: a failed unwrap is a failing test

use nhc_model::run_scored;
use nhc_model::{DataModules, Machine, Signals};
use nhc_tasks::arithmetic::{
    Arithmetic, Decimal, Expression, OP_COMPUTE, OP_READ, Operator, ShapeRule, Shaped, Token, deep_shape,
    random_shape, split_shape, walk_shape,
};
use nhc_tasks::evaluate::score_sample;
use nhc_tasks::{Task, sample_rng};
use proptest::prelude::*;
use serde_json::json;
use std::collections::HashSet;

const TASK: Arithmetic<Decimal> = Arithmetic(Decimal);

/// Independent evaluation of a postfix string: reads the expression from its end, right operand
/// first (`op` ← `right` ← `left`), with every atomic result in [0, 10 000).
fn independent_value(text: &str) -> u64 {
    fn eval(tokens: &mut Vec<&str>) -> u64 {
        let t = tokens.pop().expect("well-formed test expression");
        let op = match t {
            "+" | "-" | "*" | "/" => t,
            n => return n.parse::<u64>().expect("test operand"),
        };
        let right = eval(tokens);
        let left = eval(tokens);
        match op {
            "+" => (left + right) % 10_000,
            "-" => (left + 10_000 - right) % 10_000,
            "*" => (left * right) % 10_000,
            _ => left / right,
        }
    }
    let mut tokens: Vec<&str> = text.split_whitespace().collect();
    let v = eval(&mut tokens);
    assert!(tokens.is_empty(), "test expression has one value");
    v
}

/// Parses `text` with the task's parser.
fn expression(text: &str) -> Expression {
    TASK.parse_input(&json!(text)).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Runs the scripted solution: (solved by trace, answer, steps, locations ever allocated,
/// locations in use at the end).
fn run(e: &Expression) -> (bool, Option<i32>, u64, usize, usize) {
    let mut machine = Machine::new(&TASK.algorithm().config.clone());
    let mut modules = TASK.modules(e);
    let trace = TASK.trace(e);
    let out =
        run_scored(&mut machine, &mut modules, &mut TASK.scripted(), &trace, Default::default(), |_, _| {});
    let m = machine.memory();
    (out.solved(), TASK.answer(&modules), out.steps, m.len(), m.in_use())
}

/// Deepest stack of a postfix expression.
fn max_depth(e: &Expression) -> usize {
    let (mut d, mut max) = (0usize, 0usize);
    for t in &e.tokens {
        d = if matches!(t, Token::Value(_)) { d + 1 } else { d - 1 };
        max = max.max(d);
    }
    max
}

/// Checks one expression end to end: solved, the right value, 3ℓ steps, and memory used as an
/// array stack (the operator goes on top of the deepest stack; everything is freed at the end).
fn check(text: &str) {
    let e = expression(text);
    let ops = e.tokens.iter().filter(|t| matches!(t, Token::Op(_))).count();
    let (solved, answer, steps, allocated, in_use) = run(&e);
    assert!(solved, "{text}");
    assert_eq!(answer, Some(independent_value(text) as i32), "{text}");
    assert_eq!(steps, 3 * ops as u64, "{text}: ℓ + 1 values, ℓ operators, ℓ − 1 results");
    assert_eq!(allocated, max_depth(&e) + 1, "{text}");
    assert_eq!(in_use, 0, "{text}");
}

#[test]
fn scripted_solves_levels_1_2_10_100_1000() {
    let mut m = Machine::new(&TASK.algorithm().config.clone());
    for (level, samples) in [(1, 200), (2, 200), (10, 100), (100, 50), (1000, 10)] {
        for i in 0..samples {
            let sample = TASK.sample(level, &mut sample_rng(11, level, i));
            let (outcome, solved) = score_sample(&TASK, &mut m, &mut TASK.scripted(), &sample);
            assert!(solved, "level {level} sample {i}: {outcome:?}");
            assert_eq!(outcome.fitness(), 1.0);
            let text = sample.to_string();
            assert_eq!(TASK.reference(&sample), Some(independent_value(&text) as i32), "{text}");
            let mut modules = TASK.modules(&sample);
            run_scored(
                &mut m,
                &mut modules,
                &mut TASK.scripted(),
                &TASK.trace(&sample),
                Default::default(),
                |_, _| {},
            );
            assert_eq!(TASK.answer(&modules), Some(independent_value(&text) as i32));
        }
    }
}

#[test]
fn level_1000_runs_well_under_a_second() {
    let sample = TASK.sample(1000, &mut sample_rng(3, 1000, 0));
    let start = std::time::Instant::now();
    let (solved, ..) = run(&sample);
    assert!(solved);
    // Generous in debug builds; a release run takes about a millisecond.
    assert!(start.elapsed().as_secs_f64() < 1.0, "{:?}", start.elapsed());
}

#[test]
fn hard_cases() {
    check("5 6 * 3 +");
    // Only right-leaning trees: every operand is pushed before any operator.
    check("1 2 3 4 5 + + + +");
    let operands = (0..500).map(|k| (k % 10 + 1).to_string());
    let operators = (0..499).map(|k| ["+", "*", "-"][k % 3].to_string());
    check(&operands.chain(operators).collect::<Vec<_>>().join(" "));
    // Only left-leaning trees: the stack never holds more than two values.
    check("1 2 + 3 + 4 +");
    check(&(String::from("7") + &" 3 * 9 -".repeat(500)));
    // Results that wrap around the modulus.
    check("1 2 -");
    assert_eq!(run(&expression("1 2 -")).1, Some(9999));
    assert_eq!(run(&expression("99 999 *")).1, Some(8901));
    assert_eq!(run(&expression("9999 9999 *")).1, Some(1));
    assert_eq!(run(&expression("9999 1 +")).1, Some(0));
    assert_eq!(run(&expression("10 10 * 10 * 10 * 10 *")).1, Some(0));
    assert_eq!(run(&expression("0 9999 -")).1, Some(1));
    // Division rounds down; a quotient of 0 is a value like any other.
    assert_eq!(run(&expression("7 2 /")).1, Some(3));
    assert_eq!(run(&expression("2 7 /")).1, Some(0));
    assert_eq!(run(&expression("1 2 - 3 /")).1, Some(3333));
    assert_eq!(run(&expression("5 2 7 / +")).1, Some(5));
    for text in ["7 2 /", "2 7 /", "1 2 - 3 /", "0 5 /", "10 3 / 3 /", "1 2 3 4 5 / * - +"] {
        check(text);
    }
}

/// A valid postfix string from proptest's choices: `ops` operators; `choose_op[k]` decides
/// between pushing and reducing whenever both are possible; a division by zero becomes `*`.
fn build(ops: usize, choose_op: &[bool], operands: &[u64], operators: &[usize]) -> String {
    let (mut out, mut stack) = (Vec::new(), Vec::<u64>::new());
    let (mut pushes, mut reduces, mut k) = (ops + 1, ops, 0);
    while pushes + reduces > 0 {
        let reduce = stack.len() >= 2 && reduces > 0 && (pushes == 0 || choose_op[k % choose_op.len()]);
        if reduce {
            let (y, x) = (stack.pop().unwrap(), stack.pop().unwrap());
            let op = match ["+", "-", "*", "/"][operators[k % operators.len()]] {
                "/" if y == 0 => "*",
                o => o,
            };
            stack.push(match op {
                "+" => (x + y) % 10_000,
                "-" => (x + 10_000 - y) % 10_000,
                "*" => (x * y) % 10_000,
                _ => x / y,
            });
            out.push(op.to_string());
            reduces -= 1;
        } else {
            let v = operands[k % operands.len()];
            out.push(v.to_string());
            stack.push(v);
            pushes -= 1;
        }
        k += 1;
    }
    out.join(" ")
}

proptest! {
    #[test]
    fn scripted_evaluates_random_expressions(
        ops in 1usize..60,
        choose_op in prop::collection::vec(any::<bool>(), 1..50),
        operands in prop::collection::vec(prop_oneof![0u64..11, 0u64..10_000], 1..50),
        operators in prop::collection::vec(0usize..4, 1..50),
    ) {
        check(&build(ops, &choose_op, &operands, &operators));
    }

    #[test]
    fn parse_input_never_panics(text in "[-+*/0-9a ]{0,24}") {
        if let Ok(e) = TASK.parse_input(&json!(text)) {
            prop_assert_eq!(TASK.reference(&e), Some(independent_value(&text) as i32));
        }
    }

    #[test]
    fn parse_input_never_panics_on_any_string(text in any::<String>()) {
        let _ = TASK.parse_input(&json!(text));
    }

    #[test]
    fn shapes_are_valid_postfix(ops in 0usize..200, seed in any::<u64>()) {
        let shape = random_shape(ops, &mut sample_rng(seed, ops, 0));
        prop_assert_eq!(shape.len(), 2 * ops + 1);
        let mut depth = 0i64;
        for push in shape {
            depth += if push { 1 } else { -1 };
            prop_assert!(depth >= 1);
        }
        prop_assert_eq!(depth, 1);
    }

    #[test]
    fn deep_shapes_are_valid_postfix(ops in 0usize..150, seed in any::<u64>()) {
        let shape = deep_shape(ops, &mut sample_rng(seed, ops, 0));
        prop_assert_eq!(shape.len(), 2 * ops + 1);
        let mut depth = 0i64;
        for push in shape {
            depth += if push { 1 } else { -1 };
            prop_assert!(depth >= 1);
        }
        prop_assert_eq!(depth, 1);
    }
}

/// The deepest stack of a shape, counted here.
fn deepest(shape: &[bool]) -> usize {
    let (mut d, mut top) = (0i64, 0i64);
    for &push in shape {
        d += if push { 1 } else { -1 };
        top = top.max(d);
    }
    top as usize
}

/// `deep_shape` draws the deepest stack uniformly from 2..=ops + 1, and within one depth every
/// shape about equally often: counted against an enumeration of all 42 shapes of 5 operators.
#[test]
fn deep_shapes_draw_every_depth_alike_and_every_shape_of_a_depth_alike() {
    let ops = 5;
    let draws = 30_000;
    let mut count: std::collections::HashMap<Vec<bool>, usize> = Default::default();
    let mut rng = sample_rng(7, ops, 0);
    for _ in 0..draws {
        *count.entry(deep_shape(ops, &mut rng)).or_default() += 1;
    }
    // Every shape of 5 operators, enumerated by brute force over the 2^11 token strings.
    let all: Vec<Vec<bool>> = (0u32..1 << 11)
        .map(|m| (0..11).map(|j| m >> j & 1 == 1).collect::<Vec<bool>>())
        .filter(|s| {
            let mut d = 0i64;
            s.iter().all(|&p| {
                d += if p { 1 } else { -1 };
                d >= 1
            }) && d == 1
        })
        .collect();
    assert_eq!(all.len(), 42);
    assert!(count.keys().all(|s| all.contains(s)), "a drawn shape is not a postfix shape");
    for depth in 2..=ops + 1 {
        let of_depth: Vec<&Vec<bool>> = all.iter().filter(|s| deepest(s) == depth).collect();
        let total: usize = of_depth.iter().map(|s| count.get(*s).copied().unwrap_or(0)).sum();
        let share = total as f64 / draws as f64;
        assert!((share - 0.2).abs() < 0.02, "depth {depth}: share {share}");
        let each = total as f64 / of_depth.len() as f64;
        for s in of_depth {
            let n = count.get(s).copied().unwrap_or(0) as f64;
            assert!((n - each).abs() < 0.25 * each + 30.0, "depth {depth}: {n} draws, expected {each}");
        }
    }
}

#[test]
fn parse_input_refuses_what_the_task_cannot_take() {
    let err = |v: serde_json::Value| TASK.parse_input(&v).unwrap_err().to_string();
    assert!(err(json!("")).contains("empty"));
    assert!(err(json!("0 -0 -")).contains("operand `-0` is out of range"));
    assert!(err(json!("   ")).contains("empty"));
    assert!(err(json!("7")).contains("at least one operator"));
    assert!(err(json!("1 2")).contains("at least one operator"));
    assert!(err(json!("1 +")).contains("fewer than two operands"));
    assert!(err(json!("+ 1 2")).contains("fewer than two operands"));
    assert!(err(json!("1 2 + 3")).contains("2 values are left"));
    assert!(err(json!("1 0 /")).contains("divides by zero"));
    assert!(err(json!("1 1 1 - /")).contains("the 5th token divides by zero"));
    assert!(err(json!("1 x +")).contains("unknown token `x`"));
    assert!(err(json!("1 2 %")).contains("unknown token"));
    assert!(err(json!("1 2 ++")).contains("unknown token"));
    assert!(err(json!("1.5 2 +")).contains("unknown token"));
    assert!(err(json!("10000 1 +")).contains("out of range"));
    assert!(err(json!("-3 1 +")).contains("out of range"));
    assert!(err(json!("123456789012345678901234567890 1 +")).contains("out of range"));
    // A bare number is an expression of one token (`--input 5`), refused for its cause.
    assert!(err(json!(5)).contains("needs at least one operator"));
    assert!(err(json!(["5", "6", "*"])).contains("JSON string"));
    assert!(err(json!(null)).contains("JSON string"));
    assert!(err(json!("+5 6 *")).contains("unknown token `+5`"));
    // Accepted: operands 0 and 9999, leading zeros, any whitespace.
    assert_eq!(TASK.reference(&expression(" 0\t9999\n+ ")), Some(9999));
    assert_eq!(TASK.reference(&expression("005 6 *")), Some(30));
}

#[test]
fn answers_and_words_as_text() {
    assert_eq!(TASK.answer_json(&Some(33)), json!(33));
    assert_eq!(TASK.answer_json(&None), json!(null));
    let shown: Vec<String> = [-1, -2, -3, -4, 0, 9999].iter().map(|w| TASK.show(w)).collect();
    assert_eq!(shown, ["+", "-", "*", "/", "0", "9999"]);
    assert_eq!(expression("5 6 * 3 +").to_string(), "5 6 * 3 +");
    let report =
        nhc_tasks::find("arithmetic").unwrap().run(&nhc_tasks::Model::Scripted, &json!("5 6 * 3 +")).unwrap();
    assert_eq!((report.output, report.expected, report.correct), (json!(33), json!(33), true));
}

#[test]
fn registered_in_the_papers_table_order() {
    let names = nhc_tasks::names();
    let pos = |n: &str| names.iter().position(|x| *x == n).unwrap();
    assert!(pos("arithmetic") < pos("copy"));
    assert_eq!(nhc_tasks::find("arithmetic").unwrap().ops(), ["C", "R"]);
}

#[test]
fn config_is_the_papers() {
    let c = TASK.algorithm().config.clone();
    assert_eq!((c.controller, c.word, c.write_heads, c.read_heads, c.ops), (6, 4, 1, 3, 2));
    assert_eq!((c.input_controller, c.input_memory, c.input_bus, c.alu_feedback), (2, 2, 2, 2));
    assert!(c.free_gates && c.previous_update && c.ancestry && !c.bus_feedback);
    assert_eq!(nhc_model::Layout::new(&c).len(), 648, "paper: 300–650 parameters");
}

#[test]
fn input_presents_tokens_and_results_and_stops_after_the_last_operator() {
    let e = expression("5 6 * 3 +");
    let mut m = TASK.modules(&e);
    let mut s = Signals::new(&TASK.algorithm().config.clone());
    let mut seen = Vec::new();
    let mut d_out: Option<i32> = None;
    let mut feedback = [0.0; 2];
    while let Some(d_i) = m.input(d_out.as_ref(), &mut s) {
        assert_eq!(s.controller, s.memory);
        assert_eq!(s.controller, s.bus);
        seen.push((d_i, s.controller.clone(), m.phase()));
        // An ALU stand-in that always returns 100 + step, to see where d_out is presented.
        d_out = Some(100 + seen.len() as i32);
        let _ = m.alu(&[0, 0, 0], OP_READ, &mut feedback);
    }
    let v = vec![1.0, 0.0];
    let a = vec![0.0, 1.0];
    assert_eq!(
        seen,
        [
            (5, v.clone(), "value"),
            (6, v.clone(), "value"),
            (-3, a.clone(), "operator"),
            (103, v.clone(), "result"),
            (3, v.clone(), "value"),
            (-1, a.clone(), "operator"),
        ]
    );
    assert!(m.input(Some(&0), &mut s).is_none(), "the Input stays stopped");
}

#[test]
fn alu_computes_reads_and_feeds_back_its_operation() {
    let mut m = TASK.modules(&expression("1 2 +"));
    let mut fb = [0.0; 2];
    assert_eq!(m.alu(&[-1, 4, 5], OP_COMPUTE, &mut fb), 9);
    assert_eq!(fb, [1.0, 0.0]);
    assert_eq!(m.alu(&[-2, 4, 5], OP_COMPUTE, &mut fb), 9999);
    assert_eq!(m.alu(&[-3, 400, 500], OP_COMPUTE, &mut fb), 0);
    assert_eq!(m.alu(&[-4, 9, 4], OP_COMPUTE, &mut fb), 2);
    assert_eq!(m.alu(&[-1, 4, 5], OP_READ, &mut fb), 4, "R: d_out = d2");
    assert_eq!(fb, [0.0, 1.0]);
    // Words a wrong model may read: no operator, division by zero, negative operands.
    assert_eq!(m.alu(&[7, 4, 5], OP_COMPUTE, &mut fb), 0);
    assert_eq!(m.alu(&[-4, 4, 0], OP_COMPUTE, &mut fb), 0);
    assert_eq!(m.alu(&[-4, -7, -2], OP_COMPUTE, &mut fb), 4);
    assert_eq!(m.alu(&[-3, i32::MIN, i32::MIN], OP_COMPUTE, &mut fb), 7904, "2^62 mod 10 000, no overflow");
    assert_eq!(TASK.answer(&m), Some(7904), "the answer is the last d_out");
}

#[test]
fn trace_scores_every_step() {
    let e = expression("5 6 * 3 +");
    let t = TASK.trace(&e);
    assert_eq!((t.len(), t.scored()), (6, 6));
    let ops: Vec<_> = (0..t.len()).map(|k| t.step(k).op.unwrap()).collect();
    assert_eq!(ops, [OP_READ, OP_READ, OP_COMPUTE, OP_READ, OP_READ, OP_COMPUTE]);
    assert_eq!(t.step(2).reads, [Some(-3), Some(5), Some(6)]);
    assert_eq!(t.step(5).reads, [Some(-1), Some(30), Some(3)]);
    assert_eq!(t.step(3).reads, [None, None, None]);
}

#[test]
fn sampler_follows_the_level() {
    let mut operators = HashSet::new();
    let mut operands = HashSet::new();
    for level in [1usize, 2, 5, 10, 100] {
        for i in 0..50 {
            let e = TASK.sample(level, &mut sample_rng(5, level, i));
            let ops = e.tokens.iter().filter(|t| matches!(t, Token::Op(_))).count();
            assert_eq!((ops, e.tokens.len()), (level, 2 * level + 1));
            for t in &e.tokens {
                match *t {
                    Token::Value(v) => {
                        assert!((1..=10).contains(&v));
                        operands.insert(v);
                    }
                    Token::Op(o) => {
                        operators.insert(o);
                    }
                }
            }
            // Valid and free of divisions by zero (the independent evaluator would panic).
            let text = e.to_string();
            assert_eq!(TASK.reference(&e), Some(independent_value(&text) as i32));
            assert_eq!(TASK.parse_input(&json!(text)).unwrap(), e);
        }
    }
    assert_eq!(operands.len(), 10);
    assert_eq!(operators.len(), Operator::ALL.len());
}

#[test]
fn sampler_draws_every_tree_shape_about_equally_often() {
    // Level 3 has Catalan(3) = 5 shapes, level 4 has 14.
    for (level, shapes) in [(3usize, 5usize), (4, 14)] {
        let n = 1400;
        let mut counts = std::collections::HashMap::new();
        for i in 0..n {
            let e = TASK.sample(level, &mut sample_rng(9, level, i));
            let shape: Vec<bool> = e.tokens.iter().map(|t| matches!(t, Token::Value(_))).collect();
            *counts.entry(shape).or_insert(0usize) += 1;
        }
        assert_eq!(counts.len(), shapes);
        let mean = n as usize / shapes;
        for c in counts.values() {
            assert!(c.abs_diff(mean) < mean / 3, "level {level}: {counts:?}");
        }
    }
}

#[test]
fn sampling_is_deterministic() {
    let a = TASK.sample(20, &mut sample_rng(1, 20, 3));
    let b = TASK.sample(20, &mut sample_rng(1, 20, 3));
    assert_eq!(a, b);
}

#[test]
fn a_learned_model_runs_a_user_expression_through_the_registry() {
    use nhc_model::{Layout, Params};
    let config = TASK.algorithm().config.clone();
    let theta: Vec<f32> = (0..Layout::new(&config).len()).map(|k| (k * 37 % 11) as f32 / 3.0 - 1.6).collect();
    let params = Params::new(config, theta).unwrap();
    let model = nhc_tasks::Model::Learned(Box::new(nhc_tasks::model::LearnedModel {
        variant: nhc_model::Variant::Nhc,
        params,
    }));
    let report = nhc_tasks::find("arithmetic").unwrap().run(&model, &json!("1 2 3 / - 4 *")).unwrap();
    assert_eq!(report.expected, json!(4));
}

/// The `chains` domain draws left-deep expressions only (`a b ∘ c ∘ …`: a stack of at most two
/// values), with random operators and operands; its reference is the independent evaluation,
/// and its samples parse back as the decimal domain's.
#[test]
fn chains_are_left_deep_with_random_operators_and_operands() {
    let chains = Arithmetic(Shaped(ShapeRule::Chains));
    let mut operators = HashSet::new();
    for level in [1usize, 2, 5, 40] {
        for index in 0..20u64 {
            let s = chains.sample(level, &mut sample_rng(3, level, index));
            let text = chains.sample_json(&s).as_str().expect("a postfix string").to_string();
            let tokens: Vec<&str> = text.split_whitespace().collect();
            assert_eq!(tokens.len(), 2 * level + 1, "{text}");
            for (k, t) in tokens.iter().enumerate() {
                let operator = ["+", "-", "*", "/"].contains(t);
                assert_eq!(operator, k >= 2 && k % 2 == 0, "left-deep: {text}");
                if operator {
                    operators.insert(t.to_string());
                }
            }
            let answer = chains.reference(&s).expect("a value");
            assert_eq!(answer as u64, independent_value(&text), "{text}");
            assert_eq!(expression(&text), s, "the decimal parser reads it back");
        }
    }
    assert_eq!(operators.len(), 4, "every operator drawn");
}

/// The `splits` sampler draws valid postfix shapes of exactly `ops` operators whose root's left
/// subtree has k operators, k uniform over 0..ops.
#[test]
fn splits_draw_the_left_subtree_uniformly() {
    let mut rng = sample_rng(5, 7, 0);
    let ops = 7;
    let mut left = [0u32; 7];
    for _ in 0..7000 {
        let shape = split_shape(ops, &mut rng);
        assert_eq!(shape.len(), 2 * ops + 1);
        // Postfix is left, right, root: the left subtree ends at the last depth of 1 before the
        // root, and the right one keeps the stack at 2 or more.
        let mut depth = 0i64;
        let mut left_end = 0;
        for (k, &push) in shape.iter().enumerate() {
            depth += if push { 1 } else { -1 };
            assert!(depth >= 1, "a valid postfix shape");
            if depth == 1 && k + 1 < shape.len() {
                left_end = k + 1;
            }
        }
        assert_eq!(depth, 1);
        left[(left_end - 1) / 2] += 1;
    }
    for (k, &n) in left.iter().enumerate() {
        assert!((850..1150).contains(&n), "left subtree of {k} operators drawn {n} times of 7000");
    }
    let sampled = Arithmetic(Shaped(ShapeRule::Splits)).sample(10, &mut sample_rng(1, 10, 0));
    assert_eq!(sampled.tokens.len(), 21);
}

/// The `walks` sampler draws valid postfix shapes of exactly `ops` operators, with the
/// frequencies of the coin-flip walk: its exact probabilities enumerated here (a number below a
/// stack of two, an operator once all `ops + 1` numbers are placed, else one half each), checked
/// by chi-square on 40 000 draws at 3 operators (5 shapes) and 4 (14 shapes).
#[test]
fn walks_draw_shapes_with_the_coin_flip_walks_probabilities() {
    use std::collections::HashMap;
    fn enumerate(
        ops: usize,
        shape: &mut Vec<bool>,
        depth: usize,
        numbers: usize,
        p: f64,
        out: &mut HashMap<Vec<bool>, f64>,
    ) {
        if shape.len() == 2 * ops + 1 {
            *out.entry(shape.clone()).or_default() += p;
            return;
        }
        let moves: &[bool] = if depth < 2 {
            &[true]
        } else if numbers == ops + 1 {
            &[false]
        } else {
            &[true, false]
        };
        for &push in moves {
            shape.push(push);
            let (d, n) = if push { (depth + 1, numbers + 1) } else { (depth - 1, numbers) };
            enumerate(ops, shape, d, n, p / moves.len() as f64, out);
            shape.pop();
        }
    }
    for ops in 1..=40 {
        for index in 0..20 {
            let shape = walk_shape(ops, &mut sample_rng(7, ops, index));
            assert_eq!(shape.len(), 2 * ops + 1);
            let mut depth = 0i64;
            for &push in &shape {
                depth += if push { 1 } else { -1 };
                assert!(depth >= 1, "a valid postfix shape: {shape:?}");
            }
            assert_eq!(depth, 1, "one value left: {shape:?}");
            assert_eq!(shape.iter().filter(|&&push| !push).count(), ops);
        }
    }
    // Chi-square bounds at p = 0.001 for 4 and 13 degrees of freedom.
    for (ops, shapes, bound) in [(3usize, 5usize, 18.47), (4, 14, 34.53)] {
        let mut exact = HashMap::new();
        enumerate(ops, &mut Vec::new(), 0, 0, 1.0, &mut exact);
        assert_eq!(exact.len(), shapes);
        assert!((exact.values().sum::<f64>() - 1.0).abs() < 1e-12);
        let draws = 40_000;
        let mut rng = sample_rng(11, ops, 0);
        let mut counts: HashMap<Vec<bool>, u32> = HashMap::new();
        for _ in 0..draws {
            let shape = walk_shape(ops, &mut rng);
            assert!(exact.contains_key(&shape), "a shape the walk cannot draw: {shape:?}");
            *counts.entry(shape).or_default() += 1;
        }
        let chi2: f64 = exact
            .iter()
            .map(|(shape, &p)| {
                let expected = p * f64::from(draws);
                (f64::from(counts.get(shape).copied().unwrap_or(0)) - expected).powi(2) / expected
            })
            .sum();
        assert!(chi2 < bound, "{ops} operators: chi-square {chi2:.1}, counts {counts:?}");
    }
    let sampled = Arithmetic(Shaped(ShapeRule::Walks)).sample(10, &mut sample_rng(1, 10, 0));
    assert_eq!(sampled.tokens.len(), 21);
}
