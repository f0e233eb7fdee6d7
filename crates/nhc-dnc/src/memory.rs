//! The DNC's memory state and one memory step (Methods, "Memory addressing"), with one write
//! head and R read heads.

use crate::addressing::{
    allocation_weighting, content_weighting, directional_weightings, read_memory, read_weighting,
    update_links, update_precedence, update_usage, write_memory, write_weighting,
};
use crate::{DncSizes, Interface, Result};
use candle_core::{DType, Device, Tensor};

/// The memory after step t; every tensor has the batch dimension B first.
#[derive(Debug, Clone)]
pub struct MemoryState {
    /// M_t, `(B, N, W)`.
    pub memory: Tensor,
    /// Usage u_t, `(B, N)`.
    pub usage: Tensor,
    /// Temporal link matrix L_t, `(B, N, N)`.
    pub links: Tensor,
    /// Precedence weighting p_t, `(B, N)`.
    pub precedence: Tensor,
    /// Write weighting w^w_t, `(B, N)`.
    pub write_weighting: Tensor,
    /// Read weightings w^{r,i}_t, `(B, R, N)`.
    pub read_weightings: Tensor,
    /// Read vectors r^i_t, `(B, R, W)`.
    pub read_vectors: Tensor,
}

impl MemoryState {
    /// The state before the first step: every tensor 0 (an empty memory, no usage, no links, no
    /// precedence, no last write or reads).
    pub fn zeros(sizes: &DncSizes, batch: usize, dtype: DType, device: &Device) -> Result<Self> {
        let (n, w, r) = (sizes.locations, sizes.word, sizes.read_heads);
        Ok(MemoryState {
            memory: Tensor::zeros((batch, n, w), dtype, device)?,
            usage: Tensor::zeros((batch, n), dtype, device)?,
            links: Tensor::zeros((batch, n, n), dtype, device)?,
            precedence: Tensor::zeros((batch, n), dtype, device)?,
            write_weighting: Tensor::zeros((batch, n), dtype, device)?,
            read_weightings: Tensor::zeros((batch, r, n), dtype, device)?,
            read_vectors: Tensor::zeros((batch, r, w), dtype, device)?,
        })
    }

    /// One step in the paper's order: usage u_t from w^w_{t−1}, w^r_{t−1} and the free gates;
    /// allocation a_t; write content weighting on M_{t−1}; write weighting; erase and write M_t;
    /// links L_t from p_{t−1}, then p_t; forward/backward weightings from L_t and w^r_{t−1}; read
    /// content weighting on M_t; read weightings and read vectors (Methods, "Memory
    /// addressing", "Dynamic memory allocation", "Temporal memory linkage").
    pub fn step(&self, xi: &Interface) -> Result<MemoryState> {
        let usage = update_usage(&self.usage, &self.write_weighting, &self.read_weightings, &xi.free_gates)?;
        let allocation = allocation_weighting(&usage)?;
        let write_content = content_weighting(&self.memory, &xi.write_key, &xi.write_strength)?.squeeze(1)?;
        let write = write_weighting(&allocation, &write_content, &xi.allocation_gate, &xi.write_gate)?;
        let memory = write_memory(&self.memory, &write, &xi.erase, &xi.write)?;
        let links = update_links(&self.links, &write, &self.precedence)?;
        let precedence = update_precedence(&self.precedence, &write)?;
        let (forward, backward) = directional_weightings(&links, &self.read_weightings)?;
        let read_content = content_weighting(&memory, &xi.read_keys, &xi.read_strengths)?;
        let read_weightings = read_weighting(&xi.read_modes, &backward, &read_content, &forward)?;
        let read_vectors = read_memory(&read_weightings, &memory)?;
        Ok(MemoryState {
            memory,
            usage,
            links,
            precedence,
            write_weighting: write,
            read_weightings,
            read_vectors,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::D;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    const SIZES: DncSizes =
        DncSizes { input: 1, hidden: 1, locations: 5, word: 3, read_heads: 2, outputs: 1 };

    fn random_interface(rng: &mut ChaCha8Rng, batch: usize) -> Interface {
        let n = SIZES.interface();
        let xi: Vec<f32> = (0..batch * n).map(|_| rng.random_range(-3.0..3.0)).collect();
        Interface::parse(&Tensor::from_vec(xi, (batch, n), &Device::Cpu).unwrap(), &SIZES).unwrap()
    }
    fn flat(t: &Tensor) -> Vec<f32> {
        t.flatten_all().unwrap().to_vec1().unwrap()
    }
    fn all_in(t: &Tensor, lo: f32, hi: f32) -> bool {
        flat(t).iter().all(|v| (lo - 1e-6..=hi + 1e-6).contains(v))
    }

    #[test]
    fn the_first_step_allocates_the_first_location() {
        // Usage 0 everywhere: φ = (0, 1, …), a = (1, 0, …, 0); with g^a = g^w = 1 the write
        // weighting is one-hot at 0 and M_1[0] = v.
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut xi = random_interface(&mut rng, 1);
        xi.allocation_gate = Tensor::ones((1, 1), DType::F32, &Device::Cpu).unwrap();
        xi.write_gate = xi.allocation_gate.clone();
        let m0 = MemoryState::zeros(&SIZES, 1, DType::F32, &Device::Cpu).unwrap();
        let m1 = m0.step(&xi).unwrap();
        assert_eq!(flat(&m1.write_weighting), [1.0, 0.0, 0.0, 0.0, 0.0]);
        let word: Vec<f32> = flat(&m1.memory)[..3].to_vec();
        assert_eq!(word, flat(&xi.write));
        assert!(flat(&m1.memory)[3..].iter().all(|v| *v == 0.0));
        assert_eq!(flat(&m1.precedence), [1.0, 0.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn weightings_stay_in_their_ranges() {
        // The paper's invariants (Methods, "Memory addressing"): usage in [0, 1]; the write and
        // each read weighting nonnegative with sum ≤ 1; p_t likewise; L_t in [0, 1] with a zero
        // diagonal and rows and columns summing to ≤ 1.
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let batch = 3;
        let mut m = MemoryState::zeros(&SIZES, batch, DType::F32, &Device::Cpu).unwrap();
        for _ in 0..12 {
            m = m.step(&random_interface(&mut rng, batch)).unwrap();
            assert!(all_in(&m.usage, 0.0, 1.0));
            for w in [&m.write_weighting, &m.read_weightings, &m.precedence] {
                assert!(all_in(w, 0.0, 1.0));
                assert!(all_in(&w.sum(D::Minus1).unwrap(), 0.0, 1.0));
            }
            assert!(all_in(&m.links, 0.0, 1.0));
            assert!(all_in(&m.links.sum(2).unwrap(), 0.0, 1.0));
            assert!(all_in(&m.links.sum(1).unwrap(), 0.0, 1.0));
            let eye = Tensor::eye(SIZES.locations, DType::F32, &Device::Cpu).unwrap();
            assert!(flat(&m.links.broadcast_mul(&eye).unwrap()).iter().all(|v| *v == 0.0));
        }
    }

    #[test]
    fn batch_rows_are_independent() {
        // A batch of two steps like each row alone.
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let n = SIZES.interface();
        let rows: Vec<Vec<f32>> =
            (0..2).map(|_| (0..n).map(|_| rng.random_range(-3.0..3.0)).collect()).collect();
        let parse = |v: Vec<f32>, b: usize| {
            Interface::parse(&Tensor::from_vec(v, (b, n), &Device::Cpu).unwrap(), &SIZES).unwrap()
        };
        let both = parse(rows.concat(), 2);
        let mut m2 = MemoryState::zeros(&SIZES, 2, DType::F32, &Device::Cpu).unwrap();
        let mut singles: Vec<MemoryState> =
            (0..2).map(|_| MemoryState::zeros(&SIZES, 1, DType::F32, &Device::Cpu).unwrap()).collect();
        for _ in 0..3 {
            m2 = m2.step(&both).unwrap();
            for (row, single) in singles.iter_mut().enumerate() {
                *single = single.step(&parse(rows[row].clone(), 1)).unwrap();
            }
        }
        for (row, single) in singles.iter().enumerate() {
            let got = flat(&m2.read_vectors.narrow(0, row, 1).unwrap());
            let want = flat(&single.read_vectors);
            assert!(got.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-6), "{got:?} vs {want:?}");
        }
    }
}
