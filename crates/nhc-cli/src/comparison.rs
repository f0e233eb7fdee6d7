//! `nhc report DIR DIR … --out FILE`: the paper's Table 1 with every model's rows (NHC, NHC-anc,
//! NHC-prev, …) from several sweeps, ours beside the paper's, and the learning-curve comparison
//! figure (per task, mean ± standard error of θ's fitness over the runs, one line per model).

use crate::report::median_iqr;
use anyhow::{Context, Result, bail};
use nhc_io::write_atomic;
use nhc_model::Variant;
use nhc_train::SweepLine;
use nhc_train::backprop::DncRunLine;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The paper's Table 1 (`python3 scripts/paper_table.py PAPER.tex`).
#[derive(Deserialize)]
struct PaperTable {
    tasks: Vec<String>,
    models: std::collections::BTreeMap<String, std::collections::BTreeMap<String, Vec<String>>>,
}

/// The rows of Table 1, in the paper's order.
const ROWS: [&str; 6] = ["iterations", "last level", "level 10", "level 100", "level 500", "level 1000"];

/// The paper's name of a variant's model.
pub fn model_name(v: Variant) -> &'static str {
    v.label()
}

/// The paper's Table 1, as committed.
fn paper_table() -> Result<PaperTable> {
    serde_json::from_str(include_str!("../../../results/paper_table1.json"))
        .context("results/paper_table1.json is damaged")
}

/// The paper's cell of Table 1 for `model`, `row`, `task`, or "–".
pub fn paper(model: &str, row: &str, task: &str) -> String {
    paper_table().map_or("–".into(), |t| paper_cell(&t, model, row, task))
}

/// The paper's cell for `model`, `row`, `task`, or "–".
fn paper_cell(table: &PaperTable, model: &str, row: &str, task: &str) -> String {
    let k = table.tasks.iter().position(|t| t == task);
    table
        .models
        .get(model)
        .and_then(|m| m.get(row))
        .zip(k)
        .map_or("–".into(), |(cells, k)| cells[k].clone())
}

/// Every line of the sweeps at `paths` (directories or their sweep.jsonl).
pub fn read_sweeps(paths: &[PathBuf]) -> Result<Vec<SweepLine>> {
    let mut runs = Vec::new();
    for path in paths {
        let file = if path.is_dir() { path.join("sweep.jsonl") } else { path.clone() };
        let text = nhc_io::limits::read_text(&file, "sweep file", nhc_io::limits::MAX_STATE_BYTES)?;
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let run: SweepLine =
                serde_json::from_str(line).with_context(|| format!("{} line {}", file.display(), i + 1))?;
            runs.push(run);
        }
    }
    Ok(runs)
}

/// What a cell of Table 1 reads of one run, whichever model trained it.
pub struct RunCells {
    /// NES: learning iterations; the DNC: iterations (each an Adam step).
    pub iterations: u64,
    pub last_learned: usize,
    pub last_solved: usize,
    /// (solved, samples) by test level.
    pub eval: BTreeMap<String, (usize, usize)>,
}

impl From<&SweepLine> for RunCells {
    fn from(r: &SweepLine) -> Self {
        RunCells {
            iterations: r.summary.learning_iterations,
            last_learned: r.summary.last_level_learned,
            last_solved: r.summary.last_level_solved,
            eval: r.eval.iter().map(|(l, e)| (l.clone(), (e.solved, e.samples))).collect(),
        }
    }
}

impl From<&DncRunLine> for RunCells {
    fn from(r: &DncRunLine) -> Self {
        RunCells {
            iterations: r.summary.iterations,
            last_learned: r.summary.last_level_learned,
            last_solved: r.summary.last_level_solved,
            eval: r.eval.iter().map(|(l, e)| (l.clone(), (e.solved, e.samples))).collect(),
        }
    }
}

/// Our cell of Table 1 for the runs `rs` of one model and task; a level evaluated for only some
/// of them names how many.
pub fn our_cell(rs: &[RunCells], row: &str) -> String {
    let s = |f: fn(&RunCells) -> f64| median_iqr(rs.iter().map(f).collect());
    match row {
        "iterations" => s(|r| r.iterations as f64),
        "last level" => format!("{} ~ {}", s(|r| r.last_learned as f64), s(|r| r.last_solved as f64)),
        _ => {
            let level = row.trim_start_matches("level ");
            let evals: Vec<(usize, usize)> = rs.iter().filter_map(|r| r.eval.get(level).copied()).collect();
            if evals.is_empty() {
                return "–".into();
            }
            let perfect = evals.iter().filter(|(solved, samples)| solved == samples).count();
            let (solved, samples) = evals.iter().fold((0, 0), |(a, b), e| (a + e.0, b + e.1));
            let pct = |a: f64, b: f64| format!("{:.1}%", 100.0 * a / b.max(1.0));
            let cell = format!(
                "{} ~ {}",
                pct(perfect as f64, evals.len() as f64),
                pct(solved as f64, samples as f64)
            );
            // A level not evaluated for every run says over how many runs it is.
            if evals.len() < rs.len() {
                format!("{cell} ({} of {} runs)", evals.len(), rs.len())
            } else {
                cell
            }
        }
    }
}

/// The lines of DNC rows among `paths` (directories or files holding `dnc.jsonl` lines); the
/// other paths are sweeps.
pub fn split_dnc(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<PathBuf>) {
    paths.iter().cloned().partition(|p| {
        if p.is_dir() {
            p.join("dnc.jsonl").exists()
        } else {
            p.file_name().is_some_and(|f| f.to_string_lossy().starts_with("dnc"))
        }
    })
}

/// Every line of the DNC rows at `paths`.
pub fn read_dnc(paths: &[PathBuf]) -> Result<Vec<DncRunLine>> {
    let mut runs = Vec::new();
    for path in paths {
        let file = if path.is_dir() { path.join("dnc.jsonl") } else { path.clone() };
        let text = nhc_io::limits::read_text(&file, "DNC row file", nhc_io::limits::MAX_STATE_BYTES)?;
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            runs.push(
                serde_json::from_str(line).with_context(|| format!("{} line {}", file.display(), i + 1))?,
            );
        }
    }
    Ok(runs)
}

/// The DNC's rows of Table 1 (Markdown) for `tasks`, ours beside the paper's.
pub fn dnc_rows(runs: &[DncRunLine], tasks: &[&str]) -> Result<String> {
    let table = paper_table()?;
    let mut md = String::new();
    for row in ROWS {
        write!(md, "| DNC | {row} |")?;
        for task in tasks {
            let rs: Vec<RunCells> =
                runs.iter().filter(|r| r.summary.task == *task).map(RunCells::from).collect();
            let ours = if rs.is_empty() { "–".to_string() } else { our_cell(&rs, row) };
            write!(md, " {ours}<br>*{}* |", paper_cell(&table, "DNC", row, task))?;
        }
        writeln!(md)?;
    }
    write!(md, "| DNC | runs |")?;
    for task in tasks {
        write!(md, " {} |", runs.iter().filter(|r| r.summary.task == *task).count())?;
    }
    writeln!(md)?;
    Ok(md)
}

/// The comparison report of the sweeps at `paths`, written to `out` (figures beside it).
pub fn comparison(paths: &[PathBuf], out: &Path) -> Result<String> {
    let table = paper_table()?;
    let (dnc_paths, sweep_paths) = split_dnc(paths);
    let runs = read_sweeps(&sweep_paths)?;
    let dnc = read_dnc(&dnc_paths)?;
    if runs.is_empty() && dnc.is_empty() {
        bail!("the sweeps hold no runs");
    }
    let names = nhc_tasks::names();
    let mut tasks: Vec<&str> = runs
        .iter()
        .map(|r| r.summary.task.as_str())
        .chain(dnc.iter().map(|r| r.summary.task.as_str()))
        .collect();
    tasks.sort_by_key(|t| names.iter().position(|n| n == t).unwrap_or(usize::MAX));
    tasks.dedup();
    let variants: Vec<Variant> =
        Variant::ALL.into_iter().filter(|v| runs.iter().any(|r| r.summary.variant == *v)).collect();

    let mut md = String::new();
    writeln!(md, "| model | row | {} |", tasks.join(" | "))?;
    writeln!(md, "|---|---|{}", "---|".repeat(tasks.len()))?;
    for &v in &variants {
        let model = model_name(v);
        for row in ROWS {
            write!(md, "| {model} | {row} |")?;
            for task in &tasks {
                let rs: Vec<RunCells> = runs
                    .iter()
                    .filter(|r| r.summary.variant == v && r.summary.task == *task)
                    .map(RunCells::from)
                    .collect();
                let ours = if rs.is_empty() { "–".to_string() } else { our_cell(&rs, row) };
                write!(md, " {ours}<br>*{}* |", paper_cell(&table, model, row, task))?;
            }
            writeln!(md)?;
        }
        write!(md, "| {model} | runs |")?;
        for task in &tasks {
            let n = runs.iter().filter(|r| r.summary.variant == v && r.summary.task == *task).count();
            write!(md, " {n} |")?;
        }
        writeln!(md)?;
        if runs.iter().any(|r| r.summary.variant == v && r.verify.is_some()) {
            write!(md, "| {model} | verified (`nhc verify`, default bounds) |")?;
            for task in &tasks {
                let rs: Vec<_> = runs
                    .iter()
                    .filter(|r| r.summary.variant == v && r.summary.task == *task)
                    .filter_map(|r| r.verify.as_ref())
                    .collect();
                let count = |o: &str| rs.iter().filter(|x| x.outcome == o).count();
                let sampled = rs.iter().any(|x| x.parts.iter().any(|p| !p.exhaustive));
                let cell = match (rs.len(), sampled) {
                    (0, _) => "–".to_string(),
                    (n, true) => format!("sampled: {} of {n} right", count("sampled")),
                    (n, false) => format!("{} of {n}", count("verified")),
                };
                write!(md, " {cell} |")?;
            }
            writeln!(md)?;
        }
    }
    if !dnc.is_empty() {
        md += &dnc_rows(&dnc, &tasks)?;
    }

    // The learning-curve comparison: one panel per task, one line per model.
    let mut panels: Vec<(String, Vec<crate::plots::Curves>)> = Vec::new();
    for task in &tasks {
        let mut curves = Vec::new();
        for &v in &variants {
            let fits: Vec<nhc_train::Curve> = runs
                .iter()
                .filter(|r| r.summary.variant == v && r.summary.task == *task)
                .filter_map(|r| r.curve.clone())
                .collect();
            if !fits.is_empty() {
                curves.push(crate::plots::Curves { task: model_name(v).to_string(), runs: fits });
            }
        }
        let dnc_curves: Vec<nhc_train::Curve> =
            dnc.iter().filter(|r| r.summary.task == *task).map(|r| r.accuracy.clone()).collect();
        if !dnc_curves.is_empty() {
            curves.push(crate::plots::Curves { task: "DNC (accuracy)".into(), runs: dnc_curves });
        }
        if !curves.is_empty() {
            panels.push((task.to_string(), curves));
        }
    }
    // A model none of whose runs has a curve would silently drop out, so the figure is then left
    // as it is.
    let missing: Vec<&str> = variants
        .iter()
        .map(|&v| model_name(v))
        .filter(|m| !panels.iter().any(|(_, cs)| cs.iter().any(|c| c.task == *m)))
        .collect();
    let stem = out.with_extension("").to_string_lossy().into_owned() + "_learning_curves";
    let f = Path::new(&stem).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let link = format!("![learning curves]({f}.png) ([SVG]({f}.svg))");
    let figure = if missing.is_empty() {
        crate::plots::learning_curves(&panels, Path::new(&stem), &crate::plots::FITNESS)?;
        format!(
            "## Learning curves\n\nPer task, θ's batch fitness against iterations (log scale), mean ± standard \
             error over the runs, one line per model{}.\n\n{link}\n\n",
            if dnc.is_empty() {
                ""
            } else {
                "; for the DNC trained by backpropagation, the share of the batch's expected operations \
                 and read fields it got right"
            }
        )
    } else {
        let earlier = Path::new(&format!("{stem}.png")).exists();
        diag!(
            "note: no learning curves of {} in the sweep lines: the learning-curve figure is not redrawn",
            missing.join(", ")
        );
        format!(
            "## Learning curves\n\nNot redrawn: no run of {} carries its learning curve in its sweep \
             line.{}\n\n",
            missing.join(", "),
            if earlier { format!(" The figure of an earlier report:\n\n{link}") } else { String::new() }
        )
    };
    let lineages = crate::report::lineage_table(&runs.iter().collect::<Vec<_>>())?;
    let text = format!(
        "# Table 1, every model\n\nMade by `nhc report {} --out {}` ({} runs). Each cell: ours, then \
         *the paper's* (Table 1). iterations: learning iterations of all lineages (restarts included), median (to the \
         quartiles; the paper does not say whether it counts all lineages or the surviving one, \
         Lineages has both); last level: \
         last level learned ~ last level solved, medians (to the quartiles); level L: perfect runs ~ \
         solved samples.{}\n\n{md}\n{lineages}{figure}",
        paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" "),
        out.display(),
        runs.len() + dnc.len(),
        if dnc.is_empty() {
            ""
        } else {
            " The DNC (trained by backpropagation, `nhc dnc row`): iterations are all its iterations, \
             each an Adam step; a test level above one where it solved nothing is not evaluated (\"–\")."
        },
    );
    write_atomic(out, text.as_bytes()).with_context(|| format!("cannot write {}", out.display()))?;
    diag!("wrote {}", out.display());
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed Table 1 holds every model's six rows for the paper's eleven tasks.
    #[test]
    fn the_papers_table_has_every_model_row_and_task() {
        let t = paper_table().unwrap();
        assert_eq!(t.tasks, nhc_tasks::registry::PAPER_TASKS);
        let models: Vec<&str> = t.models.keys().map(String::as_str).collect();
        assert_eq!(models, ["DNC", "DNC+is+ha", "NHC", "NHC-anc", "NHC-prev"]);
        for rows in t.models.values() {
            for row in ROWS {
                assert_eq!(rows[row].len(), 11, "{row}");
            }
        }
        assert_eq!(paper("NHC-anc", "iterations", "search"), "4319 (−888, +448)");
        assert_eq!(paper("NHC", "level 1000", "sort"), "73.3% ~ 86.1%");
        assert_eq!(paper("NHC-prev", "level 1000", "plan"), "–");
        for v in Variant::ALL {
            assert!(t.models.contains_key(model_name(v)));
        }
    }

    /// A level cell counts perfect runs and solved samples over the runs evaluated there, and
    /// says so when that is not every run.
    #[test]
    fn a_level_cell_names_a_partial_evaluation() {
        let run = |levels: &[(&str, usize)]| RunCells {
            iterations: 1,
            last_learned: 1,
            last_solved: 1,
            eval: levels.iter().map(|&(l, solved)| (l.to_string(), (solved, 50))).collect(),
        };
        let rs = [run(&[("10", 50), ("100", 25)]), run(&[("10", 50)]), run(&[("10", 0)])];
        assert_eq!(our_cell(&rs, "level 10"), "66.7% ~ 66.7%");
        assert_eq!(our_cell(&rs, "level 100"), "0.0% ~ 50.0% (1 of 3 runs)");
        assert_eq!(our_cell(&rs, "level 500"), "–");
    }
}
