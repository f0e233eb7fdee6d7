//! `nhc eval`: a model on fresh samples of one level (MODEL §8).

use crate::{ModelArgs, emit};
use anyhow::Result;

pub fn eval(args: &ModelArgs, level: usize, samples: usize, seed: u64, json: bool, yes: bool) -> Result<()> {
    let (task, model) = args.load()?;
    crate::long_work(task, &model, yes, rayon::current_num_threads());
    let r = task.evaluate(&model, level, samples, seed)?;
    if json {
        return emit(&format!("{}\n", serde_json::to_string(&r)?));
    }
    let mut text = format!(
        "{} level {}: solved {}/{} samples ({:.1} %), {} steps, mean fitness {:.4}, {:.2} s\n",
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
        text += &format!(
            "unsolved samples: {}{more} (see one: nhc trace --task {}{}{} --model {} --level {} --seed {} --index {})\n",
            shown.join(", "),
            r.task,
            args.domain.as_deref().map_or(String::new(), |d| format!(" --domain {d}")),
            args.data_modules
                .as_deref()
                .map_or(String::new(), |d| format!(" --data-modules {}", shell_word(&d.to_string_lossy()))),
            shell_word(&args.model),
            r.level,
            r.seed,
            r.failed[0]
        );
    }
    emit(&text)
}

/// `s` as one shell word: unchanged when it is plain, else in single quotes.
pub(crate) fn shell_word(s: &str) -> String {
    let plain = !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:=,@".contains(c));
    if plain { s.to_string() } else { format!("'{}'", s.replace('\'', r"'\''")) }
}
