//! `nhc verify`: a model on every control-distinct input up to a bound (docs/DESIGN.md,
//! "Verification"): verified, or the smallest counterexample and the command that replays it.

use crate::eval::shell_word;
use crate::{ModelArgs, emit};
use anyhow::{Result, bail};
use nhc_tasks::verify::{Bounds, Counterexample, PartReport, Report};
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub model: ModelArgs,
    /// The bound: one for every part of the task's inputs, or one per part, comma-separated
    /// (e.g. duplicated's `16,60`: run-length sequences of up to 16 objects, and up to 60
    /// objects × 60 repeats). Default: each part's default, a run of under a minute.
    #[arg(long, value_delimiter = ',')]
    pub up_to: Vec<u64>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Draw the map of every two-parameter part (a cell per shape: right, or wrong) to this
    /// file, .svg or .png.
    #[arg(long)]
    pub map: Option<PathBuf>,
}

/// Runs the verification; exits with [`crate::EXIT_WRONG_ANSWER`] on a counterexample.
pub fn verify(mut args: Args) -> Result<()> {
    if args.model.domain.is_none() {
        args.model.domain = nhc_tasks::registry::verification_domain(&args.model.task).map(str::to_string);
    }
    if let Some(path) = &args.map {
        crate::plots::check_figure_path(path)?;
    }
    let (task, model) = args.model.load()?;
    let report = task.verify(&model, &Bounds(args.up_to.clone()))?;
    if let Some(path) = &args.map {
        let grids: Vec<&PartReport> = report.parts.iter().filter(|p| !p.axes[1].is_empty()).collect();
        if grids.is_empty() {
            bail!("task `{}` has one-parameter inputs: its map is the line printed (no --map)", report.task);
        }
        let title = format!("{} ({}): where the model is right", report.task, report.variant);
        crate::plots::correctness_map(&grids, &title, path)?;
    }
    if args.json {
        emit(&format!("{}\n", serde_json::to_string(&report)?))?;
    } else {
        emit(&text(&report, &args.model, task.takes_text()))?;
    }
    if report.failed() {
        std::process::exit(crate::EXIT_WRONG_ANSWER);
    }
    Ok(())
}

/// The report for people: a line per part, and the smallest counterexample of each part that
/// has one.
fn text(r: &Report, args: &ModelArgs, takes_text: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} on {}, model {} ({}):", r.task, r.domain, args.model, r.variant);
    for p in &r.parts {
        let _ = writeln!(out, "  {}", part_line(p));
        if let Some(note) = &p.note {
            let _ = writeln!(out, "    note: {note}");
        }
        if let Some(c) = &p.smallest {
            out += &counterexample(c, r, args, takes_text);
        }
    }
    let _ = writeln!(out, "{} in {:.1} s", r.outcome, r.seconds);
    out
}

/// One part in one line: verified, sampled or wrong, with the range that is right.
fn part_line(p: &PartReport) -> String {
    let size = format!("{} inputs, {} steps", p.inputs, p.steps);
    let layer = &p.layer;
    match (p.failed, p.exhaustive) {
        (0, true) => format!("verified: every {} ({size})", p.what),
        (0, false) => format!("sampled, not a proof: {}, all right ({size})", p.what),
        (failed, exhaustive) => {
            let kind = if exhaustive { "every input" } else { "every sample" };
            let right = match p.right_to {
                0 => "none right".to_string(),
                k if p.axes[1].is_empty() || p.layer == p.axes[0] => format!("{kind} of 1–{k} {layer} right"),
                k => format!("{kind} of at most {k} {layer} right"),
            };
            format!(
                "counterexample: {}: {right}, wrong from {} {layer} ({failed} of {} inputs wrong, {} steps)",
                p.what,
                p.right_to + 1,
                p.inputs,
                p.steps
            )
        }
    }
}

fn counterexample(c: &Counterexample, r: &Report, args: &ModelArgs, takes_text: bool) -> String {
    let mut out = String::new();
    let input = c.input.to_string();
    let _ = writeln!(out, "    smallest: {}: {}", c.shape, clip(&input));
    let _ =
        writeln!(out, "    expected {}, got {}", clip(&c.expected.to_string()), clip(&c.output.to_string()));
    match &c.first_wrong {
        Some(w) => {
            let reads = |rs: Vec<String>| rs.join(", ");
            let expected = w.expected_reads.iter().map(|x| x.clone().unwrap_or_else(|| "–".into())).collect();
            let done = w.reads.iter().map(|(mode, loc, data)| format!("{data} ({mode} at {loc})")).collect();
            let _ = writeln!(
                out,
                "    first wrong step {} ({}): expected {} reading [{}], did {} reading [{}]",
                w.step,
                w.phase,
                w.expected_op.as_deref().unwrap_or("a stop"),
                reads(expected),
                w.op,
                reads(done)
            );
        }
        None => {
            let _ = writeln!(
                out,
                "    every step agrees with the expected trace; the run stops at step {}",
                c.steps
            );
        }
    }
    let input_arg = match &c.input {
        serde_json::Value::String(s) if takes_text => s.clone(),
        _ => input,
    };
    let _ = writeln!(
        out,
        "    replay: nhc trace --task {} --domain {} --model {} --input {}",
        r.task,
        r.domain,
        shell_word(&args.model),
        shell_word(&input_arg)
    );
    out
}

/// Text cut after 160 characters.
fn clip(s: &str) -> String {
    match s.char_indices().nth(160) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}
