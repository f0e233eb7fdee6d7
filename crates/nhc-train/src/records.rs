//! What a run records, as types: one [`IterationLog`] per iteration (with the run's wall time a
//! [`MetricsLine`]: a line of `metrics.jsonl`, and the record every front end's observer sees),
//! the run's [`Summary`] (as `summary.json`, [`RunSummary`], with its [`RunOutcome`]), its
//! [`Lineage`]s and its learning [`Curve`]. Reports read them back as these types.
//!
//! What an iteration did is two enums, not a set of flags: [`Update`] (what θ's score made it do
//! with θ) and [`Advance`] (what it did to the curriculum and the lineage). Each holds only the
//! cases the trainer produces (docs/DESIGN.md, "Records").

use crate::check::CheckLog;
use nhc_model::{Config, Variant};
use serde::{Deserialize, Serialize};

/// What an iteration did with θ, by θ's score on the batch (MODEL §6–§7): one value per case of
/// the update rule ([`crate::TrainConfig::update_rule`]). A batch with a mistake is always
/// learned from; a solved one below full margin is learned from, counted apart, or left alone,
/// as the config says; one at maximum fitness is always left alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Update {
    /// A sample was not solved: θ updated, a learning iteration.
    Mistake,
    /// Every sample solved, a scored operation below full margin: θ updated, a learning
    /// iteration (`margin_update_is_learning`, the default).
    Margin,
    /// As [`Update::Margin`], but not a learning iteration: counted in `margin_updates`
    /// (`margin_update_is_learning = false`, configs/margin_apart.toml).
    MarginApart,
    /// Every sample solved, a scored operation below full margin: θ left alone
    /// (`no_update_at = "solved"`, configs/solved_rule.toml).
    SkipSolved,
    /// Every sample solved with every scored operation at full margin (fitness 1): θ left alone.
    SkipMaxFitness,
}

impl Update {
    /// Every sample of the batch solved: the iteration counts towards solving its level.
    pub fn perfect(self) -> bool {
        self != Update::Mistake
    }
    /// Maximum fitness: every sample solved at full margin.
    pub fn max_fitness(self) -> bool {
        self == Update::SkipMaxFitness
    }
    /// θ was updated (offspring drawn and scored).
    pub fn updated(self) -> bool {
        matches!(self, Update::Mistake | Update::Margin | Update::MarginApart)
    }
    /// A learning iteration: it counts in the budget, the restart patience and the level's
    /// 1 500 rule (MODEL §7).
    pub fn learned(self) -> bool {
        matches!(self, Update::Mistake | Update::Margin)
    }
}

/// What an iteration did to the curriculum and the lineage (MODEL §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Advance {
    /// The level goes on.
    Stay,
    /// The iteration solved its level, one of 1..=L: the next level follows.
    NextLevel,
    /// It solved the mixed level (and passed the generalization check, when one is
    /// configured): the lineage finished, and with it the run.
    Finished,
    /// The lineage was stuck on its level by the config's restart trigger: a restart.
    Restart,
    /// It solved the mixed level but failed the generalization check: a restart.
    FailedCheck,
    /// It solved the mixed level but failed the generalization check: back to the mixed level,
    /// the failed samples in the bad memories (`on_failed_check = "relearn"`).
    Relearn,
}

impl Advance {
    /// The iteration solved its level (the mixed one included).
    pub fn solved(self) -> bool {
        matches!(self, Advance::NextLevel | Advance::Finished | Advance::FailedCheck | Advance::Relearn)
    }
    /// How the lineage ended with this iteration, if it did.
    pub fn ending(self) -> Option<Ending> {
        match self {
            Advance::Stay | Advance::NextLevel | Advance::Relearn => None,
            Advance::Finished => Some(Ending::Finished),
            Advance::Restart => Some(Ending::Restart),
            Advance::FailedCheck => Some(Ending::Check),
        }
    }
    /// The iteration restarted the run (the restart already counts in its `restarts`).
    pub fn restarted(self) -> bool {
        matches!(self, Advance::Restart | Advance::FailedCheck)
    }
}

/// One iteration, as [`crate::Trainer::step`] returns it; with the wall time, a line of
/// `metrics.jsonl` ([`MetricsLine`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IterationLog {
    /// 1-based number of this iteration.
    pub iteration: u64,
    /// Curriculum level the batch was built for (L+1 = mixed).
    pub level: usize,
    /// Mean fitness of θ on the batch (MODEL §5).
    pub fitness_raw: f64,
    pub update: Update,
    /// Samples of the batch not solved (more than 0 exactly when `update` is a mistake).
    pub failed: usize,
    /// Best offspring fitness; `None` exactly when θ was left alone.
    pub best_offspring: Option<f64>,
    /// Raw fitness per offspring, by offspring index; empty when θ was left alone.
    pub offspring_raw: Vec<f64>,
    /// The rank utility each offspring received (MODEL §6); empty when θ was left alone.
    pub offspring_shaped: Vec<f64>,
    /// Model steps each offspring ran on the batch, by offspring index (what its rank or thread
    /// spent); empty when θ was left alone, and in files written before it was recorded.
    #[serde(default)]
    pub offspring_steps: Vec<u64>,
    pub advance: Advance,
    /// The generalization check: present exactly when the iteration solved the mixed level and
    /// a check is configured (`advance` is then finished or failed_check).
    pub check: Option<CheckLog>,
    /// The curriculum's consecutive perfect iterations on its level after this iteration (the
    /// count that solves it, MODEL §7; 0 after a restart and once a level 1..=L is solved).
    pub perfect_streak: u64,
    /// Restarts so far, this iteration's included.
    pub restarts: u64,
    /// Learning iterations so far, this iteration's included.
    pub learning_iterations: u64,
    /// Model steps run in this iteration (θ, offspring and check).
    pub steps: u64,
}

impl IterationLog {
    /// The one-line status of a progress display.
    pub fn status(&self) -> String {
        format!(
            "iteration {:>6}  level {:>2}  fitness {:.4}  perfect streak {:>4}  restarts {}",
            self.iteration, self.level, self.fitness_raw, self.perfect_streak, self.restarts
        )
    }
}

/// One iteration with the run's wall time when it ended: a line of `metrics.jsonl`, and what a
/// run's observer sees (the progress bar of `nhc train`, the callback of Python's `nhc.train`,
/// which gets exactly these keys).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricsLine {
    #[serde(flatten)]
    pub log: IterationLog,
    /// Wall time of the run, in seconds, when the iteration ended.
    pub wall_seconds: f64,
}

/// How a lineage (θ from a (re)start to the next restart or the end of the run) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ending {
    /// It solved the mixed level (and passed the generalization check, when one is configured).
    Finished,
    /// Stuck on one level by the config's restart trigger (`restart`, `restart_after`).
    Restart,
    /// It solved the mixed level but failed the generalization check.
    Check,
    /// The run spent its budget (`max_iterations`) in this lineage.
    Cap,
}

/// One lineage of a run: θ from a (re)start to the next restart or the end of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lineage {
    /// The learning iterations it used (the iteration that restarts it included).
    pub learning_iterations: u64,
    /// The iterations of any kind it ran (0 in records written before they were counted).
    #[serde(default)]
    pub iterations: u64,
    /// The curriculum level it was on when it ended (L+1 = mixed).
    pub level: usize,
    pub ending: Ending,
}

impl Lineage {
    pub fn finished(&self) -> bool {
        self.ending == Ending::Finished
    }
}

/// How a run that is done ended. A run stopped before (by its observer, or because θ left the
/// range of a model) is not done and writes no summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunOutcome {
    /// Its last lineage solved the mixed level (and passed the generalization check, when one
    /// is configured).
    Solved,
    /// It spent its budget (`max_iterations`) without that.
    Cap,
}

/// Where a run stands (MODEL §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub iterations: u64,
    /// Learning iterations: iterations that updated θ (with `margin_update_is_learning` off,
    /// those whose batch had a mistake).
    pub learning_iterations: u64,
    /// Updates that were not learning iterations (margin-only updates, when they do not count).
    pub margin_updates: u64,
    /// Last level that triggered learning, over the whole run (0: none).
    pub last_level_learned: usize,
    /// Last level solved by the current θ's attempt (since the last restart; 0: none).
    pub last_level_solved: usize,
    pub restarts: u64,
    /// Restarts caused by a failed generalization check (included in `restarts`).
    pub failed_checks: u64,
    /// Current curriculum level.
    pub level: usize,
    /// How the run ended; `None` while it goes on.
    pub outcome: Option<RunOutcome>,
}

/// A finished run's `summary.json`. Every run writes every field; `config` and `lineages` are
/// `null` only in committed sweeps whose runs predate those records (results/screens/earlier/, the
/// `full_*` and `search30*` sweeps of results/ and, for the lineages, part of the
/// `comparison_*` sweeps): they were never recorded and are not guessed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// The task (its algorithm's name).
    pub task: String,
    /// The domain trained on.
    pub domain: String,
    pub variant: Variant,
    /// The model's config.
    pub config: Option<Config>,
    pub seed: u64,
    pub iterations: u64,
    pub learning_iterations: u64,
    /// Updates that did not count as learning iterations (`margin_update_is_learning = false`).
    pub margin_updates: u64,
    pub last_level_learned: usize,
    pub last_level_solved: usize,
    pub restarts: u64,
    /// Restarts because the generalization check failed (included in `restarts`).
    pub failed_checks: u64,
    pub outcome: RunOutcome,
    pub wall_seconds: f64,
    /// Model steps run in training (θ, offspring, checks).
    pub steps: u64,
    pub steps_per_second: f64,
    /// Every lineage of the run in order; their learning iterations add up to
    /// `learning_iterations`, and the last one is the lineage that survived.
    pub lineages: Option<Vec<Lineage>>,
}

impl RunSummary {
    /// What the run did, in one sentence for a reader (`nhc train`'s last line); `levels` is the
    /// curriculum's L (the run has L + 1 levels, the last the mixed one).
    pub fn sentence(&self, levels: usize, model: &std::path::Path) -> String {
        let name = match self.variant {
            Variant::Nhc => self.task.clone(),
            v => format!("{} ({v})", self.task),
        };
        let (learning, all) = (grouped(self.learning_iterations), grouped(self.iterations));
        let restarts = match (self.restarts, self.failed_checks) {
            (0, _) => "no restart".to_string(),
            (1, 1) => "1 restart, after a failed generalization check".to_string(),
            (1, _) => "1 restart".to_string(),
            (n, 0) => format!("{n} restarts"),
            (n, c) => format!("{n} restarts, {c} of them after a failed generalization check"),
        };
        let top = levels + 1;
        match self.outcome {
            RunOutcome::Solved => format!(
                "{name}: learned in {learning} learning iterations ({all} iterations in all), all {top} levels \
                 solved, {restarts}; model: {}",
                model.display()
            ),
            RunOutcome::Cap => {
                let at = self.stopped_at();
                let mixed = if at == top { " (the mixed level)" } else { "" };
                format!(
                    "{name}: did not learn: stopped at level {at} of {top}{mixed} after {learning} learning \
                     iterations ({all} iterations in all), {restarts}; the model file holds the last θ and is \
                     not expected to solve the task: {}",
                    model.display()
                )
            }
        }
    }

    /// The level the run was on when it ended: its last lineage's, else the one after the last
    /// solved (summaries without lineages).
    pub fn stopped_at(&self) -> usize {
        match self.lineages.as_deref().and_then(<[Lineage]>::last) {
            Some(l) => l.level,
            None => self.last_level_solved + 1,
        }
    }
}

/// `n` with its digits in groups of three, as the docs write numbers: `13 916`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// What a run's figures need, small enough for a line of `sweep.jsonl`: θ's raw fitness at
/// iterations on a log-spaced grid (the same for every run: round(1.06^k), and the run's last
/// iteration; about 40 points a decade, to 4 decimals), and the learning iterations spent on
/// each level (index 0 = level 1). `nhc report` redraws a sweep's figures from these alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// 1-based iterations, increasing; the last is the run's last iteration.
    pub iterations: Vec<u64>,
    /// θ's raw batch fitness at those iterations.
    pub fitness: Vec<f64>,
    pub learning_per_level: Vec<u64>,
}

impl Curve {
    /// Grid ratio: about 40 points per decade of iterations.
    const RATIO: f64 = 1.06;

    /// The thinned curve of a run's per-iteration fitness.
    pub fn thin(fitness: &[f64], learning_per_level: &[u64]) -> Curve {
        let n = fitness.len() as u64;
        let mut iterations: Vec<u64> = Vec::new();
        let mut at = 1.0f64;
        while (at.round() as u64) < n {
            let i = at.round() as u64;
            if iterations.last() != Some(&i) {
                iterations.push(i);
            }
            at *= Self::RATIO;
        }
        if n > 0 {
            iterations.push(n);
        }
        let fitness = iterations.iter().map(|&i| (fitness[i as usize - 1] * 1e4).round() / 1e4).collect();
        Curve { iterations, fitness, learning_per_level: learning_per_level.to_vec() }
    }

    /// The run's last iteration (0 for an empty curve).
    pub fn last_iteration(&self) -> u64 {
        self.iterations.last().copied().unwrap_or(0)
    }

    /// Fitness at iteration `i`: the value at the last grid point not after `i` (past the run's
    /// end, its last value); `None` for an empty curve.
    pub fn at(&self, i: u64) -> Option<f64> {
        let k = self.iterations.partition_point(|&x| x <= i);
        self.fitness.get(k.saturating_sub(1)).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(outcome: RunOutcome, restarts: u64, failed_checks: u64) -> RunSummary {
        RunSummary {
            task: "copy".into(),
            domain: "binary".into(),
            variant: Variant::Nhc,
            config: None,
            seed: 2,
            iterations: 13_916,
            learning_iterations: 1_916,
            margin_updates: 0,
            last_level_learned: 5,
            last_level_solved: if outcome == RunOutcome::Solved { 11 } else { 2 },
            restarts,
            failed_checks,
            outcome,
            wall_seconds: 1.0,
            steps: 1,
            steps_per_second: 1.0,
            lineages: None,
        }
    }

    /// The sentence says what the run did with the summary's own numbers.
    #[test]
    fn the_sentence_reads_the_summary() {
        let model = std::path::Path::new("runs/main/model.json");
        assert_eq!(
            summary(RunOutcome::Solved, 0, 0).sentence(10, model),
            "copy: learned in 1 916 learning iterations (13 916 iterations in all), all 11 levels solved, \
             no restart; model: runs/main/model.json"
        );
        assert_eq!(
            summary(RunOutcome::Cap, 3, 1).sentence(10, model),
            "copy: did not learn: stopped at level 3 of 11 after 1 916 learning iterations (13 916 iterations \
             in all), 3 restarts, 1 of them after a failed generalization check; the model file holds the last \
             θ and is not expected to solve the task: runs/main/model.json"
        );
        assert!(summary(RunOutcome::Solved, 1, 0).sentence(10, model).contains("solved, 1 restart;"));
        assert_eq!(
            (grouped(0), grouped(999), grouped(1000), grouped(1_234_567)),
            ("0".into(), "999".into(), "1 000".into(), "1 234 567".into())
        );
    }

    /// The thinned curve keeps the first and last iterations, grows by about 6 % a point and
    /// reads back the fitness it kept (a step function between grid points).
    #[test]
    fn a_thinned_curve_keeps_the_ends_and_reads_back() {
        let fitness: Vec<f64> = (1..=20_000).map(|i| f64::from(i) / 20_000.0).collect();
        let c = Curve::thin(&fitness, &[3, 1]);
        assert_eq!((c.iterations[0], c.last_iteration()), (1, 20_000));
        assert!(
            c.iterations.len() < 200 && c.iterations.windows(2).all(|w| w[0] < w[1]),
            "{:?}",
            c.iterations
        );
        assert_eq!(c.at(20_000), Some(1.0));
        assert_eq!(c.at(1_000_000), Some(1.0));
        let k = c.iterations[60];
        assert_eq!(c.at(k), Some((k as f64 / 20_000.0 * 1e4).round() / 1e4));
        assert_eq!(c.at(k + 1), c.at(k));
        assert_eq!(Curve::thin(&[], &[]).at(5), None);
        assert_eq!(Curve::thin(&[0.5], &[1]).iterations, vec![1]);
    }
}
