//! Learned data modules of the search-and-plan family (paper, Supplementary "Search & Plan"):
//! the equality E_t, the action mask a and the action model A as feed-forward networks with
//! leaky-ReLU, trained beforehand in a supervised way (`nhc data-modules train`, crate
//! `nhc-learned`) on a world's data words: the 4·N·N one-hot cells (D = 144 for 6 × 6). Here they
//! run, in plain Rust, as the Input's and the ALU's functions ([`Learned`]); the sampler, the
//! expected trace and the reference answer keep the world's exact rules, so a run on learned
//! modules is judged against what should happen.
//!
//! A directory of data modules holds `data_modules.safetensors` (every layer, `NET.K.weight`
//! `(out, in)` and `NET.K.bias`, for NET in `equality`, `mask`, `action`) and
//! `data_modules.json` ([`Meta`]).

use super::SearchPlan;
use super::world::{ACTIONS, World};
use crate::SampleRng;
use crate::any_task::{AnyTask, Entry};
use crate::fields::FieldShape;
use crate::registry::TaskError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The slope of leaky-ReLU for x < 0.
pub const LEAKY_SLOPE: f32 = 0.01;
/// The ALU's operations: the four actions and the nop.
pub const OPS: usize = ACTIONS + 1;

/// What a directory of data modules says about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    /// The world the modules were trained on (its domain name).
    pub world: String,
    /// Its data words as fields.
    pub fields: FieldShape,
    /// Training: sizes, data, epochs, accuracies on held-out states.
    pub training: Value,
}

/// Why data modules could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LearnedError {
    #[error("{}: {source}", path.display())]
    Read { path: PathBuf, source: nhc_io::limits::LimitError },
    #[error("{}: {message}", path.display())]
    Damaged { path: PathBuf, message: String },
    #[error("data modules trained on `{trained}` cannot run on `{world}`")]
    World { trained: String, world: String },
    #[error("task `{algorithm}` has no learned data modules (search, plan, search+ and plan+ have)")]
    Algorithm { algorithm: String },
}

/// One feed-forward network: dense layers with leaky-ReLU between them.
#[derive(Debug, Clone, PartialEq)]
pub struct Mlp {
    /// (weight transposed, `in × out` row-major; bias `out`): a layer adds input j's row times
    /// its value, which skips the zeros of one-hot inputs and vectorises without reordering a sum.
    layers: Vec<(Vec<f32>, Vec<f32>)>,
    inputs: usize,
}

impl Mlp {
    /// The network from its layers (weight `out × in`, row-major; bias `out`); consecutive
    /// sizes must fit.
    pub fn new(layers: Vec<(Vec<f32>, Vec<f32>)>, inputs: usize) -> Result<Self, String> {
        let mut width = inputs;
        let mut transposed = Vec::with_capacity(layers.len());
        for (k, (w, b)) in layers.into_iter().enumerate() {
            if b.is_empty() || w.len() != b.len() * width {
                return Err(format!(
                    "layer {k}: a {}×{width} weight expected, got {} entries",
                    b.len(),
                    w.len()
                ));
            }
            let out = b.len();
            let wt = (0..width * out).map(|i| w[(i % out) * width + i / out]).collect();
            transposed.push((wt, b));
            width = out;
        }
        if transposed.is_empty() {
            return Err("a network needs at least one layer".into());
        }
        Ok(Mlp { layers: transposed, inputs })
    }
    pub fn inputs(&self) -> usize {
        self.inputs
    }
    pub fn outputs(&self) -> usize {
        self.layers.last().map_or(0, |(_, b)| b.len())
    }

    /// The outputs (logits) for `x`.
    pub fn forward(&self, x: &[f32]) -> Vec<f32> {
        let mut a = x.to_vec();
        for (k, (wt, b)) in self.layers.iter().enumerate() {
            let mut out: Vec<f32> = b.clone();
            for (&aj, row) in a.iter().zip(wt.chunks_exact(out.len())) {
                if aj != 0.0 {
                    for (o, w) in out.iter_mut().zip(row) {
                        *o += aj * w;
                    }
                }
            }
            if k + 1 < self.layers.len() {
                for v in &mut out {
                    if *v < 0.0 {
                        *v *= LEAKY_SLOPE;
                    }
                }
            }
            a = out;
        }
        a
    }
}

/// How often the learned modules were asked and how often they differed from the world's exact
/// rules, since loading (over every thread).
#[derive(Debug, Default)]
pub struct Tally {
    pub apply: [AtomicU64; 2],
    pub mask: [AtomicU64; 2],
    pub equal: [AtomicU64; 2],
}

impl Tally {
    fn count(slot: &[AtomicU64; 2], wrong: bool) {
        slot[0].fetch_add(1, Ordering::Relaxed);
        if wrong {
            slot[1].fetch_add(1, Ordering::Relaxed);
        }
    }
    /// (calls, wrong) of A, a and E_t.
    pub fn counts(&self) -> [(u64, u64); 3] {
        [&self.apply, &self.mask, &self.equal]
            .map(|s| (s[0].load(Ordering::Relaxed), s[1].load(Ordering::Relaxed)))
    }
}

/// The three networks of a world's data modules.
#[derive(Debug)]
pub struct DataNets {
    pub meta: Meta,
    /// E_t on the differential rectifier units `|a − b|` of two one-hot words: 2 logits
    /// (different, equal).
    pub equality: Mlp,
    /// a: one logit per action, applicable when > 0.
    pub mask: Mlp,
    /// A on `[word; one-hot operation]`: `count · classes` logits, argmax per field.
    pub action: Mlp,
    /// Calls and differences from the exact rules.
    pub tally: Tally,
}

impl DataNets {
    /// Loads the data modules in `dir`.
    pub fn load(dir: &Path) -> Result<Self, LearnedError> {
        let meta_path = dir.join("data_modules.json");
        let text = nhc_io::limits::read_text(&meta_path, "data modules", nhc_io::limits::MAX_STATE_BYTES)
            .map_err(|source| LearnedError::Read { path: meta_path.clone(), source })?;
        let damaged = |path: &Path, message: String| LearnedError::Damaged { path: path.into(), message };
        let meta: Meta = serde_json::from_str(&text).map_err(|e| damaged(&meta_path, e.to_string()))?;
        let path = dir.join("data_modules.safetensors");
        let bytes = nhc_io::limits::read_bytes(&path, "data modules", nhc_io::limits::MAX_STATE_BYTES)
            .map_err(|source| LearnedError::Read { path: path.clone(), source })?;
        let tensors =
            safetensors::SafeTensors::deserialize(&bytes).map_err(|e| damaged(&path, e.to_string()))?;
        let word = meta.fields.one_hot();
        let net = |name: &str, inputs: usize| -> Result<Mlp, LearnedError> {
            let mut layers = Vec::new();
            for k in 0.. {
                let (Ok(w), Ok(b)) = (
                    tensors.tensor(&format!("{name}.{k}.weight")),
                    tensors.tensor(&format!("{name}.{k}.bias")),
                ) else {
                    break;
                };
                layers.push((
                    floats(&w).map_err(|m| damaged(&path, m))?,
                    floats(&b).map_err(|m| damaged(&path, m))?,
                ));
            }
            Mlp::new(layers, inputs).map_err(|m| damaged(&path, format!("{name}: {m}")))
        };
        let nets = DataNets {
            equality: net("equality", word)?,
            mask: net("mask", word)?,
            action: net("action", word + OPS)?,
            meta,
            tally: Tally::default(),
        };
        let outputs = [(&nets.equality, 2), (&nets.mask, ACTIONS), (&nets.action, word)];
        if let Some((n, want)) = outputs.iter().find(|(n, want)| n.outputs() != *want) {
            return Err(damaged(&path, format!("a network has {} outputs, {want} expected", n.outputs())));
        }
        Ok(nets)
    }

    /// E_t on two one-hot words.
    pub fn equal(&self, a: &[f32], b: &[f32]) -> bool {
        let dru: Vec<f32> = a.iter().zip(b).map(|(x, y)| (x - y).abs()).collect();
        self.equal_on(&dru)
    }
    /// E_t's answer on differential units |a − b|: equal where its second logit is the larger.
    fn equal_on(&self, dru: &[f32]) -> bool {
        let y = self.equality.forward(dru);
        y[1] > y[0]
    }
    /// E_t on every pair of words one cell apart: how many of the (cell, code, other code)
    /// changes it judges equal, of how many. Such a pair's |a − b| is the same whatever the rest
    /// of the words: ones at the two codes of that cell, so this covers every state.
    pub fn equality_one_cell_blind(&self) -> (usize, usize) {
        let (cells, classes) = (self.meta.fields.count, self.meta.fields.classes);
        let mut x = vec![0.0f32; cells * classes];
        let (mut equal, mut changes) = (0, 0);
        for c in 0..cells {
            for p in 0..classes {
                for q in p + 1..classes {
                    x[c * classes + p] = 1.0;
                    x[c * classes + q] = 1.0;
                    equal += usize::from(self.equal_on(&x));
                    changes += 1;
                    x[c * classes + p] = 0.0;
                    x[c * classes + q] = 0.0;
                }
            }
        }
        (equal, changes)
    }
    /// a on a one-hot word.
    pub fn applicable(&self, s: &[f32]) -> [bool; ACTIONS] {
        let y = self.mask.forward(s);
        std::array::from_fn(|k| y[k] > 0.0)
    }
    /// A on a one-hot word and an action: the fields of the next word.
    pub fn apply(&self, s: &[f32], action: usize) -> Vec<u8> {
        let mut x = s.to_vec();
        x.extend((0..OPS).map(|k| if k == action { 1.0 } else { 0.0 }));
        let y = self.action.forward(&x);
        y.chunks(self.meta.fields.classes)
            .map(|c| {
                c.iter().enumerate().fold((0, f32::MIN), |m, (k, &v)| if v > m.1 { (k, v) } else { m }).0
                    as u8
            })
            .collect()
    }
}

/// A tensor's entries as f32 (stored as f16, as `nhc data-modules train` saves them, or f32).
fn floats(t: &safetensors::tensor::TensorView<'_>) -> Result<Vec<f32>, String> {
    let d = t.data();
    match t.dtype() {
        safetensors::Dtype::F16 => {
            Ok(d.chunks_exact(2).map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32()).collect())
        }
        safetensors::Dtype::F32 => {
            Ok(d.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
        }
        other => Err(format!("expected f16 or f32 tensors, got {other:?}")),
    }
}

/// A world whose data modules are learned: the Input's E_t and a and the ALU's A run on
/// networks; the rules everything else uses (sampler, expected trace, reference answer, reading
/// and printing states) are the world's own.
#[derive(Debug, Clone)]
pub struct Learned<W: World> {
    pub world: W,
    pub nets: Arc<DataNets>,
    name: &'static str,
}

impl<W: World> Learned<W> {
    /// `nets` on `world`; they must have been trained on it.
    pub fn new(world: W, nets: Arc<DataNets>) -> Result<Self, LearnedError> {
        let trained = &nets.meta.world;
        if trained != world.name() || world.field_shape() != Some(nets.meta.fields) {
            return Err(LearnedError::World { trained: trained.clone(), world: world.name().into() });
        }
        let name = match world.name() {
            "sokoban6" => "sokoban6 (learned data modules)",
            "sokoban8" => "sokoban8 (learned data modules)",
            "sokoban-permuted" => "sokoban-permuted (learned data modules)",
            _ => "learned data modules",
        };
        Ok(Learned { world, nets, name })
    }

    /// `s` one-hot by field.
    fn one_hot(&self, s: &W::State) -> Vec<f32> {
        let shape = self.nets.meta.fields;
        let mut fields = vec![0u8; shape.count];
        self.world.fields(s, &mut fields);
        let mut x = vec![0.0; shape.one_hot()];
        for (k, &f) in fields.iter().enumerate() {
            x[k * shape.classes + usize::from(f).min(shape.classes - 1)] = 1.0;
        }
        x
    }
}

impl<W: World> World for Learned<W> {
    type State = W::State;
    fn name(&self) -> &'static str {
        self.name
    }
    fn random_state(&self, rng: &mut SampleRng) -> W::State {
        self.world.random_state(rng)
    }
    fn parse_state(&self, v: &Value) -> Result<W::State, String> {
        self.world.parse_state(v)
    }
    fn state_json(&self, s: &W::State) -> Value {
        self.world.state_json(s)
    }
    fn form(&self) -> String {
        self.world.form()
    }
    fn rows(&self, s: &W::State) -> Vec<String> {
        self.world.rows(s)
    }
    fn show(&self, s: &W::State) -> String {
        self.world.show(s)
    }
    fn apply(&self, s: &W::State, action: usize) -> W::State {
        self.world.apply(s, action)
    }
    fn applicable(&self, s: &W::State) -> [bool; ACTIONS] {
        self.world.applicable(s)
    }
    fn equal(&self, a: &W::State, b: &W::State) -> bool {
        self.world.equal(a, b)
    }
    fn action_names(&self) -> [&'static str; ACTIONS] {
        self.world.action_names()
    }
    fn field_shape(&self) -> Option<FieldShape> {
        self.world.field_shape()
    }
    fn fields(&self, x: &W::State, out: &mut [u8]) {
        self.world.fields(x, out)
    }
    fn state_of_fields(&self, f: &[u8]) -> Option<W::State> {
        self.world.state_of_fields(f)
    }
    /// A on the network: the argmax of every field, read back as a state (a word no state has
    /// leaves the state unchanged, which the trace then finds wrong).
    fn module_apply(&self, s: &W::State, action: usize) -> W::State {
        let fields = self.nets.apply(&self.one_hot(s), action);
        let out = self.world.state_of_fields(&fields).unwrap_or_else(|| s.clone());
        Tally::count(&self.nets.tally.apply, out != self.world.apply(s, action));
        out
    }
    fn module_applicable(&self, s: &W::State) -> [bool; ACTIONS] {
        let out = self.nets.applicable(&self.one_hot(s));
        Tally::count(&self.nets.tally.mask, out != self.world.applicable(s));
        out
    }
    fn module_equal(&self, a: &W::State, b: &W::State) -> bool {
        let out = self.nets.equal(&self.one_hot(a), &self.one_hot(b));
        Tally::count(&self.nets.tally.equal, out != self.world.equal(a, b));
        out
    }
}

/// The task `algorithm` (search, plan, search+ or plan+) in the world the data modules `nets`
/// were trained on, running on them.
pub fn with_data_modules(algorithm: &str, nets: Arc<DataNets>) -> Result<Box<dyn AnyTask>, TaskError> {
    use super::permuted::SokobanPermuted;
    use super::sokoban::Sokoban;
    fn build<W: World>(
        world: W,
        algorithm: &str,
        nets: Arc<DataNets>,
    ) -> Result<Box<dyn AnyTask>, TaskError> {
        let (plus, plan) = match algorithm {
            "search" => (false, false),
            "plan" => (false, true),
            "search+" => (true, false),
            "plan+" => (true, true),
            _ => return Err(LearnedError::Algorithm { algorithm: algorithm.into() }.into()),
        };
        Ok(Box::new(Entry(SearchPlan { world: Learned::new(world, nets)?, plus, plan })))
    }
    match nets.meta.world.as_str() {
        "sokoban6" => build(Sokoban::<6>, algorithm, nets),
        "sokoban8" => build(Sokoban::<8>, algorithm, nets),
        "sokoban-permuted" => build(SokobanPermuted::<6>, algorithm, nets),
        world => Err(LearnedError::World {
            trained: world.into(),
            world: "sokoban6, sokoban8 or sokoban-permuted".into(),
        }
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_mlp_computes_its_layers_with_leaky_relu_between() {
        // 2 → 2 → 1: h = leaky([x0 − x1, x1]) , y = h0 + 2 h1 + 0.5.
        let net = Mlp::new(vec![(vec![1.0, -1.0, 0.0, 1.0], vec![0.0, 0.0]), (vec![1.0, 2.0], vec![0.5])], 2)
            .unwrap();
        assert_eq!(net.forward(&[3.0, 1.0]), vec![2.0 + 2.0 + 0.5]);
        // x0 − x1 = −2 → −0.02; x1 = 1.
        assert_eq!(net.forward(&[-1.0, 1.0]), vec![-0.02 + 2.0 + 0.5]);
        assert_eq!((net.inputs(), net.outputs()), (2, 1));
        assert!(Mlp::new(vec![(vec![1.0; 3], vec![0.0; 2])], 2).is_err());
        assert!(Mlp::new(vec![], 2).is_err());
    }

    #[test]
    fn missing_or_damaged_modules_are_refused_with_their_path() {
        let dir = std::env::temp_dir().join(format!("nhc-learned-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let err = DataNets::load(&dir).unwrap_err().to_string();
        assert!(err.contains("data_modules.json"), "{err}");
        let meta = Meta {
            world: "sokoban6".into(),
            fields: FieldShape { count: 36, classes: 4 },
            training: Value::Null,
        };
        std::fs::write(dir.join("data_modules.json"), serde_json::to_string(&meta).unwrap()).unwrap();
        std::fs::write(dir.join("data_modules.safetensors"), b"nonsense").unwrap();
        let err = DataNets::load(&dir).unwrap_err().to_string();
        assert!(err.contains("data_modules.safetensors"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
