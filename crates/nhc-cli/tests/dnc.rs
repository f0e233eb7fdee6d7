//! `nhc dnc`: the DNC trained by backpropagation from the command line (with the feature `dnc`),
//! and the plain refusal of a build without it.

mod common;
use common::*;

#[cfg(not(feature = "dnc"))]
#[test]
fn a_build_without_the_dnc_says_how_to_get_it() {
    fails_with(&["dnc", "train", "--task", "copy", "--out", "x"], "--features dnc");
}

#[cfg(feature = "dnc")]
mod with_dnc {
    use super::*;

    #[test]
    fn train_resume_eval_row_and_report() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("copy");
        let run = run.to_str().unwrap();
        let summary: serde_json::Value = serde_json::from_str(&ok(&[
            "dnc",
            "train",
            "--task",
            "copy",
            "--out",
            run,
            "--iterations",
            "40",
            "--quiet",
        ]))
        .unwrap();
        assert_eq!(summary["iterations"], 40);
        assert_eq!(summary["outcome"], "cap");
        // The same command again: the run is finished, its summary comes back.
        let again: serde_json::Value = serde_json::from_str(&ok(&[
            "dnc",
            "train",
            "--task",
            "copy",
            "--out",
            run,
            "--iterations",
            "40",
            "--quiet",
        ]))
        .unwrap();
        assert_eq!(again, summary);
        fails_with(
            &["dnc", "train", "--task", "copy", "--out", run, "--seed", "2", "--quiet"],
            "other settings",
        );
        let eval: serde_json::Value = serde_json::from_str(&ok(&[
            "dnc",
            "eval",
            "--run",
            run,
            "--level",
            "3",
            "--samples",
            "4",
            "--json",
        ]))
        .unwrap();
        assert_eq!(eval["samples"], 4);
        assert_eq!(eval["domain"], "binary");
        assert!(ok(&["dnc", "eval", "--run", run, "--level", "3", "--samples", "2"]).contains("level 3:"));

        let row = dir.path().join("row");
        let row = row.to_str().unwrap();
        let args = ["dnc", "row", "--tasks", "arithmetic,reverse", "--runs", "1", "--iterations", "20"];
        let args = [&args[..], &["--out", row, "--jobs", "2", "--levels", "2,10", "--samples", "3"]].concat();
        assert!(ok(&args).contains("2 runs"));
        let text = std::fs::read_to_string(dir.path().join("row/dnc.jsonl")).unwrap();
        let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["summary"]["task"], "arithmetic");
        assert_eq!(lines[0]["summary"]["domain"], "mod10");
        assert!(ok(&["report", row]).contains("| DNC | last level |"));
        assert!(dir.path().join("row/report_accuracy.svg").exists());
    }

    #[test]
    fn bad_requests_are_refused_plainly() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("r");
        let out = out.to_str().unwrap();
        fails_with(&["dnc", "train", "--task", "nosuch", "--out", out], "unknown task");
        fails_with(
            &["dnc", "train", "--task", "copy", "--domain", "decimal", "--out", out],
            "no field encoding",
        );
        fails_with(&["dnc", "train", "--task", "copy", "--out", out, "--iterations", "0"], "at least 1");
        fails_with(&["dnc", "eval", "--run", out, "--level", "2"], "config.json");
        ok(&["dnc", "train", "--task", "copy", "--out", out, "--iterations", "2", "--quiet"]);
        fails_with(&["dnc", "eval", "--run", out, "--level", "0"], "level must be at least 1");
        fails_with(&["dnc", "eval", "--run", out, "--level", "-3"], "level must be at least 1, got -3");
        fails_with(
            &["dnc", "row", "--tasks", "copy", "--iterations", "1", "--out", out, "--levels", "2,-3"],
            "level must be at least 1, got -3",
        );
        let sort = dir.path().join("sort");
        let sort = sort.to_str().unwrap();
        ok(&["dnc", "train", "--task", "sort", "--out", sort, "--iterations", "1", "--quiet"]);
        fails_with(&["dnc", "eval", "--run", sort, "--level", "1000", "--samples", "1"], "link matrix");
        let cp = std::fs::read_to_string(dir.path().join("r/checkpoint.json")).unwrap();
        let tensors =
            serde_json::from_str::<serde_json::Value>(&cp).unwrap()["tensors"].as_str().unwrap().to_string();
        std::fs::write(dir.path().join("r").join(&tensors), b"not a tensor file").unwrap();
        fails_with(&["dnc", "eval", "--run", out, "--level", "2"], "not a checkpoint's tensors");
        std::fs::write(dir.path().join("r/checkpoint.json"), "{").unwrap();
        fails_with(&["dnc", "eval", "--run", out, "--level", "2"], "checkpoint.json");
    }
}
