//! copy and sort declared as one's own algorithms (nhc_tasks::declared::examples,
//! docs/OWN_ALGORITHM.md) train to the same θ, bit for bit, as the built-in tasks for the same
//! seed, and evaluate identically: the declared path adds nothing and loses nothing.

use nhc_model::{Trace, Variant};
use nhc_tasks::any_task::Entry;
use nhc_tasks::declared::examples::{self, DeclaredCopy};
use nhc_tasks::model::LearnedModel;
use nhc_tasks::{Algorithm, AnyTask, Declared, Model, Own, SampleRng, Stream, find};
use nhc_train::run_dir::{self, Outcome, Silent};
use nhc_train::{MetricsLine, Observer, TrainConfig, Trainer};
use std::ops::ControlFlow;

/// Trains `a` and `b` side by side from `seed` for `iterations` (or until both are done)
/// and asserts that every iteration's log and the final θ are equal; returns the learned model.
fn same_training(
    a: &'static dyn AnyTask,
    b: &'static dyn AnyTask,
    seed: u64,
    iterations: u64,
) -> Result<Model, Box<dyn std::error::Error>> {
    let config = || TrainConfig::default().validate();
    let mut ta = Trainer::new(a, Variant::Nhc, config()?, seed)?;
    let mut tb = Trainer::new(b, Variant::Nhc, config()?, seed)?;
    assert_eq!(ta.model(), tb.model());
    while !ta.done() && ta.state().iteration < iterations {
        let (la, lb) = (ta.step()?, tb.step()?);
        assert_eq!(format!("{la:?}"), format!("{lb:?}"));
    }
    assert_eq!(ta.done(), tb.done());
    // The comparison covers level-ups (and, for copy, restarts), not only level 1.
    assert!(ta.summary().last_level_solved >= 1, "{:?}", ta.summary());
    let (pa, pb) = (ta.params()?, tb.params()?);
    assert_eq!(pa.theta(), pb.theta(), "θ differs after {} iterations", ta.state().iteration);
    Ok(Model::Learned(Box::new(LearnedModel { variant: Variant::Nhc, params: pa })))
}

/// Both tasks score the model alike, sample by sample.
fn same_evaluation(a: &dyn AnyTask, b: &dyn AnyTask, model: &Model, level: usize) {
    let (ra, rb) = match (a.evaluate(model, level, 20, 1000), b.evaluate(model, level, 20, 1000)) {
        (Ok(ra), Ok(rb)) => (ra, rb),
        (ra, rb) => panic!("evaluation failed: {ra:?} {rb:?}"),
    };
    let key = |r: &nhc_tasks::EvalReport| (r.solved, r.steps, r.mean_fitness, r.failed.clone());
    assert_eq!(key(&ra), key(&rb), "level {level}");
}

#[test]
fn declared_copy_trains_to_the_built_in_theta() -> Result<(), Box<dyn std::error::Error>> {
    let own: &'static dyn AnyTask = &examples::COPY;
    let built_in = find("copy")?;
    let model = same_training(built_in, own, 1, 8_000)?;
    for level in [3, 30] {
        same_evaluation(built_in, own, &model, level);
    }
    Ok(())
}

#[test]
fn declared_sort_trains_to_the_built_in_theta() -> Result<(), Box<dyn std::error::Error>> {
    let own: &'static dyn AnyTask = &examples::SORT;
    let built_in = find("sort")?;
    let model = same_training(built_in, own, 1, 3000)?;
    for level in [3, 12] {
        same_evaluation(built_in, own, &model, level);
    }
    Ok(())
}

/// copy under a declaration digest.
#[derive(Debug, Clone, Copy)]
struct Digested(&'static str);

impl Declared for Digested {
    type Word = u8;
    type Sample = Vec<u8>;
    fn algorithm(&self) -> &'static Algorithm {
        DeclaredCopy.algorithm()
    }
    fn sample(&self, level: usize, rng: &mut SampleRng) -> Vec<u8> {
        DeclaredCopy.sample(level, rng)
    }
    fn input(&self, s: &Vec<u8>) -> Stream<u8> {
        DeclaredCopy.input(s)
    }
    fn program(&self, s: &Vec<u8>) -> Trace<u8> {
        DeclaredCopy.program(s)
    }
    fn reference(&self, s: &Vec<u8>) -> Vec<u8> {
        s.clone()
    }
    fn digest(&self) -> Option<String> {
        Some(self.0.to_string())
    }
}

/// Stops after iteration `stop`, or discards iteration `discard` (as when a declared function
/// failed during it).
struct Watch {
    stop: u64,
    discard: u64,
    iteration: u64,
}

impl Observer for Watch {
    fn iteration(&mut self, line: &MetricsLine) -> ControlFlow<()> {
        self.iteration = line.log.iteration;
        if self.iteration >= self.stop { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    }
    fn discard(&mut self) -> bool {
        self.iteration += 1;
        self.iteration >= self.discard
    }
}

#[test]
fn a_declared_run_resumes_on_its_own_declaration_or_when_redeclared() -> Result<(), Box<dyn std::error::Error>>
{
    let a: &'static dyn AnyTask = Box::leak(Box::new(Entry(Own(Digested("a")))));
    let b: &'static dyn AnyTask = Box::leak(Box::new(Entry(Own(Digested("b")))));
    let tmp = tempfile::tempdir()?;
    let dir = tmp.path().join("run");
    let config = TrainConfig { max_iterations: 30, ..TrainConfig::default() }.validate()?;
    let mut watch = Watch { stop: 5, discard: u64::MAX, iteration: 0 };
    let outcome = run_dir::start(Trainer::new(a, Variant::Nhc, config, 1)?, &dir, &mut watch)?;
    assert!(matches!(outcome, Outcome::Stopped { iteration: 5 }), "{outcome:?}");

    // Another declaration of the same name is refused, naming both digests.
    let refused = run_dir::resume_on(&dir, b, &mut Silent).err().ok_or("resumed on another declaration")?;
    let source = std::error::Error::source(&refused).map(|e| e.to_string()).unwrap_or_default();
    let text = format!("{refused}: {source}");
    assert!(text.contains("digest a") && text.contains("declaration's b"), "{text}");
    // Unless the declaration is said to have changed: the run goes on under it.
    let outcome =
        run_dir::resume_redeclared(&dir, b, &mut Watch { stop: 7, discard: u64::MAX, iteration: 0 })?;
    assert!(matches!(outcome, Outcome::Stopped { iteration: 7 }), "{outcome:?}");
    assert_eq!(run_dir::load_checkpoint(&dir)?.state.digest.as_deref(), Some("b"));
    assert!(run_dir::resume_on(&dir, a, &mut Silent).is_err());
    let outcome =
        run_dir::resume_redeclared(&dir, a, &mut Watch { stop: 9, discard: u64::MAX, iteration: 0 })?;
    assert!(matches!(outcome, Outcome::Stopped { iteration: 9 }), "{outcome:?}");

    // A discarded iteration leaves the checkpoint as it was.
    let outcome = run_dir::resume_on(&dir, a, &mut Watch { stop: u64::MAX, discard: 12, iteration: 9 })?;
    assert!(matches!(outcome, Outcome::Stopped { iteration: 9 }), "{outcome:?}");
    assert_eq!(run_dir::load_checkpoint(&dir)?.state.iteration, 9);

    // A model file records the digest; loading it for another declaration is refused.
    let Outcome::Finished { model, .. } = run_dir::resume_on(&dir, a, &mut Silent)? else {
        return Err("the resumed run must finish".into());
    };
    let path = dir.join("model.json");
    let file = std::fs::read_to_string(&path)?;
    assert!(file.contains("\"digest\": \"a\""), "{file}");
    let arg = path.to_str().ok_or("path")?;
    assert_eq!(Model::from_arg(arg, a, None)?, Model::Learned(model));
    let refused = Model::from_arg(arg, b, None).err().ok_or("loaded for another declaration")?;
    assert!(refused.to_string().contains("digest a, this declaration's b"), "{refused}");
    // Nor for the built-in algorithm of the same name, nor a built-in's model for a declaration.
    let refused = Model::from_arg(arg, find("copy")?, None).err().ok_or("loaded for the built-in")?;
    assert!(refused.to_string().contains("digest a, this declaration's none"), "{refused}");
    let built_in = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/copy.json");
    let refused =
        Model::from_arg(built_in, a, None).err().ok_or("a built-in model loaded for a declaration")?;
    assert!(refused.to_string().contains("digest none, this declaration's a"), "{refused}");
    // A declared algorithm without a script has no scripted model.
    assert!(Model::from_arg("scripted", a, None).is_err());
    Ok(())
}
