//! `mpirun -np 2 nhc train …` and `… nhc sweep …` (feature `mpi`): two ranks train exactly what
//! one process trains and write the same sweep.jsonl; a run interrupted under MPI resumes alone,
//! one interrupted alone resumes under MPI, and a sweep whose rank was killed (MPI then ends the
//! job) is finished by one process, each ending as the uninterrupted one. Needs OpenMPI's
//! `mpirun` (scripts/setup_mpi.sh).

#![cfg(feature = "mpi")]
#![allow(clippy::unwrap_used)] // test helpers: a failed unwrap is a failing test

use serde_json::Value;
use std::path::Path;
use std::process::{Child, Command, Stdio};

const NHC: &str = env!("CARGO_BIN_EXE_nhc");

/// `nhc ARGS`, alone or on `ranks` MPI ranks, one thread each.
fn command(ranks: usize, args: &[&str]) -> Command {
    let mut c = if ranks == 1 {
        Command::new(NHC)
    } else {
        let mut c = Command::new("mpirun");
        c.args(["--oversubscribe", "-np", &ranks.to_string(), "-x", "RAYON_NUM_THREADS", NHC]);
        c
    };
    c.args(args)
        .env("RAYON_NUM_THREADS", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    c
}

fn run(ranks: usize, args: &[&str]) -> String {
    let out = command(ranks, args).output().expect("nhc (or mpirun) runs");
    assert!(out.status.success(), "{args:?} on {ranks} ranks: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// θ of the run's model file and its metrics lines without the wall time.
fn result(dir: &Path) -> (Value, Vec<Value>) {
    let model: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("model.json")).unwrap()).unwrap();
    let metrics = std::fs::read_to_string(dir.join("metrics.jsonl")).unwrap();
    let lines = metrics
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("wall_seconds");
            v
        })
        .collect();
    (model["params"].clone(), lines)
}

/// A run with two restarts (after 300 learning iterations without progress) that then solves
/// every level, perfect iterations included: several seconds (6.6 s measured here), so the first
/// checkpoint, written at least 1 s after the start, comes well before the end and `interrupted`
/// stops a run under way. The config sits beside `out`.
fn train_args(out: &Path) -> Vec<String> {
    let config = out.with_extension("toml");
    std::fs::write(&config, "restart_after = 300\n").unwrap();
    ["train", "--task", "sort", "--seed", "10", "--max-iterations", "2500", "--quiet", "--json", "--out"]
        .iter()
        .map(|s| s.to_string())
        .chain([out.to_str().unwrap().to_string(), "--config".into(), config.to_str().unwrap().to_string()])
        .collect()
}

/// Starts the run in `out` on `ranks` and stops it (SIGTERM) once a checkpoint is written.
fn interrupted(ranks: usize, out: &Path) {
    let args = train_args(out);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut child: Child = command(ranks, &args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let waited = std::time::Instant::now();
    while !out.join("checkpoint.json").exists() && waited.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    child.wait().unwrap();
    assert!(out.join("checkpoint.json").exists());
    assert!(!out.join("summary.json").exists(), "stopped before the end");
}

#[test]
fn two_ranks_train_what_one_process_trains() {
    let dir = tempfile::tempdir().unwrap();
    let (alone, ranks) = (dir.path().join("alone"), dir.path().join("ranks"));
    let args = |out: &Path| train_args(out);
    let (a, b) = (args(&alone), args(&ranks));
    let printed_alone = run(1, &a.iter().map(String::as_str).collect::<Vec<_>>());
    let printed_ranks = run(2, &b.iter().map(String::as_str).collect::<Vec<_>>());
    let (theta, metrics) = result(&alone);
    assert_eq!(result(&ranks), (theta, metrics.clone()), "θ and every metrics line as in one process");
    let last = metrics.last().unwrap();
    assert_eq!(
        (last["restarts"].as_u64(), last["level"].as_u64()),
        (Some(2), Some(11)),
        "restarts, then every level"
    );
    // Rank 0 alone prints the summary.
    assert_eq!(printed_ranks.lines().count(), 1, "{printed_ranks}");
    let summary = |s: &str| {
        let mut v: Value = serde_json::from_str(s).unwrap();
        for k in ["wall_seconds", "steps_per_second"] {
            v.as_object_mut().unwrap().remove(k);
        }
        v
    };
    assert_eq!(summary(&printed_ranks), summary(&printed_alone));

    // Interrupted under MPI, resumed alone; interrupted alone, resumed under MPI.
    for (first, then, name) in [(2, 1, "mpi-then-alone"), (1, 2, "alone-then-mpi")] {
        let out = dir.path().join(name);
        interrupted(first, &out);
        run(then, &["train", "--resume", out.to_str().unwrap(), "--quiet"]);
        assert_eq!(result(&out), result(&alone), "{name}");
    }
}

/// sweep.jsonl without what differs between runs of the same sweep: wall times and the sweep
/// directory's own path.
fn sweep_lines(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("sweep.jsonl")).unwrap();
    text.lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            let run =
                Path::new(v["dir"].as_str().unwrap()).file_name().unwrap().to_str().unwrap().to_string();
            v["dir"] = Value::String(run);
            let summary = v["summary"].as_object_mut().unwrap();
            summary.remove("wall_seconds");
            summary.remove("steps_per_second");
            for report in v["eval"].as_object_mut().unwrap().values_mut() {
                report.as_object_mut().unwrap().remove("seconds");
            }
            v
        })
        .collect()
}

/// The processes whose parent is `pid` (from /proc).
fn children(pid: u32) -> Vec<u32> {
    let mut found: Vec<u32> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            // `pid (comm) state ppid …`: the fields after the command name's closing parenthesis.
            let ppid = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse::<u32>().ok()?;
            (ppid == pid).then(|| e.file_name().to_str()?.parse().ok()).flatten()
        })
        .collect();
    found.sort();
    found
}

#[test]
fn two_ranks_sweep_what_one_process_sweeps() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("short.toml");
    std::fs::write(&config, "max_iterations = 150\n").unwrap();
    let args = |out: &Path| -> Vec<String> {
        ["sweep", "--tasks", "copy,reverse", "--runs", "3", "--levels", "10", "--samples", "3", "--jobs", "1"]
            .iter()
            .map(|s| s.to_string())
            .chain(["--config".into(), config.to_str().unwrap().into(), "--out".into()])
            .chain([out.to_str().unwrap().to_string()])
            .collect()
    };
    let (alone, ranks, resumed) =
        (dir.path().join("alone"), dir.path().join("ranks"), dir.path().join("resumed"));
    let a = args(&alone);
    run(1, &a.iter().map(String::as_str).collect::<Vec<_>>());
    let b = args(&ranks);
    let printed = run(2, &b.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(sweep_lines(&ranks), sweep_lines(&alone));
    assert_eq!(sweep_lines(&alone).len(), 6);
    let last = format!("6 runs: {}\n", ranks.join("sweep.jsonl").display());
    assert!(printed.ends_with(&last), "{printed}");

    // A rank killed once a run is done; the sweep finished by one process.
    let c = args(&resumed);
    let mut child = command(2, &c.iter().map(String::as_str).collect::<Vec<_>>())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let done = || {
        std::fs::read_dir(&resumed)
            .map_or(0, |d| d.flatten().filter(|e| e.path().join("summary.json").exists()).count())
    };
    let waited = std::time::Instant::now();
    while done() == 0 && waited.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // A rank dies: MPI ends the whole job.
    let rank = children(child.id()).pop().expect("mpirun started its ranks");
    Command::new("kill").args(["-KILL", &rank.to_string()]).status().unwrap();
    assert!(!child.wait().unwrap().success(), "the job ends with an error");
    assert!(done() >= 1 && !resumed.join("sweep.jsonl").exists(), "stopped after a run and before the end");
    run(1, &c.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(sweep_lines(&resumed), sweep_lines(&alone));
}
