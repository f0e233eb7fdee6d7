//! `nhc`: train, evaluate, run, trace and benchmark Neural Harvard Computer models. One module
//! per subcommand; this file holds the command line and what the subcommands share.

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use nhc_model::Variant;
use nhc_tasks::Model;
use nhc_tasks::{any_task::AnyTask, registry::find_in};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// A diagnostic line on stderr. A write that fails (stderr closed, or on a full device) is
/// ignored: reporting must never end the process (`eprintln!` panics then).
macro_rules! diag {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod bench;
mod cluster;
mod comparison;
mod data_modules;
mod dnc;
mod dnc_report;
mod eval;
mod interrupt;
mod plots;
mod programs;
mod progress;
mod report;
mod run;
mod strict_json;
mod sweep;
mod tasks;
mod trace;
mod train;
mod transfer;
mod verify;

#[derive(Parser)]
#[command(
    name = "nhc",
    version,
    about = "The Neural Harvard Computer: learned algorithms that generalize",
    after_help = EXIT_CODES
)]
struct Cli {
    /// Memory a run may take, e.g. 8G or 512M (default: half the machine's memory). Runs that
    /// would need more are refused before they start; evaluations run fewer samples at a time.
    #[arg(long, global = true, value_parser = parse_memory)]
    max_memory: Option<u64>,
    /// Start work estimated to take more than an hour at the speed measured here (`verify`,
    /// `eval`, `run`, `trace`, `train` ask for it; without it such work is refused with its
    /// estimate). Work of 5 s or more is announced either way, with a progress bar on a terminal.
    #[arg(long, global = true)]
    yes: bool,
    #[command(subcommand)]
    command: Command,
}

/// Exit codes, as `nhc --help` prints them.
const EXIT_CODES: &str = "Exit codes: 0 success; 1 error (bad input, a file that cannot be read \
or written, a run that does not fit the memory limit, ...); 2 bad command-line arguments; 3 `nhc \
run`: the model's answer differs from the reference answer (the answer is still printed), `nhc \
verify`: a counterexample was found; 4 `nhc train`: the run spent its budget without finishing \
the curriculum (it did not learn; the model file is written all the same); 5 `nhc verify`: right \
on every input within the bound, wrong on a sample beyond it; 130 \
stopped by Ctrl-C (`nhc train`, `nhc sweep`: resumable, the message says how); 141 the reader \
of the output went away (broken pipe).";

/// Exit codes, as `nhc train --help` prints them.
const TRAIN_EXIT_CODES: &str = "Exit codes: 0 the run learned (it solved every level of the \
curriculum, the mixed one last); 4 it did not: it spent its budget (--max-iterations) first, and \
model.json holds its last θ, which is not expected to solve the task (`nhc eval` and the other \
commands that load it warn); 1 error; 2 bad arguments; 130 stopped by Ctrl-C (resumable with \
--resume).";

/// Exit codes, as `nhc verify --help` prints them.
const VERIFY_EXIT_CODES: &str = "Exit codes: 0 verified (or right on every sample of a sampled \
part), and right on every sample beyond the bounds; 3 a counterexample within a bound (outcome \
`counterexample`); 5 right within the bounds, wrong on a sample beyond them (outcome `verified, \
wrong beyond` or `sampled, wrong beyond`); 1 error (a bound or --beyond too costly, memory, ...); \
2 bad arguments.";

/// Exit code of `nhc run` when the model's answer is not the reference answer.
pub const EXIT_WRONG_ANSWER: i32 = 3;
/// Exit code of `nhc verify` when every input within the bounds is right and a sample beyond
/// them is wrong.
pub const EXIT_WRONG_BEYOND: i32 = 5;
/// Exit code when stdout is closed early (128 + SIGPIPE, as a shell reports a killed writer).
pub const EXIT_BROKEN_PIPE: i32 = 141;

/// A level as typed (`--level`, `--levels`): an integer, negative ones included, so that every
/// level below 1 gets the message level 0 gets ([`nhc_tasks::TaskError::Level`]) where the
/// argument parser would call `-3` an unexpected argument. Level 0 and levels beyond a task's
/// largest are refused by the task.
fn level(typed: i128) -> Result<usize> {
    if typed < 0 {
        bail!("level must be at least 1, got {typed}");
    }
    Ok(usize::try_from(typed).unwrap_or(usize::MAX))
}

fn parse_memory(s: &str) -> Result<u64, String> {
    nhc_io::limits::parse_memory(s).map_err(|e| e.to_string())
}

/// A count that must be at least 1 (a count of 0 would measure nothing).
fn at_least_one(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{s}` is not a count (a whole number from 1)")),
    }
}

/// Which task, on which domain, with which model.
#[derive(clap::Args, Debug)]
struct ModelArgs {
    /// The task: search, plan, search+, plan+, addition, sort, arithmetic, copy, repeatCopy,
    /// reverse or duplicated (`nhc tasks` lists them with their domains).
    #[arg(long)]
    task: String,
    /// The data domain (default: the task's training domain). A model runs on any domain of
    /// its algorithm.
    #[arg(long)]
    domain: Option<String>,
    /// A model file, or `scripted` for the algorithm's hand-written solution.
    #[arg(long)]
    model: String,
    #[arg(long, help = variant_help(" (default: the model file's)"))]
    variant: Option<Variant>,
    /// Run search and plan on learned data modules (a directory of `nhc data-modules train`);
    /// the world is the one they were trained on.
    #[arg(long)]
    data_modules: Option<PathBuf>,
}

/// A warning on stderr when the model file is the last θ of a run that did not learn.
fn warn_unfinished(path: &Path) {
    if nhc_tasks::ModelFile::read(path).is_ok_and(|f| f.did_not_learn()) {
        diag!(
            "warning: {} is the last θ of a run that did not learn (it spent its budget before finishing the \
             curriculum: meta.outcome is \"cap\"); it is not expected to solve the task",
            path.display()
        );
    }
}

/// `--variant`'s help: every variant's name, from `Variant::ALL`.
fn variant_help(extra: &str) -> String {
    format!("The model variant: {}{extra}", Variant::names().join(", "))
}

impl ModelArgs {
    /// The task and the loaded model.
    fn load(&self) -> Result<(&'static dyn AnyTask, Model)> {
        let task = match &self.data_modules {
            None => find_in(&self.task, self.domain.as_deref())?,
            Some(dir) => {
                let nets = nhc_tasks::search_plan::learned::DataNets::load(dir)?;
                if let Some(d) = self.domain.as_deref().filter(|d| *d != nets.meta.world) {
                    bail!(
                        "--domain {d}: the data modules in {} were trained on {}",
                        dir.display(),
                        nets.meta.world
                    );
                }
                let task = nhc_tasks::search_plan::learned::with_data_modules(
                    &self.task,
                    std::sync::Arc::new(nets),
                )?;
                // One task per process, for the lifetime the registry's tasks have.
                &*Box::leak(task)
            }
        };
        let model = Model::from_arg(&self.model, task, self.variant)?;
        if let Model::Learned(_) = model {
            warn_unfinished(Path::new(&self.model));
        }
        Ok((task, model))
    }
}

/// Which fresh samples an evaluation draws (MODEL §8).
#[derive(clap::Args, Debug)]
struct Draw {
    /// Samples per level.
    #[arg(long, default_value_t = 50)]
    samples: usize,
    /// Seed of the samples (sample i of level L is the same for every model).
    ///
    /// Sample i of level L under seed S is drawn from a generator seeded from (S, L, i). Training
    /// never draws its samples that way: it seeds each one's generator with a fresh 64-bit number
    /// from the run's own generator (itself seeded by `nhc train --seed`), so every --seed, the
    /// default 0 included, gives test samples; a training sample has an evaluation sample's
    /// generator only by a 2^-64 chance, though at the small training levels a sample with the
    /// same content may come up. Training draws levels 1–10 (the curriculum's L; its level 11
    /// mixes them) and, with a generalization check, levels up to its check_level (the recipe's:
    /// 30). The reported results (`nhc sweep`, Table 1, the tutorial) test with seed 1000 at
    /// levels 10, 100, 500 and 1000.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate a model on fresh samples of one level.
    Eval {
        #[command(flatten)]
        model: ModelArgs,
        #[arg(long, allow_negative_numbers = true)]
        level: i128,
        #[command(flatten)]
        draw: Draw,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Apply a model to your own input (JSON) and print its answer.
    Run {
        #[command(flatten)]
        model: ModelArgs,
        /// The input as JSON, or @FILE to read it from a file (arithmetic also takes a bare
        /// expression: --input '5 6 * 3 +').
        #[arg(long, required_unless_present = "start", conflicts_with = "start", allow_hyphen_values = true)]
        input: Option<String>,
        #[command(flatten)]
        maps: Maps,
        #[arg(long)]
        json: bool,
    },
    /// Run a model on every control-distinct input up to a bound: verified, or the smallest
    /// counterexample with the first wrong step and the `nhc trace` command that replays it;
    /// then samples beyond the bound up to --beyond (docs/VERIFICATION.md, "Verification"). Exit code
    /// 3 on a counterexample, 5 on a wrong sample beyond the bound.
    #[command(after_help = VERIFY_EXIT_CODES)]
    Verify(verify::Args),
    /// Show, step by step, what the model writes, reads and does.
    Trace {
        #[command(flatten)]
        model: ModelArgs,
        /// Trace a random sample of this level...
        #[arg(
            long,
            allow_negative_numbers = true,
            conflicts_with_all = ["input", "start"],
            required_unless_present_any = ["input", "start"]
        )]
        level: Option<i128>,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Which sample of that level and seed: the same index as in `nhc eval`'s `failed` list.
        #[arg(long, default_value_t = 0, requires = "level")]
        index: u64,
        /// ...or your own input (JSON, or @FILE)...
        #[arg(long, conflicts_with = "start", allow_hyphen_values = true)]
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
        /// Show only these steps, `A-B` or `A` (from 0; e.g. the repeating block `nhc verify
        /// --every-length` names). The verdict is the whole run's.
        #[arg(long)]
        steps: Option<String>,
        /// Also draw the behaviour (locations written and read, read modes, ops) to this
        /// file, .svg or .png (`--svg` is the same flag).
        #[arg(long, alias = "svg")]
        figure: Option<PathBuf>,
    },
    /// Train a task's algorithmic modules from scratch with NES on the curriculum; ends with one
    /// sentence: what it learned, in how many learning iterations, and where the model is. Ctrl-C
    /// stops the run after its current iteration, at a checkpoint, and prints the command that
    /// resumes it (`--resume DIR`).
    #[command(after_help = TRAIN_EXIT_CODES)]
    Train {
        /// The task: search, plan, search+, plan+, addition, sort, arithmetic, copy, repeatCopy,
        /// reverse or duplicated (`nhc tasks` lists them with their domains).
        #[arg(long, required_unless_present = "resume")]
        task: Option<String>,
        /// The data domain it learns on (default: the task's training domain; `nhc tasks` lists
        /// them).
        #[arg(long)]
        domain: Option<String>,
        #[arg(long, default_value = "nhc", help = variant_help(""))]
        variant: Variant,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Run directory: checkpoint, metrics, model and summary go here.
        #[arg(long, required_unless_present = "resume")]
        out: Option<PathBuf>,
        /// Hyperparameters (TOML, `[tasks.NAME]` tables for single tasks); fields left out keep
        /// the paper's values.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Train with the recipe (ours, beyond the paper: configs/recipe.toml) instead of the
        /// paper's protocol.
        #[arg(long, conflicts_with = "config")]
        recipe: bool,
        /// Override the iteration cap.
        #[arg(long)]
        max_iterations: Option<u64>,
        /// Continue the interrupted run in this directory (its task, variant, seed and config
        /// are the checkpoint's).
        #[arg(long, conflicts_with_all = ["task", "domain", "variant", "seed", "out", "config", "recipe", "max_iterations"])]
        resume: Option<PathBuf>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// Print the run's summary (summary.json, one JSON line) instead of the sentence.
        #[arg(long)]
        json: bool,
    },
    /// Train every run of some tasks (one per seed of a range, several at a time, resumable) and
    /// evaluate each at the test levels; writes DIR/sweep.jsonl. Ctrl-C stops every run at a
    /// checkpoint; the same command again resumes the sweep.
    Sweep {
        /// Task names, comma-separated, or `all`.
        #[arg(long, value_delimiter = ',', required = true)]
        tasks: Vec<String>,
        #[arg(long, default_value = "nhc", help = variant_help(""))]
        variant: Variant,
        /// Runs per task, seeds 1 to RUNS: the same as --seeds 1-RUNS [default: 15].
        #[arg(long)]
        runs: Option<u64>,
        /// The seeds of each task's runs, FIRST-LAST (e.g. 101-115) or one seed (e.g. 7), in
        /// place of --runs.
        #[arg(long, allow_hyphen_values = true)]
        seeds: Option<String>,
        #[arg(long)]
        out: PathBuf,
        /// Runs trained at the same time (default: the number of cores).
        #[arg(long)]
        jobs: Option<usize>,
        /// Test levels, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "10,100,500,1000", allow_hyphen_values = true)]
        levels: Vec<i128>,
        /// Samples per test level.
        #[arg(long, default_value_t = 50)]
        samples: usize,
        /// Hyperparameters (TOML, `[tasks.NAME]` tables for single tasks) for every run.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Train with the recipe (ours, beyond the paper: configs/recipe.toml) instead of the
        /// paper's protocol.
        #[arg(long, conflicts_with = "config")]
        recipe: bool,
    },
    /// Run a learned model, θ unchanged, on every other domain of its algorithm: the training
    /// levels 1–11, then levels 100 and 1000 (or the domain's largest level); one table.
    Transfer {
        /// A task name, or `all` (then --model is a directory holding TASK.json per task).
        #[arg(long)]
        task: String,
        /// A model file (a directory with `--task all`).
        #[arg(long)]
        model: PathBuf,
        #[command(flatten)]
        draw: Draw,
        /// Print one JSON object per domain and level (`nhc eval --json`'s) instead of the table.
        #[arg(long)]
        json: bool,
        /// Run search and plan on learned data modules (a directory of `nhc data-modules
        /// train`) instead of on the other domains.
        #[arg(long)]
        data_modules: Option<PathBuf>,
    },
    /// Search every table program (each view of the Controller → one decision, control words
    /// from a small alphabet) for one that solves a task's samples: whether the model's memory
    /// admits a solution at all, under a variant and a training config's memory reading.
    Programs(programs::Args),
    /// List the tasks: their domains, ALU operations and θ sizes under each model variant.
    Tasks {
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// The paper's Table 1 rows (ours beside the paper's) from a sweep directory, as Markdown;
    /// also written to DIR/report.md. With several sweeps (e.g. one per model variant, and a row
    /// of `nhc dnc row`) and `--out FILE`: Table 1 with every model's rows and the learning-curve
    /// comparison.
    Report {
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Where the comparison of several sweeps goes (Markdown; figures beside it).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Measure model steps per second on one sample per task and path (the learned modules and
    /// DNC+is+ha, each on a random θ, and the scripted solution), or with `--train` training
    /// iterations per second. Bare `nhc bench` is a short run, one task per algorithm family (a
    /// few seconds); `--tasks all` measures every task (minutes).
    Bench {
        /// Tasks to measure, comma-separated, or `all` (every task and domain; with `--train`, the
        /// paper's eleven tasks). Default: one task per algorithm family, copy, sort, addition,
        /// arithmetic and search.
        #[arg(long, value_delimiter = ',')]
        tasks: Vec<String>,
        /// The level of the sample measured (not with `--train`, which measures levels 1–10).
        #[arg(long, default_value_t = 1000, allow_negative_numbers = true, conflicts_with = "train")]
        level: i128,
        /// Repetitions per measurement; the fastest is reported (default 3; with `--train`, only
        /// with `--declared`).
        #[arg(long, value_parser = at_least_one)]
        repeat: Option<u64>,
        /// Measure training throughput instead: iterations per second of a fresh run (seed 1,
        /// default config) placed at each curriculum level 1–10 in turn.
        #[arg(long)]
        train: bool,
        /// Iterations timed per level with `--train`.
        #[arg(long, default_value_t = 10, requires = "train", value_parser = at_least_one)]
        iterations: u64,
        /// With `--train`: copy and sort declared as one's own algorithms
        /// (nhc_tasks::declared::examples) against the built-ins, alternating, `--repeat` times
        /// each (the fastest counts); prints the ratio of their times.
        #[arg(long, requires = "train")]
        declared: bool,
    },
    /// The DNC trained by backpropagation, the baseline of Table 1 (needs a build with
    /// `--features dnc`).
    #[command(subcommand)]
    Dnc(dnc::DncCommand),
    /// Data modules learned in a supervised way (search and plan; needs a build with
    /// `--features data-modules`).
    #[command(subcommand, name = "data-modules")]
    DataModules(data_modules::DataModulesCommand),
}

fn main() {
    let failed = {
        // An MPI job's environment, finalized at the end of this block (before any exit).
        let _mpi = cluster::start();
        let result = real_main();
        progress::end();
        result.err().map(|e| {
            // A run stopped by Ctrl-C is no error: its message says how to resume.
            if let Some(stopped) = e.downcast_ref::<interrupt::Interrupted>() {
                diag!("{stopped}");
                return interrupt::EXIT_INTERRUPTED;
            }
            // Nor is a run that did not learn: its sentence is printed.
            if e.downcast_ref::<train::DidNotLearn>().is_some() {
                return train::EXIT_DID_NOT_LEARN;
            }
            // Print the chain of causes, skipping those a message already quotes.
            let mut text = e.to_string();
            for cause in e.chain().skip(1) {
                let c = cause.to_string();
                if !text.contains(&c) {
                    text = format!("{text}: {c}");
                }
            }
            diag!("error: {text}");
            1
        })
    };
    if let Some(code) = failed {
        std::process::exit(code);
    }
}

fn real_main() -> Result<()> {
    let cli = Cli::parse();
    if stdout_was_closed() {
        bail!(
            "standard output is closed (`>&-`), so the result would be lost; send it to /dev/null \
             (`>/dev/null`) to discard it"
        );
    }
    if let Some(bytes) = cli.max_memory {
        nhc_io::limits::set_memory_limit(bytes);
    }
    match cli.command {
        Command::Eval { model, level: typed, draw, json } => {
            eval::eval(&model, level(typed)?, draw.samples, draw.seed, json, cli.yes)
        }
        Command::Run { model, input, maps, json } => run::run(&model, input, maps, json, cli.yes),
        Command::Verify(args) => verify::verify(args, cli.yes),
        Command::Trace { model, level: typed, seed, index, input, maps, json, words, steps, figure } => {
            let source = trace::Source { level: typed.map(level).transpose()?, seed, index, input, maps };
            trace::trace(&model, source, trace::Show { json, words, steps, figure }, cli.yes)
        }
        Command::Train {
            task,
            domain,
            variant,
            seed,
            out,
            config,
            recipe,
            max_iterations,
            resume,
            quiet,
            json,
        } => {
            let show = train::Show { quiet, json };
            match resume {
                Some(dir) => train::resume(&dir, show, cli.yes),
                None => {
                    let configs = train::configs(config.as_deref(), recipe, max_iterations)?;
                    let (Some(task), Some(out)) = (task, out) else {
                        bail!("give --task and --out, or --resume DIR")
                    };
                    let task = nhc_tasks::registry::find_in(&task, domain.as_deref())?;
                    let config = configs.get(task.name()).clone();
                    train::start(train::NewRun { task, variant, seed, out, config }, show, cli.yes)
                }
            }
        }
        Command::Sweep { tasks, variant, runs, seeds, out, jobs, levels, samples, config, recipe } => {
            let seeds = sweep::seeds(runs, seeds.as_deref())?;
            let config = train::configs(config.as_deref(), recipe, None)?;
            let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            let eval_seed = nhc_train::sweep::EVAL_SEED;
            let levels = levels.into_iter().map(level).collect::<Result<_>>()?;
            sweep::run(nhc_train::SweepSpec {
                tasks,
                variant,
                seeds,
                out,
                jobs,
                levels,
                samples,
                eval_seed,
                config,
            })
        }
        Command::Transfer { task, model, draw, json, data_modules } => {
            transfer::transfer(&transfer::Transfer {
                task,
                model,
                samples: draw.samples,
                seed: draw.seed,
                json,
                data_modules,
            })
        }
        Command::Tasks { json } => tasks::tasks(json),
        Command::Programs(args) => programs::run(&args),
        Command::Report { dirs, out: None } if dirs.len() == 1 => {
            let (dnc, _) = comparison::split_dnc(&dirs);
            emit(&if dnc.is_empty() { report::report(&dirs[0])? } else { dnc_report::report(&dirs[0])? })
        }
        Command::Report { dirs, out: Some(out) } => emit(&comparison::comparison(&dirs, &out)?),
        Command::Report { .. } => bail!("give --out FILE to compare several sweeps"),
        Command::Bench { tasks, train: true, declared: true, iterations, repeat, .. } => {
            if !tasks.is_empty() {
                bail!("--tasks has no effect with --declared, which measures copy and sort; leave it out")
            }
            bench::declared(iterations, repeat.unwrap_or(3) as usize)
        }
        Command::Bench { tasks, train: true, iterations, repeat, .. } => {
            if repeat.is_some() {
                bail!("--repeat has no effect on --train without --declared; leave it out")
            }
            bench::throughput(&tasks, iterations)
        }
        Command::Bench { tasks, level: typed, repeat, .. } => {
            bench::bench(&tasks, level(typed)?, repeat.unwrap_or(3) as usize)
        }
        Command::Dnc(command) => dnc::run(command),
        Command::DataModules(command) => data_modules::run(command),
    }
}

/// Sets the long-work check for `model` on `task` ([`nhc_tasks::any_task::limit_work`], on
/// `threads` threads: 1 for one input, the pool's for many): work of a few seconds or more is
/// announced with its estimate and a progress bar, and past an hour refused unless `yes`.
fn long_work(task: &'static dyn AnyTask, model: &Model, yes: bool, threads: usize) {
    nhc_tasks::any_task::limit_work(task, model, threads, yes);
    nhc_io::limits::set_work_notice(|line, steps| {
        diag!("{line}");
        progress::start(steps);
    });
}

/// JSON from the argument, or from a file when it starts with `@`; with `text_ok`, text that is
/// not JSON is taken as a JSON string ([`AnyTask::takes_text`]).
fn read_json(arg: &str, text_ok: bool) -> Result<Value> {
    use nhc_io::limits::{MAX_INPUT_BYTES, at_most, read_json_text};
    let text = match arg.strip_prefix('@') {
        Some(path) => read_json_text(Path::new(path), "input file", MAX_INPUT_BYTES)?,
        None => {
            at_most("the input's length in bytes", arg.len() as u64, MAX_INPUT_BYTES)?;
            arg.to_string()
        }
    };
    let shown: String = text.chars().take(200).collect();
    let more = if shown.len() < text.len() { "…" } else { "" };
    match strict_json::from_str(&text) {
        Err(e) if text_ok && !e.is_data() => Ok(Value::String(text)),
        parsed => parsed.with_context(|| format!("the input is not valid JSON: {shown}{more}")),
    }
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
        (Some(input), _, _) => Some(read_json(&input, task.takes_text())?),
        (None, Some(start), Some(goal)) => Some(read_maps(task, &start, &goal)?),
        _ => None,
    })
}

/// `{"start": [rows], "goal": [rows]}` from two text map files, for the tasks that take maps.
fn read_maps(task: &dyn AnyTask, start: &Path, goal: &Path) -> Result<Value> {
    if !task.takes_maps() {
        let mut map_tasks: Vec<&str> = Vec::new();
        for t in nhc_tasks::registry::all().iter().filter(|t| t.takes_maps()) {
            // One name per task, however many domains it has.
            if !map_tasks.contains(&t.name()) {
                map_tasks.push(t.name());
            }
        }
        bail!("--start and --goal are for {}; task `{}` takes --input", map_tasks.join(", "), task.name());
    }
    let rows = |path: &Path| -> Result<Vec<String>> {
        let text = nhc_io::limits::read_text(path, "map file", nhc_io::limits::MAX_INPUT_BYTES)?;
        let mut rows: Vec<String> = text.lines().map(str::to_string).collect();
        while rows.last().is_some_and(|r| r.trim().is_empty()) {
            rows.pop();
        }
        Ok(rows)
    };
    Ok(json!({ "start": rows(start)?, "goal": rows(goal)? }))
}

/// Whether the process started with stdout closed (`nhc … >&-`). Rust's runtime reopens a closed
/// standard descriptor on /dev/null read-write before `main`, which then cannot be told from a
/// /dev/null given read-write on purpose (Python's `subprocess.DEVNULL`), so the descriptor is
/// looked at earlier, by a constructor the loader runs before the runtime ([`SEE_STDOUT`]).
/// Elsewhere than Linux it says no.
fn stdout_was_closed() -> bool {
    STDOUT_CLOSED_AT_START.load(std::sync::atomic::Ordering::Relaxed)
}

static STDOUT_CLOSED_AT_START: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Runs before the Rust runtime starts (an ELF constructor): records whether descriptor 1 is
/// open, through /proc (plain std calls, no runtime state needed).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)] // the one unsafe item: placing a constructor (docs/DESIGN.md, "Output and exit codes")
#[used]
#[unsafe(link_section = ".init_array")]
static SEE_STDOUT: extern "C" fn() = see_stdout;

#[cfg(target_os = "linux")]
extern "C" fn see_stdout() {
    let closed = matches!(std::fs::symlink_metadata("/proc/self/fd/1"), Err(e) if e.kind() == std::io::ErrorKind::NotFound)
        && std::path::Path::new("/proc/self/fd").is_dir(); // /proc is mounted

    STDOUT_CLOSED_AT_START.store(closed, std::sync::atomic::Ordering::Relaxed);
}

/// Writes to stdout. A reader that went away (`nhc trace … | head`) ends the process quietly
/// with [`EXIT_BROKEN_PIPE`].
fn emit(text: &str) -> Result<()> {
    use std::io::Write as _;
    progress::end();
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(EXIT_BROKEN_PIPE),
        r => Ok(r.context("cannot write to standard output")?),
    }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// `--task`'s help names every registered task, so a new task cannot go missing from it.
    #[test]
    fn task_help_names_every_task() {
        let cli = Cli::command();
        for sub in ["eval", "run", "trace", "train", "verify"] {
            let cmd = cli.find_subcommand(sub).expect("a subcommand");
            let arg = cmd.get_arguments().find(|a| a.get_id() == "task").expect("--task");
            let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
            for name in nhc_tasks::registry::names() {
                let listed = help.split([' ', ',']).any(|w| w == name);
                assert!(listed, "`nhc {sub} --task` help lacks {name}: {help}");
            }
        }
    }

    /// `--variant`'s help names every model variant.
    #[test]
    fn variant_help_names_every_variant() {
        let cli = Cli::command();
        for sub in ["eval", "run", "trace", "train", "sweep"] {
            let cmd = cli.find_subcommand(sub).expect("a subcommand");
            let arg = cmd.get_arguments().find(|a| a.get_id() == "variant").expect("--variant");
            let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
            for name in nhc_model::Variant::names() {
                let listed = help.split([' ', ',', ':']).any(|w| w == name);
                assert!(listed, "`nhc {sub} --variant` help lacks {name}: {help}");
            }
        }
    }
}
