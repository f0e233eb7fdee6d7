//! The `nhc` command end to end: answers checked against independent computations, and plain
//! errors with a non-zero exit code for bad input.

use nhc_model::{Layout, Params, Variant};
use nhc_tasks::model::LearnedModel;
use nhc_tasks::{ModelFile, find};
use serde_json::Value;
use std::process::{Command, Output};

fn nhc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nhc")).args(args).output().expect("nhc runs")
}

fn ok_json(args: &[&str]) -> Value {
    let out = nhc(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// `nhc train ARGS --json`: the summary of a run that learned (exit 0) or spent its budget first
/// (exit 4).
fn trained(args: &[&str]) -> Value {
    let out = nhc(&[args, &["--json"]].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    let summary: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {err}"));
    let code = if summary["outcome"] == "solved" { 0 } else { 4 };
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    summary
}

fn fails_with(args: &[&str], needle: &str) {
    let out = nhc(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} should fail");
    assert!(err.contains(needle), "{args:?}: expected `{needle}` in `{err}`");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn eval_json_reports_counts() {
    let v = ok_json(&[
        "eval",
        "--task",
        "reverse",
        "--model",
        "scripted",
        "--level",
        "100",
        "--samples",
        "5",
        "--json",
    ]);
    assert_eq!(v["task"], "reverse");
    assert_eq!((v["domain"].as_str(), v["variant"].as_str()), (Some("binary"), Some("scripted")));
    assert_eq!(v["level"], 100);
    assert_eq!(v["samples"], 5);
    assert_eq!(v["solved"], 5);
    // 100 presented + 101 output steps (100 O, one M) per sample.
    assert_eq!(v["steps"], 5 * 201);
}

#[test]
fn run_answers_match_independent_computations() {
    let items = r#"[[1,0,0,0,0,1],[0,1,1,0,0,0],[1,1,1,1,1,1]]"#;
    let list: Vec<Vec<u8>> = serde_json::from_str(items).unwrap();
    let out = |task: &str, input: &str| {
        ok_json(&["run", "--task", task, "--model", "scripted", "--input", input, "--json"])["output"].clone()
    };

    assert_eq!(out("copy", items), serde_json::json!(list));
    let mut rev = list.clone();
    rev.reverse();
    assert_eq!(out("reverse", items), serde_json::json!(rev));
    let rc = format!(r#"{{"items": {items}, "copies": 3}}"#);
    assert_eq!(
        out("repeatCopy", &rc),
        serde_json::json!([list.clone(), list.clone(), list.clone()].concat())
    );
    let dup = r#"[[1,0,0,0,0,1],[1,0,0,0,0,1],[0,1,1,0,0,0],[1,0,0,0,0,1],[1,0,0,0,0,1]]"#;
    let expected = serde_json::json!([[1, 0, 0, 0, 0, 1], [0, 1, 1, 0, 0, 0], [1, 0, 0, 0, 0, 1]]);
    assert_eq!(out("duplicated", dup), expected);
}

/// Plan tasks take the two worlds as map files too (`run` and `trace`); the plan is checked by the
/// library's tests, here that both input forms give the same answer and the text ends at the goal.
#[test]
fn run_takes_map_files() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let start = ["######", "#@-$-#", "#----#", "#-#--#", "#----#", "######"];
    let goal = ["######", "#---$#", "#--@-#", "#-#--#", "#----#", "######"];
    let (s, g) = (dir.path().join("start.txt"), dir.path().join("goal.txt"));
    std::fs::write(&s, start.join("\n") + "\n")?;
    std::fs::write(&g, goal.join("\r\n") + "\r\n\n")?;
    let (s, g) = (s.to_str().ok_or("path")?, g.to_str().ok_or("path")?);
    let files = ["run", "--task", "plan", "--model", "scripted", "--start", s, "--goal", g];
    let inline = serde_json::json!({ "start": start, "goal": goal }).to_string();
    let from_json = ok_json(&["run", "--task", "plan", "--model", "scripted", "--input", &inline, "--json"]);
    assert_eq!(ok_json(&[&files[..], &["--json"]].concat())["output"], from_json["output"]);
    assert_eq!(from_json["output"], serde_json::json!(["R", "R", "D"]));
    let out = nhc(&files);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.starts_with("plan: R R D (3 actions)"), "{text}");
    assert!(text.trim_end().ends_with("the plan reaches the goal"), "{text}");
    let trace = nhc(&["trace", "--task", "plan", "--model", "scripted", "--start", s, "--goal", g]);
    let text = String::from_utf8_lossy(&trace.stdout);
    assert!(
        trace.status.success() && text.trim_end().ends_with("answer: [\"R\",\"R\",\"D\"]\ncorrect"),
        "{text}"
    );

    fails_with(
        &["run", "--task", "copy", "--model", "scripted", "--start", s, "--goal", g],
        "--start and --goal are for",
    );
    fails_with(&["run", "--task", "plan", "--model", "scripted", "--start", s], "--goal");
    let missing = dir.path().join("none.txt");
    fails_with(
        &[
            "run",
            "--task",
            "plan",
            "--model",
            "scripted",
            "--start",
            s,
            "--goal",
            missing.to_str().ok_or("path")?,
        ],
        "cannot read map file",
    );
    Ok(())
}

#[test]
fn trace_shows_every_step() {
    let out =
        nhc(&["trace", "--task", "copy", "--model", "scripted", "--input", "[[1,0,0,0,0,0],[0,1,0,0,0,0]]"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    // 2 presented, 2 outputs, 1 mark.
    assert_eq!(text.lines().filter(|l| l.contains(" ok")).count(), 3, "{text}");
    assert!(text.contains("F1") && text.contains("H1"), "{text}");
}

#[test]
fn bad_input_gets_plain_errors() {
    fails_with(
        &["eval", "--task", "sorting", "--model", "scripted", "--level", "3"],
        "unknown task `sorting`",
    );
    fails_with(
        &["eval", "--task", "copy", "--model", "scripted", "--level", "0"],
        "level must be at least 1",
    );
    fails_with(
        &["run", "--task", "copy", "--model", "scripted", "--input", "[[1,0,2,0,0,0]]"],
        "the 1st object, 3rd element: expected 0 or 1, got 2",
    );
    // Positions in input errors count from 1, as ordinals, for every task.
    fails_with(
        &["run", "--task", "copy", "--model", "scripted", "--input", "[[1,0,0,0,0,0],[1,0]]"],
        "the 2nd object must be an array of 6 numbers 0 or 1",
    );
    fails_with(
        &["run", "--task", "sort", "--model", "scripted", "--input", "[3,-1]"],
        "the 2nd number, -1, is out of the range 0–255",
    );
    fails_with(
        &["run", "--task", "addition", "--model", "scripted", "--input", r#"{"a": "1021", "b": "1"}"#],
        "`a`, the 3rd character: expected 0 or 1, got `2`",
    );
    fails_with(
        &["run", "--task", "arithmetic", "--model", "scripted", "--input", "4 +"],
        "the 2nd token is an operator",
    );
    fails_with(&["run", "--task", "copy", "--model", "scripted", "--input", "[]"], "at least one object");
    fails_with(&["run", "--task", "copy", "--model", "scripted", "--input", "[[1,0"], "not valid JSON");
    fails_with(
        &[
            "run",
            "--task",
            "repeatCopy",
            "--model",
            "scripted",
            "--input",
            r#"{"items": [[1,0,0,0,0,0]], "copies": 0}"#,
        ],
        "copies",
    );
    fails_with(
        &["eval", "--task", "copy", "--model", "/no/such/model.json", "--level", "3"],
        "cannot read model file",
    );
}

/// arithmetic takes a bare postfix expression as well as a JSON string, on every domain (and in
/// `nhc trace`); other tasks still refuse input that is not JSON.
#[test]
fn arithmetic_takes_a_bare_expression() {
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/arithmetic.json");
    let run = |extra: &[&str]| {
        let v = ok_json(&[&["run", "--task", "arithmetic", "--model", model, "--json"], extra].concat());
        assert_eq!(v["correct"], true, "{extra:?}: {v}");
        v["output"].clone()
    };
    assert_eq!(run(&["--input", "5 6 * 3 +"]), 33);
    assert_eq!(run(&["--input", r#""5 6 * 3 +""#]), 33);
    assert_eq!(run(&["--domain", "boolean", "--input", "1 0 AND 1 OR"]), 1);
    assert_eq!(run(&["--domain", "boolean", "--input", "1 1 AND 0 AND"]), 0);
    let trace = ["trace", "--task", "arithmetic", "--domain", "boolean", "--model", model];
    let out = nhc(&[&trace[..], &["--input", "1 0 AND"]].concat());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("AND") && text.contains("answer: 0"), "{text}");
    let boolean = ["run", "--task", "arithmetic", "--domain", "boolean", "--model", model, "--input"];
    fails_with(&[&boolean[..], &["1 0 XOR"]].concat(), "unknown token `XOR`; expected 0, 1, AND or OR");
    fails_with(&[&boolean[..], &["2 1 AND"]].concat(), "operand `2` is not a truth value");
    fails_with(&[&boolean[..], &["1 AND"]].concat(), "fewer than two operands");
    fails_with(&["run", "--task", "copy", "--model", "scripted", "--input", "1 0 AND"], "not valid JSON");
}

#[test]
fn model_files_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let task = find("copy").unwrap();
    let config = task.config();
    let theta = vec![0.01; Layout::new(&config).len()];
    let good = dir.path().join("copy.json");
    let model = LearnedModel { variant: Variant::Nhc, params: Params::new(config, theta).unwrap() };
    ModelFile::new(task, &model, None).save(&good).unwrap();
    let good = good.to_str().unwrap();

    let v = ok_json(&["eval", "--task", "copy", "--model", good, "--level", "3", "--samples", "4", "--json"]);
    assert_eq!(v["samples"], 4);
    fails_with(
        &["eval", "--task", "reverse", "--model", good, "--level", "3"],
        "model of algorithm `copy`, not `reverse`",
    );
    fails_with(&["eval", "--task", "duplicated", "--model", good, "--level", "3"], "not `duplicated`");

    let text = std::fs::read_to_string(good).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["params"].as_array_mut().unwrap().pop();
    let short = dir.path().join("short.json");
    std::fs::write(&short, v.to_string()).unwrap();
    fails_with(&["eval", "--task", "copy", "--model", short.to_str().unwrap(), "--level", "3"], "θ has");

    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["config"]["read_heads"] = 2.into();
    let other = dir.path().join("other.json");
    std::fs::write(&other, v.to_string()).unwrap();
    fails_with(
        &["eval", "--task", "copy", "--model", other.to_str().unwrap(), "--level", "3"],
        "does not fit `copy` as nhc",
    );

    let garbage = dir.path().join("garbage.json");
    std::fs::write(&garbage, "not json").unwrap();
    fails_with(
        &["eval", "--task", "copy", "--model", garbage.to_str().unwrap(), "--level", "3"],
        "not a valid model file",
    );
}

/// The committed models, learned from scratch by `nhc train`, solve every sample of level 100.
#[test]
fn committed_models_solve_level_100() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models");
    for task in nhc_tasks::registry::PAPER_TASKS {
        let path = format!("{root}/{task}.json");
        let v = ok_json(&[
            "eval",
            "--task",
            task,
            "--model",
            &path,
            "--level",
            "100",
            "--samples",
            "50",
            "--json",
        ]);
        assert_eq!(v["solved"], 50, "{task}: {v}");
    }
}

/// A scratch directory holding quick.toml: a curriculum of two levels, each solved after 20
/// perfect batches, then `more`.
fn short_config(more: &str) -> Result<(tempfile::TempDir, std::path::PathBuf), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let config = dir.path().join("quick.toml");
    let text = format!("levels = 2\nperfect_to_solve = 20\nperfect_to_solve_after_learning = 20\n{more}");
    std::fs::write(&config, text)?;
    Ok((dir, config))
}

/// `nhc sweep` trains and evaluates every run, writes one line per run, and a second call
/// finds everything done and changes nothing.
#[test]
fn sweep_trains_evaluates_and_skips_finished_runs() -> Result<(), Box<dyn std::error::Error>> {
    let (dir, config) = short_config("check_level = 5\ncheck_samples = 20\nmax_iterations = 3000\n")?;
    let out = dir.path().join("sweep");
    let args = [
        "sweep",
        "--tasks",
        "copy",
        "--runs",
        "2",
        "--jobs",
        "2",
        "--levels",
        "5,20",
        "--samples",
        "10",
        "--config",
        config.to_str().ok_or("path")?,
        "--out",
        out.to_str().ok_or("path")?,
    ];
    let first = nhc(&args);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let lines = std::fs::read_to_string(out.join("sweep.jsonl"))?;
    let runs: Vec<Value> = lines.lines().map(serde_json::from_str).collect::<Result<_, _>>()?;
    assert_eq!(runs.len(), 2);
    for (r, seed) in runs.iter().zip(1..) {
        assert_eq!(
            (r["summary"]["task"].as_str(), r["summary"]["seed"].as_u64()),
            (Some("copy"), Some(seed))
        );
        assert_eq!(r["eval"]["5"]["samples"], 10);
        assert_eq!(r["eval"]["20"]["level"], 20);
    }
    let eval_before = std::fs::read(out.join("copy-1/eval.json"))?;
    let metrics_before = std::fs::read(out.join("copy-1/metrics.jsonl"))?;
    let second = nhc(&args);
    assert!(second.status.success());
    assert_eq!(std::fs::read(out.join("copy-1/eval.json"))?, eval_before);
    assert_eq!(std::fs::read(out.join("copy-1/metrics.jsonl"))?, metrics_before);
    assert_eq!(std::fs::read_to_string(out.join("sweep.jsonl"))?, lines);
    fails_with(&["sweep", "--tasks", "nope", "--out", out.to_str().ok_or("path")?], "unknown task `nope`");

    let report = nhc(&["report", out.to_str().ok_or("path")?]);
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
    let text = String::from_utf8(report.stdout)?;
    assert_eq!(std::fs::read_to_string(out.join("report.md"))?, text);
    let finished = runs.iter().filter(|r| r["summary"]["outcome"] == "solved").count();
    assert!(runs.iter().all(|r| ["solved", "cap"].contains(&r["summary"]["outcome"].as_str().unwrap_or(""))));
    assert!(text.contains(&format!("| copy | 2 | {finished} | ")), "{text}");
    assert!(text.contains("| 814 (−319, +291) |"), "the paper's median beside ours: {text}");
    // Every summary lists its lineages, adding up to its learning iterations; the report counts
    // them from the sweep file, one finished lineage per finished run.
    let mut lineages = 0;
    for r in &runs {
        let list = r["summary"]["lineages"].as_array().ok_or("the summary lists the lineages")?;
        let sum: u64 = list.iter().filter_map(|l| l["learning_iterations"].as_u64()).sum();
        assert_eq!(Some(sum), r["summary"]["learning_iterations"].as_u64());
        lineages += list.len();
    }
    assert!(text.contains("## Lineages"), "{text}");
    assert!(text.contains(&format!("| copy | 2 | {lineages} | {finished} | ")), "{text}");
    for figure in [
        "report_learning_curves.svg",
        "report_learning_curves.png",
        "report_learning_per_level.png",
        "report_last_level_learned.svg",
    ] {
        assert!(std::fs::metadata(out.join(figure))?.len() > 1000, "{figure}");
        assert!(text.contains(figure));
    }
    fails_with(&["report", dir.path().to_str().ok_or("path")?], "sweep directory");
    Ok(())
}

/// `nhc sweep --seeds 3-4` trains the runs copy-3 and copy-4 only, each as the sweep of
/// `--runs 4` trains it, and its lines and report name the range; `--runs` with `--seeds`, and a
/// range that runs backwards, are refused in one line before anything is written.
#[test]
fn sweep_trains_a_seed_range() -> Result<(), Box<dyn std::error::Error>> {
    let (dir, config) = short_config("max_iterations = 300\n")?;
    let config = config.to_str().ok_or("path")?;
    let sweep = |name: &str, seeds: &[&str]| -> Result<Vec<Value>, Box<dyn std::error::Error>> {
        let out = dir.path().join(name);
        let out = out.to_str().ok_or("path")?;
        let common = ["sweep", "--tasks", "copy", "--jobs", "2", "--levels", "5", "--samples", "5"];
        let o = nhc(&[&common[..], seeds, &["--config", config, "--out", out]].concat());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let lines = std::fs::read_to_string(dir.path().join(name).join("sweep.jsonl"))?;
        Ok(lines.lines().map(serde_json::from_str).collect::<Result<_, _>>()?)
    };
    // A line without what two trainings of one run differ in: wall times.
    let untimed = |r: &Value| {
        let mut r = r.clone();
        for key in ["wall_seconds", "steps_per_second"] {
            r["summary"][key] = Value::Null;
        }
        if let Some(eval) = r["eval"].as_object_mut() {
            eval.values_mut().for_each(|e| e["seconds"] = Value::Null);
        }
        (r["summary"].clone(), r["eval"].clone())
    };

    let range = sweep("range", &["--seeds", "3-4"])?;
    let seeds: Vec<_> = range.iter().map(|r| r["summary"]["seed"].as_u64()).collect();
    assert_eq!(seeds, [Some(3), Some(4)]);
    assert!(range.iter().all(|r| r["seeds"] == "3-4"), "{range:?}");
    let mut dirs: Vec<String> = std::fs::read_dir(dir.path().join("range"))?
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    assert_eq!(dirs, ["copy-3", "copy-4"]);
    let four = sweep("four", &["--runs", "4"])?;
    assert!(four.iter().all(|r| r["seeds"] == "1-4"), "{four:?}");
    assert_eq!(
        range.iter().map(untimed).collect::<Vec<_>>(),
        four[2..].iter().map(untimed).collect::<Vec<_>>()
    );
    let report = nhc(&["report", dir.path().join("range").to_str().ok_or("path")?]);
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
    let text = String::from_utf8(report.stdout)?;
    assert!(text.contains("|\n\nTraining seeds: 3–4 for every task.\n\n## Generalization"), "{text}");

    let refused = dir.path().join("refused");
    let refused = refused.to_str().ok_or("path")?;
    let both = ["sweep", "--tasks", "copy", "--runs", "2", "--seeds", "1-2", "--out", refused];
    let backwards = ["sweep", "--tasks", "copy", "--seeds", "5-3", "--out", refused];
    assert_eq!(
        code(&both),
        (Some(1), "error: give --runs or --seeds, not both (--runs N is --seeds 1-N)\n".to_string())
    );
    assert_eq!(
        code(&backwards),
        (
            Some(1),
            "error: --seeds: the seed range 5-3 runs backwards: give the smaller seed first (3-5)\n"
                .to_string()
        )
    );
    for seeds in ["", "a-b", "1-", "-3"] {
        let (c, err) = code(&["sweep", "--tasks", "copy", "--seeds", seeds, "--out", refused]);
        assert_eq!((c, err.lines().count()), (Some(1), 1), "{seeds}: {err}");
        assert!(err.starts_with("error: --seeds: "), "{err}");
    }
    assert!(!std::path::Path::new(refused).exists(), "refused before anything is written");
    Ok(())
}

/// `nhc trace --figure` draws the behaviour of one sample as SVG or PNG, and refuses other files.
#[test]
fn trace_draws_the_behaviour() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    for (name, flag) in [("reverse.svg", "--figure"), ("reverse.png", "--figure"), ("alias.svg", "--svg")] {
        let path = dir.path().join(name);
        let p = path.to_str().ok_or("path")?;
        let out = nhc(&["trace", "--task", "reverse", "--model", "scripted", "--level", "5", flag, p]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(std::fs::metadata(&path)?.len() > 1000, "{name}");
    }
    let svg = std::fs::read_to_string(dir.path().join("reverse.svg"))?;
    assert!(svg.contains("read head 1") && svg.contains("op M"), "legend in the figure");
    let bad = dir.path().join("reverse.txt");
    fails_with(
        &[
            "trace",
            "--task",
            "reverse",
            "--model",
            "scripted",
            "--level",
            "5",
            "--figure",
            bad.to_str().ok_or("path")?,
        ],
        "must end in .svg or .png",
    );
    Ok(())
}

/// `nhc eval` names the unsolved samples, and `nhc trace --index` replays exactly those: on a
/// model that fails about a quarter of level-50 additions (results/screens/failures/), every listed
/// index traces to a wrong answer and an unlisted one to a correct answer.
#[test]
fn eval_lists_failed_samples_and_trace_replays_them() {
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/../../results/screens/failures/addition_parity.json");
    let base = ["--task", "addition", "--model", model, "--level", "50", "--seed", "3"];
    let eval = ok_json(&[&["eval"][..], &base, &["--samples", "20", "--json"]].concat());
    let failed: Vec<u64> =
        eval["failed"].as_array().expect("a list").iter().filter_map(Value::as_u64).collect();
    assert_eq!(failed.len() as u64, 20 - eval["solved"].as_u64().expect("count"));
    assert!(!failed.is_empty() && failed.len() < 20, "{eval}");
    let solved = (0..20).find(|i| !failed.contains(i)).expect("a solved sample");
    for (index, verdict) in [(failed[0], "WRONG"), (solved, "correct")] {
        let i = index.to_string();
        let out = nhc(&[&["trace"][..], &base, &["--index", &i]].concat());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(text.lines().last(), Some(verdict), "sample {index}");
    }
    // The hint in the plain output is a command that runs as printed.
    let plain = nhc(&[&["eval"][..], &base, &["--samples", "20"]].concat());
    let text = String::from_utf8_lossy(&plain.stdout);
    let hint = text.split("see one: ").nth(1).and_then(|h| h.strip_suffix(")\n")).expect("a hint");
    let words: Vec<&str> = hint.split(' ').collect();
    assert_eq!(words[0], "nhc", "{hint}");
    let out = nhc(&words[1..]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().last(), Some("WRONG"), "{hint}");
}

/// `--variant` trains an ablation; its model file names the variant and `nhc eval` runs it as
/// such; a variant other than the file's, or the scripted solution under an ablation, is refused.
#[test]
fn variants_train_evaluate_and_are_named() {
    let dir = tempfile::tempdir().unwrap();
    for variant in ["nhc-anc", "nhc-prev"] {
        let out = dir.path().join(variant);
        let out_s = out.to_str().unwrap();
        let args = [
            "train",
            "--task",
            "copy",
            "--variant",
            variant,
            "--seed",
            "1",
            "--out",
            out_s,
            "--max-iterations",
            "3",
        ];
        let summary = trained(&[&args[..], &["--quiet"]].concat());
        assert_eq!(summary["variant"], variant);
        let model: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("model.json")).unwrap()).unwrap();
        assert_eq!((model["variant"].as_str(), model["algorithm"].as_str()), (Some(variant), Some("copy")));
        let path = out.join("model.json");
        let path = path.to_str().unwrap();
        let v =
            ok_json(&["eval", "--task", "copy", "--model", path, "--level", "3", "--samples", "2", "--json"]);
        assert_eq!(v["variant"], variant);
        fails_with(
            &["eval", "--task", "copy", "--model", path, "--variant", "nhc", "--level", "3"],
            &format!("holds a model of variant {variant}, not nhc; drop --variant"),
        );
    }
    fails_with(
        &["eval", "--task", "copy", "--model", "scripted", "--variant", "nhc-anc", "--level", "3"],
        "written for the full NHC",
    );
    fails_with(&["train", "--task", "copy", "--variant", "dnc", "--out", "x"], "unknown model variant");
}

/// A diagnostic that cannot be written (stderr on a full device) never ends the process: the
/// command's own exit code stands.
#[test]
fn a_full_stderr_is_no_panic() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let code = |args: &[&str]| {
        let stderr = full.try_clone().unwrap();
        Command::new(env!("CARGO_BIN_EXE_nhc")).args(args).stderr(stderr).output().unwrap().status.code()
    };
    let train = ["train", "--task", "copy", "--out", out.to_str().unwrap(), "--max-iterations", "3"];
    assert_eq!(code(&train), Some(4), "3 iterations do not learn copy");
    assert_eq!(code(&["eval", "--task", "copy", "--model", "no-such-file.json", "--level", "3"]), Some(1));
}

/// A command whose stdout is closed (`>&-`) writes its result nowhere: it fails in one line
/// (exit 1) instead of exiting 0, for every command that prints a result; `>/dev/null` is fine,
/// read-write too.
#[test]
fn a_closed_stdout_is_an_error_not_a_lost_result() {
    let copy = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/copy.json");
    let commands: [&[&str]; 6] = [
        &["tasks"],
        &["eval", "--task", "copy", "--model", copy, "--level", "3"],
        &["run", "--task", "copy", "--model", copy, "--input", "[[1,0,0,0,0,1],[0,1,1,0,0,0]]"],
        &["verify", "--task", "copy", "--model", copy, "--up-to", "3", "--beyond", "0"],
        &["trace", "--task", "copy", "--model", copy, "--level", "2"],
        &["eval", "--task", "copy", "--model", copy, "--level", "3", "--json"],
    ];
    for args in commands {
        let shell = |redirect: &str| {
            let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
            let line = format!("'{}' {} {redirect}", env!("CARGO_BIN_EXE_nhc"), quoted.join(" "));
            Command::new("sh").args(["-c", &line]).output().unwrap()
        };
        let closed = shell(">&-");
        let err = String::from_utf8_lossy(&closed.stderr);
        assert_eq!(closed.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("standard output is closed") && err.lines().count() == 1, "{args:?}: {err}");
        assert_eq!(shell(">/dev/null").status.code(), Some(0), "{args:?}");
        // /dev/null opened read-write (as Python's subprocess.DEVNULL does) is no closed stdout.
        assert_eq!(shell("1<>/dev/null").status.code(), Some(0), "{args:?}");
    }
}

/// A flag or key that would be accepted and then do nothing is refused in one line that names
/// what it needs: `--resume` with anything the checkpoint decides, check settings without a
/// check or a check inside the curriculum, a key twice in one input object, counts of 0.
#[test]
fn settings_without_effect_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let out =
        nhc(&["train", "--task", "copy", "--out", run.to_str().unwrap(), "--max-iterations", "1", "--quiet"]);
    assert_eq!(out.status.code(), Some(4));
    let resume = run.to_str().unwrap();
    for flag in [["--variant", "nhc-anc"], ["--seed", "9"], ["--task", "sort"], ["--max-iterations", "5"]] {
        fails_with(&["train", "--resume", resume, flag[0], flag[1]], &format!("'{}", flag[0]));
    }
    let config = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let out_dir = dir.path().join("c");
    let out_dir = out_dir.to_str().unwrap();
    for (name, text, cause) in [
        ("inside.toml", "check_level = 5\n", "check_level must be beyond the curriculum"),
        ("relearn.toml", "on_failed_check = \"relearn\"\n", "on_failed_check has no effect without"),
        ("shape.toml", "[tasks.sort]\ncheck_any_shape = true\n", "check_any_shape has no effect without"),
        ("kind.toml", "on_failed_check = 1\n", "on_failed_check must be `restart` or `relearn`, got 1"),
    ] {
        fails_with(&["train", "--task", "copy", "--out", out_dir, "--config", &config(name, text)], cause);
    }
    let copy = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/repeatCopy.json");
    let twice = r#"{"items":[[1,0,0,0,0,1]],"copies":2,"copies":3}"#;
    fails_with(
        &["run", "--task", "repeatCopy", "--model", copy, "--input", twice],
        "the key \"copies\" appears twice",
    );
    for args in [
        &["bench", "--repeat", "0"][..],
        &["bench", "--train", "--iterations", "0"],
        &["bench", "--iterations", "5"],
    ] {
        let out = nhc(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    fails_with(
        &["bench", "--train", "--repeat", "2"],
        "--repeat has no effect on --train without --declared",
    );
}

/// `nhc verify` (and `nhc eval`) whose work would take more than an hour at the speed measured
/// here is refused at once with its estimate and `--yes`, for bounds drawn past the hour; small
/// bounds run unasked.
#[test]
fn verify_past_an_hour_asks_for_yes() {
    let copy = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/copy.json");
    let mut seed = 65u64;
    for _ in 0..3 {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        // 1–n objects take about n² steps: 290 000 objects or more are over an hour below 2·10⁷
        // steps a second, and below 316 000 within the hard cap of 10¹¹ steps.
        let n = 290_000 + (seed >> 40) % 25_000;
        let start = std::time::Instant::now();
        let out = nhc(&["verify", "--task", "copy", "--model", copy, "--up-to", &n.to_string()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{n}: {err}");
        assert!(
            err.contains("model steps") && err.contains("measured here") && err.contains("--yes"),
            "{err}"
        );
        assert!(start.elapsed().as_secs_f64() < 5.0, "refused at once");
    }
    let out = nhc(&["--yes", "verify", "--task", "copy", "--model", copy, "--up-to", "50"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // `nhc eval` likewise: 10⁶ samples of level 10⁶ are days of model steps.
    let big = ["eval", "--task", "copy", "--model", copy, "--level", "1000000", "--samples", "1000000"];
    fails_with(&big, "add --yes to start it anyway");
}

/// Writes a checkpoint file with `cp`'s state and seconds and their digest recomputed, as
/// `run_dir` writes it (an edit that the digest alone cannot catch).
fn write_with_digest(path: &std::path::Path, cp: serde_json::Value) {
    use sha2::Digest;
    let (state, seconds) = (cp["state"].to_string(), cp["seconds"].to_string());
    let mut h = sha2::Sha256::new();
    h.update(state.as_bytes());
    h.update(b"\n");
    h.update(seconds.as_bytes());
    let digest: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    std::fs::write(path, format!(r#"{{"state":{state},"seconds":{seconds},"digest":"{digest}"}}"#))
        .expect("the checkpoint is written");
}

/// `nhc train` times its θ and refuses a config whose run would take more than an hour at that
/// speed (population 1 000 × batch 40 000 and 100 000 perfect iterations a level: a run that
/// learns once a level is about 6·10¹¹ model steps, a day here) before it writes anything, and so
/// does `--resume` of a checkpoint edited to such a config.
#[test]
fn train_past_an_hour_asks_for_yes() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("big.toml");
    std::fs::write(&config, "population = 1000\nbatch = 40000\nperfect_to_solve = 100000\n").unwrap();
    let out = dir.path().join("run");
    let (o, c) = (out.to_str().unwrap(), config.to_str().unwrap());
    fails_with(
        &["train", "--task", "copy", "--seed", "1", "--config", c, "--out", o],
        "add --yes to start it anyway",
    );
    assert!(!out.exists(), "nothing written");
    // A small run, then its checkpoint's config edited (the digest recomputed) to the large one.
    let small =
        nhc(&["train", "--task", "copy", "--seed", "1", "--out", o, "--max-iterations", "3", "--quiet"]);
    assert_eq!(small.status.code(), Some(4), "{}", String::from_utf8_lossy(&small.stderr));
    let path = out.join("checkpoint.json");
    let mut cp: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    cp["state"]["config"]["population"] = 1000.into();
    cp["state"]["config"]["batch"] = 40000.into();
    cp["state"]["config"]["perfect_to_solve"] = 100000.into();
    cp["state"]["config"]["max_iterations"] = 100.into();
    write_with_digest(&path, cp);
    fails_with(&["train", "--resume", o], "add --yes to start it anyway");
}

/// A model, input, map or config that is not a regular file (a named pipe without a writer, a
/// directory, a device) is refused in one line before it is opened, instead of blocking.
#[test]
fn special_files_are_refused_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let copy = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/copy.json");
    let search = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/search.json");
    for (special, kind) in [
        (fifo.to_str().unwrap(), "a named pipe"),
        (dir.path().to_str().unwrap(), "a directory"),
        ("/dev/zero", "a device"),
    ] {
        let input = format!("@{special}");
        let commands: [&[&str]; 5] = [
            &["eval", "--task", "copy", "--model", special, "--level", "3"],
            &["run", "--task", "copy", "--model", copy, "--input", &input],
            &["run", "--task", "search", "--model", search, "--start", special, "--goal", special],
            &["train", "--task", "copy", "--config", special, "--out", "x"],
            &["verify", "--task", "copy", "--model", special, "--up-to", "3"],
        ];
        for args in commands {
            let out = nhc(args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert!(
                err.contains(kind) && err.contains("give a regular file") && err.lines().count() == 1,
                "{args:?}: {err}"
            );
        }
    }
}

/// `--recipe` trains with configs/recipe.toml, and a config file's `[tasks.NAME]` table changes
/// its task's config only; both are recorded in the checkpoint.
#[test]
fn train_takes_the_recipe_and_tables_for_single_tasks() {
    let dir = tempfile::tempdir().unwrap();
    let config_of = |out: &std::path::Path| -> Value {
        let text = std::fs::read_to_string(out.join("checkpoint.json")).unwrap();
        serde_json::from_str::<Value>(&text).unwrap()["state"]["config"].clone()
    };
    let train = |task: &str, name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        let args =
            ["train", "--task", task, "--out", out.to_str().unwrap(), "--max-iterations", "2", "--quiet"];
        trained(&[&args[..], extra].concat());
        config_of(&out)
    };
    let recipe = train("copy", "recipe", &["--recipe"]);
    assert_eq!(
        (recipe["check_level"].as_u64(), recipe["on_failed_check"].as_str()),
        (Some(99), Some("relearn"))
    );
    assert_eq!(recipe["max_iterations"].as_u64(), Some(2));
    let file = dir.path().join("tables.toml");
    std::fs::write(&file, "check_level = 20\n[tasks.copy]\nbus_feedback = true\n").unwrap();
    let file = file.to_str().unwrap();
    let copy = train("copy", "copy", &["--config", file]);
    let reverse = train("reverse", "reverse", &["--config", file]);
    assert_eq!((copy["bus_feedback"].as_bool(), copy["check_level"].as_u64()), (Some(true), Some(20)));
    assert_eq!((reverse["bus_feedback"].as_bool(), reverse["check_level"].as_u64()), (None, Some(20)));
    fails_with(
        &["train", "--task", "copy", "--out", "x", "--recipe", "--config", file],
        "cannot be used with",
    );
    std::fs::write(dir.path().join("typo.toml"), "[tasks.cpy]\nbus_feedback = true\n").unwrap();
    let typo = dir.path().join("typo.toml");
    fails_with(
        &["train", "--task", "copy", "--out", "x", "--config", typo.to_str().unwrap()],
        "[tasks.cpy]: no such task",
    );
}

/// A model belongs to its algorithm: the binary-trained addition model runs on decimal numbers
/// (`--domain decimal`), and answers a user's decimal sum; `nhc tasks` lists every domain.
#[test]
fn a_model_runs_on_another_domain_of_its_algorithm() {
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/addition.json");
    let args = ["--task", "addition", "--domain", "decimal", "--model", model];
    let v = ok_json(&[&["eval"], &args[..], &["--level", "100", "--samples", "20", "--json"]].concat());
    assert_eq!((v["solved"].as_u64(), v["domain"].as_str()), (Some(20), Some("decimal")));
    let input = r#"{"a":"98765432109876543210","b":"12345678901234567890"}"#;
    let v = ok_json(&[&["run"], &args[..], &["--input", input, "--json"]].concat());
    assert_eq!((v["output"].as_str(), v["correct"].as_bool()), (Some("111111111011111111100"), Some(true)));
    fails_with(
        &["eval", "--task", "addition", "--domain", "hex", "--model", model, "--level", "3"],
        "no domain `hex`",
    );

    let out = nhc(&["tasks", "--json"]);
    assert!(out.status.success());
    let lines: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), nhc_tasks::registry::all().len());
    assert!(lines.iter().any(|l| l["task"] == "addition" && l["domain"] == "decimal"));
    assert!(lines.iter().all(|l| l["params"]["nhc"].as_u64() > Some(0)));
}

/// `nhc transfer` runs a model on every other domain of its algorithm: levels 1–11, then 100
/// and 1000, as one table or one JSON report per level.
#[test]
fn transfer_runs_every_other_domain() {
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/addition.json");
    let args = ["transfer", "--task", "addition", "--model", model, "--samples", "5"];
    let out = nhc(&[&args[..], &["--json"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let levels: Vec<u64> = lines.iter().filter_map(|l| l["level"].as_u64()).collect();
    assert_eq!(levels, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 100, 1000]);
    assert!(lines.iter().all(|l| l["domain"] == "decimal" && l["solved"] == 5), "{lines:?}");
    let out = nhc(&args);
    assert!(out.status.success());
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("| addition | decimal | 55/55 | 5/5 | 5/5 |"), "{table}");
    fails_with(&["transfer", "--task", "all", "--model", model], "must be a directory");
    fails_with(&["transfer", "--task", "nope", "--model", model], "unknown task `nope`");
}

fn code(args: &[&str]) -> (Option<i32>, String) {
    let out = nhc(args);
    (out.status.code(), String::from_utf8_lossy(&out.stderr).to_string())
}

/// Sizes beyond their bounds, and runs beyond the memory limit, are refused before any work.
#[test]
fn sizes_are_bounded_before_any_work() {
    let copy = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/copy.json");
    let sort = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/sort.json");
    let repeat = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/repeatCopy.json");
    let start = std::time::Instant::now();
    fails_with(
        &["eval", "--task", "copy", "--model", copy, "--level", "18446744073709551615"],
        "at most 1000000",
    );
    fails_with(
        &["eval", "--task", "copy", "--model", copy, "--level", "10", "--samples", "18446744073709551615"],
        "at most 1000000",
    );
    fails_with(&["eval", "--task", "search", "--model", "scripted", "--level", "10000000"], "at most 100000");
    fails_with(
        &["--max-memory", "1G", "eval", "--task", "sort", "--model", sort, "--level", "10000"],
        "more than the memory limit of 1.0 GB",
    );
    let input = r#"{"items":[[1,0,0,0,0,1]],"copies":1000000000000}"#;
    fails_with(&["run", "--task", "repeatCopy", "--model", repeat, "--input", input], "would need about");
    fails_with(&["eval", "--task", "copy", "--model", "/dev/zero", "--level", "10"], "it is a device");
    fails_with(&["--max-memory", "lots", "tasks"], "not a memory size");
    assert!(start.elapsed().as_secs_f64() < 5.0, "refusals are immediate");
}

/// `nhc run` and `nhc trace` count the input's JSON, the answer's and the reference's (a wrong
/// model's at most one object a step), and the trace rows: 100 000 copy objects (peak measured:
/// 109 MB for a run, 278 MB for a trace; estimated 215 and 410 MB) do not fit 100 MB and 300 MB,
/// and a run fits 300 MB. python/tests/test_nhc.py measures the peaks against the estimates.
#[test]
fn run_and_trace_count_the_json_and_the_rows_they_hold() {
    let copy = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/copy.json");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("objects.json");
    let objects: Vec<[u8; 6]> =
        (0..100_000u32).map(|i| std::array::from_fn(|b| ((i >> b) & 1) as u8)).collect();
    std::fs::write(&file, serde_json::to_string(&objects).unwrap()).unwrap();
    let input = format!("@{}", file.display());
    let run = ["run", "--task", "copy", "--model", copy, "--input", &input];
    let trace = ["trace", "--task", "copy", "--model", copy, "--input", &input];
    fails_with(&[&["--max-memory", "100M"][..], &run].concat(), "more than the memory limit of 100.0 MB");
    fails_with(&[&["--max-memory", "300M"][..], &trace].concat(), "more than the memory limit of 300.0 MB");
    let out = nhc(&[&["--max-memory", "300M"][..], &run].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Exit codes: 3 for an answer that differs from the reference (still printed), 141 when the
/// reader of the output went away.
#[test]
fn exit_codes_tell_a_wrong_answer_and_a_closed_pipe() {
    // A model that answers wrong: the shipped duplicated model with θ = 0.
    let dir = tempfile::tempdir().unwrap();
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/duplicated.json");
    let mut file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(shipped).unwrap()).unwrap();
    for p in file["params"].as_array_mut().unwrap() {
        *p = serde_json::json!(0.0);
    }
    let zero = dir.path().join("zero.json");
    std::fs::write(&zero, file.to_string()).unwrap();
    let dup = zero.to_str().unwrap();
    let five = r#"[[1,0,0,0,0,1],[1,0,0,0,0,1],[0,1,0,0,0,1],[0,1,0,0,0,1],[1,0,0,0,0,1]]"#;
    let out = nhc(&["run", "--task", "duplicated", "--model", dup, "--input", five]);
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!out.stdout.is_empty(), "the answer is still printed");
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrong answer"));
    let (c, _) = code(&["run", "--task", "duplicated", "--model", "scripted", "--input", five]);
    assert_eq!(c, Some(0));

    let mut child = Command::new(env!("CARGO_BIN_EXE_nhc"))
        .args(["trace", "--task", "copy", "--model", "scripted", "--level", "3000"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(141));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// One process per run directory; a damaged metrics line before the checkpoint is reported on
/// resume, not silently dropped with everything after it.
#[test]
fn run_directories_are_locked_and_damaged_metrics_reported() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let out_s = out.to_str().unwrap();
    let mut first = Command::new(env!("CARGO_BIN_EXE_nhc"))
        .args([
            "train",
            "--task",
            "sort",
            "--seed",
            "1",
            "--out",
            out_s,
            "--quiet",
            "--max-iterations",
            "20000",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Until a checkpoint past the start is written (every 250 iterations, at most once a second).
    let iteration = || -> u64 {
        let text = std::fs::read_to_string(out.join("checkpoint.json")).unwrap_or_default();
        serde_json::from_str::<Value>(&text).map_or(0, |v| v["state"]["iteration"].as_u64().unwrap_or(0))
    };
    let waited = std::time::Instant::now();
    while iteration() < 2 && waited.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    fails_with(&["train", "--task", "copy", "--out", out_s], "is in use by another nhc process (pid");
    fails_with(&["train", "--resume", out_s], "is in use by another nhc process");
    first.kill().unwrap();
    first.wait().unwrap();

    let metrics = std::fs::read_to_string(out.join("metrics.jsonl")).unwrap();
    let mut lines: Vec<String> = metrics.lines().map(String::from).collect();
    assert!(iteration() >= 2, "the test needs a checkpoint past iteration 1");
    lines[0] = "{not json".into();
    std::fs::write(out.join("metrics.jsonl"), lines.join("\n")).unwrap();
    fails_with(&["train", "--resume", out_s, "--quiet"], "metrics.jsonl line 1 is damaged");
}

/// Several sweeps (here one) give Table 1 with every model's rows, ours beside the paper's.
#[test]
fn report_compares_sweeps_in_the_papers_layout() {
    let dir = tempfile::tempdir().unwrap();
    let full = concat!(env!("CARGO_MANIFEST_DIR"), "/../../results/full.jsonl");
    let out = dir.path().join("cmp.md");
    let o = nhc(&["report", full, "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("| NHC | iterations |") && text.contains("*3132 (−565, +1722)*"), "{text}");
    assert!(text.contains("| NHC | runs | 15 | 15 |"));
    // Lineages and learning curves come from the sweep file alone (the runs' directories,
    // relative paths in full.jsonl, are not here): every task's lineages, and the figure.
    assert!(text.contains("| search | 15 | 28 | 15 |") && text.contains("| sort | 15 | 34 | 14 |"), "{text}");
    assert!(text.contains("![learning curves](cmp_learning_curves.png)"), "{text}");
    assert!(dir.path().join("cmp_learning_curves.png").exists());
    fails_with(&["report", full, full], "give --out FILE");
}

/// `nhc report` redraws the committed reports from the committed results alone, with no run
/// directory at hand (a fresh clone): results/full.md and results/comparison.md, byte for byte,
/// figures included (each sweep line carries its learning curve).
#[test]
fn committed_reports_redraw_from_the_repository() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../results");
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    std::fs::create_dir(&results).unwrap();
    let sweeps = ["full", "comparison_nhc_anc", "comparison_nhc_prev", "comparison_dnc_is_ha", "dnc"];
    for f in sweeps {
        std::fs::copy(format!("{root}/{f}.jsonl"), results.join(format!("{f}.jsonl"))).unwrap();
    }
    let files: Vec<String> = sweeps.iter().map(|f| format!("results/{f}.jsonl")).collect();
    let comparison = [
        &["report"][..],
        &files.iter().map(String::as_str).collect::<Vec<_>>(),
        &["--out", "results/comparison.md"],
    ]
    .concat();
    let reports = [
        (vec!["report", "results/full.jsonl"], "full.md"),
        (vec!["report", "results/dnc.jsonl"], "dnc.md"),
        (comparison, "comparison.md"),
    ];
    for (args, md) in reports {
        let out =
            Command::new(env!("CARGO_BIN_EXE_nhc")).args(&args).current_dir(dir.path()).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let redrawn = std::fs::read_to_string(results.join(md)).unwrap();
        let committed = std::fs::read_to_string(format!("{root}/{md}")).unwrap();
        assert!(redrawn == committed, "`nhc {}` does not reproduce results/{md}", args.join(" "));
    }
    assert!(
        results.join("full_learning_curves.png").exists()
            && results.join("comparison_learning_curves.svg").exists()
    );
}

/// Sends SIGINT (what Ctrl-C sends) to `child`.
fn interrupt(child: &std::process::Child) {
    let sent = Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill runs");
    assert!(sent.success(), "kill -INT");
}

/// Waits until `path` exists (at most 60 s).
fn wait_for(path: &std::path::Path) {
    let waited = std::time::Instant::now();
    while !path.exists() && waited.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(path.exists(), "{} was not written", path.display());
}

/// Ctrl-C stops `nhc train` after the iteration it is in: a checkpoint is written, the command
/// says, on a line of its own, how to resume, and exits with 130; the resumed run finishes and
/// logs every iteration once.
#[test]
fn ctrl_c_stops_train_at_a_checkpoint_and_says_how_to_resume() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let out_s = out.to_str().unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_nhc"))
        .args(["train", "--task", "copy", "--seed", "2", "--out", out_s])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The first checkpoint is written before the first iteration (copy seed 2 takes about 10 000).
    wait_for(&out.join("checkpoint.json"));
    interrupt(&child);
    let stopped = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&stopped.stderr);
    assert_eq!(stopped.status.code(), Some(130), "{err}");
    let resume = format!("nhc train --resume {out_s}");
    let line =
        err.lines().find(|l| l.contains(&resume)).unwrap_or_else(|| panic!("no resume command: {err}"));
    assert!(line.starts_with("stopped: the run is saved at its last checkpoint (iteration "), "{line}");
    assert!(line.ends_with(&resume), "{line}");
    assert!(stopped.stdout.is_empty() && !err.contains("error"), "{err}");
    assert!(!out.join("model.json").exists(), "the run did not finish");
    let checkpoint: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("checkpoint.json")).unwrap()).unwrap();
    let at = checkpoint["state"]["iteration"].as_u64().unwrap();
    assert!(line.contains(&format!("(iteration {at})")), "the checkpoint is at {at}: {line}");

    let summary = trained(&["train", "--resume", out_s, "--quiet"]);
    assert_eq!(summary["outcome"], "solved", "{summary}");
    let metrics = std::fs::read_to_string(out.join("metrics.jsonl")).unwrap();
    let logged: Vec<u64> = metrics
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["iteration"].as_u64().unwrap())
        .collect();
    let n = summary["iterations"].as_u64().unwrap();
    assert!(n > at, "{n} iterations, stopped at {at}");
    assert_eq!(logged, (1..=n).collect::<Vec<_>>(), "each iteration logged once");
}

/// Ctrl-C stops `nhc sweep` with every run at a checkpoint; the message gives the same command
/// again, which resumes it.
#[test]
fn ctrl_c_stops_a_sweep_and_says_how_to_resume() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    let out_s = out.to_str().unwrap();
    let args =
        ["sweep", "--tasks", "copy", "--runs", "1", "--out", out_s, "--levels", "10", "--samples", "2"];
    let child = Command::new(env!("CARGO_BIN_EXE_nhc"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Copy seed 1 trains for about 28 000 iterations.
    wait_for(&out.join("copy-1/checkpoint.json"));
    interrupt(&child);
    let stopped = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&stopped.stderr);
    assert_eq!(stopped.status.code(), Some(130), "{err}");
    let line = err
        .lines()
        .find(|l| l.starts_with("stopped: every run is saved at its last checkpoint"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        line.ends_with(&format!("run the same command again to resume the sweep: nhc {}", args.join(" "))),
        "{line}"
    );
    assert!(!out.join("sweep.jsonl").exists() && !out.join("copy-1/model.json").exists());
}

/// The progress bar of `nhc train` (on a terminal) fills with the curriculum's levels, so a run
/// that solves the mixed level ends with it full, however far from the iteration cap.
#[test]
fn the_training_bar_ends_full_when_the_run_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("short.toml");
    std::fs::write(&config, "levels = 2\nperfect_to_solve = 20\nperfect_to_solve_after_learning = 20\n")
        .unwrap();
    let out = dir.path().join("run");
    let command = format!(
        "'{}' train --task copy --seed 1 --out '{}' --config '{}'",
        env!("CARGO_BIN_EXE_nhc"),
        out.display(),
        config.display()
    );
    // `script` runs the command on a terminal of its own, where the bar is drawn.
    let Ok(shown) =
        Command::new("script").args(["-qec", &command, "/dev/null"]).env("TERM", "xterm").output()
    else {
        eprintln!("no `script` (util-linux) here: the bar on a terminal is not checked");
        return;
    };
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.status.success(), "{text}");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["outcome"], "solved");
    // The last frame of the bar: 30 of 30 cells filled, on the mixed level (3 of 2 + 1).
    let last = text.rsplit("copy [").next().unwrap();
    assert!(last.contains(&"█".repeat(30)), "{text}");
    assert!(last.contains("level 3/3 (mixed)"), "{last}");
    // Without a terminal, no bar.
    let quiet = dir.path().join("again");
    let plain = nhc(&[
        "train",
        "--task",
        "copy",
        "--seed",
        "1",
        "--out",
        quiet.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ]);
    assert!(plain.status.success());
    assert!(
        !String::from_utf8_lossy(&plain.stderr).contains("level"),
        "{}",
        String::from_utf8_lossy(&plain.stderr)
    );
}

/// A negative level gets the message level 0 gets, from every command that takes a level.
#[test]
fn negative_levels_are_refused_like_level_0() {
    let copy = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/copy.json");
    let (code0, zero) = code(&["eval", "--task", "copy", "--model", copy, "--level", "0"]);
    assert_eq!((code0, zero.trim()), (Some(1), "error: level must be at least 1, got 0"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s");
    let commands: [&[&str]; 6] = [
        &["eval", "--task", "copy", "--model", copy, "--level", "-3"],
        &["eval", "--task", "copy", "--model", copy, "--level=-3"],
        &["trace", "--task", "copy", "--model", copy, "--level", "-3"],
        &["bench", "--tasks", "copy", "--level", "-3"],
        &["sweep", "--tasks", "copy", "--runs", "1", "--out", out.to_str().unwrap(), "--levels", "10,-3"],
        &["sweep", "--tasks", "copy", "--runs", "1", "--out", out.to_str().unwrap(), "--levels", "-3"],
    ];
    for args in commands {
        let (c, err) = code(args);
        assert_eq!((c, err.trim()), (Some(1), "error: level must be at least 1, got -3"), "{args:?}");
    }
    assert!(!out.exists(), "refused before anything is written");
}

/// Bare `nhc bench` is a short run, one task per algorithm family (its time is measured, not
/// asserted); `--tasks all` names every task.
#[test]
fn bare_bench_is_short() {
    let out = nhc(&["bench", "--repeat", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let table = String::from_utf8_lossy(&out.stdout);
    let tasks: std::collections::BTreeSet<&str> =
        table.lines().skip(2).filter_map(|l| l.split('|').nth(1)).map(str::trim).collect();
    let families = ["addition", "arithmetic", "copy", "search", "sort"];
    assert_eq!(tasks, families.into_iter().collect(), "{table}");
    let help = String::from_utf8_lossy(&nhc(&["bench", "--help"]).stdout).to_string();
    assert!(help.contains("`all`") && help.contains("copy, sort, addition, arithmetic and search"), "{help}");
    fails_with(&["bench", "--tasks", "all,copy"], "unknown task `all`");
}

/// `nhc bench --train --declared` times copy and sort built in and declared, side by side.
#[test]
fn bench_compares_declared_with_built_in_training() {
    let out = nhc(&["bench", "--train", "--declared", "--iterations", "1", "--repeat", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let table = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<&str> = table.lines().skip(2).filter_map(|l| l.split('|').nth(1)).map(str::trim).collect();
    assert_eq!(rows, ["copy", "sort"], "{table}");
    fails_with(&["bench", "--declared"], "--train");
}

/// `nhc programs` finds a table for reverse on NHC-anc, and refuses specs it cannot search.
#[test]
fn programs_finds_tables_and_refuses_bad_specs() {
    let found = ok_json(&["programs", "--task", "reverse", "--variant", "nhc-anc", "--json"]);
    assert_eq!(found["verdict"], "found", "{found}");
    assert!(found["controller"].as_array().is_some_and(|c| !c.is_empty()), "{found}");
    let none = ok_json(&["programs", "--task", "copy", "--symbols", "1", "--levels", "2", "--json"]);
    assert_eq!(none["verdict"], "none", "{none}");
    fails_with(&["programs", "--task", "copy", "--symbols", "6"], "at most 5");
    fails_with(&["programs", "--task", "copy", "--checks", "30"], "LEVEL:COUNT");
    fails_with(&["programs", "--task", "copy", "--levels", "0"], "at least one level");
    fails_with(&["programs", "--task", "duplicated", "--checks", "1000:100000"], "exceed the memory limit");
    fails_with(&["programs", "--task", "copy", "--variant", "dnc-is-ha"], "NHC's memory");
    fails_with(&["programs", "--task", "copying"], "unknown task `copying`");
}

/// `nhc train` ends with a sentence made of the summary's numbers; `--json` prints the summary.
#[test]
fn train_ends_with_a_sentence_and_the_summary_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("main");
    let out_s = out.to_str().unwrap();
    let printed = nhc(&["train", "--task", "copy", "--seed", "2", "--out", out_s, "--quiet"]);
    assert_eq!(printed.status.code(), Some(0), "{}", String::from_utf8_lossy(&printed.stderr));
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let n = |k: &str| nhc_train::records::grouped(summary[k].as_u64().unwrap());
    let restarts = match summary["restarts"].as_u64() {
        Some(0) => "no restart".to_string(),
        Some(1) => "1 restart".to_string(),
        r => format!("{} restarts", r.unwrap_or(0)),
    };
    let expected = format!(
        "copy: learned in {} learning iterations ({} iterations in all), all 11 levels solved, {restarts}; model: {}\n",
        n("learning_iterations"),
        n("iterations"),
        out.join("model.json").display()
    );
    assert_eq!(String::from_utf8_lossy(&printed.stdout), expected);
    assert!(printed.stderr.is_empty(), "{}", String::from_utf8_lossy(&printed.stderr));
    // The same run with --json: the summary, wall times aside.
    let again = trained(&[
        "train",
        "--task",
        "copy",
        "--seed",
        "2",
        "--out",
        dir.path().join("json").to_str().unwrap(),
        "--quiet",
    ]);
    let timeless = |v: &Value| {
        let mut v = v.clone();
        for k in ["wall_seconds", "steps_per_second"] {
            v.as_object_mut().unwrap().remove(k);
        }
        v
    };
    assert_eq!(timeless(&again), timeless(&summary));
    let help = String::from_utf8_lossy(&nhc(&["train", "--help"]).stdout).into_owned();
    assert!(help.contains("--json") && help.contains("4 it did not"), "{help}");
}

/// A run that spends its budget first says so, exits with 4 and still writes its model, which
/// every command that loads it warns about; a learned model loads without a warning.
#[test]
fn a_run_that_does_not_learn_says_so_and_its_model_warns() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("short");
    let out_s = out.to_str().unwrap();
    let printed = nhc(&["train", "--task", "copy", "--seed", "2", "--out", out_s, "--max-iterations", "3"]);
    let text = String::from_utf8_lossy(&printed.stdout);
    assert_eq!(printed.status.code(), Some(4), "{}", String::from_utf8_lossy(&printed.stderr));
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["outcome"], "cap");
    let level = summary["lineages"][0]["level"].as_u64().unwrap();
    let start = format!(
        "copy: did not learn: stopped at level {level} of 11 after 3 learning iterations ({} iterations in all), no restart; ",
        nhc_train::records::grouped(summary["iterations"].as_u64().unwrap())
    );
    assert!(text.starts_with(&start), "{text}");
    let end = format!(
        "the model file holds the last θ and is not expected to solve the task: {}\n",
        out.join("model.json").display()
    );
    assert!(text.ends_with(&end), "{text}");
    // Resumed, it is done already: the same sentence and code.
    let resumed = nhc(&["train", "--resume", out_s, "--quiet"]);
    assert_eq!((resumed.status.code(), String::from_utf8_lossy(&resumed.stdout)), (Some(4), text.clone()));
    // With --json the summary on stdout, the sentence on stderr.
    let json = nhc(&[
        "train",
        "--task",
        "copy",
        "--seed",
        "2",
        "--out",
        dir.path().join("j").to_str().unwrap(),
        "--max-iterations",
        "3",
        "--json",
        "--quiet",
    ]);
    assert_eq!(json.status.code(), Some(4));
    let v: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["outcome"], "cap");
    assert!(String::from_utf8_lossy(&json.stderr).starts_with("note: copy: did not learn: stopped at level"));

    let model = out.join("model.json");
    let model = model.to_str().unwrap();
    let warning = format!("warning: {model} is the last θ of a run that did not learn");
    for args in [
        &["eval", "--task", "copy", "--model", model, "--level", "3", "--samples", "2"][..],
        &["run", "--task", "copy", "--model", model, "--input", "[[1,0,0,0,0,1]]"][..],
        &["trace", "--task", "copy", "--model", model, "--level", "2"][..],
        &["verify", "--task", "copy", "--model", model, "--up-to", "2"][..],
    ] {
        let out = nhc(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with(&warning), "{args:?}: {err}");
        assert!(!out.stdout.is_empty(), "{args:?}: the command goes on");
    }
    let copy = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/copy.json");
    let learned = nhc(&["eval", "--task", "copy", "--model", copy, "--level", "3", "--samples", "2"]);
    assert!(
        learned.status.success() && learned.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&learned.stderr)
    );
}

/// `nhc eval --help` says which seeds are test seeds and that training never draws them.
#[test]
fn eval_help_states_the_test_seeds() {
    let help = String::from_utf8_lossy(&nhc(&["eval", "--help"]).stdout).into_owned();
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        "Training never draws its samples that way",
        "every --seed, the default 0 included, gives test samples",
        "seed 1000 at levels 10, 100, 500 and 1000",
    ] {
        assert!(flat.contains(said), "{said}: {help}");
    }
}

/// `nhc train --domain` learns on another domain of the algorithm: arithmetic on left-deep
/// expressions (`chains`) finishes its curriculum in seconds, its model file names the domain,
/// and the model solves chains at level 100; an unknown domain is refused in one line.
#[test]
fn train_learns_on_another_domain() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("chains");
    let o = out.to_str().unwrap();
    let run =
        nhc(&["train", "--task", "arithmetic", "--domain", "chains", "--seed", "1", "--out", o, "--quiet"]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("model.json")).unwrap()).unwrap();
    assert_eq!(file["domain"], "chains", "{file}");
    let model = out.join("model.json");
    let m = model.to_str().unwrap();
    let eval = nhc(&[
        "eval",
        "--task",
        "arithmetic",
        "--domain",
        "chains",
        "--model",
        m,
        "--level",
        "100",
        "--json",
    ]);
    let report: Value = serde_json::from_slice(&eval.stdout).unwrap();
    assert_eq!(report["solved"], 50, "{report}");
    fails_with(&["train", "--task", "arithmetic", "--domain", "nope", "--out", o], "has no domain `nope`");
}
