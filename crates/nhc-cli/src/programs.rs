//! `nhc programs`: the table-program search ([`nhc_tasks::programs`]) for one task, variant and
//! memory reading.

use crate::emit;
use crate::train::config_or_default;
use anyhow::{Context, Result, bail};
use nhc_model::Variant;
use nhc_tasks::programs::{Spec, Verdict};
use nhc_train::{ValidConfig, model_config};
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

pub struct Args {
    pub task: String,
    pub variant: Variant,
    pub config: Option<PathBuf>,
    pub symbols: usize,
    pub levels: usize,
    pub samples: usize,
    pub checks: Vec<String>,
    pub seed: u64,
    pub max_nodes: u64,
    pub json: bool,
}

/// `LEVEL:COUNT`.
fn check(s: &str) -> Result<(usize, usize)> {
    let parse = |x: &str| x.trim().parse::<usize>().ok().filter(|&v| v > 0);
    match s.split_once(':').map(|(l, n)| (parse(l), parse(n))) {
        Some((Some(l), Some(n))) => Ok((l, n)),
        _ => bail!("--checks takes LEVEL:COUNT with both at least 1, e.g. 30:5; got `{s}`"),
    }
}

pub fn run(a: &Args) -> Result<()> {
    let task = nhc_tasks::find(&a.task)?;
    let train = ValidConfig::try_from(config_or_default(a.config.as_deref())?)?;
    let config = model_config(task, a.variant, &train);
    let checks = a.checks.iter().map(|s| check(s)).collect::<Result<Vec<_>>>()?;
    for &(level, _) in &checks {
        task.check_level(level)?;
    }
    task.check_level(a.levels)?;
    let spec = Spec {
        symbols: a.symbols,
        levels: a.levels,
        samples: a.samples,
        checks,
        seed: a.seed,
        max_nodes: a.max_nodes,
    };
    let start = Instant::now();
    let report = task.programs(&config, &spec).context("table programs")?;
    let seconds = start.elapsed().as_secs_f64();
    let (verdict, program) = match &report.verdict {
        Verdict::Found(p) => ("found", Some(p)),
        Verdict::None => ("none", None),
        Verdict::Budget => ("budget", None),
    };
    if a.json {
        let line = json!({
            "task": task.name(),
            "variant": a.variant.name(),
            "links": config.links,
            "free_write": config.free_write,
            "bus_feedback": config.bus_feedback,
            "symbols": a.symbols,
            "samples": report.samples,
            "verdict": verdict,
            "nodes": report.nodes,
            "seconds": (seconds * 10.0).round() / 10.0,
            "controller": program.map(|p| p.controller.clone()),
            "bus": program.map(|p| p.bus.clone()),
        });
        return emit(&format!("{line}\n"));
    }
    let reading = format!(
        "{} {}, links {:?}, free_write {:?}, bus feedback {}",
        task.name(),
        a.variant,
        config.links,
        config.free_write,
        config.bus_feedback
    );
    let what = match program {
        Some(p) => format!("a table program solves all {} samples:\n{p}", report.samples),
        None if verdict == "none" => {
            format!("no table program solves the {} samples (search complete)", report.samples)
        }
        None => format!("none found in {} entries tried (budget)", report.nodes),
    };
    emit(&format!(
        "{reading}; {} words: {what}\nentries tried: {}, {seconds:.1} s\n",
        a.symbols, report.nodes
    ))
}
