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
