//! `nhc report` on a row of the DNC trained by backpropagation (`nhc dnc row`; its directory or
//! a copy of its `dnc.jsonl`): the DNC's rows of Table 1 beside the paper's, every run, and the
//! learning curves (batch accuracy and curriculum level against iterations, log x).

use crate::comparison::{dnc_rows, read_dnc};
use crate::plots::{Axis, Curves, learning_curves};
use anyhow::{Result, bail};
use nhc_io::write_atomic;
use nhc_train::backprop::DncRunLine;
use std::fmt::Write as _;
use std::path::Path;

const ACCURACY: Axis = Axis {
    title: "DNC trained by backpropagation: batch accuracy, mean ± standard error over runs",
    y_desc: "accuracy",
    top: 1.02,
};
const LEVEL: Axis = Axis {
    title: "DNC trained by backpropagation: curriculum level, mean ± standard error over runs",
    y_desc: "level",
    top: 11.5,
};

/// The report of the DNC row at `path`, written to `DIR/report.md` (or beside the `.jsonl`).
pub fn report(path: &Path) -> Result<String> {
    let out_path = if path.is_dir() { path.join("report.md") } else { path.with_extension("md") };
    let runs = read_dnc(&[path.to_path_buf()])?;
    if runs.is_empty() {
        bail!("{} holds no DNC runs", path.display());
    }
    let names = nhc_tasks::names();
    let mut tasks: Vec<&str> = runs.iter().map(|r| r.summary.task.as_str()).collect();
    tasks.sort_by_key(|t| names.iter().position(|n| n == t).unwrap_or(usize::MAX));
    tasks.dedup();
    let mut md =
        format!("| model | row | {} |\n|---|---|{}\n", tasks.join(" | "), "---|".repeat(tasks.len()));
    md += &dnc_rows(&runs, &tasks)?;

    let stem = out_path.with_extension("").to_string_lossy().into_owned();
    let curves = |f: fn(&DncRunLine) -> nhc_train::Curve| -> Vec<(String, Vec<Curves>)> {
        let per_task = tasks
            .iter()
            .map(|t| Curves {
                task: t.to_string(),
                runs: runs.iter().filter(|r| r.summary.task == *t).map(f).collect(),
            })
            .collect();
        vec![("every task".to_string(), per_task)]
    };
    learning_curves(&curves(|r| r.accuracy.clone()), Path::new(&format!("{stem}_accuracy")), &ACCURACY)?;
    learning_curves(&curves(|r| r.level.clone()), Path::new(&format!("{stem}_level")), &LEVEL)?;
    let file = |suffix: &str| {
        let f = format!("{stem}_{suffix}");
        Path::new(&f).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()
    };

    let mut table = String::from(
        "| task | seed | iterations | last level learned | last level solved | evaluations | seconds |\n|---|---|---|---|---|---|---|\n",
    );
    for r in &runs {
        let s = &r.summary;
        let evals: Vec<String> = r
            .eval
            .iter()
            .map(|(l, e)| {
                let mean = e.progress.iter().sum::<f64>() / e.progress.len().max(1) as f64;
                format!(
                    "level {l}: {}/{} ({:.0}% of steps right before the first mistake)",
                    e.solved,
                    e.samples,
                    100.0 * mean
                )
            })
            .collect();
        writeln!(
            table,
            "| {} | {} | {} | {} | {} | {} | {:.0} |",
            s.task,
            s.seed,
            s.iterations,
            s.last_level_learned,
            s.last_level_solved,
            evals.join("; "),
            s.wall_seconds
        )?;
    }
    let budget = runs.iter().map(|r| r.summary.iterations).max().unwrap_or(0);
    let text = format!(
        "# The DNC trained by backpropagation\n\nMade by `nhc report {}` ({} runs, at most {budget} \
         iterations each; the paper's DNC: 500 000). Each cell: ours, then *the paper's* (Table 1). \
         iterations: iterations run (each an Adam step), median (to the quartiles); last level: last \
         level learned ~ last level solved, medians (to the quartiles); level L: perfect runs ~ solved \
         samples; a level above one where a run solved nothing is not evaluated (\"–\").\n\n{md}\n\
         ## Learning curves\n\nBatch accuracy (the share of the batch's expected operations and read \
         fields the DNC's argmax got right) and curriculum level against iterations (log scale), mean ± \
         standard error over the runs.\n\n![accuracy]({a}.png) ([SVG]({a}.svg))\n\n![level]({l}.png) \
         ([SVG]({l}.svg))\n\n## Runs\n\n{table}",
        path.display(),
        runs.len(),
        a = file("accuracy"),
        l = file("level"),
    );
    write_atomic(&out_path, text.as_bytes())?;
    diag!("wrote {}", out_path.display());
    Ok(text)
}
