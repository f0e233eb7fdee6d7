//! `nhc run`: a model on the user's own input.

use crate::{Maps, ModelArgs, emit, user_input};
use anyhow::{Context, Result};
use serde_json::json;

pub fn run(args: &ModelArgs, input: Option<String>, maps: Maps, json: bool, yes: bool) -> Result<()> {
    let (task, model) = args.load()?;
    let input = user_input(task, input, maps)?.context("give --input, or --start and --goal")?;
    crate::long_work(task, &model, yes, 1);
    let r = task.run(&model, &input)?;
    if json {
        let line =
            json!({ "output": r.output, "expected": r.expected, "correct": r.correct, "steps": r.steps });
        emit(&format!("{line}\n"))?;
    } else {
        emit(&format!("{}\n", r.text.trim_end()))?;
    }
    if !r.correct && r.output == r.expected {
        diag!(
            "wrong run: the answer is the reference answer, but the model's {} steps leave the algorithm's (a scored step differs, or it stops elsewhere); `nhc trace` with the same --input shows where",
            r.steps
        );
        std::process::exit(crate::EXIT_WRONG_ANSWER);
    }
    if !r.correct {
        diag!("wrong answer: the model's answer differs from the reference answer {}", r.expected);
        std::process::exit(crate::EXIT_WRONG_ANSWER);
    }
    Ok(())
}
