//! The models of models/ on inputs of every shape users send, not only the curriculum's:
//! repeatCopy and duplicated on a grid of object counts × copies (repeats) up to level-1000
//! sizes, uneven runs, lists of one object and of equal objects; copy, reverse and sort on edge
//! cases. Answers are compared with references computed here (repetition, run collapsing,
//! reversal, `sort()`), never with the tasks' own references or a model's earlier output.

use nhc_tasks::{Model, ModelFile};
use nhc_tasks::{any_task::AnyTask, registry::find_in};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use std::path::Path;

fn task(name: &str) -> &'static dyn AnyTask {
    find_in(name, None).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn shipped(name: &str) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../models/{name}.json"));
    Model::Learned(Box::new(ModelFile::load(&path, task(name)).unwrap_or_else(|e| panic!("{e}"))))
}

/// A 6-bit object as the binary domain's JSON.
fn object(bits: u8) -> Value {
    json!((0..6).map(|k| (bits >> k) & 1).collect::<Vec<_>>())
}

/// `n` objects, each different from the one before.
fn distinct_runs(n: usize, rng: &mut ChaCha8Rng) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::with_capacity(n);
    while out.len() < n {
        let x = rng.random_range(0..64u8);
        if out.last() != Some(&x) {
            out.push(x);
        }
    }
    out
}

/// Runs `model` on `input` and compares its answer with `expected`; a line if they differ.
fn check(name: &str, model: &Model, input: Value, expected: Vec<Value>, shape: &str) -> Option<String> {
    let r = task(name).run(model, &input).unwrap_or_else(|e| panic!("{name} {shape}: {e}"));
    (r.output != Value::Array(expected) || !r.correct).then(|| format!("{name} {shape}"))
}

const COUNTS: [usize; 5] = [1, 2, 7, 60, 300];
const COPIES: [usize; 4] = [1, 2, 17, 50];

/// Runs `name` on every shape of the grid, `case(n, c, rng)` giving the input and the expected
/// answer; the shapes answered wrong.
fn grid(
    name: &str,
    seed: u64,
    mut case: impl FnMut(usize, usize, &mut ChaCha8Rng) -> (Value, Vec<Value>),
) -> Vec<String> {
    let model = shipped(name);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut failed = Vec::new();
    for n in COUNTS {
        for c in COPIES {
            let (input, expected) = case(n, c, &mut rng);
            failed.extend(check(name, &model, input, expected, &format!("{n} objects × {c}")));
        }
    }
    failed
}

#[test]
fn repeat_copy_handles_any_count_of_objects_and_copies() {
    let mut failed = grid("repeatCopy", 11, |n, c, rng| {
        let items: Vec<Value> = (0..n).map(|_| object(rng.random_range(0..64u8))).collect();
        let expected = (0..c).flat_map(|_| items.clone()).collect();
        (json!({ "items": items, "copies": c }), expected)
    });
    let same = vec![object(5); 40];
    let expected = (0..3).flat_map(|_| same.clone()).collect();
    failed.extend(check(
        "repeatCopy",
        &shipped("repeatCopy"),
        json!({"items": same, "copies": 3}),
        expected,
        "40 equal × 3",
    ));
    assert!(failed.is_empty(), "wrong answers: {failed:?}");
}

#[test]
fn duplicated_handles_any_count_of_objects_and_repeats() {
    let mut failed = grid("duplicated", 12, |n, c, rng| {
        let kept = distinct_runs(n, rng);
        let input: Vec<Value> = kept.iter().flat_map(|&x| std::iter::repeat_n(object(x), c)).collect();
        (json!(input), kept.iter().map(|&x| object(x)).collect())
    });
    // Runs of uneven length (1–20), and one object repeated 1000 times.
    let model = shipped("duplicated");
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let kept = distinct_runs(50, &mut rng);
    let input: Vec<Value> =
        kept.iter().flat_map(|&x| std::iter::repeat_n(object(x), rng.random_range(1..=20))).collect();
    let expected = kept.iter().map(|&x| object(x)).collect();
    failed.extend(check("duplicated", &model, json!(input), expected, "50 uneven runs"));
    failed.extend(check("duplicated", &model, json!(vec![object(9); 1000]), vec![object(9)], "1 × 1000"));
    assert!(failed.is_empty(), "wrong answers: {failed:?}");
}

#[test]
fn copy_and_reverse_handle_one_equal_and_long_lists() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let long: Vec<u8> = (0..1000).map(|_| rng.random_range(0..64u8)).collect();
    let lists = [vec![7u8], vec![3; 30], long];
    let mut failed = Vec::new();
    for name in ["copy", "reverse"] {
        let model = shipped(name);
        for items in &lists {
            let mut expected: Vec<Value> = items.iter().map(|&x| object(x)).collect();
            if name == "reverse" {
                expected.reverse();
            }
            let input = json!(items.iter().map(|&x| object(x)).collect::<Vec<_>>());
            failed.extend(check(name, &model, input, expected, &format!("{} objects", items.len())));
        }
    }
    assert!(failed.is_empty(), "wrong answers: {failed:?}");
}

#[test]
fn sort_handles_one_equal_sorted_and_reversed_lists() {
    let model = shipped("sort");
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let random: Vec<u32> = (0..300).map(|_| rng.random_range(0..256)).collect();
    let lists =
        [vec![200], vec![17; 40], (0..100).collect(), (0..100).rev().collect(), vec![255, 0, 255, 0], random];
    let mut failed = Vec::new();
    for items in lists {
        let mut expected = items.clone();
        expected.sort();
        let expected = expected.into_iter().map(Value::from).collect();
        failed.extend(check("sort", &model, json!(items), expected, &format!("{} numbers", items.len())));
    }
    assert!(failed.is_empty(), "wrong answers: {failed:?}");
}
