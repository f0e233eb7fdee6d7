//! The training loop: NES (MODEL §6) on the curriculum with bad memories (MODEL §7), evaluated on
//! the fitness of MODEL §5. Any registered task, by value; deterministic for a seed, whatever the
//! number of threads.

use crate::check::{CheckLog, check_levels, early_check_levels, generalization_check};
use crate::config::{ConfigError, Count, OnFailedCheck, ValidConfig};
use crate::curriculum::{Curriculum, Progress};
use crate::nes::Nes;
use crate::peers::{Alone, Peers, share};
use crate::records::{Advance, Ending, IterationLog, Lineage, RunOutcome, Summary, Update};
use crate::restart::initial_theta;
use crate::scoring::{score_all, score_offspring};
pub use crate::state::TrainState;
use nhc_model::{Config, Params, ParamsError, Variant};
use nhc_tasks::AnyTask;
use nhc_tasks::evaluate::{Prepared, SampleKey};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;
use thiserror::Error;

/// θ on one batch.
struct BatchScore {
    fitness_raw: f64,
    steps: u64,
    /// Samples not solved.
    failed: usize,
    /// Every sample solved with every scored operation at full margin.
    max_fitness: bool,
}

/// A run that cannot start or resume.
#[derive(Debug, Error)]
pub enum TrainError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("the model config is invalid: {0}")]
    Model(#[from] ParamsError),
    #[error("checkpoint is for task `{found}`, not `{expected}`")]
    TaskMismatch { expected: &'static str, found: String },
    #[error(
        "checkpoint is for another declaration of `{task}` (declaration digest {found}, this declaration's {expected})"
    )]
    DeclarationMismatch { task: &'static str, expected: String, found: String },
    #[error("checkpoint θ has {found} numbers but task `{task}` as {variant} needs {expected}")]
    ThetaLength { task: &'static str, variant: Variant, expected: usize, found: usize },
    #[error("checkpoint θ: {0}")]
    CheckpointTheta(ParamsError),
    #[error(
        "one iteration of this config would run about {total} model steps ({episodes} episodes of θ and the population on a batch, up to {steps} steps each at level {level}, and {check} for the check): more than a quarter of an hour even at 10 million steps a second; lower population, batch, levels or check_samples"
    )]
    Cost { total: u64, episodes: u64, steps: u64, level: usize, check: u64 },
    #[error("the checkpoint's state is not one its config can produce: {0}")]
    State(String),
    #[error("word noise is defined for the NHC's control words only; {0} trains without it (word_noise = 0)")]
    WordNoise(Variant),
    #[error(
        "update_feedback needs an expected program that says where it updates memory; {0}'s does not (only sort's does): set update_feedback = false"
    )]
    UpdateFeedback(String),
    #[error(
        "θ left the range of a model at iteration {iteration} ({source}); training stopped, the last checkpoint is the last good state"
    )]
    Diverged { iteration: u64, source: ParamsError },
}

/// The model a run trains: the variant's config of the task's algorithm, with the training
/// config's memory conventions (temporal links, write free gate, missing link) and its Bus
/// feedback and free gate overrides.
pub fn model_config(task: &dyn AnyTask, variant: Variant, config: &ValidConfig) -> Config {
    let base = task.algorithm().model(variant);
    Config {
        links: config.links,
        free_write: config.free_write,
        missing_link: config.missing_link,
        margin: config.margin,
        bus_feedback: config.bus_feedback.unwrap_or(base.bus_feedback),
        free_gates: config.free_gates.unwrap_or(base.free_gates),
        ..base
    }
}

/// Model steps at which one iteration is refused before the run starts: over a quarter of an
/// hour even at 10 million steps a second (a run of the paper's config makes about 10⁶ an
/// iteration at level 10).
pub const MAX_ITERATION_STEPS: u64 = 10_000_000_000;

/// Refuses a config whose iteration would run more than [`MAX_ITERATION_STEPS`] model steps: θ
/// and the population on a batch at the highest level, plus a generalization check's samples.
/// Each value may be within its bounds while their product is not.
/// The model of `task` as `variant` under `config`, if a run may train it: the checks of a new
/// run, which a resumed checkpoint passes again.
fn admissible(task: &dyn AnyTask, variant: Variant, config: &ValidConfig) -> Result<Config, TrainError> {
    let model = model_config(task, variant, config);
    model.check().map_err(ParamsError::from)?;
    if !model.memory.word_noise() && config.word_noise > 0.0 {
        return Err(TrainError::WordNoise(variant));
    }
    if config.update_feedback && !task.knows_updates() {
        return Err(TrainError::UpdateFeedback(task.name().to_string()));
    }
    iteration_cost(task, config)?;
    Ok(model)
}

/// The costlier of the generalization checks, each at its highest level, in model steps.
fn check_steps(task: &dyn AnyTask, config: &ValidConfig) -> u64 {
    match config.check_level.max(config.early_check.min(1) * config.levels) {
        0 => 0,
        l => (config.check_samples as u64).saturating_mul(task.level_steps(l.min(task.max_level()))),
    }
}

/// The work a run of `config` has to do, in model steps, for the long-work check of a new or
/// resumed run: one learning iteration at the curriculum's highest level (θ and the population
/// on a batch, and the check), and a run that learns once on each level 1..=L+1 (one learning
/// iteration and `perfect_to_solve` perfect ones of θ alone on a batch, the mixed level counted
/// at L's length, and the check once). Runs that learn take longer.
pub fn work_steps(task: &dyn AnyTask, config: &ValidConfig) -> (u64, u64) {
    let top = config.levels.min(task.max_level());
    let batch = config.batch as u64;
    let episodes = (config.largest_population() as u64 + 1).saturating_mul(batch);
    let check = check_steps(task, config);
    let iteration = episodes.saturating_mul(task.level_steps(top)).saturating_add(check);
    let per_level = config.perfect_to_solve.saturating_mul(batch).saturating_add(episodes);
    let run = (1..=top + 1)
        .map(|l| per_level.saturating_mul(task.level_steps(l.min(top))))
        .fold(check, u64::saturating_add);
    (iteration, run)
}

/// The long-work check of a run of `config` ([`nhc_io::limits::check_work`], at the speed the
/// caller set; docs/DESIGN.md, "Long work"): one learning iteration at the highest level, and a
/// run that learns once on each level ([`work_steps`]).
pub fn check_work(task: &dyn AnyTask, config: &ValidConfig) -> Result<(), nhc_io::limits::LimitError> {
    let (iteration, run) = work_steps(task, config);
    let levels = config.levels + 1;
    nhc_io::limits::check_work(&format!("one learning iteration at level {levels}"), iteration)?;
    let what = format!(
        "a run of this config that learns once on each of its {levels} levels (and {} perfect iterations each)",
        config.perfect_to_solve
    );
    nhc_io::limits::check_work(&what, run)
}

fn iteration_cost(task: &dyn AnyTask, config: &ValidConfig) -> Result<(), TrainError> {
    let episodes = (config.largest_population() as u64 + 1).saturating_mul(config.batch as u64);
    let level = config.levels.min(task.max_level());
    let steps = task.level_steps(level);
    let check = check_steps(task, config);
    let total = episodes.saturating_mul(steps).saturating_add(check);
    if total > MAX_ITERATION_STEPS {
        return Err(TrainError::Cost { total, episodes, steps, level, check });
    }
    Ok(())
}

/// Each offspring's raw fitness, utility and steps, by offspring index; empty when θ was left
/// alone.
#[derive(Default)]
struct Offspring {
    raw: Vec<f64>,
    shaped: Vec<f64>,
    steps: Vec<u64>,
}

/// A training run of one task as one model variant.
pub struct Trainer {
    state: TrainState,
    task: &'static dyn AnyTask,
    model: Config,
    /// The processes that score the offspring with this one ([`Alone`] by default).
    peers: Arc<dyn Peers>,
}

impl Trainer {
    /// A fresh run: θ ~ N(0, init_std²) drawn from a ChaCha8 generator seeded with `seed`.
    pub fn new(
        task: &'static dyn AnyTask,
        variant: Variant,
        config: ValidConfig,
        seed: u64,
    ) -> Result<Self, TrainError> {
        let model = admissible(task, variant, &config)?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let theta = initial_theta(&model, &config, &mut rng);
        let state = TrainState {
            task: task.name().to_string(),
            domain: task.domain().to_string(),
            digest: task.digest(),
            variant,
            curriculum: Curriculum::new(&config),
            config,
            seed,
            nes: Nes::new(theta),
            rng,
            iteration: 0,
            learning_iterations: 0,
            restarts: 0,
            last_level_learned: 0,
            margin_updates: 0,
            failed_checks: 0,
            steps: 0,
            lineage_start: 0,
        };
        Ok(Trainer { state, task, model, peers: Arc::new(Alone) })
    }

    /// Resumes from a checkpoint of `task`.
    pub fn from_state(task: &'static dyn AnyTask, state: TrainState) -> Result<Self, TrainError> {
        if state.task != task.name() {
            return Err(TrainError::TaskMismatch { expected: task.name(), found: state.task });
        }
        if state.digest != task.digest() {
            let show = |d: Option<String>| d.unwrap_or_else(|| "none".to_string());
            return Err(TrainError::DeclarationMismatch {
                task: task.name(),
                expected: show(task.digest()),
                found: show(state.digest),
            });
        }
        // What a new run would refuse, a checkpoint may not bring in (an edited config).
        let model = admissible(task, state.variant, &state.config)?;
        // The generator is the seed's (it is seeded once, by Trainer::new): a seed edited alone
        // would name a command that does not give this run.
        if state.rng.get_seed() != ChaCha8Rng::seed_from_u64(state.seed).get_seed() {
            return Err(TrainError::State(format!(
                "its generator was not seeded by its seed {}",
                state.seed
            )));
        }
        let expected = nhc_model::theta_len(&model);
        if state.nes.theta.len() != expected {
            return Err(TrainError::ThetaLength {
                task: task.name(),
                variant: state.variant,
                expected,
                found: state.nes.theta.len(),
            });
        }
        Params::new(model.clone(), state.nes.theta.clone()).map_err(TrainError::CheckpointTheta)?;
        state.check().map_err(TrainError::State)?;
        Ok(Trainer { state, task, model, peers: Arc::new(Alone) })
    }

    /// The same run with its offspring scored by `peers` together (each must run the same
    /// trainer step for step).
    pub fn with_peers(mut self, peers: Arc<dyn Peers>) -> Self {
        self.peers = peers;
        self
    }

    pub fn task(&self) -> &'static dyn AnyTask {
        self.task
    }
    pub fn state(&self) -> &TrainState {
        &self.state
    }
    pub fn into_state(self) -> TrainState {
        self.state
    }
    pub fn config(&self) -> &ValidConfig {
        &self.state.config
    }
    /// The model's config (the algorithm's under the run's variant).
    pub fn model(&self) -> &Config {
        &self.model
    }
    /// Current θ.
    pub fn theta(&self) -> &[f32] {
        &self.state.nes.theta
    }
    /// Current θ as a model.
    pub fn params(&self) -> Result<Params, ParamsError> {
        Params::new(self.model.clone(), self.state.nes.theta.clone())
    }
    /// Current θ as a learned model of the run's variant.
    pub fn learned(&self) -> Result<nhc_tasks::model::LearnedModel, ParamsError> {
        Ok(nhc_tasks::model::LearnedModel { variant: self.state.variant, params: self.params()? })
    }

    /// How the run ended: the mixed level solved, or the budget (`budget`, a [`Count`]) spent; `None` while
    /// neither.
    pub fn outcome(&self) -> Option<RunOutcome> {
        let s = &self.state;
        let spent = match s.config.budget {
            Count::Learning => s.learning_iterations,
            Count::All => s.iteration,
        };
        if s.curriculum.finished {
            Some(RunOutcome::Solved)
        } else if spent >= s.config.max_iterations {
            Some(RunOutcome::Cap)
        } else {
            None
        }
    }

    /// Level L+1 solved or the iteration budget spent.
    pub fn done(&self) -> bool {
        self.outcome().is_some()
    }

    pub fn summary(&self) -> Summary {
        let s = &self.state;
        Summary {
            iterations: s.iteration,
            learning_iterations: s.learning_iterations,
            margin_updates: s.margin_updates,
            last_level_learned: s.last_level_learned,
            last_level_solved: s.curriculum.last_solved,
            restarts: s.restarts,
            failed_checks: s.failed_checks,
            level: s.curriculum.level,
            outcome: self.outcome(),
        }
    }

    /// The run's lineages, in order: those ended by a restart and, once the run is done, the
    /// last one (finished, or cut by the cap), unless a restart at the cap left it empty. Their
    /// learning iterations add up to the run's.
    pub fn lineages(&self) -> Vec<Lineage> {
        let s = &self.state;
        let mut all = s.curriculum.ended_lineages.clone();
        let learning_iterations = s.current_learning();
        let iterations = s.iteration.saturating_sub(s.lineage_start);
        let ending = match self.outcome() {
            Some(RunOutcome::Solved) => Some(Ending::Finished),
            Some(RunOutcome::Cap) if iterations > 0 || all.is_empty() => Some(Ending::Cap),
            Some(RunOutcome::Cap) | None => None,
        };
        if let Some(ending) = ending {
            all.push(Lineage { learning_iterations, iterations, level: s.curriculum.level, ending });
        }
        all
    }

    /// One iteration (MODEL §6–§7): build the batch (each sample prepared once), score θ, and
    /// unless it has maximum fitness (or, with [`NoUpdateAt::Solved`], solves every sample)
    /// sample P offspring, score them on the same batch in parallel and update θ. Call while
    /// `!done()`; afterwards it keeps iterating on the last level. Fails when the update takes θ
    /// out of the range of a model (non-finite or beyond `MAX_PARAM`): the run cannot go on.
    pub fn step(&mut self) -> Result<IterationLog, TrainError> {
        let level = self.state.curriculum.level;
        let slots = self.state.curriculum.batch(&self.state.config, &mut self.state.rng);
        let keys: Vec<SampleKey> = slots.iter().map(|(_, k)| *k).collect();
        let batch =
            self.task.prepare_with_update_feedback(&keys, self.state.config.update_feedback_at(level));
        let seeds: Vec<u64> = keys.iter().map(|k| k.seed).collect();
        let noise = (self.state.config.word_noise > 0.0)
            .then_some((self.state.config.word_noise as f32, seeds.as_slice()));

        let scored = self.score(&keys, batch.as_ref(), noise);
        let update = self.state.config.update_rule(scored.failed == 0, scored.max_fitness);
        let mut steps = scored.steps;
        let offspring = if update.updated() {
            self.update(batch.as_ref(), noise, update.learned(), level)?
        } else {
            Offspring::default()
        };
        steps += offspring.steps.iter().sum::<u64>();
        self.state.iteration += 1;
        let (advance, check, check_steps) = self.advance(update, scored.fitness_raw);
        steps += check_steps;
        match advance {
            Advance::Restart => self.state.restart(&self.model, Ending::Restart),
            Advance::FailedCheck => self.state.restart(&self.model, Ending::Check),
            Advance::Stay | Advance::NextLevel | Advance::Finished | Advance::Relearn => {}
        }
        let s = &mut self.state;
        s.steps += steps;
        Ok(IterationLog {
            iteration: s.iteration,
            level,
            fitness_raw: scored.fitness_raw,
            update,
            failed: scored.failed,
            best_offspring: offspring.raw.iter().copied().reduce(f64::max),
            offspring_raw: offspring.raw,
            offspring_shaped: offspring.shaped,
            offspring_steps: offspring.steps,
            advance,
            check,
            perfect_streak: s.curriculum.streak,
            restarts: s.restarts,
            learning_iterations: s.learning_iterations,
            steps,
        })
    }

    /// Scores θ on the batch (MODEL §5); the samples it fails join the bad memories (MODEL §7).
    fn score(
        &mut self,
        keys: &[SampleKey],
        batch: &dyn Prepared,
        noise: Option<(f32, &[u64])>,
    ) -> BatchScore {
        let results = score_all(&self.model, &self.state.nes.theta, batch, noise);
        let mut failed = 0;
        for (key, r) in keys.iter().zip(&results) {
            if !r.solved {
                failed += 1;
                self.state.curriculum.bad.push(*key);
            }
        }
        BatchScore {
            fitness_raw: results.iter().map(|r| r.fitness).sum::<f64>() / keys.len() as f64,
            steps: results.iter().map(|r| r.steps).sum(),
            failed,
            // Fitness 1 exactly: every scored step adds 1 + 1 · margin with the margin clipped to 1.
            max_fitness: failed == 0 && results.iter().all(|r| r.fitness >= 1.0),
        }
    }

    /// One NES update (MODEL §6): offspring drawn from the run's generator on this thread and
    /// scored in parallel, θ moved.
    fn update(
        &mut self,
        batch: &dyn Prepared,
        noise: Option<(f32, &[u64])>,
        learned: bool,
        level: usize,
    ) -> Result<Offspring, TrainError> {
        let s = &mut self.state;
        let params = s.config.nes(s.restarts);
        s.nes.ask(&params, &mut s.rng);
        let nes = &s.nes;
        let (peers, p) = (self.peers.as_ref(), params.population);
        let mine = share(p, peers.rank(), peers.size());
        let mine = score_offspring(&self.model, &|o| nes.offspring(&params, o), mine, batch, noise);
        let scored = peers.all_gather(&mine, p);
        let raw: Vec<f64> = scored.iter().map(|f| f.0).collect();
        let steps = scored.iter().map(|f| f.1).collect();
        let shaped = s.nes.tell(&params, &raw);
        if let Err(source) = Params::new(self.model.clone(), s.nes.theta.clone()) {
            return Err(TrainError::Diverged { iteration: s.iteration + 1, source });
        }
        if learned {
            s.learning_iterations += 1;
            s.last_level_learned = level;
        } else {
            s.margin_updates += 1;
        }
        Ok(Offspring { raw, shaped, steps })
    }

    /// Moves the curriculum on (MODEL §7): what the iteration did to it and to the lineage
    /// (a restart is due when it ends the lineage otherwise than finished), and the
    /// generalization check when the mixed level was solved and a check is configured (or the
    /// early check when its level was solved), with the steps it ran.
    fn advance(&mut self, update: Update, fitness: f64) -> (Advance, Option<CheckLog>, u64) {
        let s = &mut self.state;
        match s.curriculum.record(&s.config, update.perfect(), update.learned(), fitness) {
            Progress::Solved(level) if level == s.config.early_check => {
                let levels = early_check_levels(&s.config);
                let (log, steps, _) = generalization_check(self.task, &self.model, s, &levels);
                if log.passed() {
                    return (Advance::NextLevel, Some(log), steps);
                }
                s.failed_checks += 1;
                (Advance::FailedCheck, Some(log), steps)
            }
            Progress::Solved(_) => (Advance::NextLevel, None, 0),
            Progress::Finished if s.config.check_level > 0 => {
                let levels = check_levels(&s.config);
                let (log, steps, failed) = generalization_check(self.task, &self.model, s, &levels);
                if log.passed() {
                    return (Advance::Finished, Some(log), steps);
                }
                s.curriculum.finished = false;
                s.failed_checks += 1;
                match s.config.on_failed_check {
                    OnFailedCheck::Restart => (Advance::FailedCheck, Some(log), steps),
                    OnFailedCheck::Relearn => {
                        s.curriculum.relearn(failed);
                        (Advance::Relearn, Some(log), steps)
                    }
                }
            }
            Progress::Finished => (Advance::Finished, None, 0),
            Progress::Continue if s.due_to_restart() => (Advance::Restart, None, 0),
            Progress::Continue => (Advance::Stay, None, 0),
        }
    }

    /// Steps until [`Trainer::done`], calling `on_step` after each iteration.
    pub fn run(&mut self, mut on_step: impl FnMut(&IterationLog)) -> Result<Summary, TrainError> {
        while !self.done() {
            let log = self.step()?;
            on_step(&log);
        }
        Ok(self.summary())
    }
}
