//! The DNC's memory addressing (Graves et al., Nature 2016, Methods: "Content-based addressing",
//! "Dynamic memory allocation", "Write weighting", "Temporal memory linkage", "Read weighting"),
//! soft, on tensors with a batch dimension B first. nhc-model's `dnc::addressing` has the same
//! formulas for hard attention; `tests/agreement.rs` holds the two to each other.

use crate::ops::{norm, one_minus, softmax};
use candle_core::{DType, Tensor};
use nhc_model::dnc::addressing::EPSILON;

/// Content weighting `C(M, k, β)[i] = softmax_i(D(k, M[i])·β)` with the cosine similarity
/// `D(u, v) = u·v / (|u| |v| + ε)`, ε as nhc-model's (Methods, "Content-based addressing"), for
/// K keys at once: memory `(B, N, W)`, keys `(B, K, W)`, strengths `(B, K)` → `(B, K, N)`.
pub fn content_weighting(memory: &Tensor, keys: &Tensor, strengths: &Tensor) -> candle_core::Result<Tensor> {
    let dot = keys.matmul(&memory.transpose(1, 2)?.contiguous()?)?;
    let key_norms = norm(keys)?;
    let word_norms = norm(memory)?.transpose(1, 2)?;
    let denominator = key_norms.broadcast_mul(&word_norms)?.affine(1.0, f64::from(EPSILON))?;
    let similarity = (dot / denominator)?;
    softmax(&similarity.broadcast_mul(&strengths.unsqueeze(2)?)?)
}

/// Usage `u_t = (u_{t−1} + w^w_{t−1} − u_{t−1} ∘ w^w_{t−1}) ∘ ψ_t` with the retention vector
/// `ψ_t = Π_i (1 − f^i_t w^{r,i}_{t−1})` (Methods, "Dynamic memory allocation"): usage and last
/// write weighting `(B, N)`, last read weightings `(B, R, N)`, free gates `(B, R)` → `(B, N)`.
pub fn update_usage(
    usage: &Tensor,
    write_prev: &Tensor,
    read_prev: &Tensor,
    free_gates: &Tensor,
) -> candle_core::Result<Tensor> {
    let written = ((usage + write_prev)? - (usage * write_prev)?)?;
    let mut retention = usage.ones_like()?;
    for i in 0..free_gates.dim(1)? {
        let freed = free_gates.narrow(1, i, 1)?.broadcast_mul(&read_prev.narrow(1, i, 1)?.squeeze(1)?)?;
        retention = (retention * one_minus(&freed)?)?;
    }
    written * retention
}

/// The free list φ_t: each batch row's locations sorted by ascending usage, ties by index (as
/// nhc-model's), and its inverse, as `u32` tensors `(B, N)` for `gather`. The sort is computed
/// from the values and is a constant for backpropagation: the paper (Methods, "Dynamic memory
/// allocation") ignores the gradient of the sort, which is not differentiable.
pub fn free_list(usage: &Tensor) -> candle_core::Result<(Tensor, Tensor)> {
    let (b, n) = usage.dims2()?;
    let rows: Vec<Vec<f64>> = usage.to_dtype(DType::F64)?.to_vec2()?;
    let mut order = Vec::with_capacity(b * n);
    let mut inverse = vec![0u32; b * n];
    for (row, u) in rows.iter().enumerate() {
        let mut phi: Vec<u32> = (0..n as u32).collect();
        phi.sort_by(|&x, &y| u[x as usize].total_cmp(&u[y as usize]).then(x.cmp(&y)));
        for (j, &loc) in phi.iter().enumerate() {
            inverse[row * n + loc as usize] = j as u32;
        }
        order.extend(phi);
    }
    let device = usage.device();
    Ok((Tensor::from_vec(order, (b, n), device)?, Tensor::from_vec(inverse, (b, n), device)?))
}

/// Allocation weighting `a_t[φ_t[j]] = (1 − u_t[φ_t[j]]) Π_{i<j} u_t[φ_t[i]]` (Methods, "Dynamic
/// memory allocation"): usage `(B, N)` → `(B, N)`. The exclusive cumulative product is an
/// explicit loop over N (a product through exp(Σ log) would fail at a usage of 0).
pub fn allocation_weighting(usage: &Tensor) -> candle_core::Result<Tensor> {
    let (order, inverse) = free_list(usage)?;
    let sorted = usage.gather(&order, 1)?;
    let n = sorted.dim(1)?;
    let mut products = Vec::with_capacity(n);
    let mut product = sorted.narrow(1, 0, 1)?.ones_like()?;
    for j in 0..n {
        products.push(product.clone());
        if j + 1 < n {
            product = (product * sorted.narrow(1, j, 1)?)?;
        }
    }
    let allocation_sorted = (one_minus(&sorted)? * Tensor::cat(&products, 1)?)?;
    allocation_sorted.gather(&inverse, 1)
}

/// Write weighting `w^w_t = g^w_t (g^a_t a_t + (1 − g^a_t) c^w_t)` (Methods, "Write weighting"):
/// allocation and write content weighting `(B, N)`, gates `(B, 1)` → `(B, N)`.
pub fn write_weighting(
    allocation: &Tensor,
    content: &Tensor,
    allocation_gate: &Tensor,
    write_gate: &Tensor,
) -> candle_core::Result<Tensor> {
    let mixed = (allocation.broadcast_mul(allocation_gate)?
        + content.broadcast_mul(&one_minus(allocation_gate)?)?)?;
    mixed.broadcast_mul(write_gate)
}

/// Erase and write `M_t = M_{t−1} ∘ (E − w^w_t e_t^⊤) + w^w_t v_t^⊤` (Methods, "Writing"): memory
/// `(B, N, W)`, write weighting `(B, N)`, erase and write vectors `(B, W)` → `(B, N, W)`.
pub fn write_memory(
    memory: &Tensor,
    write: &Tensor,
    erase: &Tensor,
    vector: &Tensor,
) -> candle_core::Result<Tensor> {
    let w = write.unsqueeze(2)?;
    let erased = w.broadcast_mul(&erase.unsqueeze(1)?)?;
    let added = w.broadcast_mul(&vector.unsqueeze(1)?)?;
    (memory * one_minus(&erased)?)? + added
}

/// Temporal link matrix `L_t[i, j] = (1 − w^w_t[i] − w^w_t[j]) L_{t−1}[i, j] + w^w_t[i] p_{t−1}[j]`
/// with `L_t[i, i] = 0` (Methods, "Temporal memory linkage"): links `(B, N, N)`, write
/// weighting and last precedence `(B, N)` → `(B, N, N)`. `L[i, j]` is the degree to which i was
/// written right after j.
pub fn update_links(links: &Tensor, write: &Tensor, precedence_prev: &Tensor) -> candle_core::Result<Tensor> {
    let n = write.dim(1)?;
    let w_i = write.unsqueeze(2)?;
    let w_j = write.unsqueeze(1)?;
    let keep = one_minus(&w_i.broadcast_add(&w_j)?)?;
    let new = w_i.broadcast_mul(&precedence_prev.unsqueeze(1)?)?;
    let off_diagonal = one_minus(&Tensor::eye(n, links.dtype(), links.device())?)?;
    ((keep * links)? + new)?.broadcast_mul(&off_diagonal)
}

/// Precedence `p_t = (1 − Σ_i w^w_t[i]) p_{t−1} + w^w_t` (Methods, "Temporal memory linkage"):
/// `(B, N)` → `(B, N)`.
pub fn update_precedence(precedence: &Tensor, write: &Tensor) -> candle_core::Result<Tensor> {
    let kept = one_minus(&write.sum_keepdim(1)?)?;
    precedence.broadcast_mul(&kept)? + write
}

/// Forward and backward weightings `f^i_t = L_t w^{r,i}_{t−1}`, `b^i_t = L_t^⊤ w^{r,i}_{t−1}`
/// (Methods, "Temporal memory linkage"): links `(B, N, N)`, last read weightings `(B, R, N)` →
/// `(forward, backward)`, each `(B, R, N)`.
pub fn directional_weightings(links: &Tensor, read_prev: &Tensor) -> candle_core::Result<(Tensor, Tensor)> {
    let forward = read_prev.matmul(&links.transpose(1, 2)?.contiguous()?)?;
    let backward = read_prev.matmul(links)?;
    Ok((forward, backward))
}

/// Read weighting `w^{r,i}_t = π^i_t[1] b^i_t + π^i_t[2] c^{r,i}_t + π^i_t[3] f^i_t` (Methods,
/// "Read weighting"): read modes `(B, R, 3)` in the order (backward, content, forward), the
/// three weightings `(B, R, N)` → `(B, R, N)`.
pub fn read_weighting(
    modes: &Tensor,
    backward: &Tensor,
    content: &Tensor,
    forward: &Tensor,
) -> candle_core::Result<Tensor> {
    let b = backward.broadcast_mul(&modes.narrow(2, 0, 1)?)?;
    let c = content.broadcast_mul(&modes.narrow(2, 1, 1)?)?;
    let f = forward.broadcast_mul(&modes.narrow(2, 2, 1)?)?;
    (b + c)? + f
}

/// Read vectors `r^i_t = M_t^⊤ w^{r,i}_t` (Methods, "Reading"): read weightings `(B, R, N)`,
/// memory `(B, N, W)` → `(B, R, W)`.
pub fn read_memory(read: &Tensor, memory: &Tensor) -> candle_core::Result<Tensor> {
    read.matmul(memory)
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    fn t1(v: &[f64]) -> Tensor {
        Tensor::from_slice(v, (1, v.len()), &Device::Cpu).unwrap()
    }
    fn t2(rows: &[&[f64]]) -> Tensor {
        let n = rows[0].len();
        let flat: Vec<f64> = rows.iter().flat_map(|r| r.iter().copied()).collect();
        Tensor::from_vec(flat, (1, rows.len(), n), &Device::Cpu).unwrap()
    }
    fn v1(t: &Tensor) -> Vec<f64> {
        t.squeeze(0).unwrap().to_vec1().unwrap()
    }
    fn v2(t: &Tensor) -> Vec<Vec<f64>> {
        t.squeeze(0).unwrap().to_vec2().unwrap()
    }
    fn close(a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
        assert!(a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12), "{a:?} vs {b:?}");
    }

    #[test]
    fn allocation_by_hand() {
        // u = (0.4, 0.1, 0.8): φ = (1, 0, 2), so a[1] = 1 − 0.1 = 0.9, a[0] = (1 − 0.4)·0.1 =
        // 0.06, a[2] = (1 − 0.8)·0.1·0.4 = 0.008.
        close(&v1(&allocation_weighting(&t1(&[0.4, 0.1, 0.8])).unwrap()), &[0.06, 0.9, 0.008]);
        // Ties by index: both 0.5, location 0 first: a = (0.5, 0.5·0.5, 0).
        close(&v1(&allocation_weighting(&t1(&[0.5, 0.5, 1.0])).unwrap()), &[0.5, 0.25, 0.0]);
        // Usage 0 at 1 and 3: φ = (1, 3, 2, 0); a[1] = 1 and every later product holds the 0.
        close(&v1(&allocation_weighting(&t1(&[1.0, 0.0, 0.3, 0.0])).unwrap()), &[0.0, 1.0, 0.0, 0.0]);
    }

    #[test]
    fn allocation_per_batch_row() {
        let u = Tensor::from_vec(vec![0.4f64, 0.1, 0.8, 0.5, 0.5, 1.0], (2, 3), &Device::Cpu).unwrap();
        let a: Vec<Vec<f64>> = allocation_weighting(&u).unwrap().to_vec2().unwrap();
        close(&a[0], &[0.06, 0.9, 0.008]);
        close(&a[1], &[0.5, 0.25, 0.0]);
    }

    #[test]
    fn usage_by_hand() {
        // u + w − u∘w = (0.5, 0.2 + 0.5 − 0.1, 0 + 1 − 0) = (0.5, 0.6, 1); head 0 read location 0
        // with f = 0.5: ψ = (0.5, 1, 1); head 1 read (0.5, 0.5, 0) with f = 0.2: ψ ∘= (0.9, 0.9, 1).
        let read = t2(&[&[1.0, 0.0, 0.0], &[0.5, 0.5, 0.0]]);
        let u = update_usage(&t1(&[0.5, 0.2, 0.0]), &t1(&[0.0, 0.5, 1.0]), &read, &t1(&[0.5, 0.2])).unwrap();
        close(&v1(&u), &[0.5 * 0.5 * 0.9, 0.6 * 0.9, 1.0]);
    }

    #[test]
    fn content_by_hand() {
        // k = (1, 0), M = ((1, 0), (0, 1), (0, 0)), β = 2: D = (1/(1 + ε), 0, 0), so
        // C = (e^{2D}, 1, 1) / (e^{2D} + 2).
        let m = t2(&[&[1.0, 0.0], &[0.0, 1.0], &[0.0, 0.0]]);
        let c = content_weighting(&m, &t2(&[&[1.0, 0.0]]), &t1(&[2.0])).unwrap();
        let e = (2.0 / (1.0 + f64::from(EPSILON))).exp();
        close(&v2(&c)[0], &[e / (e + 2.0), 1.0 / (e + 2.0), 1.0 / (e + 2.0)]);
    }

    #[test]
    fn write_weighting_and_write_by_hand() {
        // g^w (g^a a + (1 − g^a) c) with g^a = 0.25, g^w = 0.5, a = (1, 0), c = (0.2, 0.8):
        // 0.5·(0.25 + 0.15, 0.6) = (0.2, 0.3).
        let w = write_weighting(&t1(&[1.0, 0.0]), &t1(&[0.2, 0.8]), &t1(&[0.25]), &t1(&[0.5])).unwrap();
        close(&v1(&w), &[0.2, 0.3]);
        // M = ((1, 1), (2, 2)), w = (1, 0.5), e = (1, 0), v = (3, 4):
        // row 0: (1·(1 − 1) + 3, 1·(1 − 0) + 4) = (3, 5); row 1: (2·0.5 + 1.5, 2 + 2) = (2.5, 4).
        let m = t2(&[&[1.0, 1.0], &[2.0, 2.0]]);
        let m = write_memory(&m, &t1(&[1.0, 0.5]), &t1(&[1.0, 0.0]), &t1(&[3.0, 4.0])).unwrap();
        assert_eq!(v2(&m), [[3.0, 5.0], [2.5, 4.0]]);
    }

    #[test]
    fn links_and_precedence_after_two_writes() {
        let links = Tensor::zeros((1, 3, 3), DType::F64, &Device::Cpu).unwrap();
        let p0 = t1(&[0.0, 0.0, 0.0]);
        // Write 1, w = (0.6, 0.2, 0.1): L_1 = (1 − w_i − w_j)·0 + w_i·p_0[j] = 0;
        // p_1 = (1 − 0.9)·0 + w = (0.6, 0.2, 0.1).
        let w1 = t1(&[0.6, 0.2, 0.1]);
        let l1 = update_links(&links, &w1, &p0).unwrap();
        let p1 = update_precedence(&p0, &w1).unwrap();
        assert_eq!(v2(&l1), [[0.0; 3]; 3]);
        close(&v1(&p1), &[0.6, 0.2, 0.1]);
        // Write 2, w = (0.1, 0.7, 0): L_2[i, j] = w_i·p_1[j] off the diagonal:
        // row 0: (0, 0.1·0.2, 0.1·0.1); row 1: (0.7·0.6, 0, 0.7·0.1); row 2: 0.
        // p_2 = (1 − 0.8)·p_1 + w = (0.12 + 0.1, 0.04 + 0.7, 0.02).
        let w2 = t1(&[0.1, 0.7, 0.0]);
        let l2 = v2(&update_links(&l1, &w2, &p1).unwrap());
        close(&l2[0], &[0.0, 0.02, 0.01]);
        close(&l2[1], &[0.42, 0.0, 0.07]);
        close(&l2[2], &[0.0, 0.0, 0.0]);
        close(&v1(&update_precedence(&p1, &w2).unwrap()), &[0.22, 0.74, 0.02]);
        // Write 3, w = (0, 0, 0.5), p_2 = (0.22, 0.74, 0.02): L_3[i, j] = (1 − w_i − w_j) L_2[i, j]
        // + w_i p_2[j]: row 0: (0, 0.02, 0.5·0.01); row 1: (0.42, 0, 0.5·0.07);
        // row 2: (0.5·0.22, 0.5·0.74, 0).
        let l2 = update_links(&l1, &w2, &p1).unwrap();
        let p2 = update_precedence(&p1, &w2).unwrap();
        let l3 = v2(&update_links(&l2, &t1(&[0.0, 0.0, 0.5]), &p2).unwrap());
        close(&l3[0], &[0.0, 0.02, 0.005]);
        close(&l3[1], &[0.42, 0.0, 0.035]);
        close(&l3[2], &[0.11, 0.37, 0.0]);
    }

    #[test]
    fn forward_and_backward_from_a_known_link_matrix() {
        // L = ((0, 0.1, 0.2), (0.6, 0, 0.3), (0.1, 0.7, 0)), w = (0.2, 0.5, 0.3):
        // f = L w = (0.05 + 0.06, 0.12 + 0.09, 0.02 + 0.35) = (0.11, 0.21, 0.37);
        // b = L^⊤ w = (0.3 + 0.03, 0.02 + 0.21, 0.04 + 0.15) = (0.33, 0.23, 0.19).
        let l = t2(&[&[0.0, 0.1, 0.2], &[0.6, 0.0, 0.3], &[0.1, 0.7, 0.0]]);
        let (f, b) = directional_weightings(&l, &t2(&[&[0.2, 0.5, 0.3]])).unwrap();
        close(&v2(&f)[0], &[0.11, 0.21, 0.37]);
        close(&v2(&b)[0], &[0.33, 0.23, 0.19]);
        // A hard chain 0 → 1 → 2 (L[1, 0] = L[2, 1] = 1) read at 1: forward is 2, backward 0.
        let l = t2(&[&[0.0, 0.0, 0.0], &[1.0, 0.0, 0.0], &[0.0, 1.0, 0.0]]);
        let (f, b) = directional_weightings(&l, &t2(&[&[0.0, 1.0, 0.0]])).unwrap();
        close(&v2(&f)[0], &[0.0, 0.0, 1.0]);
        close(&v2(&b)[0], &[1.0, 0.0, 0.0]);
    }

    #[test]
    fn read_weighting_and_read_by_hand() {
        // π = (0.2, 0.5, 0.3), b = (1, 0), c = (0.4, 0.6), f = (0, 1):
        // w = (0.2 + 0.2, 0.3 + 0.3) = (0.4, 0.6); r = 0.4·(1, 2) + 0.6·(3, 4) = (2.2, 3.2).
        let w = read_weighting(
            &t2(&[&[0.2, 0.5, 0.3]]),
            &t2(&[&[1.0, 0.0]]),
            &t2(&[&[0.4, 0.6]]),
            &t2(&[&[0.0, 1.0]]),
        )
        .unwrap();
        close(&v2(&w)[0], &[0.4, 0.6]);
        let r = read_memory(&w, &t2(&[&[1.0, 2.0], &[3.0, 4.0]])).unwrap();
        close(&v2(&r)[0], &[2.2, 3.2]);
    }
}
