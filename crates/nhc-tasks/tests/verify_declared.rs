//! Verification of declared algorithms without `shapes` (docs/VERIFICATION.md, "Verification"): with
//! the built-in signals and no ALU feedback the classes come from the Input, a solution broken
//! from a length on is caught there, and a declaration whose program reads by value, or whose
//! feedback carries the data, is sampled with the reason.

mod early_mark;

use early_mark::early_mark;
use nhc_model::{Agent, Trace};
use nhc_tasks::any_task::{AnyTask, Entry};
use nhc_tasks::copy_family::{Copy, Decimals};
use nhc_tasks::declared::examples;
use nhc_tasks::verify::Bounds;
use nhc_tasks::{Algorithm, Declared, Model, Own, Pattern, SampleRng, Stop, Stream, Task};
use rand::RngExt;

/// copy's hand-written solution, ending its output after `objects − 1` objects on every list of
/// at least `objects` objects.
fn copy_solution(objects: usize) -> Agent {
    early_mark(Copy(Decimals).scripted(), move |presented, outputs, _| {
        presented >= objects && outputs == objects
    })
}

#[test]
fn declared_copy_verifies_on_classes_derived_from_its_input() {
    let copy = &examples::COPY;
    assert_eq!(copy.0.derivable(), Ok(Pattern::FirstInnerLast));
    let config = copy.algorithm().config.clone();
    let right = || copy_solution(usize::MAX);
    let r = copy.verify_with(&config, &right, "scripted", &Bounds(vec![])).expect("a verification");
    assert_eq!(r.outcome, "verified");
    let p = &r.parts[0];
    assert!(
        p.exhaustive && p.what.starts_with("list of 1–255 words (classes derived from the Input"),
        "{}",
        p.what
    );
    // Bytes 1..=255 are its distinct words (0 is the empty word): the bound is capped there.
    assert_eq!((p.bound, p.inputs, p.right_to), (255, 255, 255));
    assert!(p.note.as_deref().is_some_and(|n| n.contains("255 distinct words")), "{:?}", p.note);
}

#[test]
fn declared_copy_wrong_from_a_length_on_is_caught_at_that_length() {
    let copy = &examples::COPY;
    let config = copy.algorithm().config.clone();
    let broken = || copy_solution(37);
    let r =
        copy.verify_beyond_with(&config, &broken, "broken", &Bounds(vec![100]), 0).expect("a verification");
    let p = &r.parts[0];
    assert_eq!((r.outcome.as_str(), p.right_to, p.failed), ("counterexample", 36, 64));
    let c = p.smallest.as_ref().expect("a counterexample");
    assert_eq!(c.input, serde_json::json!((1..=37).collect::<Vec<u8>>()));
    let w = c.first_wrong.as_ref().expect("a wrong step");
    assert_eq!((w.expected_op.as_deref(), w.op.as_str()), (Some("O"), "M"));
}

/// A declaration with the built-in signals and no feedback whose program outputs `answer` of
/// the presented bytes, then `M`.
#[derive(Debug, Clone, Copy)]
struct Outputs {
    algorithm: &'static Algorithm,
    pattern: Pattern,
    answer: fn(&[u8]) -> Vec<u8>,
}

impl Declared for Outputs {
    type Word = u8;
    type Sample = Vec<u8>;
    fn algorithm(&self) -> &'static Algorithm {
        self.algorithm
    }
    fn sample(&self, level: usize, rng: &mut SampleRng) -> Vec<u8> {
        (0..level).map(|_| rng.random_range(1..4u8)).collect()
    }
    fn input(&self, s: &Vec<u8>) -> Stream<u8> {
        let stop = Stop { op: 1, count: 1 };
        match self.pattern {
            Pattern::FirstInnerLast => Stream::first_inner_last(s.clone(), 0, stop),
            Pattern::FirstRepeat => Stream::first_repeat(s.clone(), 0, stop),
        }
    }
    fn program(&self, s: &Vec<u8>) -> Trace<u8> {
        let mut t = Trace::new(1);
        s.iter().for_each(|_| t.push_unscored());
        self.reference(s).into_iter().for_each(|x| t.push(0, &[Some(x)]));
        t.push(1, &[None]);
        t
    }
    fn reference(&self, s: &Vec<u8>) -> Vec<u8> {
        (self.answer)(s)
    }
    fn presents_itself(&self) -> Result<Pattern, String> {
        Ok(self.pattern)
    }
    fn sample_of(&self, words: Vec<u8>) -> Option<Vec<u8>> {
        Some(words)
    }
    fn distinct_word(&self, k: u64) -> Option<u8> {
        u8::try_from(k).ok().filter(|&b| b > 0)
    }
}

const SORT_BLIND: Algorithm = Algorithm::declare("sortBlind", &["O", "M"], 4, 1, 0, true);

/// "sort" declared without feedback: its program reads the presented bytes in ascending order,
/// which no control that never sees the data can follow.
fn sort_blind() -> Outputs {
    let answer = |s: &[u8]| {
        let mut s = s.to_vec();
        s.sort();
        s
    };
    Outputs { algorithm: &SORT_BLIND, pattern: Pattern::FirstInnerLast, answer }
}

/// A solution that copies is right on every list whose words ascend, so a listing of ascending
/// words alone would verify it as a sort: the derivation is refused, and the part is sampled.
#[test]
fn a_program_that_reads_by_value_is_not_given_derived_classes() {
    let task = Entry(Own(sort_blind()));
    let why = task.0.derivable().expect_err("reads by value");
    assert!(why.contains("reads by value, not by position"), "{why}");
    let config = task.algorithm().config.clone();
    let copying = || copy_solution(usize::MAX);
    let r =
        task.verify_beyond_with(&config, &copying, "copying", &Bounds(vec![5]), 0).expect("a verification");
    let p = &r.parts[0];
    assert!(!p.exhaustive && r.outcome != "verified", "{}", r.outcome);
    assert!(p.note.as_deref().is_some_and(|n| n.contains("reads by value")), "{:?}", p.note);
}

#[test]
fn feedback_makes_shapes_necessary_and_the_note_says_so() {
    let sort = &examples::SORT;
    let r = sort.verify(&Model::Scripted, &Bounds(vec![3])).expect("a verification");
    let note = r.parts[0].note.as_deref().unwrap_or_default();
    assert!(note.contains("its ALU's feedback (4 numbers) lets the data reach the control"), "{note}");
    assert!(note.ends_with("list its classes with `shapes`"), "{note}");
}

const RUNS: Algorithm = Algorithm::declare("runs", &["O", "M"], 3, 1, 0, true);

/// duplicated's Input declared, each run's word output once: the classes are the run-length
/// sequences, 2^(t−1) of t words.
fn runs() -> Outputs {
    let answer = |s: &[u8]| {
        let mut out = s.to_vec();
        out.dedup();
        out
    };
    Outputs { algorithm: &RUNS, pattern: Pattern::FirstRepeat, answer }
}

#[test]
fn first_repeat_classes_are_the_run_length_sequences() {
    let task = Entry(Own(runs()));
    assert_eq!(task.0.derivable(), Ok(Pattern::FirstRepeat));
    let parts = task.0.shapes(&Bounds(vec![6]));
    assert_eq!(parts[0].count, (1 << 6) - 1);
    assert!(parts[0].what.starts_with("presentation of 1–6 words, every sequence of run lengths"));
    // Layer 3 holds indices 3..=6: one run of 3 words first, three runs of one word last.
    let s = (parts[0].nth)(3);
    assert_eq!((s.layer, s.cell, s.sample), (3, [3, 1], vec![1, 1, 1]));
    let s = (parts[0].nth)(6);
    assert_eq!((s.layer, s.cell, s.sample), (3, [3, 3], vec![1, 2, 3]));
}
