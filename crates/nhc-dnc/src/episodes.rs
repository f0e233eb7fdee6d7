//! A task's samples as the DNC's inputs and targets (nhc-tasks' [`Episode`]s), the supervised
//! loss, and the verdict on each sample: the cross-entropy of every expected operation and of
//! every field of every expected read, at every step (paper, "Details to the Comparison
//! Methods").

use crate::{Dnc, DncSizes, Result};
use candle_core::{D, Device, Tensor};
use nhc_tasks::{AnyTask, Episode, EpisodeShape};

/// The sizes of the DNC for a task: its episodes' input and output, the task's read heads, a
/// word that holds a data word one-hot plus the NHC's control word, and `hidden` LSTM units.
/// N comes with each batch ([`Batch::locations`]).
pub fn sizes(task: &dyn AnyTask, shape: &EpisodeShape, hidden: usize) -> DncSizes {
    DncSizes {
        input: shape.input(),
        hidden,
        locations: 1,
        word: shape.word.one_hot() + task.config().word,
        read_heads: shape.read_heads,
        outputs: shape.output(),
    }
}

/// Episodes of one batch as tensors, padded to the longest; index `t · B + b` for step t of
/// sample b.
#[derive(Debug)]
pub struct Batch {
    /// x_t `(B, input)` per step.
    pub inputs: Vec<Tensor>,
    /// The largest N the full NHC used on these samples.
    pub locations: usize,
    shape: EpisodeShape,
    steps: Vec<usize>,
    op_targets: Vec<u32>,
    op_mask: Vec<f32>,
    read_targets: Vec<u32>,
    read_mask: Vec<f32>,
}

/// The verdict on one sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// Every expected operation and read right.
    pub solved: bool,
    /// Targets (operations and read fields) right, and expected.
    pub right: u64,
    pub targets: u64,
}

impl Batch {
    pub fn new(episodes: &[Episode], shape: &EpisodeShape, device: &Device) -> Result<Self> {
        let b = episodes.len();
        let t_max = episodes.iter().map(|e| e.steps).max().unwrap_or(0);
        let (x, heads, fields) = (shape.input(), shape.read_heads, shape.word.count);
        let mut batch = Batch {
            inputs: Vec::with_capacity(t_max),
            locations: episodes.iter().map(|e| e.locations).max().unwrap_or(1).max(1),
            shape: *shape,
            steps: episodes.iter().map(|e| e.steps).collect(),
            op_targets: vec![0; t_max * b],
            op_mask: vec![0.0; t_max * b],
            read_targets: vec![0; t_max * b * heads * fields],
            read_mask: vec![0.0; t_max * b * heads * fields],
        };
        let mut row = vec![0f32; b * x];
        for t in 0..t_max {
            row.fill(0.0);
            for (k, e) in episodes.iter().enumerate().filter(|(_, e)| t < e.steps) {
                row[k * x..(k + 1) * x].copy_from_slice(&e.inputs[t * x..(t + 1) * x]);
                let i = t * b + k;
                if let Some(op) = e.ops[t] {
                    batch.op_targets[i] = u32::from(op);
                    batch.op_mask[i] = 1.0;
                }
                for j in 0..heads {
                    if e.read_expected[t * heads + j] {
                        let from = (t * heads + j) * fields;
                        let to = (i * heads + j) * fields;
                        for f in 0..fields {
                            batch.read_targets[to + f] = u32::from(e.reads[from + f]);
                            batch.read_mask[to + f] = 1.0;
                        }
                    }
                }
            }
            batch.inputs.push(Tensor::from_slice(&row, (b, x), device)?);
        }
        Ok(batch)
    }

    /// Samples B.
    pub fn len(&self) -> usize {
        self.steps.len()
    }
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
    /// The steps of sample `k`.
    pub fn steps(&self, k: usize) -> usize {
        self.steps[k]
    }

    /// The logits of every step, `(T·B, outputs)`, from a run of `dnc` on this batch.
    pub fn logits(&self, dnc: &Dnc) -> Result<Tensor> {
        let state = dnc.initial_state_with(self.len(), self.locations)?;
        let ys = dnc.run_from(state, &self.inputs)?;
        let y = Tensor::stack(&ys, 0)?;
        let (t, b, o) = y.dims3()?;
        Ok(y.reshape((t * b, o))?)
    }

    /// Operation logits `(T·B, ops)` and read-field logits `(T·B·R·F, K)`.
    fn split(&self, logits: &Tensor) -> Result<(Tensor, Tensor)> {
        let s = &self.shape;
        let ops = logits.narrow(1, 0, s.ops)?;
        let reads = logits.narrow(1, s.ops, s.output() - s.ops)?;
        let rows = reads.dim(0)? * s.read_heads * s.word.count;
        Ok((ops, reads.reshape((rows, s.word.classes))?))
    }

    /// The mean cross-entropy over every expected target (operations and read fields).
    pub fn loss(&self, logits: &Tensor) -> Result<Tensor> {
        let device = logits.device();
        let (ops, reads) = self.split(logits)?;
        let total = |logits: &Tensor, targets: &[u32], mask: &[f32]| -> Result<Tensor> {
            let logp = candle_nn::ops::log_softmax(logits, D::Minus1)?;
            let index = Tensor::from_slice(targets, (targets.len(), 1), device)?;
            let picked = logp.gather(&index, 1)?.squeeze(1)?;
            let mask = Tensor::from_slice(mask, mask.len(), device)?.to_dtype(logits.dtype())?;
            Ok((picked * mask)?.sum_all()?)
        };
        let sum = (total(&ops, &self.op_targets, &self.op_mask)?
            + total(&reads, &self.read_targets, &self.read_mask)?)?;
        let count = self.op_mask.iter().chain(&self.read_mask).sum::<f32>().max(1.0);
        Ok(sum.affine(-1.0 / f64::from(count), 0.0)?)
    }

    /// The verdict on each sample from its logits: argmax against every expected target.
    pub fn verdicts(&self, logits: &Tensor) -> Result<Vec<Verdict>> {
        let (op_pred, read_pred) = self.predictions(logits)?;
        let b = self.len();
        let per_row = self.per_row();
        let mut out = vec![Verdict { solved: true, right: 0, targets: 0 }; b];
        for (i, &op) in op_pred.iter().enumerate() {
            let (right, targets) = self.judge(i, op, &read_pred[i * per_row..(i + 1) * per_row]);
            let v = &mut out[i % b];
            v.right += right;
            v.targets += targets;
            v.solved &= right == targets;
        }
        Ok(out)
    }

    /// Whether each sample's targets at step `t` are right under that step's logits `(B, outputs)`.
    pub fn step_right(&self, t: usize, logits: &Tensor) -> Result<Vec<bool>> {
        let (op_pred, read_pred) = self.predictions(logits)?;
        let per_row = self.per_row();
        Ok((0..self.len())
            .map(|k| {
                let (right, targets) =
                    self.judge(t * self.len() + k, op_pred[k], &read_pred[k * per_row..(k + 1) * per_row]);
                right == targets
            })
            .collect())
    }

    /// Read fields per row: R·F.
    fn per_row(&self) -> usize {
        self.shape.read_heads * self.shape.word.count
    }

    /// The argmax of every operation and read field under `logits`.
    fn predictions(&self, logits: &Tensor) -> Result<(Vec<u32>, Vec<u32>)> {
        let (ops, reads) = self.split(logits)?;
        Ok((ops.argmax(D::Minus1)?.to_vec1::<u32>()?, reads.argmax(D::Minus1)?.to_vec1::<u32>()?))
    }

    /// Row `i` (step t, sample b at `t · B + b`) judged on its predicted operation and read
    /// fields: (targets right, targets expected).
    fn judge(&self, i: usize, op: u32, reads: &[u32]) -> (u64, u64) {
        let per_row = self.per_row();
        let mask = &self.read_mask[i * per_row..(i + 1) * per_row];
        let targets = &self.read_targets[i * per_row..(i + 1) * per_row];
        let (mut right, mut expected) = (0, 0);
        let cells = std::iter::once((self.op_mask[i], op, self.op_targets[i]))
            .chain(mask.iter().zip(reads).zip(targets).map(|((&m, &p), &t)| (m, p, t)));
        for (_, p, t) in cells.filter(|(m, _, _)| *m > 0.0) {
            expected += 1;
            right += u64::from(p == t);
        }
        (right, expected)
    }
}

/// `task`'s episodes of `keys` (level, generator), with their shape; a typed error for a task
/// without a field encoding or a level it does not take.
pub fn episodes(
    task: &dyn AnyTask,
    keys: impl IntoIterator<Item = (usize, nhc_tasks::SampleRng)>,
) -> std::result::Result<Vec<Episode>, nhc_tasks::TaskError> {
    keys.into_iter().map(|(level, mut rng)| task.episode(level, &mut rng)).collect()
}
