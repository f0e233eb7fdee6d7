//! Data modules learned in a supervised way (paper, Supplementary "Search & Plan"): for a world
//! of the search-and-plan family, the equality E_t (a feed-forward network on differential
//! rectifier units, 10 hidden units), the action mask a (256 hidden units) and the action model A
//! (state and operation → next state), all with leaky-ReLU and trained with cross-entropy on
//! states drawn from the world's exact rules. They are saved in the form
//! `nhc_tasks::search_plan::learned` reads and runs; accuracies on held-out states are measured
//! there, on the networks as the NHC runs them.
//!
//! A run checkpoints after every epoch in its output directory (`checkpoint.json` and
//! `tensors-<epoch>.safetensors`: the parameters, Adam's moments and the states to train on
//! again), so an interrupted run resumes where it was and ends as an uninterrupted one would;
//! a finished run keeps only its data modules.

use candle_core::{DType, Device, Tensor, Var};
use nhc_grad::{Adam, AdamConfig};
use nhc_tasks::FieldShape;
use nhc_tasks::search_plan::learned::{DataNets, LEAKY_SLOPE, Meta, OPS};
use nhc_tasks::search_plan::permuted::SokobanPermuted;
use nhc_tasks::search_plan::sokoban::Sokoban;
use nhc_tasks::search_plan::{ACTIONS, World};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum LearnError {
    #[error(transparent)]
    Candle(#[from] candle_core::Error),
    #[error(transparent)]
    Grad(#[from] nhc_grad::GradError),
    #[error(transparent)]
    Learned(#[from] nhc_tasks::search_plan::learned::LearnedError),
    #[error("unknown world `{0}`; data modules are learned for sokoban6, sokoban8 and sokoban-permuted")]
    World(String),
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("training diverged in epoch {epoch} (the loss is not finite)")]
    Diverged { epoch: usize },
    #[error("{}: {source}", path.display())]
    Json { path: PathBuf, source: serde_json::Error },
    #[error(
        "{} holds data modules trained with other settings; give another --out, or the same settings to resume",
        dir.display()
    )]
    OtherRun { dir: PathBuf },
    #[error("{}: not this run's checkpoint: {what}", path.display())]
    Checkpoint { path: PathBuf, what: String },
}

/// How a call of [`learn`] ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Trained (or found trained) and measured.
    Done(Accuracy),
    /// Stopped by the caller after the checkpoint of this epoch.
    Stopped { epoch: usize },
}

/// The progress of a run at its last checkpoint (`checkpoint.json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct State {
    config: LearnConfig,
    /// Epochs done.
    epoch: usize,
    adam_steps: u64,
    rng: ChaCha8Rng,
    /// States kept to train on again in the next epoch.
    replay: usize,
    seconds: f64,
    /// The file of this checkpoint's tensors.
    tensors: String,
}

/// Sizes and amounts of training.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LearnConfig {
    pub world: String,
    pub seed: u64,
    /// Fresh training states drawn every epoch (each with all five operations), and held-out
    /// states.
    pub states: usize,
    pub held_out: usize,
    /// The most states one network got wrong in an epoch that are trained on again in the next.
    pub replay: usize,
    /// Steps of the random walks states are drawn from, after a random start.
    pub walk: usize,
    /// Hidden layers of the action model.
    pub action_hidden: Vec<usize>,
    /// Hidden layers of the mask (paper: one of 256), hidden units of the equality (paper: 10).
    pub mask_hidden: Vec<usize>,
    pub equality_hidden: usize,
    /// The share of the equality's unequal training pairs that are a state against itself with
    /// one random cell given another code: the smallest difference a word can have, so that
    /// every cell counts. The others are one move apart (three in four) or another state.
    #[serde(default)]
    pub equality_cell_pairs: f64,
    pub epochs: usize,
    pub batch: usize,
    pub learning_rate: f64,
}

impl LearnConfig {
    /// The `nhc data-modules train` command that trains this config into `out`: the world, the
    /// output and every flag whose value is not the default.
    pub fn command(&self, out: &std::path::Path) -> String {
        let d = LearnConfig::new(&self.world);
        let layers = |h: &[usize]| h.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
        let mut c = format!("nhc data-modules train --world {} --out {}", self.world, out.display());
        for (flag, value, default) in [
            ("--seed", self.seed.to_string(), d.seed.to_string()),
            ("--states", self.states.to_string(), d.states.to_string()),
            ("--held-out", self.held_out.to_string(), d.held_out.to_string()),
            ("--epochs", self.epochs.to_string(), d.epochs.to_string()),
            ("--hidden", layers(&self.action_hidden), layers(&d.action_hidden)),
            ("--mask-hidden", layers(&self.mask_hidden), layers(&d.mask_hidden)),
            (
                "--equality-cell-pairs",
                self.equality_cell_pairs.to_string(),
                d.equality_cell_pairs.to_string(),
            ),
        ] {
            if value != default {
                c += &format!(" {flag} {value}");
            }
        }
        c
    }

    /// The defaults for `world`.
    pub fn new(world: &str) -> Self {
        LearnConfig {
            world: world.into(),
            seed: 1,
            states: 100_000,
            held_out: 50_000,
            replay: 20_000,
            walk: 40,
            action_hidden: vec![512, 512],
            mask_hidden: vec![512, 512],
            equality_hidden: 10,
            equality_cell_pairs: 0.0,
            epochs: 25,
            batch: 256,
            learning_rate: 1e-3,
        }
    }
}

/// Held-out accuracies, measured on the saved networks as the NHC runs them.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Accuracy {
    pub states: usize,
    /// Action model: fields right over fields, and (state, operation) pairs entirely right.
    pub action_fields: f64,
    pub action_states: f64,
    /// (state, operation) pairs with a wrong field, of `states · 5`.
    pub action_wrong: usize,
    /// Mask: states with all four actions right.
    pub mask_states: f64,
    /// Equality: pairs judged right (half equal, half one move apart).
    pub equality_pairs: f64,
    /// Equality: states told apart from themselves with one random cell changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equality_cells: Option<f64>,
}

/// One world's training data: states as fields, each with its five successors and its mask.
#[derive(Default)]
struct Data {
    fields: Vec<Vec<u8>>,
    next: Vec<Vec<Vec<u8>>>,
    mask: Vec<[bool; ACTIONS]>,
}

impl Data {
    /// Adds the states as u8 tensors `replay.fields` `(n, fields)`, `replay.next`
    /// `(n, OPS, fields)` and `replay.mask` `(n, ACTIONS)`; none when empty.
    fn to_tensors(&self, shape: FieldShape, out: &mut HashMap<String, Tensor>) -> candle_core::Result<()> {
        let n = self.fields.len();
        if n == 0 {
            return Ok(());
        }
        let cpu = &Device::Cpu;
        let next: Vec<u8> = self.next.iter().flatten().flatten().copied().collect();
        let mask: Vec<u8> = self.mask.iter().flatten().map(|&m| u8::from(m)).collect();
        out.insert("replay.fields".into(), Tensor::from_vec(self.fields.concat(), (n, shape.count), cpu)?);
        out.insert("replay.next".into(), Tensor::from_vec(next, (n, OPS, shape.count), cpu)?);
        out.insert("replay.mask".into(), Tensor::from_vec(mask, (n, ACTIONS), cpu)?);
        Ok(())
    }

    /// The `n` states [`Data::to_tensors`] saved.
    fn from_tensors(
        tensors: &HashMap<String, Tensor>,
        n: usize,
        shape: FieldShape,
    ) -> candle_core::Result<Self> {
        let mut out = Data::default();
        if n == 0 {
            return Ok(out);
        }
        let get = |name: &str, dims: &[usize]| -> candle_core::Result<Vec<u8>> {
            let t = tensors.get(name).ok_or_else(|| candle_core::Error::Msg(format!("no `{name}`")))?;
            if t.dims() != dims {
                candle_core::bail!("`{name}` has shape {:?}, not {dims:?}", t.dims());
            }
            t.flatten_all()?.to_vec1::<u8>()
        };
        let fields = get("replay.fields", &[n, shape.count])?;
        let next = get("replay.next", &[n, OPS, shape.count])?;
        let mask = get("replay.mask", &[n, ACTIONS])?;
        for i in 0..n {
            out.fields.push(fields[i * shape.count..(i + 1) * shape.count].to_vec());
            out.next.push(
                next[i * OPS * shape.count..(i + 1) * OPS * shape.count]
                    .chunks(shape.count)
                    .map(<[u8]>::to_vec)
                    .collect(),
            );
            out.mask.push(std::array::from_fn(|j| mask[i * ACTIONS + j] != 0));
        }
        Ok(out)
    }

    /// Appends state `i` of `other`.
    fn push_from(&mut self, other: &Data, i: usize) {
        self.fields.push(other.fields[i].clone());
        self.next.push(other.next[i].clone());
        self.mask.push(other.mask[i]);
    }
}

/// States from random walks on random starts: every state met, its successors and its mask.
fn data<W: World>(world: &W, shape: FieldShape, count: usize, walk: usize, rng: &mut ChaCha8Rng) -> Data {
    let mut sample_rng = nhc_tasks::SampleRng::seed_from_u64(rng.random());
    let to_fields = |s: &W::State| {
        let mut f = vec![0u8; shape.count];
        world.fields(s, &mut f);
        f
    };
    let mut out = Data { fields: Vec::with_capacity(count), ..Data::default() };
    while out.fields.len() < count {
        let mut s = world.random_state(&mut sample_rng);
        let steps = rng.random_range(0..=walk);
        for _ in 0..=steps {
            if out.fields.len() == count {
                break;
            }
            let next: Vec<W::State> = (0..ACTIONS).map(|a| world.apply(&s, a)).collect();
            out.fields.push(to_fields(&s));
            out.next.push(next.iter().map(&to_fields).chain(std::iter::once(to_fields(&s))).collect());
            out.mask.push(world.applicable(&s));
            s = next[rng.random_range(0..ACTIONS)].clone();
        }
    }
    out
}

fn one_hot(fields: &[u8], shape: FieldShape, out: &mut Vec<f32>) {
    let start = out.len();
    out.resize(start + shape.one_hot(), 0.0);
    for (k, &f) in fields.iter().enumerate() {
        out[start + k * shape.classes + usize::from(f)] = 1.0;
    }
}

/// A stack of linear layers with leaky-ReLU between them; layer K's parameters are
/// `NAME.K.weight` `(out, in)` and `NAME.K.bias`, the names the loader reads.
struct Net {
    layers: Vec<(Var, Var)>,
}

impl Net {
    /// He initialisation with the run's generator: weights uniform in ±√(6/fan-in) (variance
    /// 2/fan-in, for rectifiers), biases uniform in ±1/√(fan-in).
    fn new(
        name: &str,
        sizes: &[usize],
        rng: &mut ChaCha8Rng,
        params: &mut Vec<(String, Var)>,
    ) -> candle_core::Result<Self> {
        let mut layers = Vec::new();
        for (k, w) in sizes.windows(2).enumerate() {
            let (fan_in, fan_out) = (w[0], w[1]);
            let mut draw = |n: usize, a: f32| (0..n).map(|_| rng.random_range(-a..a)).collect::<Vec<f32>>();
            let weight = draw(fan_out * fan_in, (6.0 / fan_in as f32).sqrt());
            let weight = Var::from_vec(weight, (fan_out, fan_in), &Device::Cpu)?;
            let bias = Var::from_vec(draw(fan_out, 1.0 / (fan_in as f32).sqrt()), fan_out, &Device::Cpu)?;
            params.push((format!("{name}.{k}.weight"), weight.clone()));
            params.push((format!("{name}.{k}.bias"), bias.clone()));
            layers.push((weight, bias));
        }
        Ok(Net { layers })
    }
    /// The network with its parameters as saved (rounded to f16), the gradient passing
    /// straight through the rounding to the f32 parameters.
    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let mut a = x.clone();
        for (k, (w, b)) in self.layers.iter().enumerate() {
            a = a.matmul(&as_saved(w)?.t()?)?.broadcast_add(&as_saved(b)?)?;
            if k + 1 < self.layers.len() {
                a = (a.relu()? - a.neg()?.relu()?.affine(LEAKY_SLOPE.into(), 0.0)?)?;
            }
        }
        Ok(a)
    }
}

/// `v` rounded to f16 as [`save_half`] stores it, with the gradient of the identity:
/// `v + (f16(v) − v)`, the difference detached (exact: f16(v) − v is an f32, and adding it back
/// gives f16(v)). *Reason:* trained in f32 and rounded only when saved, the 6 × 6 action model
/// got no (state, operation) pair wrong in its last two epochs (1 000 045 pairs, before each
/// step, in f32) and 11 of 250 000 held-out pairs once rounded.
fn as_saved(v: &Var) -> candle_core::Result<Tensor> {
    let v = v.as_tensor();
    let rounded = v.to_dtype(DType::F16)?.to_dtype(DType::F32)?;
    v + (rounded - v)?.detach()
}

/// Trains the data modules of `config.world` in `out` (resuming the run there if it has the
/// same config), saves them there and measures them. `progress` gets a line after every epoch's
/// checkpoint and can stop the run there.
pub fn learn(
    config: &LearnConfig,
    out: &Path,
    progress: &mut dyn FnMut(&str) -> ControlFlow<()>,
) -> Result<Outcome, LearnError> {
    match config.world.as_str() {
        "sokoban6" => learn_in(&Sokoban::<6>, config, out, progress),
        "sokoban8" => learn_in(&Sokoban::<8>, config, out, progress),
        "sokoban-permuted" => learn_in(&SokobanPermuted::<6>, config, out, progress),
        w => Err(LearnError::World(w.into())),
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> LearnError + '_ {
    move |source| LearnError::Io { path: path.into(), source }
}

/// The accuracy of the finished run in `out`, if there is one; an error if `out` holds
/// another run's data modules.
fn finished(out: &Path, config: &LearnConfig) -> Result<Option<Accuracy>, LearnError> {
    let path = out.join("data_modules.json");
    let Ok(text) = std::fs::read_to_string(&path) else { return Ok(None) };
    let meta: Meta = serde_json::from_str(&text).map_err(|source| LearnError::Json { path, source })?;
    let same =
        serde_json::from_value::<LearnConfig>(meta.training["config"].clone()).is_ok_and(|c| c == *config);
    if !same {
        return Err(LearnError::OtherRun { dir: out.into() });
    }
    Ok(serde_json::from_value(meta.training["accuracy"].clone()).ok())
}

fn learn_in<W: World>(
    world: &W,
    config: &LearnConfig,
    out: &Path,
    progress: &mut dyn FnMut(&str) -> ControlFlow<()>,
) -> Result<Outcome, LearnError> {
    let start = Instant::now();
    let shape = world.field_shape().ok_or_else(|| LearnError::World(config.world.clone()))?;
    if let Some(accuracy) = finished(out, config)? {
        return Ok(Outcome::Done(accuracy));
    }
    std::fs::create_dir_all(out).map_err(io(out))?;
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let word = shape.one_hot();
    let sizes = |first: usize, hidden: &[usize], last: usize| -> Vec<usize> {
        std::iter::once(first).chain(hidden.iter().copied()).chain(std::iter::once(last)).collect()
    };
    let mut params = Vec::new();
    let action = Net::new("action", &sizes(word + OPS, &config.action_hidden, word), &mut rng, &mut params)?;
    let mask = Net::new("mask", &sizes(word, &config.mask_hidden, ACTIONS), &mut rng, &mut params)?;
    let equality = Net::new("equality", &[word, config.equality_hidden, 2], &mut rng, &mut params)?;
    let adam_config =
        AdamConfig { learning_rate: config.learning_rate, clip_norm: 0.0, ..AdamConfig::default() };
    let mut adam = Adam::new(params.iter().map(|(n, v)| (n.as_str(), v)), adam_config)?;
    let checkpoint_path = out.join("checkpoint.json");
    let (mut done, mut seconds, mut replay) = (0, 0.0, Data::default());
    if let Ok(text) = std::fs::read_to_string(&checkpoint_path) {
        let state: State = serde_json::from_str(&text)
            .map_err(|source| LearnError::Json { path: checkpoint_path.clone(), source })?;
        if state.config != *config {
            return Err(LearnError::OtherRun { dir: out.into() });
        }
        let path = out.join(&state.tensors);
        let bad = |what: String| LearnError::Checkpoint { path: path.clone(), what };
        let tensors = candle_core::safetensors::load(&path, &Device::Cpu).map_err(|e| bad(e.to_string()))?;
        nhc_grad::restore_params(params.iter().map(|(n, v)| (n, v)), &tensors)?;
        adam.restore(&tensors, state.adam_steps)?;
        replay = Data::from_tensors(&tensors, state.replay, shape).map_err(|e| bad(e.to_string()))?;
        (done, seconds, rng) = (state.epoch, state.seconds, state.rng);
        // A line only; stopping is offered after epochs.
        let _ = progress(&format!("resumed after epoch {done}/{}", config.epochs));
    }
    for epoch in done + 1..=config.epochs {
        // Fresh states every epoch, and the states a network got wrong in the last one.
        let mut train = data(world, shape, config.states, config.walk, &mut rng);
        let replayed = replay.fields.len();
        for i in 0..replayed {
            train.push_from(&replay, i);
        }
        let n = train.fields.len();
        // The step size falls linearly to a small share of itself over the epochs.
        let left = 1.0 - (epoch - 1) as f64 / config.epochs as f64;
        adam.config.learning_rate = config.learning_rate * left.max(0.05);
        let mut order: Vec<usize> = (0..n).collect();
        // Fisher–Yates with the run's generator.
        for i in (1..n).rev() {
            order.swap(i, rng.random_range(0..=i));
        }
        let (mut total, mut wrong) = (0.0, Wrong::default());
        replay = Data::default();
        for chunk in order.chunks(config.batch) {
            let nets = (&action, &mask, &equality);
            let (loss, batch_wrong) =
                batch_loss(&train, chunk, shape, nets, config.equality_cell_pairs, &mut rng)?;
            total += loss.to_scalar::<f32>()? as f64 * chunk.len() as f64;
            adam.step(&loss.backward()?)?;
            wrong.add(&batch_wrong);
            for &k in batch_wrong.states.iter().take(config.replay.saturating_sub(replay.fields.len())) {
                replay.push_from(&train, chunk[k]);
            }
        }
        if !total.is_finite() {
            return Err(LearnError::Diverged { epoch });
        }
        let elapsed = seconds + start.elapsed().as_secs_f64();
        let state = State {
            config: config.clone(),
            epoch,
            adam_steps: adam.steps,
            rng: rng.clone(),
            replay: replay.fields.len(),
            seconds: elapsed,
            tensors: format!("tensors-{epoch}.safetensors"),
        };
        let mut tensors = adam.moments();
        tensors.extend(nhc_grad::param_tensors(params.iter().map(|(n, v)| (n, v))));
        replay.to_tensors(shape, &mut tensors)?;
        nhc_grad::save_tensors(&tensors, &out.join(&state.tensors), "tensors-")?;
        write_json(&checkpoint_path, &state)?;
        let line = format!(
            "epoch {epoch}/{}: loss {:.6}, wrong before the step: action {} / {}, mask {} / {}, equality {} / {} ({n} states, {replayed} replayed; {elapsed:.0} s)",
            config.epochs,
            total / n as f64,
            wrong.action,
            n * OPS,
            wrong.mask,
            n,
            wrong.equality,
            2 * n,
        );
        if progress(&line).is_break() && epoch < config.epochs {
            return Ok(Outcome::Stopped { epoch });
        }
    }
    save_half(&params, &out.join("data_modules.safetensors"))?;
    let meta = |training: serde_json::Value| Meta { world: config.world.clone(), fields: shape, training };
    write_meta(out, &meta(serde_json::json!({ "config": config })))?;
    let nets = DataNets::load(out)?;
    let held_out = data(world, shape, config.held_out, config.walk, &mut rng);
    let accuracy = measure(&nets, &held_out, shape, &mut rng);
    let training = serde_json::json!({
        "config": config,
        "accuracy": accuracy,
        "seconds": seconds + start.elapsed().as_secs_f64(),
        "command": config.command(out),
    });
    write_meta(out, &meta(training))?;
    // Finished: only the data modules stay.
    for entry in std::fs::read_dir(out).map_err(io(out))?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("tensors-") || name == "checkpoint.json" {
            std::fs::remove_file(entry.path()).map_err(io(&entry.path()))?;
        }
    }
    Ok(Outcome::Done(accuracy))
}

/// Saves every network in f16 (half the size; the held-out measurement below and every run use
/// the saved networks, so what is measured is what is shipped).
fn save_half(params: &[(String, Var)], path: &Path) -> Result<(), LearnError> {
    let half = params
        .iter()
        .map(|(k, v)| Ok((k.clone(), v.as_tensor().to_dtype(DType::F16)?)))
        .collect::<candle_core::Result<HashMap<_, _>>>()?;
    candle_core::safetensors::save(&half, path)?;
    Ok(())
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), LearnError> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|source| LearnError::Json { path: path.into(), source })?;
    nhc_io::write_atomic(path, text.as_bytes()).map_err(io(path))
}

fn write_meta(out: &Path, meta: &Meta) -> Result<(), LearnError> {
    write_json(&out.join("data_modules.json"), meta)
}

/// What the networks got wrong in a batch, before its step: (state, operation) pairs of the
/// action model, masks, equality pairs, and the batch rows with any of them wrong.
#[derive(Default)]
struct Wrong {
    action: usize,
    mask: usize,
    equality: usize,
    states: Vec<usize>,
}

impl Wrong {
    fn add(&mut self, other: &Wrong) {
        self.action += other.action;
        self.mask += other.mask;
        self.equality += other.equality;
    }
}

/// The loss of one batch: the action model on every (state, operation), the mask, and the
/// equality on each state against itself and against an unequal word (`cell_pairs` of them one
/// cell changed, [`LearnConfig::equality_cell_pairs`]); and what they got wrong.
fn batch_loss(
    d: &Data,
    rows: &[usize],
    shape: FieldShape,
    (action, mask, equality): (&Net, &Net, &Net),
    cell_pairs: f64,
    rng: &mut ChaCha8Rng,
) -> candle_core::Result<(Tensor, Wrong)> {
    let device = &Device::Cpu;
    let (word, b) = (shape.one_hot(), rows.len());
    let mut x = Vec::with_capacity(b * word);
    let mut xa = Vec::with_capacity(b * OPS * (word + OPS));
    let mut ya: Vec<u32> = Vec::with_capacity(b * OPS * shape.count);
    let mut ym: Vec<f32> = Vec::with_capacity(b * ACTIONS);
    let mut xe = Vec::with_capacity(2 * b * word);
    let mut ye: Vec<u32> = Vec::with_capacity(2 * b);
    let mut tmp = Vec::new();
    for &i in rows {
        tmp.clear();
        one_hot(&d.fields[i], shape, &mut tmp);
        x.extend_from_slice(&tmp);
        for op in 0..OPS {
            xa.extend_from_slice(&tmp);
            xa.extend((0..OPS).map(|k| if k == op { 1.0 } else { 0.0 }));
            ya.extend(d.next[i][op].iter().map(|&f| u32::from(f)));
        }
        ym.extend(d.mask[i].iter().map(|&m| if m { 1.0 } else { 0.0 }));
        // Equal pair: |a − a| = 0. Unequal: a share `cell_pairs` of the state with one random
        // cell changed; else three times in four a successor that differs (one move apart),
        // picked at random; else, or if none, another state. (No draw when `cell_pairs` is 0.)
        xe.extend(std::iter::repeat_n(0.0, word));
        ye.push(1);
        let moved: Vec<&Vec<u8>> = d.next[i][..ACTIONS].iter().filter(|f| **f != d.fields[i]).collect();
        let other = if cell_pairs > 0.0 && rng.random_bool(cell_pairs) {
            one_cell_changed(&d.fields[i], shape, rng)
        } else if !moved.is_empty() && rng.random_range(0..4) > 0 {
            moved[rng.random_range(0..moved.len())].clone()
        } else {
            d.fields[rng.random_range(0..d.fields.len())].clone()
        };
        let mut o = Vec::new();
        one_hot(&other, shape, &mut o);
        xe.extend(tmp.iter().zip(&o).map(|(p, q)| (p - q).abs()));
        ye.push(u32::from(other == d.fields[i]));
    }
    let xa = Tensor::from_vec(xa, (b * OPS, word + OPS), device)?;
    let logits = action.forward(&xa)?.reshape((b * OPS * shape.count, shape.classes))?;
    let got_a = logits.argmax(1)?.to_vec1::<u32>()?;
    let ya_t = Tensor::from_vec(ya.clone(), b * OPS * shape.count, device)?;
    let la = candle_nn::loss::cross_entropy(&logits, &ya_t)?;
    let x = Tensor::from_vec(x, (b, word), device)?;
    let ym_t = Tensor::from_vec(ym.clone(), (b, ACTIONS), device)?;
    let mask_logits = mask.forward(&x)?;
    let got_m = mask_logits.flatten_all()?.to_vec1::<f32>()?;
    let lm = binary_cross_entropy(&mask_logits, &ym_t)?;
    let xe = Tensor::from_vec(xe, (2 * b, word), device)?;
    let ye_t = Tensor::from_vec(ye.clone(), 2 * b, device)?;
    let eq_logits = equality.forward(&xe)?;
    let got_e = eq_logits.argmax(1)?.to_vec1::<u32>()?;
    let le = candle_nn::loss::cross_entropy(&eq_logits, &ye_t)?;
    let mut wrong = Wrong::default();
    for k in 0..b {
        let a = (0..OPS)
            .filter(|op| {
                let r = (k * OPS + op) * shape.count..(k * OPS + op + 1) * shape.count;
                got_a[r.clone()] != ya[r]
            })
            .count();
        let m = (0..ACTIONS).any(|j| (got_m[k * ACTIONS + j] > 0.0) != (ym[k * ACTIONS + j] > 0.5));
        let e = (0..2).filter(|j| got_e[2 * k + j] != ye[2 * k + j]).count();
        wrong.action += a;
        wrong.mask += usize::from(m);
        wrong.equality += e;
        if a > 0 || m || e > 0 {
            wrong.states.push(k);
        }
    }
    Ok((((la + lm)? + le)?, wrong))
}

/// `fields` with one random cell given another of its codes.
fn one_cell_changed(fields: &[u8], shape: FieldShape, rng: &mut ChaCha8Rng) -> Vec<u8> {
    let mut f = fields.to_vec();
    let k = rng.random_range(0..f.len());
    f[k] = ((usize::from(f[k]) + rng.random_range(1..shape.classes)) % shape.classes) as u8;
    f
}

/// The mean binary cross-entropy of logits `x` against targets `t` in {0, 1}, in the form that
/// stays finite for any logit: `max(x, 0) − x·t + ln(1 + e^(−|x|))` (candle-nn's goes through
/// σ(x) and its logarithm, which is −∞ once σ(x) rounds to 1).
fn binary_cross_entropy(x: &Tensor, t: &Tensor) -> candle_core::Result<Tensor> {
    let soft = (x.abs()?.neg()?.exp()? + 1.0)?.log()?;
    ((x.relu()? - (x * t)?)? + soft)?.mean_all()
}

/// Held-out accuracies of the saved networks (plain Rust, as the NHC runs them).
fn measure(nets: &DataNets, d: &Data, shape: FieldShape, rng: &mut ChaCha8Rng) -> Accuracy {
    let n = d.fields.len();
    let (mut fields_right, mut states_right, mut mask_right, mut eq_right) = (0usize, 0usize, 0usize, 0usize);
    let mut x = Vec::new();
    let mut o = Vec::new();
    for i in 0..n {
        x.clear();
        one_hot(&d.fields[i], shape, &mut x);
        for op in 0..OPS {
            let got = nets.apply(&x, op);
            let right = got.iter().zip(&d.next[i][op]).filter(|(a, b)| a == b).count();
            fields_right += right;
            states_right += usize::from(right == shape.count);
        }
        mask_right += usize::from(nets.applicable(&x) == d.mask[i]);
        eq_right += usize::from(nets.equal(&x, &x));
        let j = rng.random_range(0..OPS - 1);
        let other =
            if d.next[i][j] != d.fields[i] { &d.next[i][j] } else { &d.fields[rng.random_range(0..n)] };
        o.clear();
        one_hot(other, shape, &mut o);
        eq_right += usize::from(nets.equal(&x, &o) == (*other == d.fields[i]));
    }
    // Drawn after the pairs above, so those stay as they were before this measure existed.
    let mut cells_right = 0;
    for f in &d.fields {
        x.clear();
        one_hot(f, shape, &mut x);
        let g = one_cell_changed(f, shape, rng);
        o.clear();
        one_hot(&g, shape, &mut o);
        cells_right += usize::from(!nets.equal(&x, &o));
    }
    let pairs = (n * OPS) as f64;
    Accuracy {
        states: n,
        action_fields: fields_right as f64 / (pairs * shape.count as f64),
        action_states: states_right as f64 / pairs,
        action_wrong: n * OPS - states_right,
        mask_states: mask_right as f64 / n as f64,
        equality_pairs: eq_right as f64 / (2 * n) as f64,
        equality_cells: Some(cells_right as f64 / n as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> LearnConfig {
        LearnConfig {
            states: 300,
            held_out: 200,
            replay: 100,
            action_hidden: vec![24],
            mask_hidden: vec![16],
            epochs: 3,
            batch: 64,
            ..LearnConfig::new("sokoban6")
        }
    }

    /// The command a finished run records reproduces it: every flag that is not the default.
    #[test]
    fn the_recorded_command_names_the_flags_that_differ() {
        let out = std::path::Path::new("runs/dm");
        let d = LearnConfig::new("sokoban8");
        assert_eq!(d.command(out), "nhc data-modules train --world sokoban8 --out runs/dm");
        let c = LearnConfig { epochs: 50, mask_hidden: vec![256], equality_cell_pairs: 0.5, ..d };
        assert_eq!(
            c.command(out),
            "nhc data-modules train --world sokoban8 --out runs/dm --epochs 50 --mask-hidden 256 \
             --equality-cell-pairs 0.5"
        );
    }

    /// Stopped after epoch 1 and resumed, a run saves the same networks and measures the same
    /// accuracy as one run straight through; it keeps only its data modules; run again, it is
    /// found finished; another config in its directory is refused.
    #[test]
    fn a_resumed_run_ends_as_an_uninterrupted_one() {
        let (straight, split) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let go = |_: &str| ControlFlow::Continue(());
        let done = learn(&tiny(), straight.path(), &mut { go }).unwrap();
        let stop = learn(&tiny(), split.path(), &mut |_: &str| ControlFlow::Break(())).unwrap();
        assert_eq!(stop, Outcome::Stopped { epoch: 1 });
        assert!(split.path().join("tensors-1.safetensors").exists());
        let mut lines = Vec::new();
        let resumed = learn(&tiny(), split.path(), &mut |l: &str| {
            lines.push(l.to_string());
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(resumed, done);
        assert!(lines[0].starts_with("resumed after epoch 1/3"), "{lines:?}");
        assert_eq!(lines.len(), 3, "{lines:?}");
        let bytes = |d: &Path| std::fs::read(d.join("data_modules.safetensors")).unwrap();
        assert_eq!(bytes(straight.path()), bytes(split.path()));
        let mut left: Vec<String> = std::fs::read_dir(split.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, ["data_modules.json", "data_modules.safetensors"]);
        let mut calls = 0;
        let again = learn(&tiny(), split.path(), &mut |_: &str| {
            calls += 1;
            ControlFlow::Continue(())
        })
        .unwrap();
        // The stored accuracy (JSON keeps the fractions to about 1e-16).
        let (Outcome::Done(a), Outcome::Done(d)) = (&again, &done) else { panic!("{again:?}") };
        assert_eq!((a.states, a.action_wrong, calls), (d.states, d.action_wrong, 0));
        assert!(
            (a.action_fields - d.action_fields).abs() < 1e-12
                && (a.mask_states - d.mask_states).abs() < 1e-12
        );
        let other = LearnConfig { seed: 2, ..tiny() };
        assert!(matches!(learn(&other, split.path(), &mut { go }), Err(LearnError::OtherRun { .. })));
        let half = tempfile::tempdir().unwrap();
        learn(&tiny(), half.path(), &mut |_: &str| ControlFlow::Break(())).unwrap();
        assert!(matches!(learn(&other, half.path(), &mut { go }), Err(LearnError::OtherRun { .. })));
    }

    /// The forward pass sees the parameters exactly as saved; the gradient is the identity's.
    #[test]
    fn parameters_are_used_as_saved_with_a_straight_through_gradient() {
        let v = Var::new(&[0.1f32, 1.0 / 3.0, -2.0e-6, 1234.567], &Device::Cpu).unwrap();
        let got = as_saved(&v).unwrap();
        let want = v.as_tensor().to_dtype(DType::F16).unwrap().to_dtype(DType::F32).unwrap();
        assert_eq!(got.to_vec1::<f32>().unwrap(), want.to_vec1::<f32>().unwrap());
        assert_ne!(got.to_vec1::<f32>().unwrap(), v.as_tensor().to_vec1::<f32>().unwrap());
        let w = Tensor::new(&[1.0f32, 2.0, 3.0, 4.0], &Device::Cpu).unwrap();
        let grads = (got * &w).unwrap().sum_all().unwrap().backward().unwrap();
        assert_eq!(grads.get(&v).unwrap().to_vec1::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0]);
    }

    /// A damaged checkpoint is a clear error, not a panic or a silent restart.
    #[test]
    fn a_damaged_checkpoint_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        learn(&tiny(), dir.path(), &mut |_: &str| ControlFlow::Break(())).unwrap();
        std::fs::write(dir.path().join("tensors-1.safetensors"), b"not tensors").unwrap();
        let err = learn(&tiny(), dir.path(), &mut |_: &str| ControlFlow::Continue(())).unwrap_err();
        assert!(err.to_string().contains("not this run's checkpoint"), "{err}");
        std::fs::write(dir.path().join("checkpoint.json"), b"{").unwrap();
        assert!(matches!(
            learn(&tiny(), dir.path(), &mut |_: &str| ControlFlow::Continue(())),
            Err(LearnError::Json { .. })
        ));
    }

    #[test]
    fn binary_cross_entropy_is_exact_and_finite() {
        let x = Tensor::new(&[0.0f32, 2.0, -3.0, 200.0, -200.0], &Device::Cpu).unwrap();
        let t = Tensor::new(&[1.0f32, 0.0, 0.0, 1.0, 1.0], &Device::Cpu).unwrap();
        let got = binary_cross_entropy(&x, &t).unwrap().to_scalar::<f32>().unwrap();
        // −ln σ(0), −ln(1 − σ(2)), −ln(1 − σ(−3)), −ln σ(200) ≈ 0, −ln σ(−200) = 200.
        let s = |v: f64| 1.0 / (1.0 + (-v).exp());
        let want = (-(s(0.0)).ln() - (1.0 - s(2.0)).ln() - (1.0 - s(-3.0)).ln() + 0.0 + 200.0) / 5.0;
        assert!((f64::from(got) - want).abs() < 1e-4, "{got} vs {want}");
    }
}
