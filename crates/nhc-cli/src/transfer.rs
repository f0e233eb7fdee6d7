//! `nhc transfer`: a learned model, θ unchanged, on every other domain of its algorithm (paper,
//! R2 and R3: only the data modules are swapped). Levels 1–11 are those of training (not a
//! single error, so training would never have been triggered), then the test levels 100 and
//! 1000, or the domain's largest level where it has fewer distinct problems.

use crate::emit;
use anyhow::{Context, Result, bail};
use nhc_tasks::{EvalReport, Model};
use nhc_tasks::{
    any_task::AnyTask,
    registry::{all, find, find_in},
};
use std::path::{Path, PathBuf};

/// The tasks with learned data modules.
const LEARNED_TASKS: [&str; 4] = ["search", "plan", "search+", "plan+"];

/// The training levels: the curriculum's 1–10 and the mixed level 11 (MODEL §7).
pub const TRAINING_LEVELS: std::ops::RangeInclusive<usize> = 1..=11;
/// The test levels beyond training.
pub const TEST_LEVELS: [usize; 2] = [100, 1000];

/// What to transfer.
pub struct Transfer {
    /// A task name, or `all` (then `model` is a directory holding `TASK.json` per task).
    pub task: String,
    pub model: PathBuf,
    pub samples: usize,
    pub seed: u64,
    pub json: bool,
    /// Learned data modules (`nhc data-modules train`): the models run on them, in the world
    /// they were trained on, instead of on the other domains.
    pub data_modules: Option<PathBuf>,
}

/// One domain's results.
struct Row {
    task: &'static str,
    domain: &'static str,
    /// The domain's largest level.
    max: usize,
    training: Vec<EvalReport>,
    tests: Vec<EvalReport>,
    /// With learned data modules: (calls, wrong) of A, a and E_t during this row's runs.
    tally: Option<[(u64, u64); 3]>,
}

pub fn transfer(t: &Transfer) -> Result<()> {
    let nets = match &t.data_modules {
        Some(dir) => Some(std::sync::Arc::new(nhc_tasks::search_plan::learned::DataNets::load(dir)?)),
        None => None,
    };
    // The tasks a job can run on: the other domains, or the learned data modules.
    let has_domains = |name: &str| match &nets {
        Some(_) => LEARNED_TASKS.contains(&name),
        None => !transfer_domains(name).is_empty(),
    };
    let jobs: Vec<(&'static str, PathBuf)> = if t.task == "all" {
        if !t.model.is_dir() {
            bail!("with --task all, --model must be a directory of model files (TASK.json)");
        }
        let mut jobs = Vec::new();
        for name in nhc_tasks::names() {
            let path = t.model.join(format!("{name}.json"));
            if path.is_file() && has_domains(name) {
                jobs.push((find(name)?.name(), path));
            }
        }
        if jobs.is_empty() {
            bail!("{} holds no model file of a task with transfer domains", t.model.display());
        }
        jobs
    } else {
        let name = find(&t.task)?.name();
        if !has_domains(name) {
            match nets {
                Some(_) => {
                    bail!("task `{name}` has no learned data modules (search, plan, search+ and plan+ have)")
                }
                None => bail!("task `{name}` has no domain besides its training domain"),
            }
        }
        vec![(name, t.model.clone())]
    };
    let mut rows = Vec::new();
    for (name, path) in jobs {
        let tasks: Vec<&'static dyn AnyTask> = match &nets {
            // One task per process and name, for the lifetime the registry's tasks have.
            Some(nets) => {
                vec![&*Box::leak(nhc_tasks::search_plan::learned::with_data_modules(name, nets.clone())?)]
            }
            None => transfer_domains(name)
                .into_iter()
                .map(|d| find_in(name, Some(d)))
                .collect::<Result<_, _>>()?,
        };
        for task in tasks {
            let domain = task.domain();
            let before = nets.as_ref().map(|n| n.tally.counts());
            let mut row = run_domain(task, &path, t.samples, t.seed)?;
            if let (Some(n), Some(b)) = (&nets, before) {
                let now = n.tally.counts();
                row.tally = Some(std::array::from_fn(|k| (now[k].0 - b[k].0, now[k].1 - b[k].1)));
            }
            if t.json {
                let mut text = String::new();
                for r in row.training.iter().chain(&row.tests) {
                    text += &serde_json::to_string(r)?;
                    text.push('\n');
                }
                emit(&text)?;
            } else {
                diag!("{name} on {domain}: {}", cell(&row.training, None));
            }
            rows.push(row);
        }
    }
    if !t.json {
        let mut text = table(&rows, t.samples);
        if let Some(n) = &nets {
            let (equal, changes) = n.equality_one_cell_blind();
            text += &format!(
                "\nE_t on words one cell apart (every cell, every pair of its codes): {equal} of {changes} judged equal.\n"
            );
        }
        emit(&text)?;
    }
    Ok(())
}

/// The domains of `name` other than its training domain.
fn transfer_domains(name: &str) -> Vec<&'static str> {
    all().iter().filter(|t| t.name() == name).skip(1).map(|t| t.domain()).collect()
}

/// The model at `path` on `task`'s domain: every training level, then each test level (or the
/// domain's largest level, once, when it is below a test level).
fn run_domain(task: &'static dyn AnyTask, path: &Path, samples: usize, seed: u64) -> Result<Row> {
    let arg = path.to_str().with_context(|| format!("{} is not valid UTF-8", path.display()))?;
    let model = Model::from_arg(arg, task, None)?;
    let max = task.max_level();
    let mut training = Vec::new();
    for level in TRAINING_LEVELS.filter(|&l| l <= max) {
        training.push(task.evaluate(&model, level, samples, seed)?);
    }
    let mut tests = Vec::new();
    for level in TEST_LEVELS {
        let level = level.min(max);
        if level > *TRAINING_LEVELS.end() && tests.iter().all(|r: &EvalReport| r.level != level) {
            tests.push(task.evaluate(&model, level, samples, seed)?);
        }
    }
    Ok(Row { task: task.name(), domain: task.domain(), max, training, tests, tally: None })
}

/// `solved/samples` over `reports`, with the level when it is not the asked one.
fn cell(reports: &[EvalReport], asked: Option<usize>) -> String {
    let solved: usize = reports.iter().map(|r| r.solved).sum();
    let total: usize = reports.iter().map(|r| r.samples).sum();
    let mark = if solved == total { "" } else { " ✗" };
    match (asked, reports) {
        (Some(asked), [r]) if r.level != asked => {
            format!("{solved}/{total} at level {} (the domain's largest){mark}", r.level)
        }
        _ => format!("{solved}/{total}{mark}"),
    }
}

/// The Markdown table: one row per task and domain.
fn table(rows: &[Row], samples: usize) -> String {
    let mut s = format!(
        "Solved samples ({samples} per level; levels 1–11 summed; ✗ = not every sample solved)\n\n\
         | task | domain | levels 1–11 | level 100 | level 1000 |\n|---|---|---:|---:|---:|\n"
    );
    for r in rows {
        let test = |k: usize| {
            let level = TEST_LEVELS[k].min(r.max);
            let first = TEST_LEVELS.iter().position(|&l| l.min(r.max) == level) == Some(k);
            match r.tests.iter().find(|t| t.level == level) {
                Some(t) if first => cell(std::slice::from_ref(t), Some(TEST_LEVELS[k])),
                Some(_) => format!("(as level {})", TEST_LEVELS[0]),
                None => "–".to_string(),
            }
        };
        s += &format!(
            "| {} | {} | {} | {} | {} |\n",
            r.task,
            r.domain,
            cell(&r.training, None),
            test(0),
            test(1)
        );
    }
    if rows.iter().any(|r| r.tally.is_some()) {
        s += "\nWhere the learned data modules differed from the world's exact rules, over every run above (wrong / calls):\n\n| task | action model A | action mask a | equality E_t |\n|---|---:|---:|---:|\n";
        for r in rows {
            if let Some(t) = r.tally {
                let c = |(calls, wrong): (u64, u64)| format!("{wrong} / {calls}");
                s += &format!("| {} | {} | {} | {} |\n", r.task, c(t[0]), c(t[1]), c(t[2]));
            }
        }
    }
    s
}
