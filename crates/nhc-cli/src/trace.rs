//! `nhc trace`: what the model reads, writes and does, step by step, as a table, JSON lines or a
//! figure.

use crate::{Maps, ModelArgs, emit, user_input};
use anyhow::{Result, bail};
use nhc_tasks::any_task::TraceSource;
use std::path::PathBuf;

/// Where the traced sample comes from.
pub struct Source {
    pub level: Option<usize>,
    pub seed: u64,
    pub index: u64,
    pub input: Option<String>,
    pub maps: Maps,
}

/// How to show the trace.
pub struct Show {
    pub json: bool,
    pub words: bool,
    /// Only these steps, `A-B` or `A` ([`parse_steps`]).
    pub steps: Option<String>,
    pub figure: Option<PathBuf>,
}

/// `--steps A-B` or `A`: an inclusive range of steps, from 0.
pub fn parse_steps(s: &str) -> Result<(u64, u64)> {
    let number = |x: &str| -> Result<u64> {
        x.trim()
            .parse::<u64>()
            .map_err(|_| anyhow::anyhow!("--steps {s}: give steps as A-B or A, whole numbers from 0"))
    };
    let (a, b) = match s.split_once('-') {
        Some((a, b)) => (number(a)?, number(b)?),
        None => (number(s)?, number(s)?),
    };
    if a > b {
        bail!("--steps {s}: the first step is after the last");
    }
    Ok((a, b))
}

pub fn trace(args: &ModelArgs, from: Source, show: Show, yes: bool) -> Result<()> {
    let steps = show.steps.as_deref().map(parse_steps).transpose()?;
    let (task, model) = args.load()?;
    crate::long_work(task, &model, yes, 1);
    let source = match (from.level, user_input(task, from.input, from.maps)?) {
        (Some(level), _) => TraceSource::Level { level, seed: from.seed, index: from.index },
        (None, Some(input)) => TraceSource::Input(input),
        (None, None) => bail!("give --level, --input, or --start and --goal"),
    };
    let (rows, report) = task.trace(&model, &source)?;
    if let Some(path) = show.figure {
        let title = format!("{}: behaviour on one sample ({} steps)", task.name(), rows.len());
        crate::plots::behaviour(&rows, task.ops(), &title, &path)?;
    }
    let shown: Vec<_> = match steps {
        Some((a, b)) => {
            if a >= rows.len() as u64 {
                bail!(
                    "--steps {a}-{b}: the run has {} steps (0–{})",
                    rows.len(),
                    rows.len().saturating_sub(1)
                );
            }
            rows.iter().filter(|r| (a..=b).contains(&r.step)).cloned().collect()
        }
        None => rows,
    };
    print_trace(&shown, show.json, show.words, model.config(task.algorithm()).read_heads)?;
    if !show.json {
        let verdict = if report.correct { "correct" } else { "WRONG" };
        emit(&format!("answer: {}\n{verdict}\n", report.output))?;
    }
    Ok(())
}

fn print_trace(rows: &[nhc_tasks::trace::TraceRow], json: bool, words: bool, heads: usize) -> Result<()> {
    use std::fmt::Write as _;
    let mut text = String::new();
    if json {
        for r in rows {
            writeln!(text, "{}", serde_json::to_string(r)?)?;
        }
        return emit(&text);
    }
    write!(text, "{:>6}  {:<8} {:>6}", "step", "phase", "write")?;
    for j in 1..=heads {
        write!(text, "  {:>4} {:>6} {:<8}", format!("m{j}"), format!("r{j}"), format!("data{j}"))?;
    }
    write!(text, "  op  score  gates   ")?;
    if words {
        write!(text, "  written v / read c_m per head")?;
    }
    writeln!(text)?;
    for r in rows {
        let written: Vec<String> = r.written.iter().map(|w| w.to_string()).collect();
        write!(text, "{:>6}  {:<8} {:>6}", r.step, r.phase, written.join(","))?;
        for (mode, loc, data) in &r.reads {
            write!(text, "  {mode:>4} {loc:>6} {data:<8}")?;
        }
        let score = match r.correct {
            Some(true) => "ok",
            Some(false) => "WRONG",
            None => "",
        };
        write!(text, "  {:<3} {score:<6} {:<8}", r.op, gates(&r.control))?;
        if words {
            let all = r.control.written.iter().chain(&r.control.read);
            write!(text, "  {}", all.map(|w| show_word(w)).collect::<Vec<_>>().join(" / "))?;
        }
        if r.correct == Some(false) {
            write!(text, "  expected: {}", expected(r))?;
        }
        writeln!(text)?;
    }
    text += LEGEND;
    emit(&text)
}

/// What the expected trace wanted at a step: the operation and the words that matter, e.g.
/// `O data1=010110`.
fn expected(r: &nhc_tasks::trace::TraceRow) -> String {
    let reads = r
        .expected_reads
        .iter()
        .enumerate()
        .filter_map(|(j, d)| Some(format!("data{}={}", j + 1, d.as_ref()?)));
    std::iter::once(r.expected_op.unwrap_or("(no step)").to_string())
        .chain(reads)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The columns of the table (docs/DESIGN.md, "One step").
const LEGEND: &str = "\
columns: write = locations written; m<j> = read mode of read head j, r<j> = the location it read, data<j> = the data there;
  H<k> = halt on read head k's last location, F<i>/B<i> = forward/backward along write head i's temporal links,
  P<i>/C<i> = parent/child along write head i's ancestry links (DNC+is+ha: the mode its read weighting picked);
  <mode>:empty = the mode had no target and read the zero word (missing_link = \"empty\");
  op = the ALU operation; score = the step against the expected trace (blank: not scored; a WRONG
  step ends with what the trace expected);
  gates: u<j> = previous update of read head j's last location, fw = write freed, fr<j> = read of head j freed
";

/// `u1` = previous update by read head 1, `fw` = write freed, `fr1` = read of head 1 freed.
fn gates(c: &nhc_tasks::trace::ControlRow) -> String {
    let mut g = Vec::new();
    for (j, u) in c.updates.iter().enumerate() {
        if u.is_some() {
            g.push(format!("u{}", j + 1));
        }
    }
    if c.free_write.iter().any(|f| *f) {
        g.push("fw".to_string());
    }
    for (j, f) in c.free_read.iter().enumerate() {
        if *f {
            g.push(format!("fr{}", j + 1));
        }
    }
    g.join(",")
}

fn show_word(w: &[f32]) -> String {
    let parts: Vec<String> = w.iter().map(|x| format!("{x:+.2}")).collect();
    format!("[{}]", parts.join(" "))
}
