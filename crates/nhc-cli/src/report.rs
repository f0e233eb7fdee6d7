//! `nhc report DIR`: the NHC rows of the paper's Table 1 from a sweep (MODEL §8, §11), as
//! Markdown, with the paper's numbers beside ours.

use anyhow::{Context, Result, bail};
use nhc_io::write_atomic;
use nhc_model::Variant;
use nhc_train::SweepLine;
use nhc_train::{Ending, Lineage, RunOutcome};
use std::fmt::Write as _;
use std::path::Path;

/// One run of a sweep: a line of `sweep.jsonl`, read as its type.
type Run = SweepLine;

fn parse(line: &str) -> Result<Run> {
    Ok(serde_json::from_str(line)?)
}

/// Quantile `q` of sorted `v`, linear between order statistics (Python's "inclusive").
fn quantile(v: &[f64], q: f64) -> f64 {
    let pos = (v.len() - 1) as f64 * q;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

/// "median (−a, +b)": the median and its distances to the quartiles, as in the paper.
pub fn median_iqr(mut v: Vec<f64>) -> String {
    v.sort_by(f64::total_cmp);
    let (q1, m, q3) = (quantile(&v, 0.25), quantile(&v, 0.5), quantile(&v, 0.75));
    format!("{m:.0} (−{:.0}, +{:.0})", m - q1, q3 - m)
}

/// The Markdown report of a sweep: `path` is its directory (report in `DIR/report.md`) or a
/// copy of its `sweep.jsonl` (report beside it, `.md` for `.jsonl`).
pub fn report(path: &Path) -> Result<String> {
    let (path, out_path) = if path.is_dir() {
        (path.join("sweep.jsonl"), path.join("report.md"))
    } else {
        (path.to_path_buf(), path.with_extension("md"))
    };
    let runs = read_runs(&path)?;
    let levels = test_levels(&runs);
    let figures = figures(&runs, curves(&runs), &path, &out_path)?;
    let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into());
    let out = format!(
        "# Sweep report\n\nMade by `nhc report` from `{name}` ({} runs). Learning iterations: \
         iterations that updated θ, over all lineages of a run (restarts included); a run that hit \
         the cap counts with the cap. The paper does not say whether its Table 1 counts all \
         lineages or only the surviving one; Lineages has both. Perfect run: every sample of the \
         level solved.\n\n## Learning\n\n{}\n{}\n## Generalization\n\n{}\n{}\
         {figures}{}## Runs\n\n{}",
        runs.len(),
        learning_table(&runs)?,
        training_seeds(&runs),
        generalization_table(&runs, &levels)?,
        verification_table(&runs)?,
        lineage_table(&runs.iter().collect::<Vec<_>>())?,
        runs_table(&runs, &levels)?,
    );
    write_atomic(&out_path, out.as_bytes())?;
    diag!(
        "wrote {}{}",
        out_path.display(),
        if figures.is_empty() { "" } else { " and its figures beside it" }
    );
    Ok(out)
}

/// The runs of the sweep file at `path`, at least one.
fn read_runs(path: &Path) -> Result<Vec<Run>> {
    let text = nhc_io::limits::read_text(path, "sweep file", nhc_io::limits::MAX_STATE_BYTES)
        .with_context(|| format!("give a sweep directory or its sweep.jsonl ({})", path.display()))?;
    let runs: Vec<Run> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| parse(l).with_context(|| format!("{} line {}", path.display(), i + 1)))
        .collect::<Result<_>>()?;
    if runs.is_empty() {
        bail!("{} holds no runs", path.display());
    }
    Ok(runs)
}

/// Every level any run was evaluated at, ascending.
fn test_levels(runs: &[Run]) -> Vec<usize> {
    let mut levels: Vec<usize> =
        runs.iter().flat_map(|r| r.eval.keys().filter_map(|k| k.parse().ok())).collect();
    levels.sort_unstable();
    levels.dedup();
    levels
}

/// The tasks of `runs`, each once, in the paper's table order (unregistered tasks last), each
/// with its runs.
fn by_task(runs: &[Run]) -> Vec<(&str, Vec<&Run>)> {
    let names = nhc_tasks::names();
    let mut tasks: Vec<&str> = runs.iter().map(|r| r.summary.task.as_str()).collect();
    tasks.sort_by_key(|t| names.iter().position(|n| n == t).unwrap_or(usize::MAX));
    tasks.dedup();
    tasks.into_iter().map(|task| (task, runs.iter().filter(|r| r.summary.task == task).collect())).collect()
}

/// The paper's cell of Table 1 in `row` for `task`, for the model the runs `rs` trained.
fn paper_cell(rs: &[&Run], row: &str, task: &str) -> String {
    let variant = rs.first().map_or(nhc_model::Variant::Nhc, |r| r.summary.variant);
    crate::comparison::paper(crate::comparison::model_name(variant), row, task)
}

/// The Learning table: per task, runs, finished runs, learning iterations (median and
/// quartiles) beside the paper's, and the median last levels learned and solved.
fn learning_table(runs: &[Run]) -> Result<String> {
    let mut md = String::new();
    writeln!(
        md,
        "| task | runs | finished | learning iterations, median (to quartiles) | paper | last level learned, median | last level solved, median |"
    )?;
    writeln!(md, "|---|---:|---:|---|---:|---:|---:|")?;
    for (task, rs) in by_task(runs) {
        let median = |f: fn(&Run) -> f64| {
            let mut v: Vec<f64> = rs.iter().map(|r| f(r)).collect();
            v.sort_by(f64::total_cmp);
            quantile(&v, 0.5)
        };
        writeln!(
            md,
            "| {task} | {} | {} | {} | {} | {:.0} | {:.0} |",
            rs.len(),
            rs.iter().filter(|r| r.summary.outcome == RunOutcome::Solved).count(),
            median_iqr(rs.iter().map(|r| r.summary.learning_iterations as f64).collect()),
            paper_cell(&rs, "iterations", task),
            median(|r| r.summary.last_level_learned as f64),
            median(|r| r.summary.last_level_solved as f64),
        )?;
    }
    Ok(md)
}

/// The line under the Learning table that names the training seeds: "Training seeds: 1–15 for
/// every task.", or per group of tasks when they differ.
fn training_seeds(runs: &[Run]) -> String {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for (task, rs) in by_task(runs) {
        let seeds = task_seeds(&rs);
        match groups.iter_mut().find(|(s, _)| *s == seeds) {
            Some((_, tasks)) => tasks.push(task),
            None => groups.push((seeds, vec![task])),
        }
    }
    if let [(seeds, _)] = &groups[..] {
        return format!("Training seeds: {seeds} for every task.\n");
    }
    let each: Vec<String> = groups.iter().map(|(s, tasks)| format!("{s} for {}", tasks.join(", "))).collect();
    format!("Training seeds: {}.\n", each.join("; "))
}

/// A task's training seeds: its sweep's range when every line records the same (`seeds`), else
/// its summaries' seeds, consecutive ones as a range (`1–3, 5, 7–9`).
fn task_seeds(rs: &[&Run]) -> String {
    if let Some(Some(range)) = rs.first().map(|r| r.seeds)
        && rs.iter().all(|r| r.seeds == Some(range))
    {
        return range.to_string();
    }
    let mut seeds: Vec<u64> = rs.iter().map(|r| r.summary.seed).collect();
    seeds.sort_unstable();
    seeds.dedup();
    let mut spans: Vec<(u64, u64)> = Vec::new();
    for seed in seeds {
        match spans.last_mut() {
            Some((_, last)) if last.checked_add(1) == Some(seed) => *last = seed,
            _ => spans.push((seed, seed)),
        }
    }
    let shown: Vec<String> =
        spans.iter().map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}–{b}") }).collect();
    shown.join(", ")
}

/// The Generalization table: per task and test level, the share of perfect runs and of solved
/// samples, beside the paper's share of perfect runs (one share for levels 100, 500 and 1000,
/// its level-1000 cell).
fn generalization_table(runs: &[Run], levels: &[usize]) -> Result<String> {
    let mut md = String::new();
    write!(md, "| task |")?;
    for l in levels {
        write!(md, " L{l} perfect runs | L{l} solved samples |")?;
    }
    writeln!(md, " paper perfect runs (L100–1000) |")?;
    writeln!(md, "|---|{}---:|", "---:|---:|".repeat(levels.len()))?;
    for (task, rs) in by_task(runs) {
        write!(md, "| {task} |")?;
        for l in levels {
            let evals: Vec<_> = rs.iter().filter_map(|r| r.eval.get(&l.to_string())).collect();
            let perfect = evals.iter().filter(|e| e.solved == e.samples).count();
            let (solved, samples) = evals.iter().fold((0, 0), |(a, b), e| (a + e.solved, b + e.samples));
            let pct = |a: f64, b: f64| if b > 0.0 { format!("{:.1} %", 100.0 * a / b) } else { "–".into() };
            write!(
                md,
                " {} | {} |",
                pct(perfect as f64, evals.len() as f64),
                pct(solved as f64, samples as f64)
            )?;
        }
        let paper = paper_cell(&rs, "level 1000", task);
        writeln!(md, " {} |", paper.split(" ~").next().unwrap_or("–"))?;
    }
    Ok(md)
}

/// The Verification table, when the runs carry their verification (scripts/verify_runs.py):
/// per task and part, what `nhc verify` listed, the runs right on every input of it, the
/// median layer every run is right to, the smallest counterexamples, and the runs perfect at
/// level 1000 under the paper's protocol beside them.
pub fn verification_table(runs: &[Run]) -> Result<String> {
    if runs.iter().all(|r| r.verify.is_none()) {
        return Ok(String::new());
    }
    let mut md = String::from(
        "## Verification\n\n`nhc verify` at its default bounds on each run's model \
         (`python3 scripts/verify_runs.py FILE.jsonl`; docs/VERIFICATION.md, \"Verification\"): every \
         control-distinct input up to the bound, so \"verified\" holds for every input of that \
         size, not for a sample. Right to: the largest size (its layer) up to which every input is \
         right. Sampled parts are samples and prove nothing.\n\n",
    );
    // Records older than the beyond stage have no samples beyond the bound: no column for them.
    let beyond =
        runs.iter().filter_map(|r| r.verify.as_ref()).any(|v| v.parts.iter().any(|p| p.beyond.is_some()));
    let (mut head, mut rule) = if beyond { (" runs right beyond (sampled) |", "---:|") } else { ("", "") };
    // Records with the every-length proof (the copy family): a column of the runs proved.
    let every = runs.iter().filter_map(|r| r.verify.as_ref()).any(|v| v.every_length.is_some());
    let every_head = format!("{head} every length, proved |");
    let every_rule = format!("{rule}---:|");
    if every {
        (head, rule) = (every_head.as_str(), every_rule.as_str());
        md.insert_str(
            md.len() - 2,
            " Every length, proved: `nhc verify --every-length` proved the run right on lists of \
             every length (a symbolic run from n₀ on, the shorter lengths listed; repeatCopy: every \
             number of objects and copies; duplicated: every number of repeats for 1–100 objects, \
             so every sample of levels 1–100; docs/VERIFICATION.md, \"Every length\"); it covers \
             the copy family.",
        );
    }
    if beyond {
        md.insert_str(
            md.len() - 2,
            " Right beyond: right on every sample of the task's own levels from just above the bound \
             to `--beyond` (1 000 by default); samples again.",
        );
    }
    writeln!(
        md,
        "| task | inputs (every run) | runs verified | right to, median | runs right to ≥ 1 000 | smallest counterexamples (runs) |{head} L1000 perfect runs |"
    )?;
    writeln!(md, "|---|---|---:|---:|---:|---|{rule}---:|")?;
    for (task, rs) in by_task(runs) {
        let verified: Vec<_> = rs.iter().filter_map(|r| r.verify.as_ref()).collect();
        let Some(first) = verified.first() else { continue };
        let l1000 = rs.iter().filter_map(|r| r.eval.get("1000")).filter(|e| e.solved == e.samples).count();
        for (k, part) in first.parts.iter().enumerate() {
            let parts: Vec<_> = verified.iter().filter_map(|v| v.parts.get(k)).collect();
            let right = parts.iter().filter(|p| p.failed == 0).count();
            let mut to: Vec<f64> = parts.iter().map(|p| p.right_to as f64).collect();
            to.sort_by(f64::total_cmp);
            let far = if part.bound >= 1000 {
                parts.iter().filter(|p| p.right_to >= 1000).count().to_string()
            } else {
                "–".to_string()
            };
            let mut shapes: Vec<(String, usize)> = Vec::new();
            for s in parts.iter().filter_map(|p| p.smallest.as_ref()) {
                match shapes.iter_mut().find(|(x, _)| *x == s.shape) {
                    Some(e) => e.1 += 1,
                    None => shapes.push((s.shape.clone(), 1)),
                }
            }
            shapes.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
            let shown: Vec<String> = shapes.iter().take(4).map(|(s, n)| format!("{s} ({n})")).collect();
            let more = if shapes.len() > 4 { ", …" } else { "" };
            let kind = if part.exhaustive { "" } else { " (sampled)" };
            let sampled: Vec<_> = parts.iter().filter_map(|p| p.beyond.as_ref()).collect();
            let beyond_cell = match (beyond, sampled.is_empty()) {
                (false, _) => String::new(),
                (true, true) => " – |".to_string(),
                (true, false) => {
                    let right = sampled.iter().filter(|b| b.wrong_from().is_none()).count();
                    format!(" {right} of {} |", sampled.len())
                }
            };
            let every_cell = match (every, k) {
                (false, _) => String::new(),
                (true, 0) => {
                    let records: Vec<_> = verified.iter().filter_map(|v| v.every_length.as_ref()).collect();
                    match records.len() {
                        0 => " – |".to_string(),
                        n => {
                            format!(" {} of {n} |", records.iter().filter(|e| e.outcome == "proved").count())
                        }
                    }
                }
                (true, _) => " |".to_string(),
            };
            writeln!(
                md,
                "| {task} | {}{kind} | {right} of {} | {:.0} {} | {far} | {}{more} |{beyond_cell}{every_cell} {} |",
                part.what,
                parts.len(),
                quantile(&to, 0.5),
                part.layer,
                if shown.is_empty() { "–".to_string() } else { shown.join(", ") },
                if k == 0 { format!("{l1000} of {}", rs.len()) } else { String::new() },
            )?;
        }
    }
    md.push('\n');
    Ok(md)
}

/// The Runs table: one row per run, its summary and its solved samples per test level.
fn runs_table(runs: &[Run], levels: &[usize]) -> Result<String> {
    let mut md = String::new();
    write!(
        md,
        "| task | seed | iterations | learning iterations | last level learned | last level solved | restarts (failed checks) | wall s |"
    )?;
    levels.iter().try_for_each(|l| write!(md, " solved L{l} |"))?;
    let verified = runs.iter().any(|r| r.verify.is_some());
    if verified {
        write!(md, " verified |")?;
    }
    let extra = if verified { "---|" } else { "" };
    writeln!(md, "\n|---|---:|---:|---:|---:|---:|---:|---:|{}{extra}", "---:|".repeat(levels.len()))?;
    for r in runs {
        let s = &r.summary;
        write!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} ({}) | {:.1} |",
            s.task,
            s.seed,
            s.iterations,
            s.learning_iterations,
            s.last_level_learned,
            s.last_level_solved,
            s.restarts,
            s.failed_checks,
            s.wall_seconds,
        )?;
        for l in levels {
            match r.eval.get(&l.to_string()) {
                Some(e) => write!(md, " {}/{} |", e.solved, e.samples)?,
                None => write!(md, " – |")?,
            }
        }
        if verified {
            write!(md, " {} |", verified_cell(r))?;
        }
        writeln!(md)?;
    }
    Ok(md)
}

/// A run's verification in a few words: per part, right to the bound, or to where it fails
/// and the smallest counterexample.
fn verified_cell(r: &Run) -> String {
    let Some(v) = &r.verify else { return "–".to_string() };
    let parts: Vec<String> = v
        .parts
        .iter()
        .map(|p| {
            let within = match (&p.smallest, p.exhaustive) {
                (None, true) => format!("all to {}", p.bound),
                (None, false) => format!("sampled to {}", p.bound),
                (Some(s), _) => format!("to {}; wrong at {}", p.right_to, s.shape),
            };
            match p.beyond.as_ref().map(|b| (b.wrong_from(), b.sizes.last())) {
                Some((Some(at), _)) => format!("{within}, wrong beyond from {at}"),
                Some((None, Some(top))) => format!("{within}, right beyond to {top} (sampled)"),
                _ => within,
            }
        })
        .collect();
    parts.join("; ")
}

/// Each run's learning curve, from its line, gathered per task.
fn curves(runs: &[Run]) -> Vec<crate::plots::Curves> {
    let mut curves: Vec<crate::plots::Curves> = Vec::new();
    for r in runs {
        let Some(curve) = r.curve.clone() else { continue };
        let task = &r.summary.task;
        match curves.iter_mut().find(|c| &c.task == task) {
            Some(c) => c.runs.push(curve),
            None => curves.push(crate::plots::Curves { task: task.clone(), runs: vec![curve] }),
        }
    }
    curves
}

/// The Figures section: the [`FIGURES`] drawn from `curves` beside `out_path`; without a curve,
/// the figures drawn there earlier, kept and said so; without either, nothing.
fn figures(runs: &[Run], curves: Vec<crate::plots::Curves>, path: &Path, out_path: &Path) -> Result<String> {
    let base = out_path.with_extension("").to_string_lossy().into_owned();
    let stem = |k: usize| format!("{base}_{}", FIGURES[k].1);
    let drawn = !curves.is_empty();
    if drawn {
        draw_figures(runs, curves, stem)?;
    }
    let kept = !drawn && Path::new(&format!("{}.svg", stem(0))).exists();
    if kept {
        diag!("no run of {} carries its learning curve: the earlier figures are kept", path.display());
    }
    let mut figures = String::new();
    if drawn || kept {
        figures += "## Figures\n\n";
        if kept {
            figures += "Drawn earlier; not redrawn (no run here carries its learning curve).\n\n";
        }
        for (k, (title, _)) in FIGURES.iter().enumerate() {
            let stem = stem(k);
            let f =
                Path::new(&stem).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
            write!(figures, "![{title}]({f}.png) ([SVG]({f}.svg))\n\n")?;
        }
    }
    Ok(figures)
}

/// Draws the [`FIGURES`], figure `k` to `stem(k)` (`.png` and `.svg`): the learning curves
/// (panels of [`GROUPS`]), the mean learning iterations per level, and how many runs last
/// learned at each level.
fn draw_figures(
    runs: &[Run],
    curves: Vec<crate::plots::Curves>,
    stem: impl Fn(usize) -> String,
) -> Result<()> {
    let tasks: Vec<String> = curves.iter().map(|c| c.task.clone()).collect();
    let mean_per_level: Vec<crate::plots::Series> = curves
        .iter()
        .map(|c| {
            let points = (1..=11)
                .map(|l| {
                    let total: u64 =
                        c.runs.iter().map(|r| r.learning_per_level.get(l - 1).copied().unwrap_or(0)).sum();
                    (l as f64, total as f64 / c.runs.len() as f64)
                })
                .collect();
            (c.task.clone(), points)
        })
        .collect();
    crate::plots::learning_curves(&panels(curves), Path::new(&stem(0)), &crate::plots::FITNESS)?;
    crate::plots::per_level(
        "Learning iterations per level, mean over runs",
        "learning iterations",
        &mean_per_level,
        Path::new(&stem(1)),
    )?;
    let last: Vec<crate::plots::Series> = tasks
        .iter()
        .map(|task| {
            let ls: Vec<f64> = runs
                .iter()
                .filter(|r| &r.summary.task == task)
                .map(|r| r.summary.last_level_learned as f64)
                .collect();
            let points = (1..=11).map(|l| (l as f64, ls.iter().filter(|x| **x == l as f64).count() as f64));
            (task.clone(), points.collect())
        })
        .collect();
    crate::plots::per_level("Last level that triggered learning", "runs", &last, Path::new(&stem(2)))?;
    Ok(())
}

/// The report's figures: title and file-name suffix.
const FIGURES: [(&str, &str); 3] = [
    ("learning curves", "learning_curves"),
    ("learning iterations per level", "learning_per_level"),
    ("last level learned", "last_level_learned"),
];

/// Task groups of the learning-curve figure, in the order of the paper's Table 1 (search and
/// plan, the tasks with an ALU that computes, the copy family); other tasks share a last panel.
const GROUPS: [(&str, &[&str]); 3] = [
    ("search and plan", &["search", "plan", "search+", "plan+"]),
    ("addition, sort, arithmetic", &["addition", "sort", "arithmetic"]),
    ("copy family", &["copy", "repeatCopy", "reverse", "duplicated"]),
];

/// `curves` split into the panels of [`GROUPS`] (empty ones left out), keeping their order.
fn panels(curves: Vec<crate::plots::Curves>) -> Vec<(String, Vec<crate::plots::Curves>)> {
    let group =
        |task: &str| GROUPS.iter().position(|(_, tasks)| tasks.contains(&task)).unwrap_or(GROUPS.len());
    let mut out: Vec<(String, Vec<crate::plots::Curves>)> = (0..=GROUPS.len())
        .map(|g| (GROUPS.get(g).map_or("other tasks", |(t, _)| t).to_string(), Vec::new()))
        .collect();
    for c in curves {
        out[group(&c.task)].1.push(c);
    }
    out.retain(|(_, cs)| !cs.is_empty());
    out
}

/// A run with its lineages, if its summary records them.
fn recorded<'a>(r: &&'a SweepLine) -> Option<(&'a SweepLine, &'a [Lineage])> {
    r.summary.lineages.as_deref().map(|l| (*r, l))
}

/// The lineage table of `runs`: per model (a column when there are several) and task, the
/// lineages, how many finished, where the others stopped, and the learning cost of a run counted
/// over its surviving lineage and over all its lineages, beside the paper's. Runs whose summary
/// does not record its lineages are counted as such, never guessed.
pub fn lineage_table(runs: &[&SweepLine]) -> Result<String> {
    let names = nhc_tasks::names();
    let mut groups: Vec<(Variant, &str)> =
        runs.iter().map(|r| (r.summary.variant, r.summary.task.as_str())).collect();
    let order = |v: &Variant| Variant::ALL.iter().position(|x| x == v);
    groups.sort_by_key(|(v, t)| (order(v), names.iter().position(|n| n == t).unwrap_or(usize::MAX), *t));
    groups.dedup();
    if groups.is_empty() {
        return Ok(String::new());
    }
    let by_model = groups.iter().any(|g| g.0 != groups[0].0);
    let mut t = String::from(
        "## Lineages\n\nA lineage is θ from a (re)start to the next restart or the end of the run. ",
    );
    if runs.iter().all(|r| recorded(r).is_none()) {
        let what =
            if runs.len() == 1 { "the run".to_string() } else { format!("any of the {} runs", runs.len()) };
        writeln!(t, "Not recorded for {what}: the summaries predate the lineage record.\n")?;
        return Ok(t);
    }
    t.push_str(
        "Not finished: the level it stopped at when the restart rule ended it, `check` for a \
         failed generalization check, `cap` for the lineage the run's budget ended. The learning \
         cost of a run, counted three ways: the learning iterations of its first lineage, of its \
         surviving (last) lineage, and of all its lineages (restarts included: the run's learning \
         iterations, as in the tables above), each over the runs counted here. The paper's \
         Table 1 (\"iterations\", in the last column) does not say which it reports. A run's \
         lineages come from its summary.json; runs whose summary predates that record are not \
         recorded (runs \"12 of 15\": 3 not recorded).\n\n",
    );
    let model_head = if by_model { ("| model ", "|---") } else { ("", "") };
    writeln!(
        t,
        "{}| task | runs | lineages | finished | learning iterations of a finished lineage, median | \
         not finished: level (count) | learning iterations, first lineage, median (to quartiles) | \
         learning iterations, surviving lineage, median (to quartiles) | \
         learning iterations, all lineages, median (to quartiles) | paper |",
        model_head.0
    )?;
    writeln!(t, "{}|---|---:|---:|---:|---:|---|---|---|---|---|", model_head.1)?;
    for (variant, task) in groups {
        let model = crate::comparison::model_name(variant);
        let of_task: Vec<&&SweepLine> =
            runs.iter().filter(|r| r.summary.variant == variant && r.summary.task == task).collect();
        let counted: Vec<(&SweepLine, &[Lineage])> = of_task.iter().copied().filter_map(recorded).collect();
        let all: Vec<&Lineage> = counted.iter().flat_map(|(_, l)| l.iter()).collect();
        let mut done: Vec<f64> =
            all.iter().filter(|l| l.finished()).map(|l| l.learning_iterations as f64).collect();
        done.sort_by(f64::total_cmp);
        let mut stopped = std::collections::BTreeMap::new();
        let (mut checks, mut caps) = (0, 0);
        for l in &all {
            match l.ending {
                Ending::Finished => {}
                Ending::Restart => *stopped.entry(l.level).or_insert(0) += 1,
                Ending::Check => checks += 1,
                Ending::Cap => caps += 1,
            }
        }
        let mut where_: Vec<String> = stopped.iter().map(|(l, n)| format!("{l}: {n}")).collect();
        for (name, n) in [("check", checks), ("cap", caps)] {
            if n > 0 {
                where_.push(format!("{name}: {n}"));
            }
        }
        if where_.is_empty() {
            where_.push("–".into());
        }
        let median = if done.is_empty() { "–".to_string() } else { format!("{:.0}", quantile(&done, 0.5)) };
        let first: Vec<f64> =
            counted.iter().filter_map(|(_, l)| l.first()).map(|l| l.learning_iterations as f64).collect();
        let surviving: Vec<f64> =
            counted.iter().filter_map(|(_, l)| l.last()).map(|l| l.learning_iterations as f64).collect();
        let every: Vec<f64> = counted.iter().map(|(r, _)| r.summary.learning_iterations as f64).collect();
        let iqr = |v: Vec<f64>| if v.is_empty() { "–".to_string() } else { median_iqr(v) };
        let runs_cell = if counted.len() == of_task.len() {
            of_task.len().to_string()
        } else {
            format!("{} of {}", counted.len(), of_task.len())
        };
        if by_model {
            write!(t, "| {model} ")?;
        }
        writeln!(
            t,
            "| {task} | {runs_cell} | {} | {} | {median} | {} | {} | {} | {} | {} |",
            all.len(),
            done.len(),
            where_.join(", "),
            iqr(first),
            iqr(surviving),
            iqr(every),
            crate::comparison::paper(model, "iterations", task),
        )?;
    }
    t.push('\n');
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every task of the figure's groups is registered and has the paper's numbers.
    #[test]
    fn report_tables_name_registered_tasks() {
        let names = nhc_tasks::names();
        for (_, tasks) in GROUPS {
            for task in tasks {
                assert!(names.contains(task), "{task} in GROUPS is not registered");
                assert_ne!(crate::comparison::paper("NHC", "iterations", task), "–", "{task}");
            }
        }
    }

    #[test]
    fn quartiles_match_the_inclusive_method() {
        let v = [1.0, 2.0, 3.0, 4.0, 10.0];
        assert_eq!((quantile(&v, 0.25), quantile(&v, 0.5), quantile(&v, 0.75)), (2.0, 3.0, 4.0));
        assert_eq!(quantile(&[1.0, 2.0], 0.5), 1.5);
        assert_eq!(median_iqr(vec![10.0, 1.0, 4.0, 3.0, 2.0]), "3 (−1, +1)");
    }

    /// A sweep line of `task` (as `variant`) whose summary has `learning_iterations` and,
    /// when given, `lineages` as (learning iterations, level, ending).
    fn run_line(task: &str, variant: &str, learning: u64, lineages: Option<&[(u64, usize, &str)]>) -> String {
        let lineages: Option<Vec<serde_json::Value>> = lineages.map(|ls| {
            ls.iter()
                .map(|(n, level, ending)| {
                    serde_json::json!({"learning_iterations": n, "level": level, "ending": ending})
                })
                .collect()
        });
        let summary = serde_json::json!({
            "task": task, "domain": "binary", "variant": variant, "config": null, "seed": 1,
            "iterations": 2 * learning, "learning_iterations": learning, "margin_updates": 0,
            "last_level_learned": 2, "last_level_solved": 11, "restarts": 0, "failed_checks": 0,
            "outcome": "solved", "wall_seconds": 1.0, "steps": 10, "steps_per_second": 10.0,
            "lineages": lineages,
        });
        serde_json::json!({ "dir": format!("runs/{task}-1"), "summary": summary, "eval": {}, "curve": null })
            .to_string()
    }

    /// The lineage table from a sweep file alone, against numbers counted by hand: copy has
    /// three runs with lineages and one older run without (not recorded), reverse one run.
    #[test]
    fn the_lineage_table_comes_from_the_sweep_file() -> Result<()> {
        let dir = tempfile::tempdir()?;
        let lines = [
            // Surviving lineage 40 of 96 in all.
            run_line(
                "copy",
                "nhc",
                96,
                Some(&[(20, 1, "restart"), (36, 2, "restart"), (40, 11, "finished")]),
            ),
            // Surviving 30 of 80: a failed check, then a finished lineage.
            run_line("copy", "nhc", 80, Some(&[(50, 11, "check"), (30, 11, "finished")])),
            // Surviving 60 of 100: two restarts, then the cap.
            run_line("copy", "nhc", 100, Some(&[(20, 1, "restart"), (20, 3, "restart"), (60, 3, "cap")])),
            run_line("copy", "nhc", 70, None),
            run_line("reverse", "nhc", 10, Some(&[(10, 11, "finished")])),
        ];
        let file = dir.path().join("sweep.jsonl");
        std::fs::write(&file, lines.join("\n"))?;
        let md = report(&file)?;
        assert_eq!(std::fs::read_to_string(dir.path().join("sweep.md"))?, md);
        // copy: lineages 3 + 2 + 3 = 8, finished 2 (40 and 30: median 35); restarts at levels 1,
        // 2, 1, 3; one check, one cap. Surviving 30, 40, 60: median 40, quartiles 35 and 50.
        // All lineages 80, 96, 100: median 96, quartiles 88 and 98. First lineages 20, 50, 20:
        // median 20, quartiles 20 and 35. Paper: Table 1's NHC copy.
        let copy = "| copy | 3 of 4 | 8 | 2 | 35 | 1: 2, 2: 1, 3: 1, check: 1, cap: 1 | 20 (−0, +15) | \
                    40 (−5, +10) | 96 (−8, +2) | 814 (−319, +291) |";
        let reverse =
            "| reverse | 1 | 1 | 1 | 10 | – | 10 (−0, +0) | 10 (−0, +0) | 10 (−0, +0) | 781 (−192, +678) |";
        let table: Vec<&str> = md.lines().skip_while(|l| !l.starts_with("## Lineages")).collect();
        assert!(table.contains(&copy), "{md}");
        assert!(table.contains(&reverse), "{md}");
        assert!(md.contains("does not say which it reports"));

        // Several models: a model column, each model beside its own paper numbers.
        let anc = run_line("copy", "nhc-anc", 50, Some(&[(50, 11, "finished")]));
        std::fs::write(&file, [lines[4].as_str(), &anc].join("\n"))?;
        let md = report(&file)?;
        let paper = crate::comparison::paper("NHC-anc", "iterations", "copy");
        assert_ne!(paper, "–");
        let want = format!(
            "| NHC-anc | copy | 1 | 1 | 1 | 50 | – | 50 (−0, +0) | 50 (−0, +0) | 50 (−0, +0) | {paper} |"
        );
        assert!(md.contains(&want), "{md}");
        assert!(md.contains("| NHC | reverse | 1 |"), "{md}");

        // An older sweep: no lineages anywhere, said in a sentence instead of an empty table.
        std::fs::write(&file, lines[3].as_str())?;
        let md = report(&file)?;
        assert!(md.contains("Not recorded for the run:"), "{md}");
        assert!(!md.contains("| task | runs | lineages"), "{md}");
        Ok(())
    }

    /// The training seeds: the lines' range when they record one, else the summaries' seeds as
    /// ranges and single seeds; one sentence for every task when they agree, per task otherwise.
    #[test]
    fn the_training_seeds_come_from_the_lines() -> Result<()> {
        let line = |task: &str, seed: u64, seeds: Option<&str>| -> Result<Run> {
            let mut v: serde_json::Value = serde_json::from_str(&run_line(task, "nhc", 10, None))?;
            v["summary"]["seed"] = seed.into();
            if let Some(s) = seeds {
                v["seeds"] = s.into();
            }
            Ok(serde_json::from_value(v)?)
        };
        let recorded =
            [line("copy", 3, Some("3-4"))?, line("copy", 4, Some("3-4"))?, line("sort", 3, Some("3-4"))?];
        assert_eq!(training_seeds(&recorded), "Training seeds: 3–4 for every task.\n");
        // The record is the sweep's range, even where the file holds fewer of its runs.
        assert_eq!(training_seeds(&recorded[..1]), "Training seeds: 3–4 for every task.\n");
        let older: Vec<Run> = [1, 2, 3, 5, 7, 8, 9]
            .into_iter()
            .map(|seed| line("copy", seed, None))
            .chain([
                line("sort", 1, None),
                line("sort", 2, None),
                line("sort", 3, None),
                line("reverse", 7, None),
            ])
            .collect::<Result<_>>()?;
        assert_eq!(
            training_seeds(&older),
            "Training seeds: 1–3 for sort; 1–3, 5, 7–9 for copy; 7 for reverse.\n"
        );
        // Lines of one task from sweeps of different ranges: the summaries' seeds.
        let mixed = [line("copy", 1, Some("1-1"))?, line("copy", 2, Some("2-2"))?];
        assert_eq!(training_seeds(&mixed), "Training seeds: 1–2 for every task.\n");
        Ok(())
    }

    #[test]
    fn learning_curve_panels_follow_the_task_groups() {
        let curves = ["copy", "mine", "sort", "plan+", "addition"]
            .map(|t| crate::plots::Curves { task: t.to_string(), runs: Vec::new() });
        let got: Vec<(String, Vec<String>)> = panels(curves.into())
            .into_iter()
            .map(|(title, cs)| (title, cs.into_iter().map(|c| c.task).collect()))
            .collect();
        let want = [
            ("search and plan", vec!["plan+"]),
            ("addition, sort, arithmetic", vec!["sort", "addition"]),
            ("copy family", vec!["copy"]),
            ("other tasks", vec!["mine"]),
        ]
        .map(|(t, cs)| (t.to_string(), cs.into_iter().map(String::from).collect()));
        assert_eq!(got, want);
    }
}
