//! The records of the DNC trained by backpropagation (crate `nhc-dnc`): its metrics lines, run
//! summaries, evaluations and the lines of a row of runs. They live here, without candle, so that
//! the reports read them in the default build.

use crate::records::Curve;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One line of metrics.jsonl.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DncLine {
    pub iteration: u64,
    /// The level the batch was drawn for (levels + 1: mixed).
    pub level: usize,
    pub loss: f64,
    /// Samples of the batch solved (every target right).
    pub solved: usize,
    pub batch: usize,
    /// Targets right over targets expected, in the whole batch.
    pub accuracy: f64,
    pub grad_norm: f64,
    pub learning_iterations: u64,
    pub last_level_learned: usize,
    pub last_level_solved: usize,
    pub seconds: f64,
}

impl DncLine {
    /// The progress bar's message.
    pub fn status(&self) -> String {
        format!(
            "level {} | solved {}/{} | accuracy {:.4} | loss {:.4}",
            self.level, self.solved, self.batch, self.accuracy, self.loss
        )
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DncOutcome {
    /// The mixed level was solved.
    Solved,
    /// The iteration cap was reached first.
    Cap,
}

/// summary.json.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DncSummary {
    pub task: String,
    pub domain: String,
    pub seed: u64,
    pub iterations: u64,
    pub learning_iterations: u64,
    pub last_level_learned: usize,
    pub last_level_solved: usize,
    pub outcome: DncOutcome,
    pub wall_seconds: f64,
    pub parameters: usize,
}

/// The result of an evaluation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DncEvalReport {
    pub task: String,
    pub domain: String,
    pub level: usize,
    pub seed: u64,
    pub samples: usize,
    pub solved: usize,
    /// Per sample, the steps run right before the first mistake, over the sample's steps.
    pub progress: Vec<f64>,
    pub seconds: f64,
}

/// One line of a row's `dnc.jsonl`: a run's summary, its evaluations by level (as a string: JSON
/// keys) and its learning curves: the batch accuracy and the level against iterations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DncRunLine {
    pub summary: DncSummary,
    pub eval: BTreeMap<String, DncEvalReport>,
    pub accuracy: Curve,
    pub level: Curve,
}

impl DncRunLine {
    /// The line of a run from its summary, evaluations and metrics.
    pub fn new(summary: DncSummary, eval: BTreeMap<String, DncEvalReport>, lines: &[DncLine]) -> Self {
        let mut per_level: Vec<u64> = Vec::new();
        for l in lines.iter().filter(|l| l.solved < l.batch) {
            if per_level.len() < l.level {
                per_level.resize(l.level, 0);
            }
            per_level[l.level - 1] += 1;
        }
        let accuracy: Vec<f64> = lines.iter().map(|l| l.accuracy).collect();
        let level: Vec<f64> = lines.iter().map(|l| l.level as f64).collect();
        DncRunLine {
            summary,
            eval,
            accuracy: Curve::thin(&accuracy, &per_level),
            level: Curve::thin(&level, &per_level),
        }
    }
}
