//! The NHC's tasks (SPEC §9). Each task module holds its Input and ALU data modules, its level
//! sampler, its expected trace, an independent reference computation and its scripted solution.
//!
//! - [`Task`]: what a task provides; [`registry`]: tasks by name, behind [`AnyTask`].
//! - [`model`]: a model is the scripted solution or a learned θ ([`Model`]), and its file format.
//! - [`evaluate`]: scoring many samples, in parallel, deterministically.

pub mod addition;
pub mod arithmetic;
pub mod copy_family;
pub mod evaluate;
pub mod model;
pub mod registry;
pub mod search_plan;
pub mod sort;

use nhc_model::{Config, DataModules, Policy, Trace};
use rand::SeedableRng;
use serde_json::Value;
use std::fmt::Debug;
use thiserror::Error;

pub use evaluate::{EvalReport, SampleResult};
pub use model::{Model, ModelError, ModelFile};
pub use registry::{AnyTask, TaskError, find, names};

/// The generator every sample is drawn from.
pub type SampleRng = rand_chacha::ChaCha8Rng;

/// The generator of sample `index` of `level` under `seed`: independent of how samples are
/// spread over threads.
pub fn sample_rng(seed: u64, level: usize, index: u64) -> SampleRng {
    let mut z = seed;
    for v in [level as u64, index] {
        z = splitmix(z ^ splitmix(v));
    }
    SampleRng::seed_from_u64(z)
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// An input the task cannot take, in plain words.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[error("{0}")]
pub struct InputError(pub String);

impl InputError {
    pub fn new(msg: impl Into<String>) -> Self {
        InputError(msg.into())
    }
}

/// One task: everything the NHC needs besides its algorithmic modules.
pub trait Task: Send + Sync + 'static {
    /// One data word.
    type Data: Clone + Default + PartialEq + Debug + Send;
    /// One problem instance.
    type Sample: Clone + Debug + Send + Sync;
    /// The answer the task asks for.
    type Answer: Clone + PartialEq + Debug;
    /// Input and ALU for one sample.
    type Modules: DataModules<Data = Self::Data>;
    /// The hand-written solution.
    type Scripted: Policy + Clone + Send + Sync;

    /// The name used on the command line and in model files.
    const NAME: &'static str;
    /// Names of the ALU operations, in Bus order.
    const OPS: &'static [&'static str];

    /// Sizes and switches of the algorithmic modules for this task.
    fn config() -> Config;
    /// A random sample of curriculum level `level` ≥ 1 (SPEC §9).
    fn sample(level: usize, rng: &mut SampleRng) -> Self::Sample;
    /// Fresh data modules for a sample.
    fn modules(sample: &Self::Sample) -> Self::Modules;
    /// The expected trace (SPEC §5).
    fn trace(sample: &Self::Sample) -> Trace<Self::Data>;
    /// The answer, computed without the NHC.
    fn reference(sample: &Self::Sample) -> Self::Answer;
    /// The answer the data modules collected during a run.
    fn answer(modules: &Self::Modules) -> Self::Answer;
    /// The scripted solution.
    fn scripted() -> Self::Scripted;
    /// A user's input (JSON) as a sample.
    fn parse_input(input: &Value) -> Result<Self::Sample, InputError>;
    /// An answer as JSON.
    fn answer_json(answer: &Self::Answer) -> Value;
    /// A data word as short text (for traces).
    fn show(data: &Self::Data) -> String;
    /// The answer as text for `nhc run`; by default its JSON.
    fn answer_text(sample: &Self::Sample, answer: &Self::Answer) -> String {
        let _ = sample;
        Self::answer_json(answer).to_string()
    }
}
