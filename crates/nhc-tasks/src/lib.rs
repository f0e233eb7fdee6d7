//! The NHC's tasks (docs/MODEL.md §9). A task is an algorithm on a data domain:
//!
//! - the **algorithm** (one module each: [`copy_family`], [`sort`], [`addition`],
//!   [`arithmetic`], [`search_plan`]) owns what the algorithmic modules see: the Input's control
//!   signals, the Bus operations and the [`Config`] ([`Algorithm`]), the expected trace and the
//!   scripted solution, all written generically over the data;
//! - the **domain** (a trait per algorithm family, e.g. [`sort::SortDomain`],
//!   [`search_plan::World`]) owns the data: the data word, the sampler, the reference answer,
//!   the Input/ALU data operations, parsing a user's input and printing an answer.
//!
//! A task is a value of a type implementing [`Task`] (e.g. `Sort(Bytes)`); [`registry`] lists
//! every task once, behind the object-safe [`AnyTask`], which is all that training, evaluation
//! and the command line need. [`model`] holds a model (scripted or learned θ) and its file;
//! [`evaluate`] scores samples, with the per-sample data built once ([`Prepared`]).

pub mod addition;
pub mod any_task;
pub mod arithmetic;
pub mod boolean;
pub mod copy_family;
pub mod declared;
pub mod episode;
pub mod evaluate;
pub mod every_length;
pub mod fields;
pub mod model;
pub mod programs;
pub mod registry;
pub mod search_plan;
pub mod sort;
pub mod sort_domains;
pub mod symbolic;
pub mod trace;
pub mod verify;
pub mod words;

use nhc_model::{Config, DataModules, Policy, Trace, Variant};
use rand::SeedableRng;
use serde_json::Value;
use std::fmt::Debug;
use thiserror::Error;

pub use any_task::AnyTask;
pub(crate) use any_task::json_bytes;
pub use declared::{Declared, Own, Pattern, Stop, Stream};
pub use episode::{Episode, EpisodeShape};
pub use evaluate::{EvalReport, Prepared, SampleResult, Scored};
pub use fields::FieldShape;
pub use model::{Model, ModelError, ModelFile};
pub use nhc_model::Workspace;
pub use registry::{TaskError, find, names};

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

/// What the algorithmic modules of one algorithm see (paper, "Modules Instantiations"): its
/// name, its Bus operations and its config under the full NHC. The same for every domain.
#[derive(Debug, Clone, PartialEq)]
pub struct Algorithm {
    /// The name on the command line and in model files.
    pub name: &'static str,
    /// Names of the ALU operations, in Bus order.
    pub ops: &'static [&'static str],
    /// Sizes and switches of the full NHC for this algorithm.
    pub config: Config,
}

impl Algorithm {
    /// The model's config under `variant`.
    pub fn model(&self, variant: Variant) -> Config {
        variant.config(&self.config)
    }
}

/// One task: an algorithm on a domain, everything the NHC needs besides its algorithmic modules.
pub trait Task: Send + Sync + 'static {
    /// One data word.
    type Data: Clone + Default + PartialEq + Debug + Send + Sync;
    /// One problem instance.
    type Sample: Clone + Debug + Send + Sync;
    /// The answer the task asks for.
    type Answer: Clone + PartialEq + Debug + Send + Sync;
    /// Input and ALU for one sample, in their initial state.
    type Modules: DataModules<Data = Self::Data> + Clone + Send + Sync;

    /// The algorithm.
    fn algorithm(&self) -> &'static Algorithm;
    /// The data domain's name.
    fn domain(&self) -> &'static str;
    /// A random sample of curriculum level `level` ≥ 1 (MODEL §9).
    fn sample(&self, level: usize, rng: &mut SampleRng) -> Self::Sample;
    /// A random sample of any shape the task allows, no larger than level `level`'s largest
    /// (ours, for the recipe's generalization check, `check_any_shape`; docs/DESIGN.md, "The
    /// recipe"). By default the level's own sampler; a task whose levels leave shapes out (e.g.
    /// duplicated: every object shown ℓ times) draws those too.
    fn any_shape(&self, level: usize, rng: &mut SampleRng) -> Self::Sample {
        self.sample(level, rng)
    }
    /// Fresh data modules for a sample.
    fn modules(&self, sample: &Self::Sample) -> Self::Modules;
    /// The expected trace (MODEL §5).
    fn trace(&self, sample: &Self::Sample) -> Trace<Self::Data>;
    /// The answer, computed without the NHC.
    fn reference(&self, sample: &Self::Sample) -> Self::Answer;
    /// The answer the data modules collected during a run.
    fn answer(&self, modules: &Self::Modules) -> Self::Answer;
    /// The algorithm's scripted solution (for the full NHC's config).
    fn scripted(&self) -> Box<dyn Policy + Send>;
    /// Whether [`Task::scripted`] is a solution (a declared algorithm may have none).
    fn has_script(&self) -> bool {
        true
    }
    /// A digest of a declared algorithm's declaration, recorded in its model files; `None` for
    /// the built-in algorithms.
    fn digest(&self) -> Option<String> {
        None
    }
    /// A user's input (JSON) as a sample.
    fn parse_input(&self, input: &Value) -> Result<Self::Sample, InputError>;
    /// A sample as JSON, in the form [`Task::parse_input`] takes (so `parse_input(sample_json(s))`
    /// gives `s` back).
    fn sample_json(&self, sample: &Self::Sample) -> Value;
    /// An answer as JSON.
    fn answer_json(&self, answer: &Self::Answer) -> Value;
    /// A data word as short text (for traces).
    fn show(&self, data: &Self::Data) -> String;
    /// Whether the input is a start and a goal world (`--start`, `--goal` map files).
    fn takes_maps(&self) -> bool {
        false
    }
    /// Whether a user's input may be bare text: `--input` that is not JSON is taken as a JSON
    /// string (`nhc run --input '5 6 * 3 +'`).
    fn takes_text(&self) -> bool {
        false
    }
    /// The highest level this task accepts (its sampler's cost or the world's size may bound it).
    fn max_level(&self) -> usize {
        nhc_io::limits::MAX_LEVEL
    }
    /// At least the model steps a sample of `level` runs (for estimating memory before a run).
    fn max_steps(&self, level: usize) -> u64;
    /// At least the model steps `sample` runs (for a user's input).
    fn sample_steps(&self, sample: &Self::Sample) -> u64;
    /// Heap bytes `sample`'s data words hold beyond `size_of::<Data>()` each, once: copies of a
    /// word share them (e.g. long strings). For the memory estimate; 0 for fixed-size words.
    fn sample_heap(&self, sample: &Self::Sample) -> u64 {
        let _ = sample;
        0
    }
    /// At least the bytes the model's and the reference's answers for `sample` hold as JSON
    /// values together (for the memory estimate of a user's input); `None`: about twice the
    /// input's, as for answers no longer than their input.
    fn answers_bytes(&self, sample: &Self::Sample) -> Option<u64> {
        let _ = sample;
        None
    }
    /// At most [`Task::sample_heap`] of a sample of `level`.
    fn max_heap(&self, level: usize) -> u64 {
        let _ = level;
        0
    }
    /// A data word's shape as categorical fields ([`fields`]), for the DNC trained by
    /// backpropagation; `None` (the default) when the domain has no such encoding.
    fn field_shape(&self) -> Option<FieldShape> {
        None
    }
    /// `data` as fields, one per entry of `out` (`field_shape().count` of them).
    fn fields(&self, data: &Self::Data, out: &mut [u8]) {
        let _ = (data, out);
    }
    /// Every control-distinct input up to `bounds`, as parts listed in order of size, built from
    /// words that make a right read a read of the right location ([`verify`], docs/VERIFICATION.md,
    /// "Verification"); empty when the task cannot list them (`nhc verify` then samples).
    fn shapes(&self, bounds: &verify::Bounds) -> Vec<verify::Part<'_, Self::Sample>> {
        let _ = bounds;
        Vec::new()
    }
    /// Which object each output step of a list of n objects reads, when one run per length
    /// decides the task and [`every_length::prove`] covers it (copy, reverse, repeatCopy's
    /// passes, duplicated's repeats); otherwise why not, in words.
    fn every_length_order(&self) -> Result<every_length::Order, String> {
        Err(format!(
            "the every-length proof covers the copy family (copy, reverse, repeatCopy, duplicated), whose inputs of one length (and number of copies or repeats) are one class; {} is not one of them",
            self.algorithm().name
        ))
    }
    /// The input `nhc verify --every-length` traces a repeating block on: `objects` objects and
    /// `times` copies (repeatCopy, [`every_length::Proof::pass_block`]) or each presented `times`
    /// times (duplicated, [`every_length::Repeats::block`]).
    fn trace_input(&self, objects: u64, times: u64) -> Option<serde_json::Value> {
        let _ = (objects, times);
        None
    }
    /// Why [`Task::shapes`] lists nothing, when the task can say more than that it cannot (a
    /// declared algorithm: the feedback or the Input that makes `shapes` necessary).
    fn unlisted_because(&self) -> Option<String> {
        None
    }
    /// For an input of `part` (one of [`Task::shapes`]) whose reads are checked by location
    /// (docs/VERIFICATION.md, "Verification"; search and plan): per step and read head, the step whose
    /// write (first write head) the head must read (`None`: any location). `None`, the default:
    /// reads are checked by word only.
    fn read_steps(
        &self,
        part: &verify::Part<'_, Self::Sample>,
        sample: &Self::Sample,
    ) -> Option<Vec<Option<u64>>> {
        let _ = (part, sample);
        None
    }
    /// The answer as text for `nhc run`; by default its JSON.
    fn answer_text(&self, sample: &Self::Sample, answer: &Self::Answer) -> String {
        let _ = sample;
        self.answer_json(answer).to_string()
    }
}

/// `1.0` for true, `0.0` for false: the value of a control signal.
pub fn flag(b: bool) -> f32 {
    if b { 1.0 } else { 0.0 }
}
