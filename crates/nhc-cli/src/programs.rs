//! `nhc programs`: the table-program search ([`nhc_tasks::programs`]) for one task, variant and
//! memory reading.

use crate::emit;
use crate::train::configs;
use anyhow::{Result, bail};
use nhc_model::Variant;
use nhc_tasks::programs::{Spec, Verdict};
use nhc_train::model_config;
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

/// `nhc programs`'s flags.
#[derive(clap::Args)]
pub struct Args {
    /// A task of the copy family (or any task; the search grows with its views).
    #[arg(long)]
    task: String,
    #[arg(long, default_value = "nhc", help = crate::variant_help(""))]
    variant: Variant,
    /// A training config (TOML): its `links`, `free_write`, `missing_link`, `free_gates` and
    /// `bus_feedback` choose the memory's reading.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Control words a program may write: the zero word and this many minus one unit vectors.
    #[arg(long, default_value_t = 2)]
    symbols: usize,
    /// Samples of every level 1..=LEVELS must be solved...
    #[arg(long, default_value_t = 5)]
    levels: usize,
    /// ...this many per level...
    #[arg(long, default_value_t = 10)]
    samples: usize,
    /// ...and these longer ones, LEVEL:COUNT, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "30:5,100:2")]
    checks: Vec<String>,
    /// Seed of the samples.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Table entries to try before giving up.
    #[arg(long, default_value_t = 100_000_000)]
    max_nodes: u64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
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
    let train = configs(a.config.as_deref(), false, None)?.get(task.name()).clone();
    let config = model_config(task, a.variant, &train);
    let checks = a.checks.iter().map(|s| check(s)).collect::<Result<Vec<_>>>()?;
    let spec = Spec {
        symbols: a.symbols,
        levels: a.levels,
        samples: a.samples,
        checks,
        seed: a.seed,
        max_nodes: a.max_nodes,
    };
    let start = Instant::now();
    let report = task.programs(&config, &spec)?;
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
            "missing_link": config.missing_link,
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
        "{} {}, links {:?}, free_write {:?}, missing_link {:?}, bus feedback {}",
        task.name(),
        a.variant,
        config.links,
        config.free_write,
        config.missing_link,
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
