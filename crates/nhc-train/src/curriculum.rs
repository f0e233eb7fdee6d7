//! Curriculum over levels 1..=L plus the mixed level L+1, bad memories and batch composition
//! (MODEL §7).

use crate::config::{Count, RestartTrigger, TrainConfig};
use crate::records::Lineage;
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

pub use nhc_tasks::evaluate::SampleKey;

/// Where a batch slot came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    Earlier,
    Bad,
    Current,
}

/// Ring buffer of the last `capacity` failed samples (MODEL §7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BadMemories {
    capacity: usize,
    items: VecDeque<SampleKey>,
}

impl BadMemories {
    pub fn new(capacity: usize) -> Self {
        BadMemories { capacity, items: VecDeque::new() }
    }
    /// Adds a failed sample, dropping the oldest when full.
    pub fn push(&mut self, key: SampleKey) {
        if self.capacity == 0 {
            return;
        }
        if self.items.len() == self.capacity {
            self.items.pop_front();
        }
        self.items.push_back(key);
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    pub fn clear(&mut self) {
        self.items.clear();
    }
    pub fn iter(&self) -> impl Iterator<Item = &SampleKey> {
        self.items.iter()
    }
    /// A uniformly drawn entry (with replacement), `None` when empty.
    pub fn draw<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<SampleKey> {
        if self.items.is_empty() {
            return None;
        }
        Some(self.items[rng.random_range(0..self.items.len())])
    }
}

/// What happened to the curriculum after one iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Progress {
    /// Still on the same level.
    Continue,
    /// This level was solved; the curriculum moved on.
    Solved(usize),
    /// The mixed level was solved: the run is finished.
    Finished,
}

/// Curriculum position and counters (MODEL §7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Curriculum {
    /// Current level, 1..=L+1 (L+1 = mixed).
    pub level: usize,
    /// Highest ordinary level L.
    pub levels: usize,
    /// Consecutive perfect iterations on this level.
    pub streak: u64,
    /// Whether learning was triggered on this level.
    pub had_update: bool,
    /// θ's best batch fitness on this level so far (`None`: no iteration yet).
    #[serde(default)]
    pub best_fitness: Option<f64>,
    /// The restart patience count: iterations of the kind `restart_counts` says since the level
    /// began or, by the restart trigger, since θ's batch fitness last beat `best_fitness` (in
    /// checkpoints written before the triggers, the learning iterations on the level).
    #[serde(default, alias = "iterations_on_level")]
    pub patience: u64,
    /// The last level solved in this attempt (0: none).
    pub last_solved: usize,
    /// Level L+1 solved.
    pub finished: bool,
    pub bad: BadMemories,
    /// The lineages ended by a restart so far, in order; a restart keeps them.
    pub ended_lineages: Vec<Lineage>,
}

impl Curriculum {
    pub fn new(config: &TrainConfig) -> Self {
        Curriculum {
            level: 1,
            levels: config.levels,
            streak: 0,
            had_update: false,
            best_fitness: None,
            patience: 0,
            last_solved: 0,
            finished: false,
            bad: BadMemories::new(config.bad_memories),
            ended_lineages: Vec::new(),
        }
    }

    /// Whether the current level is the mixed one.
    pub fn is_mixed(&self) -> bool {
        self.level > self.levels
    }

    /// Consecutive perfect iterations that solve the current level: 750, or 1 500 if it had an
    /// update (MODEL §7).
    pub fn needed(&self, config: &TrainConfig) -> u64 {
        if self.had_update { config.perfect_to_solve_after_learning } else { config.perfect_to_solve }
    }

    /// A concrete level for a "current level" slot: the level itself, or uniform over 1..=L at
    /// the mixed level.
    fn current<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        if self.is_mixed() { rng.random_range(1..=self.levels) } else { self.level }
    }

    /// The N sample keys of one batch: ⌊share_earlier·N⌋ from earlier levels (uniform over
    /// 1..level−1), ⌊share_bad·N⌋ from bad memories, the rest from the current level; an empty
    /// source is filled from the current level (MODEL §7). Slots are in that order. A fresh
    /// sample is of any shape with probability `train_any_shape` (ours; at 0 no draw is made, so
    /// the paper's batches are unchanged).
    pub fn batch<R: Rng + ?Sized>(&self, config: &TrainConfig, rng: &mut R) -> Vec<(Source, SampleKey)> {
        let n = config.batch;
        let earlier = ((config.share_earlier * n as f64).floor() as usize).min(n);
        let bad = ((config.share_bad * n as f64).floor() as usize).min(n - earlier);
        let fresh = |level: usize, rng: &mut R| {
            let key = SampleKey::new(level, rng.next_u64());
            let any_shape = config.train_any_shape > 0.0 && rng.random_bool(config.train_any_shape);
            SampleKey { any_shape, ..key }
        };
        let mut out = Vec::with_capacity(n);
        for slot in 0..n {
            let drawn = if slot < earlier && self.level > 1 {
                let level = rng.random_range(1..self.level.min(self.levels + 1));
                Some((Source::Earlier, fresh(level, rng)))
            } else if slot >= earlier && slot < earlier + bad {
                self.bad.draw(rng).map(|k| (Source::Bad, k))
            } else {
                None
            };
            out.push(drawn.unwrap_or_else(|| {
                let level = self.current(rng);
                (Source::Current, fresh(level, rng))
            }));
        }
        out
    }

    /// Records one iteration: `perfect` (every sample solved), `learned` (it was a learning
    /// iteration; a perfect iteration can be one, when it widened margins, MODEL §6–§7) and θ's
    /// batch `fitness`.
    pub fn record(&mut self, config: &TrainConfig, perfect: bool, learned: bool, fitness: f64) -> Progress {
        self.had_update |= learned;
        let new_best = self.best_fitness.is_none_or(|best| fitness > best);
        let progress = match config.restart {
            RestartTrigger::Level => false,
            RestartTrigger::Stagnation => new_best,
            RestartTrigger::StagnationOrEqual => new_best || self.best_fitness == Some(fitness),
        };
        if new_best {
            self.best_fitness = Some(fitness);
        }
        if progress {
            self.patience = 0;
        } else if learned || config.restart_counts == Count::All {
            self.patience += 1;
        }
        if !perfect {
            self.streak = 0;
            return Progress::Continue;
        }
        self.streak += 1;
        if self.streak < self.needed(config) {
            return Progress::Continue;
        }
        let solved = self.level;
        self.last_solved = solved;
        if self.is_mixed() {
            self.finished = true;
            return Progress::Finished;
        }
        self.level += 1;
        self.streak = 0;
        self.had_update = false;
        self.best_fitness = None;
        self.patience = 0;
        Progress::Solved(solved)
    }

    /// Whether the run should restart: the patience count ([`RestartTrigger`], `restart_counts`)
    /// reached `restart_after`.
    pub fn should_restart(&self, config: &TrainConfig) -> bool {
        !self.finished && self.patience >= config.restart_after
    }

    /// Back to learning on the mixed level after a failed generalization check
    /// ([`crate::config::OnFailedCheck::Relearn`]): the `failed` samples join the bad memories,
    /// the level must be solved again from a fresh streak, and the restart patience starts over.
    pub fn relearn(&mut self, failed: Vec<SampleKey>) {
        failed.into_iter().for_each(|k| self.bad.push(k));
        self.finished = false;
        self.streak = 0;
        self.best_fitness = None;
        self.patience = 0;
    }

    /// Whether `config` can have produced this position: its levels, a level within them, the
    /// bad memories' capacity and keys (levels up to the check's), a streak short of solving.
    /// `Err` names what it cannot have produced.
    pub fn check(&self, config: &TrainConfig) -> Result<(), String> {
        let top = self.levels + 1;
        let max_key = top.max(config.check_level);
        if self.levels != config.levels {
            Err(format!("curriculum.levels is {}, the config's levels {}", self.levels, config.levels))
        } else if !(1..=top).contains(&self.level) {
            Err(format!("curriculum.level is {}, outside the curriculum's levels 1–{top}", self.level))
        } else if self.last_solved > self.level || (self.last_solved == self.level && !self.is_mixed()) {
            Err(format!(
                "curriculum.last_solved is {}, not below the current level {}",
                self.last_solved, self.level
            ))
        } else if self.finished && !(self.is_mixed() && self.last_solved == top) {
            Err(format!(
                "curriculum.finished is set at level {} (last solved {})",
                self.level, self.last_solved
            ))
        } else if self.streak > self.needed(config) {
            Err(format!(
                "curriculum.streak is {}, beyond the {} that solve a level",
                self.streak,
                self.needed(config)
            ))
        } else if self.bad.capacity != config.bad_memories || self.bad.len() > self.bad.capacity {
            Err(format!(
                "the bad memories hold {} of capacity {}, the config's bad_memories {}",
                self.bad.len(),
                self.bad.capacity,
                config.bad_memories
            ))
        } else if let Some(k) = self.bad.iter().find(|k| !(1..=max_key).contains(&k.level)) {
            Err(format!("a bad memory is of level {}, outside 1–{max_key}", k.level))
        } else {
            Ok(())
        }
    }

    /// Back to level 1 with empty bad memories (a restart, MODEL §6); the ended lineages stay.
    pub fn reset(&mut self, config: &TrainConfig) {
        let ended_lineages = std::mem::take(&mut self.ended_lineages);
        *self = Curriculum { ended_lineages, ..Curriculum::new(config) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn small() -> TrainConfig {
        TrainConfig {
            batch: 9,
            perfect_to_solve: 3,
            perfect_to_solve_after_learning: 5,
            levels: 3,
            ..Default::default()
        }
    }

    #[test]
    fn ring_buffer_keeps_the_last() {
        let mut b = BadMemories::new(3);
        for seed in 0..5 {
            b.push(SampleKey::new(1, seed));
        }
        let seeds: Vec<u64> = b.iter().map(|k| k.seed).collect();
        assert_eq!(seeds, vec![2, 3, 4]);
        let mut z = BadMemories::new(0);
        z.push(SampleKey::new(1, 0));
        assert!(z.is_empty());
    }

    #[test]
    fn solve_after_750_or_1500() {
        let c = small();
        let mut cur = Curriculum::new(&c);
        assert_eq!(cur.record(&c, true, false, 0.5), Progress::Continue);
        assert_eq!(cur.record(&c, true, false, 0.5), Progress::Continue);
        assert_eq!(cur.record(&c, true, false, 0.5), Progress::Solved(1));
        assert_eq!((cur.level, cur.last_solved), (2, 1));
        assert_eq!(cur.record(&c, true, false, 0.5), Progress::Continue);
        assert_eq!(cur.record(&c, false, true, 0.5), Progress::Continue);
        assert_eq!(cur.streak, 0);
        for _ in 0..4 {
            assert_eq!(cur.record(&c, true, false, 0.5), Progress::Continue);
        }
        assert_eq!(cur.record(&c, true, false, 0.5), Progress::Solved(2));
        for _ in 0..3 {
            cur.record(&c, true, false, 0.5);
        }
        assert_eq!(cur.level, 4);
        assert!(cur.is_mixed());
        cur.record(&c, true, false, 0.5);
        cur.record(&c, true, false, 0.5);
        assert_eq!(cur.record(&c, true, false, 0.5), Progress::Finished);
        assert!(cur.finished);
    }

    #[test]
    fn a_perfect_learning_iteration_keeps_the_streak_and_doubles_what_is_needed() {
        let c = small();
        let mut cur = Curriculum::new(&c);
        cur.record(&c, true, false, 0.5);
        assert_eq!(cur.record(&c, true, true, 0.5), Progress::Continue);
        assert_eq!((cur.streak, cur.had_update, cur.patience), (2, true, 1));
        assert_eq!(cur.needed(&c), 5);
        for _ in 0..2 {
            assert_eq!(cur.record(&c, true, false, 0.5), Progress::Continue);
        }
        assert_eq!(cur.record(&c, true, false, 0.5), Progress::Solved(1));
        // A mistake that did not count as learning resets the streak only.
        cur.record(&c, true, false, 0.5);
        assert_eq!(cur.record(&c, false, false, 0.5), Progress::Continue);
        assert_eq!((cur.streak, cur.had_update, cur.patience), (0, false, 0));
    }

    #[test]
    fn the_restart_triggers_and_what_they_count() {
        let with =
            |restart, restart_counts| TrainConfig { restart_after: 3, restart, restart_counts, ..small() };
        // Level, learning iterations: a perfect iteration without an update does not count.
        let c = with(RestartTrigger::Level, Count::Learning);
        let mut cur = Curriculum::new(&c);
        for f in [0.1, 0.2, 0.3] {
            cur.record(&c, false, true, f);
            cur.record(&c, true, false, 0.9);
            cur.record(&c, false, false, 0.9);
        }
        assert!(cur.should_restart(&c));
        // Level, every iteration.
        let c = with(RestartTrigger::Level, Count::All);
        let mut cur = Curriculum::new(&c);
        cur.record(&c, false, false, 0.1);
        cur.record(&c, true, false, 0.1);
        assert!(!cur.should_restart(&c));
        cur.record(&c, false, false, 0.1);
        assert!(cur.should_restart(&c));
        // Stagnation: a lineage that keeps improving lives on; three counted iterations without a
        // new best end it; a level-up starts the best again.
        let c = with(RestartTrigger::Stagnation, Count::All);
        let mut cur = Curriculum::new(&c);
        for k in 0..10 {
            cur.record(&c, false, true, k as f64 / 10.0);
            assert!(!cur.should_restart(&c));
        }
        cur.record(&c, false, true, 0.9);
        cur.record(&c, false, true, 0.5);
        assert!(!cur.should_restart(&c));
        cur.record(&c, false, true, 0.95);
        assert!(!cur.should_restart(&c), "0.95 beat 0.9");
        for _ in 0..3 {
            cur.record(&c, false, true, 0.95);
        }
        assert!(cur.should_restart(&c), "equal is not better");
        let mut cur = Curriculum::new(&c);
        cur.record(&c, true, false, 1.0);
        cur.record(&c, true, false, 1.0);
        assert_eq!(cur.record(&c, true, false, 1.0), Progress::Solved(1));
        assert_eq!((cur.best_fitness, cur.patience), (None, 0));
        cur.record(&c, false, true, 0.2);
        assert_eq!(cur.best_fitness, Some(0.2));
        // Stagnation counting learning iterations: perfect iterations at the best (fitness 1,
        // which nothing beats) do not count; the mistakes between them do.
        let c = TrainConfig { perfect_to_solve: 100, ..with(RestartTrigger::Stagnation, Count::Learning) };
        let mut cur = Curriculum::new(&c);
        cur.record(&c, true, false, 1.0);
        for _ in 0..10 {
            cur.record(&c, true, false, 1.0);
        }
        assert!(!cur.should_restart(&c));
        for _ in 0..3 {
            cur.record(&c, false, true, 0.9);
        }
        assert!(cur.should_restart(&c));
        // … unless ties count.
        let c = with(RestartTrigger::StagnationOrEqual, Count::All);
        let mut cur = Curriculum::new(&c);
        for _ in 0..10 {
            cur.record(&c, false, true, 0.5);
        }
        assert!(!cur.should_restart(&c));
        for _ in 0..3 {
            cur.record(&c, false, true, 0.4);
        }
        assert!(cur.should_restart(&c));
    }

    /// A checkpoint written before the restart triggers keeps its count as the patience.
    #[test]
    fn an_older_checkpoints_count_is_the_patience() {
        let c = small();
        let mut v = serde_json::to_value(Curriculum::new(&c)).unwrap();
        let m = v.as_object_mut().unwrap();
        m.remove("patience");
        m.remove("best_fitness");
        m.insert("iterations_on_level".into(), 7.into());
        let cur: Curriculum = serde_json::from_value(v).unwrap();
        assert_eq!((cur.patience, cur.best_fitness), (7, None));
    }

    #[test]
    fn restart_after_iterations_on_level() {
        let c = TrainConfig { restart_after: 4, restart: RestartTrigger::Level, ..small() };
        let mut cur = Curriculum::new(&c);
        for _ in 0..3 {
            cur.record(&c, false, true, 0.5);
        }
        assert!(!cur.should_restart(&c));
        cur.record(&c, false, true, 0.5);
        assert!(cur.should_restart(&c));
        cur.reset(&c);
        assert_eq!(cur, Curriculum::new(&c));
    }

    #[test]
    fn batch_composition() {
        let c = small();
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut cur = Curriculum::new(&c);
        // Level 1, no bad memories: everything from the current level.
        let b = cur.batch(&c, &mut rng);
        assert_eq!(b.len(), 9);
        assert!(b.iter().all(|(s, k)| *s == Source::Current && k.level == 1));
        // Level 3 with bad memories: 3 earlier, 3 bad, 3 current.
        cur.level = 3;
        cur.bad.push(SampleKey::new(2, 99));
        let b = cur.batch(&c, &mut rng);
        let count = |s: Source| b.iter().filter(|(x, _)| *x == s).count();
        assert_eq!((count(Source::Earlier), count(Source::Bad), count(Source::Current)), (3, 3, 3));
        assert!(b[..3].iter().all(|(_, k)| (1..3).contains(&k.level)));
        assert!(b[3..6].iter().all(|(_, k)| *k == SampleKey::new(2, 99)));
        assert!(b[6..].iter().all(|(_, k)| k.level == 3));
        // Mixed level: current slots uniform over 1..=L.
        cur.level = 4;
        let mut seen = [false; 4];
        for _ in 0..50 {
            for (s, k) in cur.batch(&c, &mut rng) {
                assert!((1..=3).contains(&k.level));
                if s == Source::Current {
                    seen[k.level] = true;
                }
            }
        }
        assert_eq!(seen, [false, true, true, true]);
    }

    #[test]
    fn training_samples_of_any_shape() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let mut cur = Curriculum::new(&small());
        cur.level = 3;
        cur.bad.push(SampleKey::new(2, 99));
        let fresh = |b: &[(Source, SampleKey)]| {
            let any = b.iter().filter(|(s, k)| *s != Source::Bad && k.any_shape).count();
            (any, b.iter().filter(|(s, _)| *s != Source::Bad).count())
        };
        // 0: none, and the batch is the paper's, draw for draw.
        let paper = cur.batch(&small(), &mut ChaCha8Rng::seed_from_u64(7));
        let zero = TrainConfig { train_any_shape: 0.0, ..small() };
        assert_eq!(cur.batch(&zero, &mut ChaCha8Rng::seed_from_u64(7)), paper);
        // 1: every fresh sample; a bad memory is drawn as it was stored.
        let all = TrainConfig { train_any_shape: 1.0, ..small() };
        let b = cur.batch(&all, &mut rng);
        assert_eq!(fresh(&b), (6, 6));
        assert!(b[3..6].iter().all(|(_, k)| *k == SampleKey::new(2, 99)));
        // 1/2: about half of them.
        let half = TrainConfig { train_any_shape: 0.5, ..small() };
        let (any, n) =
            (0..200).map(|_| fresh(&cur.batch(&half, &mut rng))).fold((0, 0), |a, x| (a.0 + x.0, a.1 + x.1));
        assert!((any as f64 / n as f64 - 0.5).abs() < 0.05, "{any} of {n}");
    }
}
