//! A sample as plain data: `AnyTask::sample` gives a problem in the form `run` takes and its
//! reference answer; the scripted solution run on that input gives the same answer, and
//! `Task::parse_input` gives the drawn sample back.

use nhc_tasks::addition::Addition;
use nhc_tasks::any_task::TraceSource;
use nhc_tasks::arithmetic::{Arithmetic, Decimal};
use nhc_tasks::boolean::Boolean;
use nhc_tasks::copy_family::{Binary, Copy, Decimals, Duplicated, RepeatCopy, Reverse};
use nhc_tasks::search_plan::blocks::Blocks;
use nhc_tasks::search_plan::permuted::SokobanPermuted;
use nhc_tasks::search_plan::sliding::SlidingPuzzle;
use nhc_tasks::search_plan::{SearchPlan, sokoban::Sokoban};
use nhc_tasks::sort::{Bytes, Sort};
use nhc_tasks::sort_domains::Strings;
use nhc_tasks::{Model, Task, TaskError, sample_rng};

const LEVELS: [usize; 4] = [1, 2, 5, 11];
const SEEDS: [u64; 3] = [0, 7, 2024];

/// Every registered task: the input runs, the scripted solution solves it, and its output is
/// the answer `sample` gave.
#[test]
fn sampled_input_runs_to_the_sampled_answer() -> Result<(), TaskError> {
    for task in nhc_tasks::registry::all() {
        for level in LEVELS {
            for seed in SEEDS {
                let what = format!("{} on {}, level {level}, seed {seed}", task.name(), task.domain());
                let (input, answer) = task.sample(level, seed, seed % 4)?;
                let report = task.run(&Model::Scripted, &input)?;
                assert!(report.correct, "{what}: not solved; input {input}");
                assert_eq!(report.output, answer, "{what}: input {input}");
                assert_eq!(report.expected, answer, "{what}: input {input}");
            }
        }
    }
    Ok(())
}

/// `sample` draws the sample `nhc trace --level L --seed S --index I` runs.
#[test]
fn sample_is_the_traced_sample() -> Result<(), TaskError> {
    for task in nhc_tasks::registry::all() {
        let (level, seed, index) = (5, 11, 3);
        let (input, answer) = task.sample(level, seed, index)?;
        let (_, traced) = task.trace(&Model::Scripted, &TraceSource::Level { level, seed, index })?;
        let run = task.run(&Model::Scripted, &input)?;
        assert_eq!(traced.expected, answer, "{}", task.name());
        assert_eq!((traced.output, traced.steps), (run.output, run.steps), "{}", task.name());
    }
    Ok(())
}

/// Level 0 and levels beyond a task's highest are errors, not panics.
#[test]
fn bad_levels_are_errors() {
    for task in nhc_tasks::registry::all() {
        assert!(matches!(task.sample(0, 1, 0), Err(TaskError::Level(0))), "{}", task.name());
        let over = task.max_level() + 1;
        assert!(matches!(task.sample(over, 1, 0), Err(TaskError::LevelTooHigh { .. })), "{}", task.name());
    }
}

/// `parse_input(sample_json(s)) == s` for samples of `task`.
fn round_trip<T: Task>(task: T)
where
    T::Sample: PartialEq,
{
    for level in LEVELS {
        for seed in SEEDS {
            let s = task.sample(level, &mut sample_rng(seed, level, 0));
            let json = task.sample_json(&s);
            let back = task.parse_input(&json);
            let what = format!("{} on {}, level {level}, seed {seed}", task.algorithm().name, task.domain());
            assert_eq!(back.as_ref(), Ok(&s), "{what}: {json}");
        }
    }
}

/// Every task type, with the samples compared directly.
#[test]
fn parse_input_gives_the_sample_back() {
    round_trip(Copy(Binary));
    round_trip(Copy(Decimals));
    round_trip(RepeatCopy(Binary));
    round_trip(RepeatCopy(Decimals));
    round_trip(Reverse(Binary));
    round_trip(Reverse(Decimals));
    round_trip(Duplicated(Binary));
    round_trip(Duplicated(Decimals));
    round_trip(Sort(Bytes));
    round_trip(Sort(Decimals));
    round_trip(Sort(Strings));
    round_trip(Addition::BINARY);
    round_trip(Addition::DECIMAL);
    round_trip(Arithmetic(Decimal));
    round_trip(Arithmetic(Boolean));
    round_trip(SearchPlan::<Sokoban<6>>::PLAN_PLUS);
    round_trip(SearchPlan::<Sokoban<8>>::SEARCH);
    round_trip(SearchPlan::<SokobanPermuted<6>>::PLAN);
    round_trip(SearchPlan::<SlidingPuzzle>::SEARCH_PLUS);
    round_trip(SearchPlan::<Blocks>::PLAN);
}
