//! `nhc verify`: a model on every control-distinct input up to a bound (docs/VERIFICATION.md,
//! "Verification"): verified, or the smallest counterexample and the command that replays it.

use crate::eval::shell_word;
use crate::{ModelArgs, emit};
use anyhow::{Result, bail};
use nhc_tasks::verify::{Beyond, Bounds, Counterexample, EveryLength, PartReport, Report};
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub model: ModelArgs,
    /// The bound: one for every part of the task's inputs, or one per part, comma-separated
    /// (e.g. duplicated's `16,60`: run-length sequences of up to 16 objects, and up to 60
    /// objects × 60 repeats). Default: each part's default, a run of under a minute.
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true, value_parser = bound)]
    pub up_to: Vec<u64>,
    /// Then sample each part from just above its bound up to this size, in the part's unit
    /// (the next 20 sizes with 20 samples each, then 12 log-spaced to the top with 5 each;
    /// from the task's own levels, seed 5000); 0: do not.
    #[arg(long, default_value_t = nhc_tasks::verify::BEYOND)]
    pub beyond: u64,
    /// Also prove the model right at every length, or say why no proof was found (the copy
    /// family; docs/VERIFICATION.md, "Every length"). duplicated takes an optional number: its
    /// lists presented alike are proved for 1–N objects at every number of repeats (default 100,
    /// every sample of levels 1–100; 1000: every sample of levels 1–1000, its proof about 30 s)
    #[arg(long, value_name = "N", num_args = 0..=1)]
    pub every_length: Option<Option<u64>>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Draw the map of every two-parameter part (a cell per shape: right, or wrong) to this
    /// file, .svg or .png.
    #[arg(long)]
    pub map: Option<PathBuf>,
}

/// Runs the verification; exits with [`crate::EXIT_WRONG_ANSWER`] on a counterexample, with
/// [`crate::EXIT_WRONG_BEYOND`] when only a sample beyond the bounds is wrong.
pub fn verify(mut args: Args, yes: bool) -> Result<()> {
    if args.model.domain.is_none() {
        args.model.domain = nhc_tasks::registry::verification_domain(&args.model.task).map(str::to_string);
    }
    if let Some(path) = &args.map {
        crate::plots::check_figure_path(path)?;
    }
    let (task, model) = args.model.load()?;
    crate::long_work(task, &model, yes, rayon::current_num_threads());
    let bounds = Bounds(args.up_to.clone());
    let report = if let Some(objects) = args.every_length {
        task.verify_every_length(&model, &bounds, args.beyond, objects)?
    } else {
        task.verify_beyond(&model, &bounds, args.beyond)?
    };
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
    if report.wrong_beyond() {
        std::process::exit(crate::EXIT_WRONG_BEYOND);
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
        if let Some(b) = &p.beyond
            && let Some(w) = &b.smallest
        {
            let replay = format!("--level {} --seed {} --index {}", w.level, b.seed, w.index);
            let what =
                format!("smallest wrong beyond: {} (level {}, sample {})", w.run.shape, w.level, w.index);
            out += &run_of(&w.run, &what, r, args, &replay);
        }
    }
    if let Some(e) = &r.every_length {
        let _ = writeln!(out, "  {}", every_length_line(e));
        // Each repeated block as the `nhc trace` command that shows two of its periods: copy's
        // and reverse's at a level, repeatCopy's and duplicated's on an input `--level` does not
        // draw.
        let trace = |what: String, source: String, from: u64, to: u64| {
            format!(
                "    {what}: nhc trace --task {} --domain {} --model {} {source} --steps {from}-{to} --words\n",
                r.task,
                r.domain,
                shell_word(&args.model)
            )
        };
        let input = |i: &serde_json::Value| format!("--input {}", shell_word(&i.to_string()));
        if let (Some(b), Some(i)) = (e.repeats.as_ref().and_then(|r| r.block.as_ref()), &e.trace_input) {
            let what = format!(
                "{} block, two periods at {} objects each presented {} times",
                b.phase, b.objects, b.repeats
            );
            out += &trace(what, input(i), b.from, b.to);
        }
        if let (Some(b), Some(i)) = (e.proof.as_ref().and_then(|p| p.pass_block()), &e.trace_input) {
            let what = format!("passes {}–{} (two periods) at {} objects", b.first, b.copies, b.objects);
            out += &trace(what, input(i), b.from, b.to);
        }
        if let Some((n, blocks)) = e.proof.as_ref().filter(|p| p.below.is_none()).and_then(|p| p.blocks()) {
            for nhc_tasks::every_length::Block { phase, from, to } in blocks {
                out += &trace(
                    format!("{phase} block, two periods at {n} objects"),
                    format!("--level {n}"),
                    from,
                    to,
                );
            }
        }
    }
    let every = match &r.every_length {
        Some(e) if e.proof.is_some() => ", every length proved".to_string(),
        Some(e) if let Some(p) = &e.repeats => {
            format!(", every number of repeats proved for 1–{} objects", p.objects)
        }
        _ => String::new(),
    };
    let _ = writeln!(out, "{}{every} in {:.1} s", r.outcome, r.seconds);
    out
}

/// The every-length proof in one line: proved (from which length, by which periods), or why not.
fn every_length_line(e: &EveryLength) -> String {
    match (&e.proof, &e.reason) {
        (Some(p), _) if let Some(b) = &p.below => {
            let below = match b.objects {
                0 => String::new(),
                1 => format!(", 1 object by a run of its own (its passes repeat within {} copies)", b.passes),
                k => format!(
                    ", 1–{k} objects each by a run of its own (their passes repeat within {} copies)",
                    b.passes
                ),
            };
            format!(
                "every number of objects and copies, proved: at least {} objects by a symbolic run ({}){below} ({:.2} s)",
                p.n0,
                p.summary(),
                e.seconds
            )
        }
        (Some(p), _) => format!(
            "every length, proved: every list of at least {} objects by a symbolic run ({}), the shorter ones listed above ({:.2} s)",
            p.n0,
            p.summary(),
            e.seconds
        ),
        (None, _) if let Some(p) = &e.repeats => format!(
            "every number of repeats, proved: every list of 1–{} objects each presented r times, every r (r ≥ {} by a symbolic run per number of objects, each smaller r by a run of its own), so every sample of levels 1–{}; other run-length sequences: the listing above ({:.2} s)",
            p.objects, p.r0, p.objects, e.seconds
        ),
        (None, Some(why)) => format!("every length, {}: {why}", e.outcome),
        (None, None) => format!("every length, {}", e.outcome),
    }
}

/// One part in one line: verified, sampled or wrong, with the range that is right, and what
/// the samples beyond the bound gave.
fn part_line(p: &PartReport) -> String {
    match &p.beyond {
        Some(b) => format!("{}; sampled beyond: {}", bound_line(p), beyond_line(b, &p.layer)),
        None => bound_line(p),
    }
}

/// The beyond stage in words: right on every sample, or the smallest size with a wrong one and
/// the wrong samples per size.
fn beyond_line(b: &Beyond, unit: &str) -> String {
    let (Some(first), Some(last)) = (b.sizes.first(), b.sizes.last()) else { return "no sizes".into() };
    let range = if first == last { format!("{first}") } else { format!("{first}–{last}") };
    let total: u64 = b.samples.iter().sum();
    let wrong: Vec<usize> = (0..b.sizes.len()).filter(|&k| b.failed[k] > 0).collect();
    let Some(&first_wrong) = wrong.first() else {
        return format!("right on {total} samples at {}", sized(&range, unit));
    };
    let shown: Vec<String> = wrong
        .iter()
        .take(4)
        .map(|&k| format!("{} of {} at {}", b.failed[k], b.samples[k], b.sizes[k]))
        .collect();
    let more = if wrong.len() > 4 { ", …" } else { "" };
    format!(
        "wrong first at {} ({}{more}; {} of {total} samples wrong at {})",
        sized(&b.sizes[first_wrong].to_string(), unit),
        shown.join(", "),
        b.wrong(),
        sized(&range, unit)
    )
}

/// A size or a range of sizes with its unit: "9–1000 objects", but "levels 2–1000", "level 5".
fn sized(range: &str, unit: &str) -> String {
    match unit {
        "levels" if range.contains('–') => format!("levels {range}"),
        "levels" => format!("level {range}"),
        _ => format!("{range} {unit}"),
    }
}

/// The line of the bounded part alone.
fn bound_line(p: &PartReport) -> String {
    let size = format!("{} inputs, {} steps", p.inputs, p.steps);
    let layer = &p.layer;
    match (p.failed, p.exhaustive) {
        (0, true) => format!("verified: every {} ({size})", p.what),
        (0, false) => format!("sampled, not a proof: {}, all right ({size})", p.what),
        (failed, exhaustive) => {
            let kind = if exhaustive { "every input" } else { "every sample" };
            let right = match p.right_to {
                0 => "none right".to_string(),
                k if p.axes[1].is_empty() || p.layer == p.axes[0] => {
                    format!("{kind} of {} right", sized(&format!("1–{k}"), layer))
                }
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
    let input_arg = match &c.input {
        serde_json::Value::String(s) if takes_text => s.clone(),
        input => input.to_string(),
    };
    let what = format!("smallest: {}", c.shape);
    run_of(c, &what, r, args, &format!("--input {}", shell_word(&input_arg)))
}

/// A wrong run (`what` it is): its input, answers, first wrong step, and the `nhc trace` command
/// (ending in `source`) that replays it.
fn run_of(c: &Counterexample, what: &str, r: &Report, args: &ModelArgs, source: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "    {what}: {}", clip(&c.input.to_string()));
    let (expected, output) = (c.expected.to_string(), c.output.to_string());
    let _ = writeln!(out, "    expected {}, got {}", clip(&expected), clip(&output));
    if let (Some(e), Some(o)) = (c.expected.as_array(), c.output.as_array()) {
        // Long answers alike in their first characters: where they part.
        if clip(&expected) == clip(&output) && e != o {
            let k = e.iter().zip(o).take_while(|(a, b)| a == b).count();
            let at = |v: &[serde_json::Value]| v.get(k).map_or("nothing".to_string(), ToString::to_string);
            let _ =
                writeln!(out, "    first difference at item {}: expected {}, got {}", k + 1, at(e), at(o));
        }
    }
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
    let _ = writeln!(
        out,
        "    replay: nhc trace --task {} --domain {} --model {} {source}",
        r.task,
        r.domain,
        shell_word(&args.model),
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

/// One `--up-to` bound: a whole number ≥ 0 (a negative one is named as such, not taken for a flag).
fn bound(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(b) => Ok(b),
        Err(_) if s.starts_with('-') && s[1..].bytes().all(|b| b.is_ascii_digit()) => {
            Err("a bound must be at least 0".into())
        }
        Err(_) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
            Err(format!("a bound is at most {}", u64::MAX))
        }
        Err(_) => Err(format!("`{s}` is not a bound (a whole number ≥ 0)")),
    }
}
