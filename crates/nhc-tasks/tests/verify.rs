//! Verification (docs/VERIFICATION.md, "Verification"): every scripted solution is right on every
//! control-distinct input up to the default bound, the lists hold as many inputs as independent
//! counts say, and a solution broken from a known shape on is caught exactly there.

mod early_mark;

use early_mark::early_mark;
use nhc_model::{Agent, BusDecision, MemoryDecision, Observation, Policy};
use nhc_tasks::addition::Addition;
use nhc_tasks::any_task::{AnyTask, Entry};
use nhc_tasks::arithmetic::Arithmetic;
use nhc_tasks::copy_family::{Decimals, RepeatCopy};
use nhc_tasks::registry::find_in;
use nhc_tasks::symbolic::Symbolic;
use nhc_tasks::verify::{Bounds, Report, catalan, weak_order_count};
use nhc_tasks::{Model, Task};

fn verify(task: &str, domain: Option<&str>, bounds: &[u64]) -> Report {
    let task = find_in(task, domain).expect("a task");
    task.verify(&Model::Scripted, &Bounds(bounds.to_vec())).expect("a verification")
}

#[test]
fn every_scripted_solution_verifies_to_the_default_bound() {
    for name in nhc_tasks::registry::names() {
        // Their default bounds take about a minute each: tests/verify_search.rs.
        if matches!(name, "search" | "plan" | "search+" | "plan+") {
            continue;
        }
        let domain = nhc_tasks::registry::verification_domain(name);
        let r = verify(name, domain, &[]);
        let wrong: Vec<_> = r.parts.iter().filter_map(|p| p.smallest.as_ref()).collect();
        assert!(wrong.is_empty(), "{name}: {wrong:?}");
        assert_eq!(r.outcome, "verified", "{name}");
        for p in &r.parts {
            assert_eq!(p.right_to, p.bound, "{name}: {}", p.what);
            assert_eq!(p.cells.iter().map(|c| c.inputs).sum::<u64>(), p.inputs);
        }
    }
}

/// The counts of the lists, from formulas that do not list anything: n lengths, n² cells,
/// 2^t − 1 run-length sequences, Fubini and Catalan numbers, Σ 4^l pairs.
#[test]
fn the_lists_hold_every_class_once() {
    let inputs = |r: &Report| r.parts.iter().map(|p| p.inputs).collect::<Vec<_>>();
    assert_eq!(inputs(&verify("copy", Some("decimal"), &[37])), [37]);
    assert_eq!(inputs(&verify("reverse", Some("binary"), &[37])), [37]);
    assert_eq!(inputs(&verify("repeatCopy", Some("decimal"), &[9])), [81]);
    assert_eq!(inputs(&verify("duplicated", Some("decimal"), &[7, 9])), [127, 81]);
    // Every weak ordering twice: above the default word, and with the lowest rank equal to it.
    let sort = verify("sort", Some("decimal"), &[6]);
    assert_eq!(inputs(&sort), [2 * (1..=6).map(weak_order_count).sum::<u64>()]);
    // Every cell (n objects, k distinct values) is there, k = 1..=n.
    assert_eq!(sort.parts[0].cells.len(), 21);
    let arithmetic = verify("arithmetic", Some("symbolic"), &[7]);
    assert_eq!(inputs(&arithmetic), [(1..=7).map(catalan).sum::<u64>()]);
    assert_eq!(inputs(&verify("addition", None, &[5])), [(1..=5).map(|l| 4u64.pow(l)).sum::<u64>()]);
    assert_eq!(inputs(&verify("addition", Some("decimal"), &[2])), [100 + 10_000]);
}

#[test]
fn a_domain_with_few_words_caps_the_bound_and_says_so() {
    let r = verify("copy", Some("binary"), &[100]);
    assert_eq!(r.parts[0].bound, 63);
    assert!(r.parts[0].note.as_deref().is_some_and(|n| n.contains("63 words")), "{:?}", r.parts[0].note);
    let r = verify("arithmetic", Some("decimal"), &[5]);
    assert_eq!(r.outcome, "sampled");
    assert!(r.parts[0].note.as_deref().is_some_and(|n| n.contains("--domain symbolic")));
}

#[test]
fn a_solution_broken_from_a_shape_on_is_caught_at_that_shape() {
    let task = Entry(RepeatCopy(Decimals));
    let config = task.0.algorithm().config.clone();
    // From the third pass on, with at least four objects, it marks the end of the pass at once.
    let broken = || early_mark(task.0.scripted(), |presented, _, marks| presented >= 4 && marks + 1 >= 3);
    let r = task.verify_with(&config, &broken, "broken", &Bounds(vec![8])).expect("a verification");
    let p = &r.parts[0];
    // Layers are max(objects, copies): layer 4 lists (1,4) (2,4) (3,4) (4,1) (4,2) (4,3) (4,4).
    let c = p.smallest.as_ref().expect("a counterexample");
    assert_eq!((c.cell, p.right_to), ([4, 3], 3), "{c:?}");
    assert_eq!(c.input, serde_json::json!({"items": [1, 2, 3, 4], "copies": 3}));
    let w = c.first_wrong.as_ref().expect("a wrong step");
    assert_eq!((w.expected_op.as_deref(), w.op.as_str()), (Some("O"), "M"));
    // Wrong exactly where objects ≥ 4 and copies ≥ 3.
    for cell in &p.cells {
        let [n, copies] = cell.at;
        assert_eq!(cell.failed > 0, n >= 4 && copies >= 3, "{cell:?}");
    }
    assert_eq!(r.outcome, "counterexample");
}

/// sort's scripted solution, broken where only an object equal to the default word leads: after
/// an `O` step whose `compare` of the object output with the default word (head 2's read) was
/// true, it outputs again.
struct BrokenOnDefault {
    inner: Box<dyn Policy + Send>,
    after_equal_output: bool,
}

impl Policy for BrokenOnDefault {
    fn begin(&mut self) {
        self.after_equal_output = false;
        self.inner.begin();
    }
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut MemoryDecision) {
        // c_a = [cmp, 1 − cmp, s, o].
        self.after_equal_output = obs.alu_prev[0] > 0.5 && obs.alu_prev[3] > 0.5;
        self.inner.control(obs, c_c, out)
    }
    fn bus(&mut self, c_ib: &[f32], c_c: &[f32], read_now: &[f32]) -> BusDecision {
        let mut d = self.inner.bus(c_ib, c_c, read_now);
        if self.after_equal_output {
            d.op = nhc_tasks::sort::OP_OUTPUT;
        }
        d
    }
}

/// A sort that is right whenever no object equals the default word (0, "0" or "") is caught:
/// the listing holds the orderings whose least objects are the default word.
#[test]
fn sort_broken_on_the_default_word_is_caught() {
    use nhc_tasks::sort::{Bytes, Sort, SortDomain};
    use nhc_tasks::sort_domains::{Decimals, Strings};
    fn caught<S: SortDomain>(domain: S, least: serde_json::Value) {
        let task = Entry(Sort(domain));
        let config = task.0.algorithm().config.clone();
        let broken =
            || Agent::Nhc(Box::new(BrokenOnDefault { inner: task.0.scripted(), after_equal_output: false }));
        let r = task.verify_with(&config, &broken, "broken", &Bounds(vec![5])).expect("a verification");
        let p = &r.parts[0];
        let c = p.smallest.as_ref().expect("a counterexample");
        // One object is output last: nothing follows it. Two are the smallest.
        assert_eq!((p.right_to, c.layer), (1, 2), "{c:?}");
        assert!(c.input.as_array().expect("a list").contains(&least), "{}", c.input);
        // Every ordering of 2–5 objects whose least is the default word, and no other, is wrong.
        assert_eq!(p.failed, (2..=5).map(weak_order_count).sum::<u64>(), "{}", task.0.domain());
        assert_eq!(r.outcome, "counterexample");
    }
    caught(Decimals, serde_json::json!(0));
    caught(Bytes, serde_json::json!(0));
    caught(Strings, serde_json::json!(""));
}

/// The listing's argument: the default word is the least legal item of every built-in sort
/// domain, so an ordering of the objects and whether the least is the default word decide every
/// `compare` the expected trace makes.
#[test]
fn the_default_word_is_the_least_sort_item() {
    use nhc_tasks::sort::{Bytes, SortDomain};
    use nhc_tasks::sort_domains::{Decimals, Strings};
    fn least<S: SortDomain>(d: S) {
        let zero = S::Item::default();
        assert!(d.compare(&zero, &zero));
        for r in 1..=20 {
            let w = d.word(r).expect("a word");
            assert!(d.compare(&zero, &w) && !d.compare(&w, &zero), "{} rank {r}", d.name());
            assert!(
                d.parse(&d.json(std::slice::from_ref(&zero))).is_ok(),
                "{}: the default word is an item",
                d.name()
            );
        }
    }
    least(Bytes);
    least(Decimals);
    least(Strings);
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let task = Entry(Arithmetic(Symbolic));
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
        let mut r = pool.install(|| task.verify(&Model::Scripted, &Bounds(vec![8])).expect("a verification"));
        r.seconds = 0.0;
        r
    };
    assert_eq!(run(1), run(3));
    let r = Entry(Addition::BINARY).verify(&Model::Scripted, &Bounds(vec![3])).expect("a verification");
    assert_eq!(r.parts[0].cells.iter().map(|c| c.at[1]).max(), Some(3), "a carry chain of 3 places");
}

#[test]
fn bad_bounds_are_errors() {
    let copy = find_in("copy", Some("decimal")).expect("copy");
    let err =
        |b: &[u64]| copy.verify(&Model::Scripted, &Bounds(b.to_vec())).expect_err("an error").to_string();
    assert!(err(&[0]).contains("at least 1"), "{}", err(&[0]));
    assert!(err(&[1, 2]).contains("one per part"), "{}", err(&[1, 2]));
    assert!(err(&[1_000_000_000]).contains("model steps"), "{}", err(&[1_000_000_000]));
    let dup = find_in("duplicated", Some("decimal")).expect("duplicated");
    let e = dup.verify(&Model::Scripted, &Bounds(vec![60, 5])).expect_err("too many run-length sequences");
    assert!(e.to_string().contains("model steps"), "{e}");
}
