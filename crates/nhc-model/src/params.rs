//! θ: one flat vector with named views in the paper's order (MODEL §2, "θ").

use crate::architecture::theta_len;
use crate::config::{Config, ConfigError};
use thiserror::Error;

/// One affine map `y = W x + b` stored inside θ: `W` is `rows × cols`, row-major, then `b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    pub offset: usize,
    pub rows: usize,
    pub cols: usize,
}

impl Block {
    pub(crate) fn after(offset: usize, rows: usize, cols: usize) -> Self {
        Block { offset, rows, cols }
    }
    /// Parameters in the block (`W` and `b`).
    pub fn len(&self) -> usize {
        self.rows * (self.cols + 1)
    }
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }
    /// Where the block ends in θ.
    pub fn end(&self) -> usize {
        self.offset + self.len()
    }
    /// Where `b` lives in θ.
    pub fn bias(&self) -> std::ops::Range<usize> {
        self.offset + self.rows * self.cols..self.end()
    }

    /// `out = W x + b` on this block of θ; each row sums `b + w₀x₀ + w₁x₁ + …` in that order.
    #[inline]
    pub fn apply(&self, theta: &[f32], x: &[f32], out: &mut [f32]) {
        debug_assert_eq!(x.len(), self.cols);
        let w = &theta[self.offset..self.offset + self.rows * self.cols];
        let b = &theta[self.offset + self.rows * self.cols..self.end()];
        for ((o, row), bias) in out.iter_mut().zip(w.chunks_exact(self.cols)).zip(b) {
            let mut acc = *bias;
            for (wi, xi) in row.iter().zip(x) {
                acc += wi * xi;
            }
            *o = acc;
        }
    }
}

/// Blocks of θ that take the same input, stacked row after row and stored column by column, so
/// that one pass over the input computes every row eight at a time. Each row is summed exactly as
/// [`Block::apply`] sums it — `b + w₀x₀ + w₁x₁ + …`, in that order, without fused multiply-adds —
/// so the results are bit for bit those of applying the blocks one by one.
#[derive(Debug, Clone, PartialEq)]
pub struct Stacked {
    rows: usize,
    cols: usize,
    /// Rows rounded up to a multiple of [`Stacked::LANES`].
    stride: usize,
    /// Column k of the stacked `W` at `k·stride..(k+1)·stride`, zero in the padding.
    columns: Vec<f32>,
    /// The stacked `b`, zero in the padding.
    bias: Vec<f32>,
}

impl Stacked {
    /// Rows computed together.
    pub const LANES: usize = 8;

    /// `blocks` of `theta`, in this order; they must all have the same number of columns.
    pub fn new(theta: &[f32], blocks: &[Block]) -> Self {
        let cols = blocks.first().map_or(0, |b| b.cols);
        assert!(blocks.iter().all(|b| b.cols == cols), "stacked blocks share their input");
        let rows: usize = blocks.iter().map(|b| b.rows).sum();
        let stride = rows.div_ceil(Self::LANES) * Self::LANES;
        let (mut columns, mut bias) = (vec![0.0; cols * stride], vec![0.0; stride]);
        let mut r = 0;
        for b in blocks {
            let w = &theta[b.offset..b.offset + b.rows * b.cols];
            for (row, weights) in w.chunks_exact(cols.max(1)).take(b.rows).enumerate() {
                for (k, v) in weights.iter().enumerate() {
                    columns[k * stride + r + row] = *v;
                }
            }
            bias[r..r + b.rows].copy_from_slice(&theta[b.bias()]);
            r += b.rows;
        }
        Stacked { rows, cols, stride, columns, bias }
    }

    /// Rows of all blocks together.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// A buffer for [`Stacked::apply`]'s output.
    pub fn output(&self) -> Vec<f32> {
        vec![0.0; self.stride]
    }

    /// `out = W x + b` for `x` the concatenation of `parts`; `out` is [`Stacked::output`]-sized
    /// and its first [`Stacked::rows`] entries are the stacked blocks' outputs in order.
    #[inline]
    pub fn apply(&self, parts: &[&[f32]], out: &mut [f32]) {
        debug_assert_eq!(parts.iter().map(|p| p.len()).sum::<usize>(), self.cols);
        debug_assert_eq!(out.len(), self.stride);
        // Up to four groups of lanes at a time: independent sums the processor overlaps.
        let mut first = 0;
        while first < self.stride {
            first += match (self.stride - first) / Self::LANES {
                1 => self.lanes::<1>(first, parts, out),
                2 => self.lanes::<2>(first, parts, out),
                3 => self.lanes::<3>(first, parts, out),
                _ => self.lanes::<4>(first, parts, out),
            };
        }
    }

    /// Rows `first..first + G·LANES` of [`Stacked::apply`]; returns how many rows that is.
    #[inline(always)]
    fn lanes<const G: usize>(&self, first: usize, parts: &[&[f32]], out: &mut [f32]) -> usize {
        const L: usize = Stacked::LANES;
        let mut acc = [[0.0f32; L]; G];
        for (g, a) in acc.iter_mut().enumerate() {
            a.copy_from_slice(&self.bias[first + g * L..first + (g + 1) * L]);
        }
        let mut columns = self.columns.get(first..).unwrap_or_default().chunks(self.stride);
        for part in parts {
            for x in *part {
                let Some(w) = columns.next() else { break };
                let w: &[[f32; L]; G] =
                    w.as_chunks().0.get(..G).and_then(|w| w.try_into().ok()).unwrap_or(&[[0.0; L]; G]);
                for g in 0..G {
                    for l in 0..L {
                        acc[g][l] += w[g][l] * x;
                    }
                }
            }
        }
        for (g, a) in acc.iter().enumerate() {
            out[first + g * L..first + (g + 1) * L].copy_from_slice(a);
        }
        G * L
    }
}

/// Where each weight matrix and bias lives in θ, in the order
/// `W_c, b_c, W_v, b_v, W_v̂, b_v̂, W_ê, b_ê, W_ĝ, b_ĝ, W_m, b_m, W_fw, b_fw, W_fr, b_fr, W_b, b_b`.
/// Blocks of switched-off mechanisms have zero rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub controller: Block,
    pub write: Block,
    pub prev_write: Block,
    pub prev_erase: Block,
    pub prev_gate: Block,
    pub read_mode: Block,
    pub free_write: Block,
    pub free_read: Block,
    pub bus: Block,
}

impl Layout {
    pub fn new(c: &Config) -> Self {
        let xm = c.memory_inputs();
        let prev = if c.previous_update { 1 } else { 0 };
        let free = if c.free_gates { 1 } else { 0 };
        let controller = Block::after(0, c.controller, c.controller_inputs());
        let write = Block::after(controller.end(), c.write_heads * c.word, xm);
        let prev_write = Block::after(write.end(), prev * c.read_heads * c.word, xm);
        let prev_erase = Block::after(prev_write.end(), prev * c.read_heads * c.word, xm);
        let prev_gate = Block::after(prev_erase.end(), prev * c.read_heads, xm);
        let read_mode = Block::after(prev_gate.end(), c.read_heads * c.read_modes(), xm);
        let free_write = Block::after(read_mode.end(), free * c.write_heads, xm);
        let free_read = Block::after(free_write.end(), free * c.read_heads, xm);
        let bus = Block::after(free_read.end(), c.ops, c.bus_inputs());
        Layout { controller, write, prev_write, prev_erase, prev_gate, read_mode, free_write, free_read, bus }
    }

    /// |θ|.
    pub fn len(&self) -> usize {
        self.bus.end()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The blocks with their paper names, in θ order.
    pub fn named(&self) -> [(&'static str, Block); 9] {
        [
            ("controller (W_c, b_c)", self.controller),
            ("write vectors (W_v, b_v)", self.write),
            ("previous-write vectors (W_v̂, b_v̂)", self.prev_write),
            ("previous-erase vectors (W_ê, b_ê)", self.prev_erase),
            ("previous-write gates (W_ĝ, b_ĝ)", self.prev_gate),
            ("read modes (W_m, b_m)", self.read_mode),
            ("write free gates (W_fw, b_fw)", self.free_write),
            ("read free gates (W_fr, b_fr)", self.free_read),
            ("bus (W_b, b_b)", self.bus),
        ]
    }
}

/// Parameters that do not fit their config.
#[derive(Debug, Error, PartialEq)]
pub enum ParamsError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("θ has {got} numbers but this config needs {expected}")]
    Length { expected: usize, got: usize },
    #[error("θ[{index}] is not a finite number")]
    NotFinite { index: usize },
    #[error("θ[{index}] = {value:?} is out of range: |θ| ≤ {MAX_PARAM:?} (learned models stay far below)")]
    OutOfRange { index: usize, value: f32 },
}

/// The largest |θ_k| a model may have. Learned models stay below 10; far larger values make the
/// step's sums overflow to infinity and NaN.
pub const MAX_PARAM: f32 = 1e5;

/// A config with a θ that fits it.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    config: Config,
    theta: Vec<f32>,
}

impl Params {
    /// Checks the config and that θ has the right length and only finite numbers.
    pub fn new(config: Config, theta: Vec<f32>) -> Result<Self, ParamsError> {
        config.check()?;
        let expected = theta_len(&config);
        if theta.len() != expected {
            return Err(ParamsError::Length { expected, got: theta.len() });
        }
        if let Some(index) = theta.iter().position(|x| !x.is_finite()) {
            return Err(ParamsError::NotFinite { index });
        }
        if let Some(index) = theta.iter().position(|x| x.abs() > MAX_PARAM) {
            return Err(ParamsError::OutOfRange { index, value: theta[index] });
        }
        Ok(Params { config, theta })
    }
    pub fn config(&self) -> &Config {
        &self.config
    }
    pub fn theta(&self) -> &[f32] {
        &self.theta
    }
    pub fn into_theta(self) -> Vec<f32> {
        self.theta
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small linear congruential generator: values of mixed sign and magnitude.
    fn mixed(mut state: u64) -> impl FnMut() -> f32 {
        move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 10f32.powi((state % 5) as i32 - 2)
        }
    }

    /// Stacked blocks give, bit for bit, what the blocks give one by one, for any split of the
    /// input into parts and row counts that do and do not fill the lanes.
    #[test]
    fn stacked_blocks_equal_the_blocks_bit_for_bit() {
        let mut next = mixed(99);
        for cols in [1, 5, 10, 18] {
            for rows in [[0, 3, 0], [4, 8, 2], [1, 0, 16], [7, 9, 1]] {
                let mut offset = 2;
                let blocks: Vec<Block> = rows
                    .iter()
                    .map(|&r| {
                        let b = Block::after(offset, r, cols);
                        offset = b.end();
                        b
                    })
                    .collect();
                let theta: Vec<f32> = (0..offset + 3).map(|_| next()).collect();
                let x: Vec<f32> = (0..cols).map(|_| next()).collect();
                let stacked = Stacked::new(&theta, &blocks);
                let mut got = stacked.output();
                let (a, b) = x.split_at(cols / 3);
                stacked.apply(&[a, &[], b], &mut got);
                let mut want = Vec::new();
                for block in &blocks {
                    let mut y = vec![0.0; block.rows];
                    block.apply(&theta, &x, &mut y);
                    want.extend(y);
                }
                assert_eq!(stacked.rows(), want.len());
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got[..want.len()]), bits(&want), "cols {cols}, rows {rows:?}");
            }
        }
    }

    /// Each row is summed in order from the bias (the bits every recorded result depends on),
    /// for any row count and any width of at least 1.
    #[test]
    fn apply_sums_each_row_in_order() {
        let mut next = mixed(12345);
        for rows in 0..11 {
            for cols in [1, 3, 7, 16] {
                let block = Block::after(3, rows, cols);
                let theta: Vec<f32> = (0..block.end() + 2).map(|_| next()).collect();
                let x: Vec<f32> = (0..cols).map(|_| next()).collect();
                let mut got = vec![f32::NAN; rows];
                block.apply(&theta, &x, &mut got);
                for (r, g) in got.iter().enumerate() {
                    let mut want = theta[3 + rows * cols + r];
                    for c in 0..cols {
                        want += theta[3 + r * cols + c] * x[c];
                    }
                    assert_eq!(g.to_bits(), want.to_bits(), "rows {rows}, cols {cols}, row {r}");
                }
            }
        }
    }
}
