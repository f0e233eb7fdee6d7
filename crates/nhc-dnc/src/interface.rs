//! The interface vector ξ_t parsed into its parts (Methods, "Interface parameters"), in the
//! order of nhc-model's `parse_interface`.

use crate::ops::{oneplus, sigmoid, softmax};
use crate::{DncSizes, Result, check_shape};
use candle_core::Tensor;

/// ξ_t's parts after their nonlinearities, for one write head and R read heads; B is the batch.
#[derive(Debug, Clone)]
pub struct Interface {
    /// Read keys k^{r,i}, `(B, R, W)`, as they are.
    pub read_keys: Tensor,
    /// Read strengths β^{r,i} = oneplus(β̂), `(B, R)`.
    pub read_strengths: Tensor,
    /// Write key k^w, `(B, 1, W)`.
    pub write_key: Tensor,
    /// Write strength β^w = oneplus(β̂), `(B, 1)`.
    pub write_strength: Tensor,
    /// Erase vector e = σ(ê), `(B, W)`.
    pub erase: Tensor,
    /// Write vector v, `(B, W)`, as it is.
    pub write: Tensor,
    /// Free gates f^i = σ(f̂), `(B, R)`.
    pub free_gates: Tensor,
    /// Allocation gate g^a = σ(ĝ^a), `(B, 1)`.
    pub allocation_gate: Tensor,
    /// Write gate g^w = σ(ĝ^w), `(B, 1)`.
    pub write_gate: Tensor,
    /// Read modes π^i = softmax(π̂^i) in the order (backward, content, forward), `(B, R, 3)`.
    pub read_modes: Tensor,
}

impl Interface {
    /// Splits ξ_t `(B, |ξ|)` into `[k^r (R·W); β̂^r (R); k^w (W); β̂^w (1); ê (W); v (W); f̂ (R);
    /// ĝ^a (1); ĝ^w (1); π̂ (3R)]` and applies oneplus to strengths, σ to the erase vector and
    /// gates, softmax to each head's read modes (Methods, "Interface parameters").
    pub fn parse(xi: &Tensor, sizes: &DncSizes) -> Result<Self> {
        let b = xi.dim(0)?;
        check_shape("interface vector", xi, &[b, sizes.interface()])?;
        let (r, w) = (sizes.read_heads, sizes.word);
        let mut at = 0;
        let mut take = |n: usize| {
            let part = xi.narrow(1, at, n);
            at += n;
            part
        };
        let read_keys = take(r * w)?.reshape((b, r, w))?;
        let read_strengths = oneplus(&take(r)?)?;
        let write_key = take(w)?.reshape((b, 1, w))?;
        let write_strength = oneplus(&take(1)?)?;
        let erase = sigmoid(&take(w)?)?;
        let write = take(w)?;
        let free_gates = sigmoid(&take(r)?)?;
        let allocation_gate = sigmoid(&take(1)?)?;
        let write_gate = sigmoid(&take(1)?)?;
        let read_modes = softmax(&take(3 * r)?.reshape((b, r, 3))?)?;
        Ok(Interface {
            read_keys,
            read_strengths,
            write_key,
            write_strength,
            erase,
            write,
            free_gates,
            allocation_gate,
            write_gate,
            read_modes,
        })
    }
}
