//! `nhc data-modules train` and `--data-modules` on eval, run and trace: the learned search and
//! plan models on learned data modules (with the feature `data-modules`), and the plain refusal
//! of a build without it.

mod common;
use common::*;

#[cfg(not(feature = "data-modules"))]
#[test]
fn a_build_without_learned_data_modules_says_how_to_get_them() {
    fails_with(&["data-modules", "train", "--world", "sokoban6", "--out", "x"], "--features data-modules");
}

#[test]
fn bad_data_module_directories_are_refused() {
    let dir = std::env::temp_dir().join(format!("nhc-dm-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.to_str().unwrap();
    let args =
        ["eval", "--task", "search", "--model", "models/search.json", "--level", "2", "--data-modules", d];
    fails_with(&args, "data_modules.json");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The networks a run saves are the same on one thread and on two (the matrix products at the
/// default sizes are split across threads).
#[cfg(feature = "data-modules")]
#[test]
fn training_does_not_depend_on_the_thread_count() {
    let base = std::env::temp_dir().join(format!("nhc-dm-threads-{}", std::process::id()));
    let bytes = |threads: &str| {
        let dir = base.join(threads);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_nhc"))
            .args(["data-modules", "train", "--world", "sokoban6", "--states", "1500", "--held-out", "100"])
            .args(["--epochs", "2", "--out", dir.to_str().unwrap()])
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        std::fs::read(dir.join("data_modules.safetensors")).unwrap()
    };
    assert_eq!(bytes("1"), bytes("2"));
    std::fs::remove_dir_all(&base).unwrap();
}

/// docs/CLI.md, "Learned data modules": a user's map, plan+ on the shipped learned data modules.
#[test]
fn shipped_modules_plan_a_users_map() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
    let input = serde_json::json!({
        "start": ["######", "#@-$-#", "#----#", "#-$--#", "#----#", "######"],
        "goal": ["######", "#--$-#", "#-@--#", "#-$--#", "#----#", "######"],
    })
    .to_string();
    let out = ok(&[
        "run",
        "--task",
        "plan+",
        "--model",
        &format!("{root}models/plan+.json"),
        "--data-modules",
        &format!("{root}models/data-modules/sokoban6"),
        "--input",
        &input,
    ]);
    assert!(out.contains("the plan reaches the goal"), "{out}");
}

#[cfg(feature = "data-modules")]
#[test]
fn trained_modules_run_the_learned_models() {
    let dir = std::env::temp_dir().join(format!("nhc-dm-train-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let acc: serde_json::Value = serde_json::from_str(&ok(&[
        "data-modules",
        "train",
        "--world",
        "sokoban6",
        "--out",
        d,
        "--states",
        "2000",
        "--epochs",
        "1",
        "--hidden",
        "64",
    ]))
    .unwrap();
    assert_eq!(acc["states"], 50_000);
    let models = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/");
    let search = format!("{models}search.json");
    let eval = ok(&[
        "eval",
        "--task",
        "search",
        "--model",
        &search,
        "--level",
        "2",
        "--samples",
        "3",
        "--data-modules",
        d,
    ]);
    assert!(eval.contains("search level 2: solved"), "{eval}");
    fails_with(
        &["eval", "--task", "sort", "--model", "scripted", "--level", "2", "--data-modules", d],
        "no learned data modules",
    );
    fails_with(
        &[
            "eval",
            "--task",
            "search",
            "--model",
            &search,
            "--level",
            "2",
            "--data-modules",
            d,
            "--domain",
            "sokoban8",
        ],
        "trained on sokoban6",
    );
    let trace = nhc(&["trace", "--task", "search", "--model", &search, "--level", "1", "--data-modules", d]);
    assert!(!String::from_utf8_lossy(&trace.stderr).contains("panicked"));
    fails_with(&["data-modules", "train", "--world", "mars", "--out", d], "unknown world");
    let train = ["data-modules", "train", "--world", "sokoban6", "--out", d];
    fails_with(&[&train[..], &["--epochs", "0"]].concat(), "--epochs must be at least 1");
    fails_with(&[&train[..], &["--held-out", "0"]].concat(), "--held-out must be at least 1");
    // The directory holds a finished run with other settings.
    fails_with(&train, "trained with other settings");
    fails_with(&[&train[..], &["--mask-hidden", "64,0"]].concat(), "--mask-hidden: every hidden layer");
    std::fs::remove_dir_all(&dir).unwrap();
}
