//! Data modules learned in a supervised way (paper, Supplementary "Search & Plan"): for a world
//! of the search-and-plan family, the equality E_t (a feed-forward network on differential
//! rectifier units, 10 hidden units), the action mask a (256 hidden units) and the action model A
//! (state and operation → next state), all with leaky-ReLU and trained with cross-entropy on
//! states drawn from the world's exact rules. They are saved in the form
//! `nhc_tasks::search_plan::learned` reads and runs; accuracies on held-out states are measured
//! there, on the networks as the NHC runs them.

use candle_core::{DType, Device, Tensor};
use candle_nn::{AdamW, Linear, Module, Optimizer, ParamsAdamW, VarBuilder, VarMap};
use nhc_tasks::FieldShape;
use nhc_tasks::search_plan::learned::{DataNets, LEAKY_SLOPE, Meta, OPS};
use nhc_tasks::search_plan::permuted::SokobanPermuted;
use nhc_tasks::search_plan::sokoban::Sokoban;
use nhc_tasks::search_plan::{ACTIONS, World};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum LearnError {
    #[error(transparent)]
    Candle(#[from] candle_core::Error),
    #[error(transparent)]
    Learned(#[from] nhc_tasks::search_plan::learned::LearnedError),
    #[error("unknown world `{0}`; data modules are learned for sokoban6, sokoban8 and sokoban-permuted")]
    World(String),
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("training diverged in epoch {epoch} (the loss is not finite)")]
    Diverged { epoch: usize },
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
    pub epochs: usize,
    pub batch: usize,
    pub learning_rate: f64,
}

impl LearnConfig {
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
            epochs: 20,
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
}

/// One world's training data: states as fields, each with its five successors and its mask.
#[derive(Default)]
struct Data {
    fields: Vec<Vec<u8>>,
    next: Vec<Vec<Vec<u8>>>,
    mask: Vec<[bool; ACTIONS]>,
}

impl Data {
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

/// A stack of linear layers with leaky-ReLU between them, named `NAME.K`.
struct Net {
    layers: Vec<Linear>,
}

impl Net {
    fn new(vb: &VarBuilder, name: &str, sizes: &[usize]) -> candle_core::Result<Self> {
        let layers = sizes
            .windows(2)
            .enumerate()
            .map(|(k, w)| candle_nn::linear(w[0], w[1], vb.pp(format!("{name}.{k}"))))
            .collect::<candle_core::Result<_>>()?;
        Ok(Net { layers })
    }
    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let mut a = x.clone();
        for (k, l) in self.layers.iter().enumerate() {
            a = l.forward(&a)?;
            if k + 1 < self.layers.len() {
                a = (a.relu()? - a.neg()?.relu()?.affine(LEAKY_SLOPE.into(), 0.0)?)?;
            }
        }
        Ok(a)
    }
}

/// Trains the data modules of `config.world`, saves them in `out` and measures them there.
pub fn learn(
    config: &LearnConfig,
    out: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<Accuracy, LearnError> {
    match config.world.as_str() {
        "sokoban6" => learn_in(&Sokoban::<6>, config, out, progress),
        "sokoban8" => learn_in(&Sokoban::<8>, config, out, progress),
        "sokoban-permuted" => learn_in(&SokobanPermuted::<6>, config, out, progress),
        w => Err(LearnError::World(w.into())),
    }
}

fn learn_in<W: World>(
    world: &W,
    config: &LearnConfig,
    out: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<Accuracy, LearnError> {
    let start = Instant::now();
    let shape = world.field_shape().ok_or_else(|| LearnError::World(config.world.clone()))?;
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let device = Device::Cpu;
    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &device);
    let word = shape.one_hot();
    let action_sizes: Vec<usize> = std::iter::once(word + OPS)
        .chain(config.action_hidden.iter().copied())
        .chain(std::iter::once(word))
        .collect();
    let action = Net::new(&vb, "action", &action_sizes)?;
    let mask_sizes: Vec<usize> = std::iter::once(word)
        .chain(config.mask_hidden.iter().copied())
        .chain(std::iter::once(ACTIONS))
        .collect();
    let mask = Net::new(&vb, "mask", &mask_sizes)?;
    let equality = Net::new(&vb, "equality", &[word, config.equality_hidden, 2])?;
    let params = ParamsAdamW { lr: config.learning_rate, weight_decay: 0.0, ..Default::default() };
    let mut adam = AdamW::new(varmap.all_vars(), params)?;
    let mut replay = Data::default();
    for epoch in 1..=config.epochs {
        // Fresh states every epoch, and the states a network got wrong in the last one.
        let mut train = data(world, shape, config.states, config.walk, &mut rng);
        let replayed = replay.fields.len();
        for i in 0..replayed {
            train.push_from(&replay, i);
        }
        let n = train.fields.len();
        // The step size falls linearly to a small share of itself over the epochs.
        let left = 1.0 - (epoch - 1) as f64 / config.epochs as f64;
        adam.set_learning_rate(config.learning_rate * left.max(0.05));
        let mut order: Vec<usize> = (0..n).collect();
        // Fisher–Yates with the run's generator.
        for i in (1..n).rev() {
            order.swap(i, rng.random_range(0..=i));
        }
        let (mut total, mut wrong) = (0.0, Wrong::default());
        replay = Data::default();
        for chunk in order.chunks(config.batch) {
            let (loss, batch_wrong) =
                batch_loss(&train, chunk, shape, &action, &mask, &equality, &mut rng, &device)?;
            total += loss.to_scalar::<f32>()? as f64 * chunk.len() as f64;
            adam.backward_step(&loss)?;
            wrong.add(&batch_wrong);
            for &k in batch_wrong.states.iter().take(config.replay.saturating_sub(replay.fields.len())) {
                replay.push_from(&train, chunk[k]);
            }
        }
        if !total.is_finite() {
            return Err(LearnError::Diverged { epoch });
        }
        progress(&format!(
            "epoch {epoch}/{}: loss {:.6}, wrong before the step: action {} / {}, mask {} / {}, equality {} / {} ({n} states, {replayed} replayed; {:.0} s)",
            config.epochs,
            total / n as f64,
            wrong.action,
            n * OPS,
            wrong.mask,
            n,
            wrong.equality,
            2 * n,
            start.elapsed().as_secs_f64()
        ));
    }
    std::fs::create_dir_all(out).map_err(|source| LearnError::Io { path: out.into(), source })?;
    save_half(&varmap, &out.join("data_modules.safetensors"))?;
    let meta = |training: serde_json::Value| Meta { world: config.world.clone(), fields: shape, training };
    write_meta(out, &meta(serde_json::json!({ "config": config })))?;
    let nets = DataNets::load(out)?;
    let held_out = data(world, shape, config.held_out, config.walk, &mut rng);
    let accuracy = measure(&nets, &held_out, shape, &mut rng);
    let training = serde_json::json!({
        "config": config,
        "accuracy": accuracy,
        "seconds": start.elapsed().as_secs_f64(),
        "command": format!("nhc data-modules train --world {} --out {}", config.world, out.display()),
    });
    write_meta(out, &meta(training))?;
    Ok(accuracy)
}

/// Saves every network in f16 (half the size; the held-out measurement below and every run use
/// the saved networks, so what is measured is what is shipped).
fn save_half(varmap: &VarMap, path: &Path) -> Result<(), LearnError> {
    let data = varmap.data().lock().map_err(|_| LearnError::Io {
        path: path.into(),
        source: std::io::Error::other("the parameters' lock is poisoned"),
    })?;
    let half = data
        .iter()
        .map(|(k, v)| Ok((k.clone(), v.as_tensor().to_dtype(DType::F16)?)))
        .collect::<candle_core::Result<std::collections::HashMap<_, _>>>()?;
    candle_core::safetensors::save(&half, path)?;
    Ok(())
}

fn write_meta(out: &Path, meta: &Meta) -> Result<(), LearnError> {
    let path = out.join("data_modules.json");
    let text = serde_json::to_string_pretty(meta)
        .map_err(|e| LearnError::Io { path: path.clone(), source: e.into() })?;
    nhc_io::write_atomic(&path, text.as_bytes()).map_err(|source| LearnError::Io { path, source })
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
/// equality on each state against itself and against one of its successors; and what they got
/// wrong.
#[allow(clippy::too_many_arguments)]
fn batch_loss(
    d: &Data,
    rows: &[usize],
    shape: FieldShape,
    action: &Net,
    mask: &Net,
    equality: &Net,
    rng: &mut ChaCha8Rng,
    device: &Device,
) -> candle_core::Result<(Tensor, Wrong)> {
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
        // Equal pair: |a − a| = 0. Unequal: three times in four a successor that differs (one
        // move apart, the hardest pairs), picked at random; else, or if none, another state.
        xe.extend(std::iter::repeat_n(0.0, word));
        ye.push(1);
        let moved: Vec<&Vec<u8>> = d.next[i][..ACTIONS].iter().filter(|f| **f != d.fields[i]).collect();
        let other = if !moved.is_empty() && rng.random_range(0..4) > 0 {
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
    let pairs = (n * OPS) as f64;
    Accuracy {
        states: n,
        action_fields: fields_right as f64 / (pairs * shape.count as f64),
        action_states: states_right as f64 / pairs,
        action_wrong: n * OPS - states_right,
        mask_states: mask_right as f64 / n as f64,
        equality_pairs: eq_right as f64 / (2 * n) as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
