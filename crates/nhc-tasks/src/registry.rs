//! Every task, once, behind one object-safe interface ([`AnyTask`]) for training, evaluation,
//! the command line and the reports. Adding a task is one line in [`TASKS`]. The interface and
//! the run driver: [`crate::any_task`]; what a trace shows: [`crate::trace`].

use crate::InputError;
use crate::addition::Addition;
use crate::any_task::{AnyTask, Entry};
use crate::arithmetic::{Arithmetic, Decimal, Mod10, ShapeRule, Shaped};
use crate::boolean::Boolean;
use crate::copy_family::{Binary, Copy, Decimals, Duplicated, RepeatCopy, Reverse};
use crate::search_plan::permuted::SokobanPermuted;
use crate::search_plan::{SearchPlan, sokoban::Sokoban};
use crate::search_plan::{blocks::Blocks, sliding::SlidingPuzzle};
use crate::sort::{Bytes, Sort};
use crate::sort_domains::Strings;
use crate::symbolic::Symbolic;
use nhc_io::limits::LimitError;
use thiserror::Error;

/// Bad requests to a task.
#[derive(Debug, Error)]
pub enum TaskError {
    #[error("unknown task `{name}`; known tasks: {}", names().join(", "))]
    Unknown { name: String },
    #[error("task `{task}` has no domain `{domain}`; its domains: {}", domains(task).join(", "))]
    UnknownDomain { task: String, domain: String },
    #[error("level must be at least 1, got {0}")]
    Level(usize),
    #[error("level {got} is beyond what task `{task}` supports (at most {max})")]
    LevelTooHigh { task: &'static str, got: usize, max: usize },
    #[error("the number of samples must be at least 1")]
    NoSamples,
    #[error(transparent)]
    Limit(#[from] LimitError),
    #[error(transparent)]
    Episode(#[from] crate::episode::EpisodeError),
    #[error(transparent)]
    Learned(#[from] crate::search_plan::learned::LearnedError),
    #[error("input for task `{task}`: {source}")]
    Input { task: &'static str, source: InputError },
    #[error(transparent)]
    Programs(#[from] crate::programs::SpecError),
    #[error("a verification bound must be at least 1")]
    Bound,
    #[error(
        "a number of objects for the every-length proof is duplicated's (its lists presented alike, 1–{max} objects); task `{task}` takes none"
    )]
    EveryLengthObjects { task: &'static str, max: u64 },
    #[error(
        "duplicated's every-length proof takes 1–{max} objects (its cost grows with their square: 1 000 take about 30 s); got {got}"
    )]
    TooManyObjects { got: u64, max: u64 },
    #[error("task `{task}` verifies {parts} part(s): give one bound for all, or one per part (got {got})")]
    Bounds { task: &'static str, parts: usize, got: usize },
    #[error(
        "verifying every {what} would take {} model steps over {} inputs; at most {:.0e} steps, and {:.0e} inputs a part, are allowed: ask for a lower bound (--up-to)",
        crate::verify::count(*steps), crate::verify::count(*inputs), crate::verify::MAX_STEPS as f64, crate::verify::MAX_INPUTS as f64
    )]
    VerifyCost { what: String, steps: u64, inputs: u64 },
    #[error(
        "sampling beyond the bound up to {top} would bring the verification to {} model steps; at most {:.0e} are allowed: ask for a lower top (--beyond N, 0 turns the stage off)",
        crate::verify::count(*steps), crate::verify::MAX_STEPS as f64
    )]
    BeyondCost { top: u64, steps: u64 },
    #[error(
        "the table search holds all its samples at once, and with those of level {level} they exceed the memory limit; ask for fewer levels, samples or checks"
    )]
    ProgramSamples { level: usize },
}

/// Every task, the paper's eleven first, in its table order. An algorithm's first entry is its
/// training domain; the task name alone finds it.
pub static TASKS: &[&dyn AnyTask] = &[
    &Entry(SearchPlan::<Sokoban<6>>::SEARCH),
    &Entry(SearchPlan::<Sokoban<6>>::PLAN),
    &Entry(SearchPlan::<Sokoban<6>>::SEARCH_PLUS),
    &Entry(SearchPlan::<Sokoban<6>>::PLAN_PLUS),
    &Entry(Addition::BINARY),
    &Entry(Sort(Bytes)),
    &Entry(Arithmetic(Decimal)),
    &Entry(Copy(Binary)),
    &Entry(RepeatCopy(Binary)),
    &Entry(Reverse(Binary)),
    &Entry(Duplicated(Binary)),
    // Other domains of the same algorithms.
    &Entry(Arithmetic(Boolean)),
    &Entry(Arithmetic(Mod10)),
    &Entry(Arithmetic(Symbolic)),
    &Entry(Arithmetic(Shaped(ShapeRule::Chains))),
    &Entry(Arithmetic(Shaped(ShapeRule::Splits))),
    &Entry(Arithmetic(Shaped(ShapeRule::Walks))),
    &Entry(Addition::DECIMAL),
    &Entry(SearchPlan::<Sokoban<8>>::SEARCH),
    &Entry(SearchPlan::<Sokoban<8>>::PLAN),
    &Entry(SearchPlan::<Sokoban<8>>::SEARCH_PLUS),
    &Entry(SearchPlan::<Sokoban<8>>::PLAN_PLUS),
    &Entry(SearchPlan::<SokobanPermuted<6>>::SEARCH),
    &Entry(SearchPlan::<SokobanPermuted<6>>::PLAN),
    &Entry(SearchPlan::<SokobanPermuted<6>>::SEARCH_PLUS),
    &Entry(SearchPlan::<SokobanPermuted<6>>::PLAN_PLUS),
    &Entry(SearchPlan::<SlidingPuzzle>::SEARCH),
    &Entry(SearchPlan::<SlidingPuzzle>::PLAN),
    &Entry(SearchPlan::<SlidingPuzzle>::SEARCH_PLUS),
    &Entry(SearchPlan::<SlidingPuzzle>::PLAN_PLUS),
    &Entry(SearchPlan::<Blocks>::SEARCH),
    &Entry(SearchPlan::<Blocks>::PLAN),
    &Entry(SearchPlan::<Blocks>::SEARCH_PLUS),
    &Entry(SearchPlan::<Blocks>::PLAN_PLUS),
    &Entry(Copy(Decimals)),
    &Entry(RepeatCopy(Decimals)),
    &Entry(Reverse(Decimals)),
    &Entry(Duplicated(Decimals)),
    &Entry(Sort(Decimals)),
    &Entry(Sort(Strings)),
];

/// The paper's eleven tasks, in the order of its Table 1.
pub const PAPER_TASKS: [&str; 11] = [
    "search",
    "plan",
    "search+",
    "plan+",
    "addition",
    "sort",
    "arithmetic",
    "copy",
    "repeatCopy",
    "reverse",
    "duplicated",
];

/// Every task, in the paper's table order.
pub fn all() -> &'static [&'static dyn AnyTask] {
    TASKS
}

/// The task names (each algorithm once), in the paper's table order.
pub fn names() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for t in all() {
        if !out.contains(&t.name()) {
            out.push(t.name());
        }
    }
    out
}

/// The domains task `name` runs on, its training domain first.
pub fn domains(name: &str) -> Vec<&'static str> {
    all().iter().filter(|t| t.name() == name).map(|t| t.domain()).collect()
}

/// The domain `nhc verify` uses for task `name` when none is given: one whose words are all
/// distinct up to large bounds ([`crate::verify`]); `None`: the training domain.
pub fn verification_domain(name: &str) -> Option<&'static str> {
    match name {
        "copy" | "reverse" | "repeatCopy" | "duplicated" | "sort" => Some("decimal"),
        "arithmetic" => Some("symbolic"),
        _ => None,
    }
}

/// The task called `name`, on its training domain.
pub fn find(name: &str) -> Result<&'static dyn AnyTask, TaskError> {
    all()
        .iter()
        .copied()
        .find(|t| t.name() == name)
        .ok_or_else(|| TaskError::Unknown { name: name.to_string() })
}

/// The task called `name` on `domain` (`None`: its training domain).
pub fn find_in(name: &str, domain: Option<&str>) -> Result<&'static dyn AnyTask, TaskError> {
    let task = find(name)?;
    let Some(domain) = domain else { return Ok(task) };
    all()
        .iter()
        .copied()
        .find(|t| t.name() == name && t.domain() == domain)
        .ok_or_else(|| TaskError::UnknownDomain { task: name.to_string(), domain: domain.to_string() })
}
