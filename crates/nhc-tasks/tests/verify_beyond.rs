//! The beyond stage of verification (docs/VERIFICATION.md, "Verification"): a solution right on every
//! listed input and wrong on longer ones is "verified, wrong beyond" with its smallest wrong
//! size, the stage's levels have the sizes it says, and its report does not depend on the
//! thread count.

mod early_mark;

use early_mark::early_mark;
use nhc_tasks::any_task::{AnyTask, Entry};
use nhc_tasks::copy_family::{Copy, Decimals};
use nhc_tasks::registry::find_in;
use nhc_tasks::verify::{Bounds, Report};
use nhc_tasks::{Model, Task};
use serde_json::Value;

/// The broken copy verified to 20 objects, sampled beyond up to `top`, on a pool of `threads`.
fn broken_copy(threads: usize, top: u64) -> Report {
    let task = Entry(Copy(Decimals));
    let config = task.0.algorithm().config.clone();
    // Wrong on lists of at least 25 objects: it marks the end at the first output step.
    let policy = || early_mark(task.0.scripted(), |presented, _, _| presented >= 25);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
    let mut r = pool
        .install(|| task.verify_beyond_with(&config, &policy, "broken", &Bounds(vec![20]), top))
        .expect("a verification");
    r.seconds = 0.0;
    r
}

#[test]
fn a_solution_wrong_beyond_its_bound_is_verified_wrong_beyond() {
    let r = broken_copy(2, 1000);
    let p = &r.parts[0];
    assert_eq!((p.failed, p.right_to, r.outcome.as_str()), (0, 20, "verified, wrong beyond"));
    assert!(r.wrong_beyond() && !r.failed());
    let b = p.beyond.as_ref().expect("samples beyond the bound");
    // 21–40 with 20 samples each, then log-spaced from 41 to 1 000 with 5 each; wrong from 25
    // objects on.
    assert_eq!(b.sizes[..20], (21..=40).collect::<Vec<_>>());
    assert_eq!(b.sizes[20..22], [41, 55], "{:?}", b.sizes);
    assert_eq!((b.sizes.len(), b.sizes.last()), (32, Some(&1000)));
    assert_eq!(b.levels, b.sizes, "copy's level ℓ has ℓ objects");
    let per: Vec<u64> = b.sizes.iter().map(|&s| if s <= 40 { 20 } else { 5 }).collect();
    assert_eq!(b.samples, per);
    let wrong: Vec<u64> = b.sizes.iter().zip(&per).map(|(&s, &n)| if s >= 25 { n } else { 0 }).collect();
    assert_eq!(b.failed, wrong);
    let w = b.smallest.as_ref().expect("the smallest wrong sample");
    assert_eq!((w.level, w.index, w.run.layer, w.run.shape.as_str()), (25, 0, 25, "25 objects"));
    assert_eq!(w.run.input.as_array().map(Vec::len), Some(25));
    let step = w.run.first_wrong.as_ref().expect("a wrong step");
    assert_eq!((step.expected_op.as_deref(), step.op.as_str()), (Some("O"), "M"));
    // The sample is the one `nhc trace --level 25 --seed 5000 --index 0` draws.
    let (input, _) = Entry(Copy(Decimals)).sample(25, b.seed, 0).expect("a sample");
    assert_eq!(input, w.run.input);
    // Off, or a top within the bound: no stage, and verified.
    for top in [0, 20] {
        let r = broken_copy(1, top);
        assert_eq!((r.outcome.as_str(), r.parts[0].beyond.is_none()), ("verified", true), "top {top}");
    }
}

#[test]
fn the_beyond_stage_does_not_depend_on_the_thread_count() {
    assert_eq!(broken_copy(1, 300), broken_copy(3, 300));
}

/// The size of a sample in the unit of part `part` of task `name` (its layer), from the sample's
/// JSON: objects, the larger of objects and copies (or repeats), digits, operators.
fn size(name: &str, part: usize, input: &Value) -> u64 {
    let len = |v: &Value| v.as_array().map_or(0, Vec::len) as u64;
    match (name, part) {
        ("copy" | "reverse" | "sort", 0) => len(input),
        ("repeatCopy", 0) => len(&input["items"]).max(input["copies"].as_u64().unwrap_or(0)),
        ("duplicated", 1) => {
            let items = input.as_array().cloned().unwrap_or_default();
            let mut runs: Vec<u64> = Vec::new();
            for (k, x) in items.iter().enumerate() {
                match k > 0 && items[k - 1] == *x {
                    true => *runs.last_mut().expect("a run") += 1,
                    false => runs.push(1),
                }
            }
            // Every object presented the same number of times.
            assert!(runs.windows(2).all(|w| w[0] == w[1]), "{runs:?}");
            (runs.len() as u64).max(runs[0])
        }
        ("addition", 0) => input["a"].as_str().map_or(0, str::len) as u64,
        ("arithmetic", 0) => (input.as_str().map_or(0, |t| t.split_whitespace().count()) as u64 - 1) / 2,
        _ => panic!("{name} part {part} has no levels"),
    }
}

/// Every built-in part the stage samples: its level's samples have the size asked for.
#[test]
fn each_level_beyond_has_the_size_it_stands_for() {
    fn check<T: Task>(task: T, name: &str) -> usize {
        let parts = task.shapes(&Bounds(vec![2]));
        let levels: Vec<_> = parts.iter().map(|p| p.beyond_level).collect();
        drop(parts);
        let entry = Entry(task);
        let mut checked = 0;
        for (part, level_of) in levels.into_iter().enumerate() {
            let Some(level_of) = level_of else { continue };
            for s in [3, 17, 60] {
                let Some(level) = level_of(s) else { continue };
                for index in 0..3 {
                    let (input, _) = entry.sample(level as usize, 5_000, index).expect("a sample");
                    assert_eq!(size(name, part, &input), s, "{name} part {part}, level {level}: {input}");
                }
                checked += 1;
            }
        }
        checked
    }
    use nhc_tasks::addition::Addition;
    use nhc_tasks::arithmetic::Arithmetic;
    use nhc_tasks::copy_family::{Duplicated, RepeatCopy, Reverse};
    use nhc_tasks::sort::Sort;
    use nhc_tasks::symbolic::Symbolic;
    assert_eq!(check(Copy(Decimals), "copy"), 3);
    assert_eq!(check(Reverse(Decimals), "reverse"), 3);
    assert_eq!(check(RepeatCopy(Decimals), "repeatCopy"), 3);
    // The run-length part has no level: only the grid part is sampled.
    assert_eq!(check(Duplicated(Decimals), "duplicated"), 3);
    assert_eq!(check(Sort(nhc_tasks::sort_domains::Decimals), "sort"), 3);
    assert_eq!(check(Addition::BINARY, "addition"), 3);
    assert_eq!(check(Arithmetic(Symbolic), "arithmetic"), 3);
    let sort = Sort(nhc_tasks::sort_domains::Decimals).shapes(&Bounds(vec![2]));
    assert_eq!(sort[0].beyond_level.and_then(|f| f(1)), None, "no level has one object");
}

#[test]
fn a_beyond_stage_too_long_is_refused_before_it_runs() {
    let sort = find_in("sort", Some("decimal")).expect("sort");
    let e = sort.verify_beyond(&Model::Scripted, &Bounds(vec![3]), 1_000_000).expect_err("too many steps");
    assert!(e.to_string().contains("--beyond"), "{e}");
}
