//! The training loop: NES (SPEC §6) on the curriculum with bad memories (SPEC §7), evaluated on
//! the fitness of SPEC §5. Deterministic for a seed, whatever the number of threads.

use crate::config::{ConfigError, NoUpdateAt, TrainConfig};
use crate::curriculum::{Curriculum, Progress, SampleKey};
use crate::nes::Nes;
use crate::noise::WordNoise;
use nhc_model::{Config, Learned, Machine, Params, ParamsError};
use nhc_tasks::evaluate::score_sample;
use nhc_tasks::{SampleRng, Task};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::marker::PhantomData;
use thiserror::Error;

/// A run that cannot start or resume.
#[derive(Debug, Error)]
pub enum TrainError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("the task's model config is invalid: {0}")]
    Model(#[from] ParamsError),
    #[error("checkpoint is for task `{found}`, not `{expected}`")]
    TaskMismatch { expected: &'static str, found: String },
    #[error("checkpoint θ has {found} numbers but task `{task}` needs {expected}")]
    ThetaLength { task: &'static str, expected: usize, found: usize },
}

/// Everything a run needs to continue: a checkpoint is exactly this struct.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainState {
    /// Task name ([`Task::NAME`]).
    pub task: String,
    pub config: TrainConfig,
    /// The seed the run started from (provenance only; `rng` carries the state).
    pub seed: u64,
    /// θ and the NES hyperparameters.
    pub nes: Nes,
    /// The run's generator: initial θ, batch composition, sample seeds, offspring noise.
    pub rng: ChaCha8Rng,
    pub curriculum: Curriculum,
    /// Iterations run, restarts included.
    pub iteration: u64,
    /// Iterations that updated θ.
    pub learning_iterations: u64,
    pub restarts: u64,
    /// Level of the last learning iteration over the whole run (0: none).
    pub last_level_learned: usize,
    /// Updates on batches whose samples were all solved that did not count as learning
    /// (`margin_update_is_learning = false`; SPEC §7).
    #[serde(default)]
    pub margin_updates: u64,
    /// Lineages that solved the mixed level but failed the generalization check.
    #[serde(default)]
    pub failed_checks: u64,
    /// Model steps run so far (θ and offspring, checks included).
    #[serde(default)]
    pub steps: u64,
}

/// The generalization check run when the mixed level was solved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckLog {
    /// Lowest and highest level of the check's samples (spread evenly between them).
    #[serde(default)]
    pub from: usize,
    pub level: usize,
    pub samples: usize,
    pub solved: usize,
}

impl CheckLog {
    pub fn passed(&self) -> bool {
        self.solved == self.samples
    }
}

/// One iteration, for progress bars and logs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IterationLog {
    /// 1-based number of this iteration.
    pub iteration: u64,
    /// Curriculum level the batch was built for (L+1 = mixed).
    pub level: usize,
    /// Mean fitness of the current θ on the batch (SPEC §5).
    pub fitness_raw: f64,
    /// Best offspring fitness, when offspring were evaluated.
    pub best_offspring: Option<f64>,
    /// Per offspring (by index), when offspring were evaluated: raw fitness and shaped fitness
    /// (the rank utility it received, SPEC §6).
    pub offspring: Option<Vec<(f64, f64)>>,
    /// Model steps run in this iteration (θ, offspring and check).
    pub steps: u64,
    /// Every sample solved: counts towards solving the level (SPEC §7).
    pub perfect: bool,
    /// Every sample solved with every scored operation at full margin: fitness 1, no update.
    pub max_fitness: bool,
    /// θ was updated.
    pub updated: bool,
    /// The update counted as a learning iteration (SPEC §7; every update unless
    /// `margin_update_is_learning` is off).
    pub learned: bool,
    /// Samples of the batch not solved.
    pub failed: usize,
    /// The level solved by this iteration, if any.
    pub solved_level: Option<usize>,
    /// The generalization check, when this iteration solved the mixed level.
    pub check: Option<CheckLog>,
    /// This iteration triggered a restart.
    pub restarted: bool,
    pub restarts: u64,
    pub learning_iterations: u64,
}

/// Per-run report (SPEC §7).
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
    /// The mixed level was solved (and the generalization check passed).
    pub finished: bool,
    /// Current curriculum level.
    pub level: usize,
}

/// A training run for task `T`.
pub struct Trainer<T: Task> {
    state: TrainState,
    model: Config,
    _task: PhantomData<T>,
}

/// A fresh θ for `model`: N(0, init_std²) from `rng`, plus `gate_bias` on the biases of the
/// previous-write gates and the free gates.
fn initial_theta(model: &Config, config: &TrainConfig, rng: &mut ChaCha8Rng) -> Vec<f32> {
    let layout = nhc_model::Layout::new(model);
    let mut theta: Vec<f32> = (0..layout.len())
        .map(|_| {
            let e: f64 = StandardNormal.sample(rng);
            (config.init_std * e) as f32
        })
        .collect();
    for block in [layout.prev_gate, layout.free_write, layout.free_read] {
        theta[block.bias()].iter_mut().for_each(|b| *b += config.gate_bias as f32);
    }
    theta
}

/// The sample a key stands for.
pub fn sample_of<T: Task>(key: &SampleKey) -> T::Sample {
    T::sample(key.level, &mut SampleRng::seed_from_u64(key.seed))
}

/// Scores θ on one sample, with word noise of `noise.0` seeded by `noise.1` when given. A θ that
/// is not a valid model scores 0 and solves nothing.
fn score<T: Task>(
    policy: Option<&mut Learned>,
    machine: &mut Machine<T::Data>,
    sample: &T::Sample,
    noise: Option<(f32, u64)>,
) -> Scored {
    let (o, solved) = match (policy, noise) {
        (None, _) => return Scored { fitness: 0.0, solved: false, steps: 0 },
        (Some(p), None) => score_sample::<T, _>(machine, p, sample),
        (Some(p), Some((std, seed))) => {
            score_sample::<T, _>(machine, &mut WordNoise::new(p, std, seed), sample)
        }
    };
    Scored { fitness: o.fitness(), solved, steps: o.steps }
}

#[derive(Debug, Clone, Copy, Default)]
struct Scored {
    fitness: f64,
    solved: bool,
    steps: u64,
}

/// Scores θ on every sample, in parallel, results in sample order. `noise`: word noise std and
/// one seed per sample, or `None`.
fn score_all<T: Task>(
    model: &Config,
    theta: &[f32],
    samples: &[T::Sample],
    noise: Option<(f32, &[u64])>,
) -> Vec<Scored> {
    let base = learned_policy(model, theta.to_vec());
    // At least 8 samples per job: short samples cost less than handing them to a thread.
    samples
        .par_iter()
        .enumerate()
        .with_min_len(8)
        .map_init(
            || (Machine::<T::Data>::new(model), base.clone()),
            |(machine, policy), (i, sample)| {
                score::<T>(policy.as_mut(), machine, sample, noise.map(|(std, seeds)| (std, seeds[i])))
            },
        )
        .collect()
}

fn learned_policy(model: &Config, theta: Vec<f32>) -> Option<Learned> {
    Params::new(model.clone(), theta).ok().map(Learned::new)
}

/// Levels of the generalization check: `n` levels spread evenly from the first level beyond
/// the curriculum (`levels + 1`) up to `check_level`, both included.
pub fn check_levels(config: &TrainConfig) -> Vec<usize> {
    let (hi, n) = (config.check_level, config.check_samples);
    let lo = (config.levels + 1).min(hi);
    (0..n).map(|i| if n == 1 { hi } else { lo + i * (hi - lo) / (n - 1) }).collect()
}

/// The generalization check (docs/DESIGN.md): θ on `check_samples` fresh samples at the
/// [`check_levels`], seeds drawn from the run's generator. Returns the log and the steps run.
fn generalization_check<T: Task>(model: &Config, s: &mut TrainState) -> (CheckLog, u64) {
    let levels = check_levels(&s.config);
    let samples: Vec<T::Sample> =
        levels.iter().map(|&level| sample_of::<T>(&SampleKey { level, seed: s.rng.next_u64() })).collect();
    let results = score_all::<T>(model, &s.nes.theta, &samples, None);
    let solved = results.iter().filter(|r| r.solved).count();
    let log = CheckLog {
        from: levels.first().copied().unwrap_or(0),
        level: s.config.check_level,
        samples: samples.len(),
        solved,
    };
    (log, results.iter().map(|r| r.steps).sum())
}

impl<T: Task> Trainer<T> {
    /// A fresh run: θ ~ N(0, init_std²) drawn from a ChaCha8 generator seeded with `seed`.
    pub fn new(config: TrainConfig, seed: u64) -> Result<Self, TrainError> {
        config.check()?;
        let model = T::config();
        model.check().map_err(ParamsError::from)?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let theta = initial_theta(&model, &config, &mut rng);
        let nes = Nes::new(
            theta,
            config.population,
            config.sigma,
            config.learning_rate,
            config.weight_decay,
            config.mirrored,
        )
        .with_step(config.nes_step);
        let state = TrainState {
            task: T::NAME.to_string(),
            curriculum: Curriculum::new(&config),
            config,
            seed,
            nes,
            rng,
            iteration: 0,
            learning_iterations: 0,
            restarts: 0,
            last_level_learned: 0,
            margin_updates: 0,
            failed_checks: 0,
            steps: 0,
        };
        Ok(Trainer { state, model, _task: PhantomData })
    }

    /// Resumes from a checkpoint.
    pub fn from_state(state: TrainState) -> Result<Self, TrainError> {
        state.config.check()?;
        if state.task != T::NAME {
            return Err(TrainError::TaskMismatch { expected: T::NAME, found: state.task });
        }
        let model = T::config();
        let expected = nhc_model::Layout::new(&model).len();
        model.check().map_err(ParamsError::from)?;
        if state.nes.theta.len() != expected {
            return Err(TrainError::ThetaLength { task: T::NAME, expected, found: state.nes.theta.len() });
        }
        Ok(Trainer { state, model, _task: PhantomData })
    }

    pub fn state(&self) -> &TrainState {
        &self.state
    }
    pub fn into_state(self) -> TrainState {
        self.state
    }
    pub fn config(&self) -> &TrainConfig {
        &self.state.config
    }
    /// Current θ.
    pub fn theta(&self) -> &[f32] {
        &self.state.nes.theta
    }
    /// Current θ as a model.
    pub fn params(&self) -> Result<Params, ParamsError> {
        Params::new(self.model.clone(), self.state.nes.theta.clone())
    }

    /// Level L+1 solved or the iteration budget spent.
    pub fn done(&self) -> bool {
        self.state.curriculum.finished || self.state.learning_iterations >= self.state.config.max_iterations
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
            finished: s.curriculum.finished,
            level: s.curriculum.level,
        }
    }

    /// One iteration (SPEC §6–§7): build the batch, score θ, and unless it has maximum fitness
    /// (or, with [`NoUpdateAt::Solved`], solves every sample) sample P offspring, score them on
    /// the same batch in parallel and update θ. Call while `!done()`; afterwards it keeps
    /// iterating on the last level.
    pub fn step(&mut self) -> IterationLog {
        let s = &mut self.state;
        let level = s.curriculum.level;
        let keys = s.curriculum.batch(&s.config, &mut s.rng);
        let samples: Vec<T::Sample> = keys.iter().map(|(_, k)| sample_of::<T>(k)).collect();
        let model = &self.model;
        let seeds: Vec<u64> = keys.iter().map(|(_, k)| k.seed).collect();
        let noise = (s.config.word_noise > 0.0).then_some((s.config.word_noise as f32, seeds.as_slice()));

        let results = score_all::<T>(model, &s.nes.theta, &samples, noise);
        let fitness_raw = results.iter().map(|r| r.fitness).sum::<f64>() / samples.len() as f64;
        let mut steps: u64 = results.iter().map(|r| r.steps).sum();
        let mut failed = 0;
        for ((_, key), r) in keys.iter().zip(&results) {
            if !r.solved {
                failed += 1;
                s.curriculum.bad.push(*key);
            }
        }
        let perfect = failed == 0;
        // Fitness 1 exactly: every scored step adds 1 + 1 · margin with the margin clipped to 1.
        let max_fitness = perfect && results.iter().all(|r| r.fitness >= 1.0);
        let updated = match s.config.no_update_at {
            NoUpdateAt::MaxFitness => !max_fitness,
            NoUpdateAt::Solved => !perfect,
        };
        let learned = updated && (!perfect || s.config.margin_update_is_learning);

        let mut offspring = None;
        if updated {
            // Noise from the run's generator on this thread; offspring scored in parallel.
            s.nes.ask(&mut s.rng);
            let nes = &s.nes;
            let scored: Vec<(f64, u64)> = (0..nes.population)
                .into_par_iter()
                .map_init(
                    || Machine::<T::Data>::new(model),
                    |machine, o| {
                        let mut policy = learned_policy(model, nes.offspring(o));
                        let (mut total, mut steps) = (0.0, 0);
                        for (x, seed) in samples.iter().zip(&seeds) {
                            let r = score::<T>(policy.as_mut(), machine, x, noise.map(|n| (n.0, *seed)));
                            total += r.fitness;
                            steps += r.steps;
                        }
                        (total / samples.len() as f64, steps)
                    },
                )
                .collect();
            let fitness: Vec<f64> = scored.iter().map(|f| f.0).collect();
            steps += scored.iter().map(|f| f.1).sum::<u64>();
            let shaped = s.nes.tell(&fitness);
            offspring = Some(fitness.into_iter().zip(shaped).collect::<Vec<_>>());
            if learned {
                s.learning_iterations += 1;
                s.last_level_learned = level;
            } else {
                s.margin_updates += 1;
            }
        }
        s.iteration += 1;

        let mut check = None;
        let solved_level = match s.curriculum.record(&s.config, perfect, learned) {
            Progress::Solved(l) => Some(l),
            Progress::Finished => {
                if s.config.check_level > 0 {
                    let (log, check_steps) = generalization_check::<T>(model, s);
                    steps += check_steps;
                    if !log.passed() {
                        s.curriculum.finished = false;
                        s.failed_checks += 1;
                    }
                    check = Some(log);
                }
                Some(level)
            }
            Progress::Continue => None,
        };
        let restarted = s.curriculum.should_restart(&s.config) || check.is_some_and(|c| !c.passed());
        if restarted {
            s.nes.theta = initial_theta(model, &s.config, &mut s.rng);
            s.curriculum.reset(&s.config);
            s.restarts += 1;
        }
        s.steps += steps;
        IterationLog {
            iteration: s.iteration,
            level,
            fitness_raw,
            best_offspring: offspring.as_ref().and_then(|o| o.iter().map(|x| x.0).reduce(f64::max)),
            offspring,
            steps,
            perfect,
            max_fitness,
            updated,
            learned,
            failed,
            solved_level,
            check,
            restarted,
            restarts: s.restarts,
            learning_iterations: s.learning_iterations,
        }
    }

    /// Steps until [`Trainer::done`], calling `on_step` after each iteration.
    pub fn run(&mut self, mut on_step: impl FnMut(&IterationLog)) -> Summary {
        while !self.done() {
            let log = self.step();
            on_step(&log);
        }
        self.summary()
    }
}
