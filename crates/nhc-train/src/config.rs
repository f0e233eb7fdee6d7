//! Training hyperparameters (MODEL §6–§7), loadable from TOML.

use crate::nes::{NesParams, Step};
use crate::records::Update;
use nhc_model::{FreeWrite, Links, UpdateFeedback};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The lowest test level of the paper's protocol (MODEL §8: 100, 500, 1000). No training or
/// selection may look at it.
pub const FIRST_TEST_LEVEL: usize = 100;

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

fn is_one(x: &usize) -> bool {
    *x == 1
}

fn is_zero_count(x: &usize) -> bool {
    *x == 0
}

fn is_zero_iterations(x: &u64) -> bool {
    *x == 0
}

fn is_first_level(x: &usize) -> bool {
    *x == 1
}

/// When NES skips the update (MODEL §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoUpdateAt {
    /// Paper: "Whenever an iteration achieves maximum fitness, no learning is triggered" — every
    /// sample solved and every scored operation chosen with the full margin (fitness 1).
    MaxFitness,
    /// Every sample solved, margins ignored.
    Solved,
}

/// Every knob of a training run. Defaults are the paper's (MODEL §6–§7) unless noted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Samples per batch N (paper: 32).
    pub batch: usize,
    /// Offspring per iteration P (paper: 20).
    pub population: usize,
    /// Learning rate α (paper: 0.01).
    pub learning_rate: f64,
    /// Fixed search std σ (paper: 0.1).
    pub sigma: f64,
    /// Population growth at restarts (ours, beyond the paper: the IPOP restarts of CMA-ES, Auger &
    /// Hansen 2005): the lineage after k restarts has `population · population_growth^k`
    /// offspring, at most `population_max`. Default 1: every lineage has the paper's P.
    #[serde(skip_serializing_if = "is_one")]
    pub population_growth: usize,
    /// The largest population of a lineage under `population_growth` (needs it above 1; even
    /// with mirrored sampling).
    #[serde(skip_serializing_if = "is_zero_count")]
    pub population_max: usize,
    /// Multiplicative weight decay λ applied at every update (paper: 0.9995).
    pub weight_decay: f64,
    /// The run's budget, restarts included (paper: "max iterations = 20.000"); what it counts is
    /// [`TrainConfig::budget`].
    pub max_iterations: u64,
    /// What `max_iterations` counts (the paper does not say; docs/DESIGN.md, "Restarts and the
    /// budget").
    pub budget: Count,
    /// The restart patience (paper: "restart iterations = 2.000"); what it counts is
    /// [`TrainConfig::restart`] (`configs/restart1000.toml` has our shorter patience).
    pub restart_after: u64,
    /// What makes a lineage stuck (paper: "automatic restarts of runs stuck in local optima";
    /// it does not say how that is measured; docs/DESIGN.md, "Restarts and the budget"): what
    /// restarts the patience count ...
    pub restart: RestartTrigger,
    /// ... and which iterations it counts (the paper does not say; default learning iterations).
    pub restart_counts: Count,
    /// Ours, beyond the paper: a lineage still on level [`deadline_level`](Self::deadline_level)
    /// or below after this many learning iterations restarts, whatever its patience count. 0,
    /// the default: no deadline (docs/results/recipe.md, "Why lineages stall").
    #[serde(skip_serializing_if = "is_zero_iterations", alias = "first_level_restart_after")]
    pub deadline: u64,
    /// The level a lineage must have passed by its [`deadline`](Self::deadline) (default 1; one
    /// above the curriculum's levels covers all of them).
    #[serde(skip_serializing_if = "is_first_level")]
    pub deadline_level: usize,
    /// When θ is left alone (MODEL §6): at maximum fitness (paper, the default), or as soon as every
    /// sample is solved, margins ignored (our earlier reading).
    pub no_update_at: NoUpdateAt,
    /// Whether an update made on a batch whose samples are all solved (only to widen Bus margins)
    /// triggers learning (the paper does not say; MODEL §7): counts as a learning iteration (budget, restart patience,
    /// "last level learned") and makes its level need 1 500 perfect iterations. Default true:
    /// every update is a learning iteration (docs/DESIGN.md, "Margin updates").
    pub margin_update_is_learning: bool,
    /// Curriculum levels 1..=levels; level `levels + 1` mixes all of them (paper: 10, mixed 11).
    pub levels: usize,
    /// Consecutive perfect iterations that solve a level without updates in it (paper: "A
    /// curriculum level is considered solved when 750 subsequent iteration are perfectly
    /// solved").
    pub perfect_to_solve: u64,
    /// Consecutive perfect iterations that solve a level that had an update (paper: "In levels
    /// were training was triggered, the required subsequent perfect iterations are doubled, i.e.,
    /// 48.000 perfectly solved samples": 1 500).
    pub perfect_to_solve_after_learning: u64,
    /// Capacity of the bad-memories ring buffer of failed samples (paper: 200).
    pub bad_memories: usize,
    /// Share of the batch drawn from earlier levels, floored (paper: 1/3).
    pub share_earlier: f64,
    /// Share of the batch drawn from bad memories, floored (paper: 1/3).
    pub share_bad: f64,
    /// Std of the initial θ ~ N(0, init_std²). The paper does not say; we pick 0.1 (= σ).
    pub init_std: f64,
    /// Initial bias of every gate (ĝ, f_w, f_r), added to the N(0, init_std²) draw. The paper
    /// does not say; default 0 (negative = gates start closed; docs/DESIGN.md).
    pub gate_bias: f64,
    /// Initial bias of the free gates f_w, f_r only, added to `gate_bias`. The paper does not
    /// give the initial θ; default −1, free gates that start closed, the reading whose first
    /// lineages learn the copy family as fast as the paper's (docs/DESIGN.md, "Training").
    pub free_gate_bias: f64,
    /// Utilities and step size of the NES update (default: ours, α/σ with Wierstra's utilities;
    /// docs/DESIGN.md, "NES step").
    pub nes_step: Step,
    /// Std of the Gaussian noise added to every control word written (v, v̂) while training
    /// (ours, beyond the paper; docs/DESIGN.md, "Word noise"). 0 = none, the default.
    pub word_noise: f64,
    /// Mirrored sampling: offspring come in pairs θ ± σε (the paper does not say; default true,
    /// MODEL §6).
    pub mirrored: bool,
    /// Generalization check (ours, not the paper's; docs/DESIGN.md): once the mixed level is
    /// solved, θ must also solve `check_samples` fresh samples at levels spread evenly over
    /// `levels + 1 ..= check_level`, or the lineage is dropped and the run restarts. 0 = no check
    /// (the default, the paper's protocol); at most [`FIRST_TEST_LEVEL`] − 1, so a check never
    /// selects on a test level (`configs/check99.toml`).
    pub check_level: usize,
    /// Samples of the generalization check (default 200), and of the early check.
    pub check_samples: usize,
    /// The early check (ours, beyond the paper; docs/RECIPE.md, "The recipe"): once a lineage
    /// solves curriculum level `early_check`, θ must also solve `check_samples` fresh samples
    /// spread over the curriculum's later levels (`early_check + 1 ..= levels`), or the lineage
    /// is restarted: a lineage that learned a solution bounded to the shapes of its first levels
    /// stalls on a later one (docs/results/recipe.md, "Why lineages stall"). 0 = none, the
    /// default.
    #[serde(skip_serializing_if = "is_zero_count")]
    pub early_check: usize,
    /// Whether the generalization check draws samples of any shape the task allows
    /// ([`nhc_tasks::Task::any_shape`]: e.g. duplicated's runs of different lengths) instead of
    /// the levels' own (ours, with the check; default false; docs/RECIPE.md, "The recipe").
    pub check_any_shape: bool,
    /// Share of the fresh training samples (earlier and current levels, not bad memories) drawn
    /// in any shape the task allows at their level ([`nhc_tasks::Task::any_shape`]), each sample
    /// by a draw of its own (ours, beyond the paper, which trains on its levels' shapes only;
    /// default 0; docs/RECIPE.md, "The recipe").
    #[serde(skip_serializing_if = "is_zero")]
    pub train_any_shape: f64,
    /// Update feedback (ours, the paper's remedy for updates that drift: "add feedback to this
    /// signals during training if it can be provided"): in training and the check, a scored step
    /// that updates a location read the step before (ĝ = 1) where the task's expected program
    /// updates nothing is wrong, like a wrong read. Only tasks whose expected program says where
    /// it updates take it (sort); default false; evaluation never uses it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub update_feedback: bool,
    /// With update feedback: a scored step where the expected program updates the location read
    /// the step before and the model does not is wrong too (ours; default false, so only the
    /// updates the program does not make are wrong).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub require_updates: bool,
    /// The first curriculum level whose batches get update feedback (ours; default 1, every
    /// level): below it training scores as the paper's; the check always gets it.
    #[serde(skip_serializing_if = "is_one")]
    pub update_feedback_from: usize,
    /// What a failed generalization check does to the lineage (ours, with the check): a restart
    /// (the default), or back to the mixed level with the samples it failed in the bad memories,
    /// to learn them (docs/RECIPE.md, "The recipe").
    pub on_failed_check: OnFailedCheck,
    /// The memory's temporal-linkage convention (the paper's equation and its sentence on
    /// freeing allow three readings; default `tail`, docs/DESIGN.md, "Temporal links"). Recorded in the model
    /// file, so a model runs with the convention it was trained with.
    pub links: Links,
    /// What a write free gate f_w = 1 does beyond usage (the paper's words allow both readings;
    /// default `release`, docs/DESIGN.md, "Free gates"); recorded in the model file like `links`.
    pub free_write: FreeWrite,
    /// What a read mode with no target reads (`stay`, the default: the location again; `empty`:
    /// nothing; the paper is silent, docs/DESIGN.md, "Missing links"); recorded in the model file
    /// like `links`.
    pub missing_link: nhc_model::MissingLink,
    /// Bus feedback c_b_{t−1} into the Controller, for every task: `true` or `false` overrides
    /// the algorithm's own setting (absent: the algorithm's; paper: "feedback signals from the
    /// Bus and ALU from the previous step can be activated if desired"). Recorded in the model
    /// file.
    pub bus_feedback: Option<bool>,
    /// Free gates f_w and f_r, for every task: `true` or `false` overrides the algorithm's
    /// setting (absent: the algorithm's; paper: "The free gates were activated for the four copy
    /// tasks and the arithmetic task"). A screen, not a protocol. Recorded in the model file.
    pub free_gates: Option<bool>,
    /// Which values of the Bus the fitness's margin compares (`probabilities`, the default, or
    /// `raw` logits; the paper's "first and second largest values of c_k^b" allows both; docs/
    /// DESIGN.md, "Margin"). Recorded in the model file.
    pub margin: nhc_model::Margin,
}

/// What a count of iterations counts: the budget (`budget`) or the restart patience
/// (`restart_counts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Count {
    /// Learning iterations (those that update θ). For the budget: the paper's sort median of
    /// 9 016 learning iterations plus ≥ 8 250 perfect iterations would not fit 20 000 in all.
    /// For the patience: perfect iterations are progress towards solving the level.
    Learning,
    /// Iterations of any kind, perfect ones included.
    All,
}

/// What a failed generalization check does ([`TrainConfig::on_failed_check`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnFailedCheck {
    /// The lineage is dropped and the run restarts.
    #[default]
    Restart,
    /// The lineage goes back to the mixed level, the samples it failed join its bad memories
    /// (MODEL §7: a third of every batch), and it must solve the mixed level again, then the
    /// check again: the failing lengths become training signal instead of a reason to start over.
    Relearn,
}

/// What restarts the patience count of a lineage (`restart_after` counted iterations, of the
/// kind `restart_counts` says, make it stuck and the run restarts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RestartTrigger {
    /// A level-up only: stuck after `restart_after` counted iterations on one level (with
    /// learning iterations counted, our earlier reading, `configs/restart_level.toml`).
    Level,
    /// The default: a level-up, or θ's batch fitness exceeding its best on the current level
    /// (the best starts again at each level-up): a lineage that still improves lives on. The
    /// reading whose first lineages match the paper's failing cells (results/screens/rules/README.md).
    Stagnation,
    /// As [`RestartTrigger::Stagnation`], but a batch fitness equal to the best also counts as
    /// progress.
    StagnationOrEqual,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            batch: 32,
            population: 20,
            population_growth: 1,
            population_max: 0,
            learning_rate: 0.01,
            sigma: 0.1,
            weight_decay: 0.9995,
            max_iterations: 20_000,
            budget: Count::Learning,
            restart_after: 2_000,
            restart: RestartTrigger::Stagnation,
            restart_counts: Count::Learning,
            deadline: 0,
            deadline_level: 1,
            no_update_at: NoUpdateAt::MaxFitness,
            margin_update_is_learning: true,
            levels: 10,
            perfect_to_solve: 750,
            perfect_to_solve_after_learning: 1_500,
            bad_memories: 200,
            share_earlier: 1.0 / 3.0,
            share_bad: 1.0 / 3.0,
            init_std: 0.1,
            gate_bias: 0.0,
            free_gate_bias: -1.0,
            nes_step: Step::Wierstra,
            word_noise: 0.0,
            mirrored: true,
            check_level: 0,
            check_samples: 200,
            early_check: 0,
            check_any_shape: false,
            train_any_shape: 0.0,
            update_feedback: false,
            require_updates: false,
            update_feedback_from: 1,
            on_failed_check: OnFailedCheck::Restart,
            links: nhc_model::Config::PAPER.links,
            free_write: nhc_model::Config::PAPER.free_write,
            missing_link: nhc_model::Config::PAPER.missing_link,
            bus_feedback: None,
            free_gates: None,
            margin: nhc_model::Margin::Probabilities,
        }
    }
}

/// A config that cannot train.
#[derive(Debug, Clone, Error, PartialEq)]
pub enum ConfigError {
    #[error("batch must be at least 1, got {0}")]
    Batch(usize),
    #[error("population must be at least 2, got {0}")]
    Population(usize),
    #[error("population must be even with mirrored sampling, got {0}")]
    PopulationOdd(usize),
    #[error("population_growth must be at least 1, got {0}")]
    PopulationGrowth(usize),
    #[error("population_max needs population_growth above 1 (each restart multiplies the population by it)")]
    PopulationMaxAlone,
    #[error(
        "population_max must be at least population ({population}) and even with mirrored sampling, got {max}"
    )]
    PopulationMax { max: usize, population: usize },
    #[error("learning_rate must be a finite number > 0, got {0:?}")]
    LearningRate(f64),
    #[error("sigma must be a finite number ≥ 1e-6 (smaller noise is lost in θ's f32 rounding), got {0:?}")]
    Sigma(f64),
    #[error("weight_decay must be in (0, 1], got {0:?}")]
    WeightDecay(f64),
    #[error("max_iterations must be at least 1")]
    MaxIterations,
    #[error("restart_after must be at least 1")]
    RestartAfter,
    #[error("levels must be at least 1")]
    Levels,
    #[error("deadline_level must be at least 1 (a level above the curriculum's covers all of it)")]
    DeadlineLevel,
    #[error("perfect_to_solve and perfect_to_solve_after_learning must be at least 1")]
    PerfectToSolve,
    #[error("share_{name} must be in [0, 1], got {value:?}")]
    Share { name: &'static str, value: f64 },
    #[error("train_any_shape must be a share in [0, 1], got {0:?}")]
    TrainAnyShape(f64),
    #[error("{0} needs update_feedback = true")]
    NeedsUpdateFeedback(&'static str),
    #[error(
        "update_feedback_from must be a curriculum level in 1..={last} (levels + 1, the mixed level), got {from}"
    )]
    UpdateFeedbackFrom { from: usize, last: usize },
    #[error("share_earlier + share_bad must be at most 1, got {0:?}")]
    SharesSum(f64),
    #[error("init_std must be a finite number ≥ 0, got {0:?}")]
    InitStd(f64),
    #[error("word_noise must be a finite number ≥ 0, got {0:?}")]
    WordNoise(f64),
    #[error("{name} must be a finite number, got {value:?}")]
    GateBias { name: &'static str, value: f64 },
    #[error("check_samples must be at least 1 when check_level or early_check is set")]
    CheckSamples,
    #[error("check_level must be below the first test level {FIRST_TEST_LEVEL}, got {0}")]
    CheckLevel(usize),
    #[error(
        "check_level must be beyond the curriculum (the check reads levels {first}..=check_level), got {level}; set it above {levels} or 0 for no check"
    )]
    CheckInsideCurriculum { level: usize, levels: usize, first: usize },
    #[error("{0} has no effect without the generalization check; set check_level (e.g. 99) or leave {0} out")]
    NeedsCheckLevel(&'static str),
    #[error(
        "early_check must be a curriculum level with a later one, 1..={last} (levels − 1), or 0 for none; got {level}"
    )]
    EarlyCheck { level: usize, last: usize },
    #[error("{name} is {value:?}; at most {max:?} is supported")]
    TooLarge { name: &'static str, value: f64, max: f64 },
    #[error("levels must be below the first test level {FIRST_TEST_LEVEL}, got {0}")]
    LevelsReachTest(usize),
    #[error("{field} must be {values}, got {got}")]
    Choice { field: String, values: String, got: String },
    #[error("{field} = {got} is out of range: at most {max}")]
    Beyond { field: String, got: String, max: f64 },
    #[error("invalid TOML training config: {0}")]
    Toml(String),
    #[error("config: {0}")]
    Fields(String),
    #[error(transparent)]
    File(#[from] nhc_io::limits::LimitError),
    #[error("config {path}: {source}")]
    InFile { path: String, source: Box<ConfigError> },
}

/// A [`TrainConfig`] that passed [`TrainConfig::check`]: checked once, at the edge (a config
/// file, a checkpoint), and trusted after. Serialises as the plain config; deserialising checks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "TrainConfig", into = "TrainConfig")]
pub struct ValidConfig(TrainConfig);

impl ValidConfig {
    /// The paper's defaults.
    pub fn paper() -> Self {
        ValidConfig(TrainConfig::default())
    }
    pub fn get(&self) -> &TrainConfig {
        &self.0
    }
    pub fn into_inner(self) -> TrainConfig {
        self.0
    }
}

impl std::ops::Deref for ValidConfig {
    type Target = TrainConfig;
    fn deref(&self) -> &TrainConfig {
        &self.0
    }
}

impl TryFrom<TrainConfig> for ValidConfig {
    type Error = ConfigError;
    fn try_from(c: TrainConfig) -> Result<Self, ConfigError> {
        c.validate()
    }
}

impl From<ValidConfig> for TrainConfig {
    fn from(c: ValidConfig) -> TrainConfig {
        c.0
    }
}

/// A TOML error as one line: where, and what (serde's message names the valid choices of an
/// enum), with Rust's integer types in words.
/// The values a unit enum of the config takes, as serde lists them (`` `restart` or `relearn` ``).
fn variants<T: serde::de::DeserializeOwned>() -> String {
    let e = serde_json::from_value::<T>(serde_json::Value::String(String::new())).err();
    let message = e.map(|e| e.to_string()).unwrap_or_default();
    message.split_once("expected ").map(|(_, v)| v.to_string()).unwrap_or(message)
}

/// The values of a choice field of [`TrainConfig`] (a unit enum); None for other fields.
fn choices(field: &str) -> Option<String> {
    Some(match field {
        "budget" | "restart_counts" => variants::<Count>(),
        "restart" => variants::<RestartTrigger>(),
        "no_update_at" => variants::<NoUpdateAt>(),
        "nes_step" => variants::<Step>(),
        "on_failed_check" => variants::<OnFailedCheck>(),
        "links" => variants::<Links>(),
        "free_write" => variants::<FreeWrite>(),
        "missing_link" => variants::<nhc_model::MissingLink>(),
        "margin" => variants::<nhc_model::Margin>(),
        _ => return None,
    })
}

/// A plainer error than the parser's for a field of the wrong kind: a choice given as something
/// other than a string (`on_failed_check = 1`, which serde calls "wanted string or table"), or
/// a count beyond 64 bits (from Python, whose ints have no bound). None if there is none.
pub fn kind_error(fields: &serde_json::Map<String, serde_json::Value>) -> Option<ConfigError> {
    for (field, value) in fields {
        if let Some(values) = choices(field) {
            if !value.is_string() {
                return Some(ConfigError::Choice { field: field.clone(), values, got: value.to_string() });
            }
        } else if let serde_json::Value::String(digits) = value
            && !digits.is_empty()
            && digits.trim_start_matches('-').bytes().all(|b| b.is_ascii_digit())
        {
            let max = TrainConfig::default().bounded().into_iter().find(|(name, ..)| name == field);
            let max = max.map_or(u64::MAX as f64, |(.., max)| max);
            return Some(ConfigError::Beyond { field: field.clone(), got: digits.clone(), max });
        }
    }
    None
}

/// [`kind_error`] of a TOML table.
pub(crate) fn toml_kind_error(table: &toml::Table) -> Option<ConfigError> {
    match serde_json::to_value(table) {
        Ok(serde_json::Value::Object(fields)) => kind_error(&fields),
        _ => None,
    }
}

pub(crate) fn one_line(e: &toml::de::Error, text: &str) -> String {
    let message = e
        .message()
        .replace("expected u64", "expected a whole number ≥ 0")
        .replace("expected usize", "expected a whole number ≥ 0");
    match e.span() {
        Some(span) => {
            // The line of the span's start: the newlines before it, plus one.
            let before = text.get(..span.start.min(text.len())).unwrap_or(text);
            format!("line {}: {message}", before.matches('\n').count() + 1)
        }
        None => message,
    }
}

fn positive(x: f64) -> bool {
    x.is_finite() && x > 0.0
}

impl TrainConfig {
    /// The update feedback a training batch at curriculum level `level` scores with
    /// (`update_feedback_from`).
    pub fn update_feedback_at(&self, level: usize) -> UpdateFeedback {
        if level >= self.update_feedback_from { self.update_feedback() } else { UpdateFeedback::Off }
    }
    /// The update feedback the check scores with (`update_feedback`, `require_updates`).
    pub fn update_feedback(&self) -> UpdateFeedback {
        match (self.update_feedback, self.require_updates) {
            (false, _) => UpdateFeedback::Off,
            (true, false) => UpdateFeedback::NoExtra,
            (true, true) => UpdateFeedback::Exact,
        }
    }
    /// Checks every rule; the first broken one is returned.
    pub fn check(&self) -> Result<(), ConfigError> {
        use ConfigError as E;
        if self.batch < 1 {
            return Err(E::Batch(self.batch));
        }
        if self.population < 2 {
            return Err(E::Population(self.population));
        }
        if self.mirrored && !self.population.is_multiple_of(2) {
            return Err(E::PopulationOdd(self.population));
        }
        if !positive(self.learning_rate) {
            return Err(E::LearningRate(self.learning_rate));
        }
        if !(positive(self.sigma) && self.sigma >= 1e-6) {
            return Err(E::Sigma(self.sigma));
        }
        if !(positive(self.weight_decay) && self.weight_decay <= 1.0) {
            return Err(E::WeightDecay(self.weight_decay));
        }
        if self.max_iterations < 1 {
            return Err(E::MaxIterations);
        }
        if self.restart_after < 1 {
            return Err(E::RestartAfter);
        }
        if self.levels < 1 {
            return Err(E::Levels);
        }
        if self.deadline_level < 1 {
            return Err(E::DeadlineLevel);
        }
        if self.perfect_to_solve < 1 || self.perfect_to_solve_after_learning < 1 {
            return Err(E::PerfectToSolve);
        }
        for (name, value) in [("earlier", self.share_earlier), ("bad", self.share_bad)] {
            if !(value.is_finite() && (0.0..=1.0).contains(&value)) {
                return Err(E::Share { name, value });
            }
        }
        if !(self.train_any_shape.is_finite() && (0.0..=1.0).contains(&self.train_any_shape)) {
            return Err(E::TrainAnyShape(self.train_any_shape));
        }
        if !(1..=self.levels + 1).contains(&self.update_feedback_from) {
            return Err(E::UpdateFeedbackFrom { from: self.update_feedback_from, last: self.levels + 1 });
        }
        for (name, set) in [
            ("require_updates", self.require_updates),
            ("update_feedback_from", self.update_feedback_from != 1),
        ] {
            if set && !self.update_feedback {
                return Err(E::NeedsUpdateFeedback(name));
            }
        }
        let sum = self.share_earlier + self.share_bad;
        if sum > 1.0 + 1e-12 {
            return Err(E::SharesSum(sum));
        }
        if !(self.init_std.is_finite() && self.init_std >= 0.0) {
            return Err(E::InitStd(self.init_std));
        }
        if !(self.word_noise.is_finite() && self.word_noise >= 0.0) {
            return Err(E::WordNoise(self.word_noise));
        }
        for (name, value) in [("gate_bias", self.gate_bias), ("free_gate_bias", self.free_gate_bias)] {
            if !value.is_finite() {
                return Err(E::GateBias { name, value });
            }
        }
        if (self.check_level > 0 || self.early_check > 0) && self.check_samples == 0 {
            return Err(E::CheckSamples);
        }
        if self.early_check >= self.levels {
            return Err(E::EarlyCheck { level: self.early_check, last: self.levels.saturating_sub(1) });
        }
        if self.check_level >= FIRST_TEST_LEVEL {
            return Err(E::CheckLevel(self.check_level));
        }
        if self.check_level > 0 && self.check_level <= self.levels {
            let (level, levels) = (self.check_level, self.levels);
            return Err(E::CheckInsideCurriculum { level, levels, first: levels + 1 });
        }
        if self.check_level == 0 {
            for (name, set) in [
                ("on_failed_check", self.on_failed_check != OnFailedCheck::Restart),
                ("check_any_shape", self.check_any_shape),
            ] {
                if set {
                    return Err(E::NeedsCheckLevel(name));
                }
            }
        }
        if self.levels >= FIRST_TEST_LEVEL {
            return Err(E::LevelsReachTest(self.levels));
        }
        for (name, value, max) in self.bounded() {
            if value.abs() > max {
                return Err(E::TooLarge { name, value, max });
            }
        }
        // After the bounds, so that a growth beyond its bound is named as such.
        if self.population_growth < 1 {
            return Err(E::PopulationGrowth(self.population_growth));
        }
        let max = self.population_max;
        if self.population_growth == 1 && max != 0 {
            return Err(E::PopulationMaxAlone);
        }
        if self.population_growth > 1 && (max < self.population || (self.mirrored && !max.is_multiple_of(2)))
        {
            return Err(E::PopulationMax { max, population: self.population });
        }
        Ok(())
    }

    /// The counts and scales of the config, each with its upper bound: far beyond the paper's
    /// values, below what would exhaust memory or overflow θ (N(0, init_std²) must stay a finite
    /// f32). Field by field, so every name here is the field it reads.
    pub fn bounded(&self) -> [(&'static str, f64, f64); 18] {
        [
            ("batch", self.batch as f64, 100_000.0),
            ("population", self.population as f64, 10_000.0),
            ("population_growth", self.population_growth as f64, 10_000.0),
            ("population_max", self.population_max as f64, 10_000.0),
            ("max_iterations", self.max_iterations as f64, 1e9),
            ("restart_after", self.restart_after as f64, 1e9),
            ("deadline", self.deadline as f64, 1e9),
            ("deadline_level", self.deadline_level as f64, 1e9),
            ("perfect_to_solve", self.perfect_to_solve as f64, 1e9),
            ("perfect_to_solve_after_learning", self.perfect_to_solve_after_learning as f64, 1e9),
            ("bad_memories", self.bad_memories as f64, 1_000_000.0),
            ("check_samples", self.check_samples as f64, 100_000.0),
            ("learning_rate", self.learning_rate, 100.0),
            ("sigma", self.sigma, 100.0),
            ("init_std", self.init_std, 100.0),
            ("gate_bias", self.gate_bias, 100.0),
            ("free_gate_bias", self.free_gate_bias, 100.0),
            ("word_noise", self.word_noise, 100.0),
        ]
    }

    /// What an iteration does with θ (MODEL §6, §7), given that its batch was `perfect` (every
    /// sample solved) and at `max_fitness` (perfect, every scored operation at full margin).
    pub fn update_rule(&self, perfect: bool, max_fitness: bool) -> Update {
        match (perfect, max_fitness, self.no_update_at) {
            (false, _, _) => Update::Mistake,
            (true, true, _) => Update::SkipMaxFitness,
            (true, false, NoUpdateAt::Solved) => Update::SkipSolved,
            (true, false, NoUpdateAt::MaxFitness) if self.margin_update_is_learning => Update::Margin,
            (true, false, NoUpdateAt::MaxFitness) => Update::MarginApart,
        }
    }

    /// The config, checked: what a run takes.
    pub fn validate(self) -> Result<ValidConfig, ConfigError> {
        self.check()?;
        Ok(ValidConfig(self))
    }

    /// The population of the lineage after `restarts` restarts (`population_growth`,
    /// `population_max`; the paper's P throughout by default).
    pub fn population_after(&self, restarts: u64) -> usize {
        let mut p = self.population;
        for _ in 0..restarts {
            if p >= self.population_max {
                break;
            }
            p = p.saturating_mul(self.population_growth).min(self.population_max);
        }
        p
    }

    /// The largest population any lineage of a run can have.
    pub fn largest_population(&self) -> usize {
        self.population.max(self.population_max)
    }

    /// The NES hyperparameters (MODEL §6) of the lineage after `restarts` restarts.
    pub fn nes(&self, restarts: u64) -> NesParams {
        NesParams {
            population: self.population_after(restarts),
            sigma: self.sigma,
            learning_rate: self.learning_rate,
            weight_decay: self.weight_decay,
            mirrored: self.mirrored,
            step: self.nes_step,
        }
    }

    /// Parses a TOML document (missing fields take their defaults) and checks it.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let c: TrainConfig = toml::from_str(text).map_err(|e| {
            let kind = text.parse::<toml::Table>().ok().and_then(|t| toml_kind_error(&t));
            kind.unwrap_or_else(|| ConfigError::Toml(one_line(&e, text)))
        })?;
        c.check()?;
        Ok(c)
    }

    /// Reads and checks a TOML file (`nhc train --config FILE`); its errors name the file.
    pub fn from_file(path: &std::path::Path) -> Result<Self, ConfigError> {
        use nhc_io::limits::{MAX_STATE_BYTES, read_text};
        let text = read_text(path, "config", MAX_STATE_BYTES)?;
        Self::from_toml(&text)
            .map_err(|e| ConfigError::InFile { path: path.display().to_string(), source: Box::new(e) })
    }

    /// The mixed level drawing from all levels (paper: 11).
    pub fn mixed_level(&self) -> usize {
        self.levels + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(f: impl FnOnce(&mut TrainConfig)) -> Result<(), ConfigError> {
        let mut c = TrainConfig::default();
        f(&mut c);
        c.check()
    }

    /// A choice given as anything but a string names the field and its values, for every choice
    /// field and in both forms (a plain file, a `[tasks.NAME]` table).
    #[test]
    fn a_choice_of_the_wrong_kind_names_its_values() {
        let fields = TrainConfig::default();
        let json = serde_json::to_value(&fields).unwrap();
        let choice_fields: Vec<&String> =
            json.as_object().unwrap().iter().filter(|(_, v)| v.is_string()).map(|(k, _)| k).collect();
        assert!(choice_fields.len() >= 9, "{choice_fields:?}");
        for field in choice_fields {
            let values = choices(field).unwrap_or_else(|| panic!("{field} is a choice without values"));
            assert!(values.contains('`'), "{field}: {values}");
            for wrong in ["1", "true", "1.5", "[\"restart\"]"] {
                let err = TrainConfig::from_toml(&format!("{field} = {wrong}\n")).unwrap_err().to_string();
                assert_eq!(
                    err,
                    format!("{field} must be {values}, got {}", wrong.replace(' ', "")),
                    "{field}"
                );
                let tabled = format!("[tasks.sort]\n{field} = {wrong}\n");
                let err = crate::TaskConfigs::from_toml(&tabled).unwrap_err().to_string();
                assert!(err.contains(&format!("{field} must be {values}")), "{err}");
            }
        }
        let big = serde_json::json!({"batch": "1180591620717411303424"});
        let err = kind_error(big.as_object().unwrap()).unwrap().to_string();
        assert_eq!(err, "batch = 1180591620717411303424 is out of range: at most 100000");
    }

    /// Every file of the repository's configs/ is a valid config.
    #[test]
    fn the_shipped_configs_load() -> Result<(), Box<dyn std::error::Error>> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
        let mut count = 0;
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            // The form every command reads: a plain config, or one with [tasks.NAME] tables.
            crate::TaskConfigs::from_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            count += 1;
        }
        assert!(count >= 10, "{count} configs");
        Ok(())
    }

    #[test]
    fn defaults_are_valid_and_the_papers() {
        let c = TrainConfig::default();
        assert_eq!(c.check(), Ok(()));
        assert_eq!((c.batch, c.population, c.levels, c.mixed_level()), (32, 20, 10, 11));
    }
    #[test]
    fn batch_at_least_one() {
        assert_eq!(with(|c| c.batch = 0), Err(ConfigError::Batch(0)));
    }
    #[test]
    fn population_at_least_two() {
        assert_eq!(with(|c| c.population = 0), Err(ConfigError::Population(0)));
        assert_eq!(with(|c| c.population = 1), Err(ConfigError::Population(1)));
    }
    /// IPOP: the population doubles at each restart up to its cap; without growth it stays P, and
    /// a cap without growth, below P or odd under mirroring is refused.
    #[test]
    fn population_grows_at_restarts_up_to_its_cap() {
        let c = TrainConfig { population_growth: 2, population_max: 80, ..Default::default() };
        assert_eq!(c.check(), Ok(()));
        let grown: Vec<usize> = (0..5).map(|k| c.population_after(k)).collect();
        assert_eq!(grown, vec![20, 40, 80, 80, 80]);
        assert_eq!((c.nes(2).population, c.largest_population()), (80, 80));
        let paper = TrainConfig::default();
        assert_eq!((paper.population_after(7), paper.largest_population()), (20, 20));
        let max = |population_max| ConfigError::PopulationMax { max: population_max, population: 20 };
        assert_eq!(with(|c| c.population_max = 40), Err(ConfigError::PopulationMaxAlone));
        assert_eq!(with(|c| (c.population_growth, c.population_max) = (2, 10)), Err(max(10)));
        assert_eq!(with(|c| (c.population_growth, c.population_max) = (2, 41)), Err(max(41)));
        assert_eq!(with(|c| c.population_growth = 0), Err(ConfigError::PopulationGrowth(0)));
    }

    #[test]
    fn population_even_when_mirrored() {
        assert_eq!(with(|c| c.population = 21), Err(ConfigError::PopulationOdd(21)));
        assert_eq!(
            with(|c| {
                c.population = 21;
                c.mirrored = false
            }),
            Ok(())
        );
    }
    #[test]
    fn learning_rate_positive() {
        assert_eq!(with(|c| c.learning_rate = 0.0), Err(ConfigError::LearningRate(0.0)));
        assert!(with(|c| c.learning_rate = f64::NAN).is_err());
    }
    #[test]
    fn sigma_positive() {
        assert_eq!(with(|c| c.sigma = -0.1), Err(ConfigError::Sigma(-0.1)));
        assert_eq!(with(|c| c.sigma = 1e-300), Err(ConfigError::Sigma(1e-300)));
        assert_eq!(with(|c| c.sigma = 1e-6), Ok(()));
        assert!(with(|c| c.sigma = f64::INFINITY).is_err());
    }
    #[test]
    fn weight_decay_in_unit_interval() {
        assert_eq!(with(|c| c.weight_decay = 1.5), Err(ConfigError::WeightDecay(1.5)));
        assert_eq!(with(|c| c.weight_decay = 0.0), Err(ConfigError::WeightDecay(0.0)));
        assert_eq!(with(|c| c.weight_decay = 1.0), Ok(()));
    }
    #[test]
    fn max_iterations_at_least_one() {
        assert_eq!(with(|c| c.max_iterations = 0), Err(ConfigError::MaxIterations));
    }
    #[test]
    fn restart_after_at_least_one() {
        assert_eq!(with(|c| c.restart_after = 0), Err(ConfigError::RestartAfter));
    }
    #[test]
    fn committed_configs_differ_from_the_default_in_one_setting_each() {
        // (restart1000.toml: the patience and what it counts.)
        let default = TrainConfig::default();
        for (text, expected) in [
            (
                include_str!("../../../configs/restart1000.toml"),
                TrainConfig { restart_after: 1_000, restart: RestartTrigger::Level, ..default.clone() },
            ),
            (
                include_str!("../../../configs/restart_level.toml"),
                TrainConfig { restart: RestartTrigger::Level, ..default.clone() },
            ),
            (
                include_str!("../../../configs/bus_feedback_on.toml"),
                TrainConfig { bus_feedback: Some(true), ..default.clone() },
            ),
            (
                include_str!("../../../configs/check99.toml"),
                TrainConfig { check_level: 99, check_samples: 200, ..default.clone() },
            ),
            (
                include_str!("../../../configs/decay999.toml"),
                TrainConfig { weight_decay: 0.999, ..default.clone() },
            ),
            (
                include_str!("../../../configs/solved_rule.toml"),
                TrainConfig { no_update_at: NoUpdateAt::Solved, ..default.clone() },
            ),
            (
                include_str!("../../../configs/margin_apart.toml"),
                TrainConfig { margin_update_is_learning: false, ..default.clone() },
            ),
            (
                include_str!("../../../configs/free_gates_open.toml"),
                TrainConfig { free_gate_bias: 0.0, ..default.clone() },
            ),
        ] {
            assert_eq!(TrainConfig::from_toml(text).unwrap(), expected);
            assert_ne!(expected, default);
        }
    }
    #[test]
    fn defaults_are_the_papers_protocol() {
        let c = TrainConfig::default();
        assert_eq!((c.restart_after, c.check_level, c.no_update_at), (2_000, 0, NoUpdateAt::MaxFitness));
        assert_eq!(
            (c.restart, c.restart_counts, c.budget, c.bus_feedback),
            (RestartTrigger::Stagnation, Count::Learning, Count::Learning, None)
        );
        assert_eq!((c.perfect_to_solve, c.perfect_to_solve_after_learning), (750, 1_500));
        assert_eq!((c.learning_rate, c.sigma, c.weight_decay, c.max_iterations), (0.01, 0.1, 0.9995, 20_000));
    }
    #[test]
    fn check_never_reaches_a_test_level() {
        assert_eq!(with(|c| c.check_level = 100), Err(ConfigError::CheckLevel(100)));
        assert_eq!(with(|c| c.check_level = 99), Ok(()));
        // A check inside the curriculum, and check settings without a check, have no effect.
        for level in 1..=10 {
            let e = with(|c| c.check_level = level);
            assert_eq!(e, Err(ConfigError::CheckInsideCurriculum { level, levels: 10, first: 11 }));
        }
        assert_eq!(with(|c| c.check_level = 11), Ok(()));
        assert_eq!(with(|c| c.check_any_shape = true), Err(ConfigError::NeedsCheckLevel("check_any_shape")));
        let relearn = |c: &mut TrainConfig| c.on_failed_check = OnFailedCheck::Relearn;
        assert_eq!(with(relearn), Err(ConfigError::NeedsCheckLevel("on_failed_check")));
        assert_eq!(
            with(|c| {
                relearn(c);
                c.check_any_shape = true;
                c.check_level = 99;
            }),
            Ok(())
        );
    }
    #[test]
    fn counts_and_scales_are_bounded() {
        assert_eq!(
            with(|c| c.batch = 1_000_000_000_000),
            Err(ConfigError::TooLarge { name: "batch", value: 1e12, max: 100_000.0 })
        );
        assert!(matches!(with(|c| c.bad_memories = 100_000_000_000_000), Err(ConfigError::TooLarge { .. })));
        assert!(matches!(with(|c| c.init_std = 1e300), Err(ConfigError::TooLarge { name: "init_std", .. })));
        assert!(matches!(with(|c| c.gate_bias = -1e9), Err(ConfigError::TooLarge { name: "gate_bias", .. })));
        assert_eq!(with(|c| c.levels = 100), Err(ConfigError::LevelsReachTest(100)));
        // Each name is the field it bounds: a config setting that field beyond its bound is
        // refused under that name.
        for (name, value, max) in TrainConfig::default().bounded() {
            assert!(value.is_finite() && value.abs() <= max, "{name}");
            // As an integer, and as a float for the fields that are floats.
            let texts = [format!("{name} = {}", 2.0 * max), format!("{name} = {:?}", 2.0 * max)];
            let refused_as = texts.iter().find_map(|t| match TrainConfig::from_toml(t) {
                Err(ConfigError::TooLarge { name, .. }) => Some(name),
                _ => None,
            });
            assert_eq!(refused_as, Some(name));
        }
    }

    #[test]
    fn levels_at_least_one() {
        assert_eq!(with(|c| c.levels = 0), Err(ConfigError::Levels));
    }
    #[test]
    fn deadline_level_is_at_least_one() {
        assert_eq!(with(|c| c.deadline_level = 0), Err(ConfigError::DeadlineLevel));
        // A recipe's per-task deadline stays valid under a shorter curriculum (`levels = 2`).
        assert_eq!(with(|c| (c.deadline_level, c.levels) = (5, 2)), Ok(()));
    }
    #[test]
    fn the_level_one_cap_reads_as_a_deadline() {
        let c = TrainConfig::from_toml("first_level_restart_after = 1000").expect("old name");
        assert_eq!((c.deadline, c.deadline_level), (1000, 1));
    }
    #[test]
    fn perfect_counts_at_least_one() {
        assert_eq!(with(|c| c.perfect_to_solve = 0), Err(ConfigError::PerfectToSolve));
        assert_eq!(with(|c| c.perfect_to_solve_after_learning = 0), Err(ConfigError::PerfectToSolve));
    }
    #[test]
    fn shares_in_unit_interval() {
        assert_eq!(with(|c| c.share_bad = -0.5), Err(ConfigError::Share { name: "bad", value: -0.5 }));
        assert!(matches!(
            with(|c| c.share_earlier = f64::NAN),
            Err(ConfigError::Share { name: "earlier", .. })
        ));
    }
    #[test]
    fn require_updates_needs_update_feedback() {
        assert_eq!(
            with(|c| c.require_updates = true),
            Err(ConfigError::NeedsUpdateFeedback("require_updates"))
        );
        let exact = |c: &mut TrainConfig| {
            c.update_feedback = true;
            c.require_updates = true;
        };
        assert_eq!(with(exact), Ok(()));
        let mut c = TrainConfig::default();
        assert_eq!(c.update_feedback(), UpdateFeedback::Off);
        exact(&mut c);
        assert_eq!(c.update_feedback(), UpdateFeedback::Exact);
        c.require_updates = false;
        assert_eq!(c.update_feedback(), UpdateFeedback::NoExtra);
        c.update_feedback_from = 2;
        assert_eq!(c.update_feedback_at(1), UpdateFeedback::Off);
        assert_eq!(c.update_feedback_at(2), UpdateFeedback::NoExtra);
    }

    #[test]
    fn update_feedback_from_is_a_training_level() {
        let on = |from| {
            move |c: &mut TrainConfig| {
                c.update_feedback = true;
                c.update_feedback_from = from;
            }
        };
        assert_eq!(with(on(0)), Err(ConfigError::UpdateFeedbackFrom { from: 0, last: 11 }));
        assert_eq!(with(on(12)), Err(ConfigError::UpdateFeedbackFrom { from: 12, last: 11 }));
        assert_eq!(with(on(11)), Ok(()));
        assert_eq!(
            with(|c| c.update_feedback_from = 2),
            Err(ConfigError::NeedsUpdateFeedback("update_feedback_from"))
        );
    }

    #[test]
    fn train_any_shape_is_a_share() {
        for bad in [-0.1, 1.5, f64::INFINITY] {
            assert_eq!(with(|c| c.train_any_shape = bad), Err(ConfigError::TrainAnyShape(bad)));
        }
        assert!(with(|c| c.train_any_shape = f64::NAN).is_err());
        assert_eq!(with(|c| c.train_any_shape = 1.0), Ok(()));
    }
    #[test]
    fn shares_sum_at_most_one() {
        assert_eq!(
            with(|c| {
                c.share_earlier = 0.6;
                c.share_bad = 0.6
            }),
            Err(ConfigError::SharesSum(1.2))
        );
    }
    #[test]
    fn init_std_non_negative() {
        assert_eq!(with(|c| c.init_std = -1.0), Err(ConfigError::InitStd(-1.0)));
    }
    #[test]
    fn check_needs_samples() {
        assert_eq!(
            with(|c| {
                c.check_samples = 0;
                c.check_level = 50
            }),
            Err(ConfigError::CheckSamples)
        );
        assert_eq!(with(|c| c.check_samples = 0), Ok(()));
    }
    #[test]
    fn toml_round_trip_partial_and_unknown_fields() {
        let c = TrainConfig::from_toml("batch = 8\nsigma = 0.05\nmirrored = false\n").unwrap();
        assert_eq!((c.batch, c.sigma, c.mirrored, c.population), (8, 0.05, false, 20));
        assert!(matches!(TrainConfig::from_toml("batchsize = 8"), Err(ConfigError::Toml(_))));
        // Bad readings and negative counts: one line that names the valid choices.
        for (text, want) in [
            (
                "restart = \"stuck\"",
                "line 1: unknown variant `stuck`, expected one of `level`, `stagnation`, `stagnation_or_equal`",
            ),
            ("batch = 8\nbudget = \"y\"", "line 2: unknown variant `y`, expected `learning` or `all`"),
            ("free_write = \"x\"", "line 1: unknown variant `x`, expected `release` or `unmarked`"),
            ("missing_link = \"wrap\"", "line 1: unknown variant `wrap`, expected `stay` or `empty`"),
            ("restart_after = -5", "line 1: invalid value: integer `-5`, expected a whole number ≥ 0"),
        ] {
            assert_eq!(TrainConfig::from_toml(text), Err(ConfigError::Toml(want.to_string())), "{text}");
        }
        // The line counts blank lines too.
        for (text, want) in [
            ("batch = 8\n\nbatchx = 3", "line 3: unknown field `batchx`"),
            ("batch = 8\nsigma = 0.1\nbatch = 9", "line 3: duplicate key"),
        ] {
            let got = TrainConfig::from_toml(text);
            assert!(matches!(&got, Err(ConfigError::Toml(m)) if m.starts_with(want)), "{text}: {got:?}");
        }
        assert_eq!(TrainConfig::from_toml("batch = 0"), Err(ConfigError::Batch(0)));
        let full = toml::to_string(&TrainConfig::default()).unwrap();
        assert_eq!(TrainConfig::from_toml(&full), Ok(TrainConfig::default()));
    }
}
