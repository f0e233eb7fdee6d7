//! Run directories through the library: a run stopped by its observer resumes to the θ of an
//! uninterrupted run, and directories that hold a run, hold none, or are in use are refused.

use nhc_model::Variant;
use nhc_train::run_dir::{self, Outcome, Silent};
use nhc_train::{MetricsLine, Observer, RunDirError, RunSummary, TrainConfig, Trainer};
use std::ops::ControlFlow;

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn trainer(seed: u64) -> Result<Trainer, Box<dyn std::error::Error>> {
    let config = TrainConfig { max_iterations: 20, ..TrainConfig::default() }.validate()?;
    Ok(Trainer::new(nhc_tasks::find("copy")?, Variant::Nhc, config, seed)?)
}

fn bits(theta: &[f32]) -> Vec<u32> {
    theta.iter().map(|x| x.to_bits()).collect()
}

/// Stops the run after `after` iterations, counting what it saw.
struct StopAfter {
    after: u64,
    started: usize,
    seen: Vec<u64>,
}

impl Observer for StopAfter {
    fn started(&mut self, _: &Trainer) {
        self.started += 1;
    }
    fn iteration(&mut self, line: &MetricsLine) -> ControlFlow<()> {
        self.seen.push(line.log.iteration);
        if line.log.iteration >= self.after { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    }
}

#[test]
fn a_stopped_run_resumes_to_the_uninterrupted_theta() -> TestResult {
    let mut straight = trainer(2)?;
    let s = straight.run(|_| {})?;

    let tmp = tempfile::tempdir()?;
    let dir = tmp.path().join("run");
    let mut stop = StopAfter { after: 7, started: 0, seen: Vec::new() };
    let outcome = run_dir::start(trainer(2)?, &dir, &mut stop)?;
    assert!(matches!(outcome, Outcome::Stopped { iteration: 7 }), "{outcome:?}");
    assert_eq!((stop.started, stop.seen), (1, (1..=7).collect::<Vec<u64>>()));
    assert_eq!(run_dir::load_checkpoint(&dir)?.state.iteration, 7);
    assert!(!dir.join("model.json").exists() && !dir.join("summary.json").exists());

    let Outcome::Finished { summary, model } = run_dir::resume(&dir, &mut Silent)? else {
        return Err("the resumed run must finish".into());
    };
    assert_eq!(bits(model.params.theta()), bits(straight.theta()));
    assert_eq!(model.variant, Variant::Nhc);
    assert_eq!((summary.iterations, summary.learning_iterations), (s.iterations, s.learning_iterations));
    assert_eq!(summary.outcome, s.outcome.ok_or("the run is done")?);
    assert_eq!(summary.lineages.as_ref(), Some(&straight.lineages()));
    let lineages = summary.lineages.as_deref().ok_or("the summary lists the lineages")?;
    assert_eq!(lineages.iter().map(|l| l.learning_iterations).sum::<u64>(), s.learning_iterations);
    let cp = run_dir::load_checkpoint(&dir)?;
    assert_eq!(serde_json::to_string(&cp.state)?, serde_json::to_string(straight.state())?);

    let loaded = nhc_tasks::ModelFile::load(&dir.join("model.json"), nhc_tasks::find("copy")?)?;
    assert_eq!(bits(loaded.params.theta()), bits(straight.theta()));
    // Compared as text: serde_json's default parser may read a float one ulp off.
    let written = std::fs::read_to_string(dir.join("summary.json"))?;
    assert_eq!(written, serde_json::to_string_pretty(&*summary)?);
    let _: RunSummary = serde_json::from_str(&written)?;
    // Each iteration is logged once, in order.
    let metrics = std::fs::read_to_string(dir.join("metrics.jsonl"))?;
    let iterations = metrics
        .lines()
        .map(|l| serde_json::from_str::<MetricsLine>(l).map(|m| m.log.iteration))
        .collect::<Result<Vec<u64>, _>>()?;
    assert_eq!(iterations, (1..=s.iterations).collect::<Vec<u64>>());
    Ok(())
}

#[test]
fn directories_holding_a_run_none_or_in_use_are_refused() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let dir = tmp.path().join("run");
    std::fs::create_dir(&dir)?;
    let err = run_dir::resume(&dir, &mut Silent).err().ok_or("resume of an empty directory")?;
    assert!(matches!(err, RunDirError::NotRunDir { .. }), "{err:?}");
    assert!(err.to_string().ends_with("holds no checkpoint.json: is it a run directory?"), "{err}");

    std::fs::write(dir.join("checkpoint.json"), "{}")?;
    std::fs::write(dir.join("metrics.jsonl"), "kept\n")?;
    let err = run_dir::start(trainer(2)?, &dir, &mut Silent).err().ok_or("start over a run")?;
    assert!(matches!(&err, RunDirError::AlreadyRun { path } if *path == dir), "{err:?}");
    let want = format!("{} already holds a run; use `nhc train --resume {}`", dir.display(), dir.display());
    assert_eq!(err.to_string(), want);
    assert_eq!(std::fs::read_to_string(dir.join("metrics.jsonl"))?, "kept\n", "nothing is touched");
    let err = run_dir::resume(&dir, &mut Silent).err().ok_or("resume of a damaged checkpoint")?;
    assert!(matches!(err, RunDirError::Damaged { .. }) && err.to_string().ends_with("is damaged"), "{err}");

    let other = tmp.path().join("other");
    let held = nhc_train::lock::lock(&other)?;
    let err = run_dir::start(trainer(2)?, &other, &mut Silent).err().ok_or("start in a locked directory")?;
    let pid = format!("is in use by another nhc process (pid {})", std::process::id());
    assert!(err.to_string().contains(&pid), "{err}");
    drop(held);
    assert!(matches!(run_dir::start(trainer(2)?, &other, &mut Silent)?, Outcome::Finished { .. }));
    Ok(())
}

/// A checkpoint is trusted only as written: one digit of θ changed or the digest removed is
/// refused on resume, and a state the config cannot produce (a level beyond the curriculum, a
/// curriculum of no levels) is refused even with a matching digest.
#[test]
fn edited_checkpoints_and_impossible_states_are_refused() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let dir = tmp.path().join("run");
    let mut stop = StopAfter { after: 5, started: 0, seen: Vec::new() };
    run_dir::start(trainer(3)?, &dir, &mut stop)?;
    let path = dir.join("checkpoint.json");
    let text = std::fs::read_to_string(&path)?;
    let refused = |edited: &str, what: &str| -> TestResult {
        std::fs::write(&path, edited)?;
        let err = run_dir::resume(&dir, &mut Silent).err().ok_or("an edited checkpoint resumed")?;
        assert!(matches!(err, RunDirError::Digest { .. }), "{err:?}");
        let message = err.to_string();
        assert!(message.contains(what) && message.contains("was edited or damaged"), "{message}");
        Ok(())
    };
    let at = text.find("\"theta\":[").ok_or("θ in the checkpoint")? + 9;
    let digit = at + text[at..].find(|c: char| c.is_ascii_digit()).ok_or("a digit of θ")?;
    let other = if &text[digit..=digit] == "1" { "2" } else { "1" };
    refused(&format!("{}{other}{}", &text[..digit], &text[digit + 1..]), "does not match its digest")?;
    let cut = text.find(",\"digest\":").ok_or("the digest")?;
    refused(&format!("{}}}", &text[..cut]), "carries no digest")?;
    std::fs::write(&path, &text)?;

    let state = run_dir::load_checkpoint(&dir)?.state;
    let task = nhc_tasks::find("copy")?;
    let mut far = state.clone();
    far.curriculum.level = 1_000_000;
    let err = Trainer::from_state(task, far).err().ok_or("a level beyond the curriculum")?;
    assert!(
        err.to_string().contains("curriculum.level is 1000000, outside the curriculum's levels 1–11"),
        "{err}"
    );
    let mut none = state.clone();
    none.curriculum.levels = 0;
    let err = Trainer::from_state(task, none).err().ok_or("a curriculum of no levels")?;
    assert!(err.to_string().contains("curriculum.levels is 0, the config's levels 10"), "{err}");
    // What only the run knows, and what a new run would refuse, stay so in an edited state.
    let mut reseeded = state.clone();
    reseeded.seed = 4;
    let err = Trainer::from_state(task, reseeded).err().ok_or("a seed edited alone")?;
    assert!(err.to_string().contains("its generator was not seeded by its seed 4"), "{err}");
    for (edit, cause) in [
        (TrainConfig { update_feedback: true, ..state.config.get().clone() }, "update_feedback needs"),
        (TrainConfig { population: 10_000, batch: 100_000, ..state.config.get().clone() }, "model steps"),
    ] {
        let edited = nhc_train::TrainState { config: edit.validate()?, ..state.clone() };
        let err = Trainer::from_state(task, edited).err().ok_or(cause)?.to_string();
        assert!(err.contains(cause), "{err}");
    }
    // A training time no run has taken, with the digest made to match, is refused.
    let state_text = &text
        [text.find("{\"state\":").ok_or("the state")? + 9..text.find(",\"seconds\":").ok_or("seconds")?];
    for seconds in ["-5.0", "1e308", "4e8"] {
        let digest = sha_hex(&format!("{state_text}\n{seconds}"));
        std::fs::write(
            &path,
            format!("{{\"state\":{state_text},\"seconds\":{seconds},\"digest\":\"{digest}\"}}"),
        )?;
        let err = run_dir::resume(&dir, &mut Silent).err().ok_or("an impossible training time")?;
        assert!(matches!(err, RunDirError::Seconds { .. }), "{seconds}: {err:?}");
    }
    let digest = sha_hex(&format!("{state_text}\n12.5"));
    std::fs::write(&path, format!("{{\"state\":{state_text},\"seconds\":12.5,\"digest\":\"{digest}\"}}"))?;
    Trainer::from_state(task, state)?;
    assert!(matches!(run_dir::resume(&dir, &mut Silent)?, Outcome::Finished { .. }));
    Ok(())
}

fn sha_hex(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}
