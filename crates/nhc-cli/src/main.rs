//! `nhc`: evaluate, run, trace and benchmark Neural Harvard Computer models.

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use nhc_model::Params;
use nhc_tasks::registry::{AnyTask, TraceSource};
use nhc_tasks::search_plan::MAP_TASKS;
use nhc_tasks::{Model, find};
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

mod plots;
mod report;
mod sweep;
mod train;

#[derive(Parser)]
#[command(name = "nhc", version, about = "The Neural Harvard Computer: learned algorithms that generalize")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate a model on fresh samples of one level.
    Eval {
        #[arg(long)]
        task: String,
        /// A model file, or `scripted` for the task's hand-written solution.
        #[arg(long)]
        model: String,
        #[arg(long)]
        level: usize,
        #[arg(long, default_value_t = 50)]
        samples: usize,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Apply a model to your own input (JSON) and print its answer.
    Run {
        #[arg(long)]
        task: String,
        #[arg(long)]
        model: String,
        /// The input as JSON, or @FILE to read it from a file.
        #[arg(long, required_unless_present = "start", conflicts_with = "start")]
        input: Option<String>,
        #[command(flatten)]
        maps: Maps,
        #[arg(long)]
        json: bool,
    },
    /// Show, step by step, what the model writes, reads and does.
    Trace {
        #[arg(long)]
        task: String,
        #[arg(long)]
        model: String,
        /// Trace a random sample of this level...
        #[arg(long, conflicts_with_all = ["input", "start"], required_unless_present_any = ["input", "start"])]
        level: Option<usize>,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Which sample of that level and seed: the same index as in `nhc eval`'s `failed` list.
        #[arg(long, default_value_t = 0, requires = "level")]
        index: u64,
        /// ...or your own input (JSON, or @FILE)...
        #[arg(long, conflicts_with = "start")]
        input: Option<String>,
        // ...or, for search and plan tasks, two map files (`--start`, `--goal`).
        #[command(flatten)]
        maps: Maps,
        /// Print JSON lines instead of a table.
        #[arg(long)]
        json: bool,
        /// Add the control words written (v) and read (c_m) to the table.
        #[arg(long)]
        words: bool,
        /// Also draw the behaviour (locations written and read, read modes, ops) to this
        /// file, .svg or .png (`--svg` is the same flag).
        #[arg(long, alias = "svg")]
        figure: Option<std::path::PathBuf>,
    },
    /// Train a task's algorithmic modules from scratch with NES on the curriculum.
    Train {
        #[arg(long, required_unless_present = "resume")]
        task: Option<String>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Run directory: checkpoint, metrics, model and summary go here.
        #[arg(long, required_unless_present = "resume")]
        out: Option<std::path::PathBuf>,
        /// Hyperparameters (TOML); fields left out keep the paper's values.
        #[arg(long)]
        config: Option<std::path::PathBuf>,
        /// Override the iteration cap.
        #[arg(long)]
        max_iterations: Option<u64>,
        /// Continue the interrupted run in this directory.
        #[arg(long, conflicts_with_all = ["task", "out", "config", "max_iterations"])]
        resume: Option<std::path::PathBuf>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Train every run of some tasks (seeds 1..=runs, several at a time, resumable) and
    /// evaluate each at the test levels; writes DIR/sweep.jsonl.
    Sweep {
        /// Task names, comma-separated, or `all`.
        #[arg(long, value_delimiter = ',', required = true)]
        tasks: Vec<String>,
        #[arg(long, default_value_t = 15)]
        runs: u64,
        #[arg(long)]
        out: std::path::PathBuf,
        /// Runs trained at the same time (default: the number of cores).
        #[arg(long)]
        jobs: Option<usize>,
        /// Test levels, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "10,100,500,1000")]
        levels: Vec<usize>,
        /// Samples per test level.
        #[arg(long, default_value_t = 50)]
        samples: usize,
        /// Hyperparameters (TOML) for every run.
        #[arg(long)]
        config: Option<std::path::PathBuf>,
    },
    /// The paper's Table 1 rows (ours beside the paper's) from a sweep directory, as Markdown;
    /// also written to DIR/report.md.
    Report { dir: std::path::PathBuf },
    /// Measure model steps per second (learned modules on random θ, and the scripted solution).
    Bench {
        /// Tasks to measure (default: all).
        #[arg(long, value_delimiter = ',')]
        tasks: Vec<String>,
        #[arg(long, default_value_t = 1000)]
        level: usize,
        /// Repetitions per measurement; the fastest is reported.
        #[arg(long, default_value_t = 3)]
        repeat: usize,
        /// Measure training throughput instead: iterations per second of a fresh run (seed 1,
        /// default config) placed at each curriculum level 1–10 in turn.
        #[arg(long)]
        train: bool,
        /// Iterations timed per level with `--train`.
        #[arg(long, default_value_t = 10)]
        iterations: u64,
    },
}

fn main() {
    if let Err(e) = real_main() {
        // Print the chain of causes, skipping those a message already quotes.
        let mut text = e.to_string();
        for cause in e.chain().skip(1) {
            let c = cause.to_string();
            if !text.contains(&c) {
                text = format!("{text}: {c}");
            }
        }
        eprintln!("error: {text}");
        std::process::exit(1);
    }
}

fn real_main() -> Result<()> {
    match Cli::parse().command {
        Command::Eval { task, model, level, samples, seed, json } => {
            let task = find(&task)?;
            let model = Model::from_arg(&model, task)?;
            let r = task.evaluate(&model, level, samples, seed)?;
            if json {
                println!("{}", serde_json::to_string(&r)?);
            } else {
                println!(
                    "{} level {}: solved {}/{} samples ({:.1} %), {} steps, mean fitness {:.4}, {:.2} s",
                    r.task,
                    r.level,
                    r.solved,
                    r.samples,
                    100.0 * r.solved as f64 / r.samples as f64,
                    r.steps,
                    r.mean_fitness,
                    r.seconds
                );
                if !r.failed.is_empty() {
                    let shown: Vec<String> = r.failed.iter().take(10).map(u64::to_string).collect();
                    let more = if r.failed.len() > 10 { ", …" } else { "" };
                    println!(
                        "unsolved samples: {}{more} (see one: nhc trace --task {} --model … --level {} --seed {} --index I)",
                        shown.join(", "),
                        r.task,
                        r.level,
                        r.seed
                    );
                }
            }
        }
        Command::Run { task, model, input, maps, json } => {
            let task = find(&task)?;
            let model = Model::from_arg(&model, task)?;
            let input = user_input(task, input, maps)?.context("give --input, or --start and --goal")?;
            let r = task.run(&model, &input)?;
            if json {
                println!(
                    "{}",
                    json!({ "output": r.output, "expected": r.expected, "correct": r.correct, "steps": r.steps })
                );
            } else {
                println!("{}", r.text.trim_end());
                if !r.correct {
                    eprintln!("note: the model's answer differs from the reference answer {}", r.expected);
                }
            }
        }
        Command::Trace { task, model, level, seed, index, input, maps, json, words, figure } => {
            let task = find(&task)?;
            let model = Model::from_arg(&model, task)?;
            let source = match (level, user_input(task, input, maps)?) {
                (Some(level), _) => TraceSource::Level { level, seed, index },
                (None, Some(input)) => TraceSource::Input(input),
                (None, None) => bail!("give --level, --input, or --start and --goal"),
            };
            let (rows, report) = task.trace(&model, &source)?;
            if let Some(path) = figure {
                let title = format!("{}: behaviour on one sample ({} steps)", task.name(), rows.len());
                plots::behaviour(&rows, task.ops(), &title, &path)?;
            }
            print_trace(task, &rows, json, words)?;
            if !json {
                let verdict = if report.correct { "correct" } else { "WRONG" };
                emit(&format!("answer: {}\n{verdict}\n", report.output))?;
            }
        }
        Command::Train { task, seed, out, config, max_iterations, resume, quiet } => match resume {
            Some(dir) => train::resume(&dir, quiet)?,
            None => {
                let mut cfg = train::config_or_default(config.as_deref())?;
                if let Some(m) = max_iterations {
                    cfg.max_iterations = m;
                }
                let (Some(task), Some(out)) = (task, out) else {
                    bail!("give --task and --out, or --resume DIR")
                };
                find(&task)?;
                train::start(train::NewRun { task, seed, out, config: cfg }, quiet)?
            }
        },
        Command::Sweep { tasks, runs, out, jobs, levels, samples, config } => {
            let config = train::config_or_default(config.as_deref())?;
            let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            sweep::run(sweep::Sweep {
                tasks,
                runs,
                out,
                jobs,
                levels,
                samples,
                eval_seed: sweep::EVAL_SEED,
                config,
            })?
        }
        Command::Report { dir } => print!("{}", report::report(&dir)?),
        Command::Bench { tasks, train: true, iterations, .. } => train::throughput(&tasks, iterations)?,
        Command::Bench { tasks, level, repeat, .. } => bench(&tasks, level, repeat.max(1))?,
    }
    Ok(())
}

/// JSON from the argument, or from a file when it starts with `@`.
fn read_json(arg: &str) -> Result<Value> {
    let text = match arg.strip_prefix('@') {
        Some(path) => {
            std::fs::read_to_string(path).with_context(|| format!("cannot read input file {path}"))?
        }
        None => arg.to_string(),
    };
    serde_json::from_str(&text).with_context(|| format!("the input is not valid JSON: {text}"))
}

/// The two worlds of a search or plan problem as text map files, one row per line.
#[derive(clap::Args, Debug)]
struct Maps {
    /// search and plan tasks: the start world, a text map file.
    #[arg(long, requires = "goal")]
    start: Option<PathBuf>,
    /// search and plan tasks: the goal world, a text map file.
    #[arg(long, requires = "start")]
    goal: Option<PathBuf>,
}

/// A user's input from `--input` (JSON or @FILE) or from `--start` and `--goal`; `None` if
/// neither was given.
fn user_input(task: &dyn AnyTask, input: Option<String>, maps: Maps) -> Result<Option<Value>> {
    Ok(match (input, maps.start, maps.goal) {
        (Some(input), _, _) => Some(read_json(&input)?),
        (None, Some(start), Some(goal)) => Some(read_maps(task, &start, &goal)?),
        _ => None,
    })
}

/// `{"start": [rows], "goal": [rows]}` from two text map files, for the tasks that take maps.
fn read_maps(task: &dyn AnyTask, start: &Path, goal: &Path) -> Result<Value> {
    if !MAP_TASKS.contains(&task.name()) {
        bail!("--start and --goal are for {}; task `{}` takes --input", MAP_TASKS.join(", "), task.name());
    }
    let rows = |path: &Path| -> Result<Vec<String>> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read map file {}", path.display()))?;
        let mut rows: Vec<String> = text.lines().map(str::to_string).collect();
        while rows.last().is_some_and(|r| r.trim().is_empty()) {
            rows.pop();
        }
        Ok(rows)
    };
    Ok(json!({ "start": rows(start)?, "goal": rows(goal)? }))
}

fn print_trace(
    task: &dyn AnyTask,
    rows: &[nhc_tasks::registry::TraceRow],
    json: bool,
    words: bool,
) -> Result<()> {
    use std::fmt::Write as _;
    let mut text = String::new();
    if json {
        for r in rows {
            writeln!(text, "{}", serde_json::to_string(r)?)?;
        }
        return emit(&text);
    }
    let heads = task.config().read_heads;
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
        writeln!(text)?;
    }
    emit(&text)
}

/// Writes to stdout; a reader that stops early (`nhc trace … | head`) is not an error.
fn emit(text: &str) -> Result<()> {
    use std::io::Write as _;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

/// `u1` = previous update by read head 1, `fw` = write freed, `fr1` = read of head 1 freed.
fn gates(c: &nhc_tasks::registry::ControlRow) -> String {
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

/// Steps per second of the learned path (random θ) and the scripted path, one level-`level`
/// sample each, fastest of `repeat`.
fn bench(tasks: &[String], level: usize, repeat: usize) -> Result<()> {
    let tasks: Vec<&dyn AnyTask> = if tasks.is_empty() {
        nhc_tasks::registry::all().to_vec()
    } else {
        tasks.iter().map(|t| find(t)).collect::<Result<_, _>>()?
    };
    println!("| task | path | level | steps | seconds | steps/s | ns/step |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    for task in tasks {
        let config = task.config();
        let len = nhc_model::Layout::new(&config).len();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let theta: Vec<f32> = (0..len).map(|_| rng.random_range(-1.0f32..1.0)).collect();
        let learned = Model::Learned(Box::new(Params::new(config, theta)?));
        for (path, model, cap) in
            [("learned, random θ", &learned, 2_000_000u64), ("scripted", &Model::Scripted, u64::MAX)]
        {
            let mut best: Option<(u64, f64)> = None;
            for _ in 0..repeat {
                let (steps, secs) = task.time_sample(model, level, 1, cap)?;
                if best.is_none_or(|(_, b)| secs < b) {
                    best = Some((steps, secs));
                }
            }
            let (steps, secs) = best.unwrap_or((0, 0.0));
            println!(
                "| {} | {path} | {level} | {steps} | {secs:.4} | {:.3e} | {:.1} |",
                task.name(),
                steps as f64 / secs,
                1e9 * secs / steps as f64
            );
        }
    }
    Ok(())
}
