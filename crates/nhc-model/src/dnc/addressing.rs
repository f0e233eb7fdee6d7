//! The DNC's addressing formulas (Graves et al., Nature 2016, Methods: "Content-based
//! addressing", "Dynamic memory allocation"), as plain functions on vectors. The memory turns their
//! soft weightings into one location per head ([`super::DncMemory`]).

/// ε in the cosine similarity, so that a zero word or key has similarity 0.
pub const EPSILON: f32 = 1e-6;

/// `oneplus(x) = 1 + log(1 + e^x)` (Methods, "Interface parameters"): strengths in [1, ∞).
pub fn oneplus(x: f32) -> f32 {
    // log(1 + e^x) without overflow for large x.
    1.0 + if x > 20.0 { x } else { x.exp().ln_1p() }
}

/// `σ(x) = 1 / (1 + e^−x)`, the logistic sigmoid.
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// `u·v`, summed in order.
pub fn dot(u: &[f32], v: &[f32]) -> f32 {
    u.iter().zip(v).fold(0.0, |acc, (a, b)| acc + a * b)
}

/// `|v| = √(Σ v_k²)`, summed in order.
pub fn norm(v: &[f32]) -> f32 {
    dot(v, v).sqrt()
}

/// `D(u, v) = u·v / (|u| |v| + ε)`: the cosine similarity (Methods, "Content-based addressing").
pub fn cosine(u: &[f32], v: &[f32]) -> f32 {
    dot(u, v) / (norm(u) * norm(v) + EPSILON)
}

/// Softmax in place, shifted by the maximum so that no exponential overflows.
pub fn softmax(x: &mut [f32]) {
    let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in x.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    x.iter_mut().for_each(|v| *v /= sum);
}

/// Content weighting `C(M, k, β)[i] = exp(D(k, M[i])·β) / Σ_j exp(D(k, M[j])·β)` over the rows of
/// `memory` (each `key.len()` wide), into `out` (Methods, "Content-based addressing").
pub fn content_weighting(memory: &[f32], key: &[f32], strength: f32, out: &mut [f32]) {
    let norms: Vec<f32> = memory.chunks_exact(key.len()).map(norm).collect();
    content_weighting_normed(memory, &norms, key, strength, out);
}

/// [`content_weighting`] with the rows' norms given, `norms[i] = |M[i]|` ([`norm`]), bit for bit
/// the same.
pub fn content_weighting_normed(memory: &[f32], norms: &[f32], key: &[f32], strength: f32, out: &mut [f32]) {
    let k = norm(key);
    for ((o, row), n) in out.iter_mut().zip(memory.chunks_exact(key.len())).zip(norms) {
        *o = dot(key, row) / (k * n + EPSILON) * strength;
    }
    softmax(out);
}

/// Usage `u_t = (u_{t−1} + w^w_{t−1} − u_{t−1} ∘ w^w_{t−1}) ∘ ψ_t` with the retention vector
/// `ψ_t = Π_i (1 − f_t^i w_{t−1}^{r,i})` (Methods, "Dynamic memory allocation"), for hard
/// weightings: `written` is the location of last step's write, `read[i]` read head i's location
/// of last step (`None` before the first step).
pub fn update_usage(usage: &mut [f32], written: Option<usize>, read: &[Option<usize>], free_gates: &[f32]) {
    if let Some(w) = written {
        // u + 1 − u·1 at the written location.
        usage[w] = 1.0;
    }
    for (r, f) in read.iter().zip(free_gates) {
        if let Some(r) = *r {
            usage[r] *= 1.0 - f;
        }
    }
}

/// Allocation weighting `a_t[φ_t[j]] = (1 − u_t[φ_t[j]]) Π_{i<j} u_t[φ_t[i]]`, φ_t the locations
/// sorted by ascending usage, ties by index (Methods, "Dynamic memory allocation"). `order` is
/// scratch space. When some location has usage exactly 0, the lowest such one comes first in φ
/// and every later product holds its 0, so the weighting is one-hot there: that case costs O(N)
/// instead of a sort.
pub fn allocation_weighting(usage: &[f32], out: &mut [f32], order: &mut Vec<u32>) {
    out.fill(0.0);
    if let Some(free) = usage.iter().position(|&u| u == 0.0) {
        out[free] = 1.0;
        return;
    }
    order.clear();
    order.extend(0..usage.len() as u32);
    order.sort_by(|&a, &b| usage[a as usize].total_cmp(&usage[b as usize]).then(a.cmp(&b)));
    let mut product = 1.0;
    for &j in order.iter() {
        let u = usage[j as usize];
        out[j as usize] = (1.0 - u) * product;
        product *= u;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f32], b: &[f32]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
    }

    #[test]
    fn allocation_by_hand() {
        // φ = (1, 0, 2): a[1] = 1 − 0.2, a[0] = (1 − 0.5)·0.2, a[2] = (1 − 0.9)·0.2·0.5.
        let mut out = [0.0; 3];
        allocation_weighting(&[0.5, 0.2, 0.9], &mut out, &mut Vec::new());
        assert!(close(&out, &[0.1, 0.8, 0.01]), "{out:?}");
        // Ties go by index: both 0.5, location 0 first.
        allocation_weighting(&[0.5, 0.5, 1.0], &mut out, &mut Vec::new());
        assert!(close(&out, &[0.5, 0.25, 0.0]), "{out:?}");
    }

    #[test]
    fn allocation_with_a_free_location_is_one_hot_at_the_lowest() {
        let mut out = [0.0; 4];
        allocation_weighting(&[1.0, 0.0, 0.3, 0.0], &mut out, &mut Vec::new());
        assert_eq!(out, [0.0, 1.0, 0.0, 0.0]);
        // The same numbers through the general formula (a usage just above 0 changes nothing
        // visible at this precision for the rest).
        allocation_weighting(&[1.0, 1e-30, 0.3, 1e-30], &mut out, &mut Vec::new());
        assert!(close(&out, &[0.0, 1.0, 0.0, 0.0]), "{out:?}");
    }

    #[test]
    fn content_by_hand() {
        // k = (1, 0), M = ((1, 0), (0, 1), (0, 0)), β = 2: D = (1, 0, 0) →
        // C = (e², 1, 1) / (e² + 2).
        let mut out = [0.0; 3];
        content_weighting(&[1.0, 0.0, 0.0, 1.0, 0.0, 0.0], &[1.0, 0.0], 2.0, &mut out);
        let e2 = 2.0f32.exp();
        let z = e2 + 2.0;
        assert!(close(&out, &[e2 / z, 1.0 / z, 1.0 / z]), "{out:?}");
        // Cosine ignores length: (2, 0) is as similar to (1, 0) as (1, 0) is.
        assert!((cosine(&[2.0, 0.0], &[1.0, 0.0]) - 1.0).abs() < 1e-5);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
    }

    #[test]
    fn usage_by_hand() {
        // Written at 2 last step; head 0 read 1 with f = 0.5, head 1 read 0 with f = 0.25.
        let mut u = [0.5, 1.0, 0.0];
        update_usage(&mut u, Some(2), &[Some(1), Some(0)], &[0.5, 0.25]);
        assert!(close(&u, &[0.375, 0.5, 1.0]), "{u:?}");
        // Two heads on one location: ψ multiplies both.
        let mut u = [1.0];
        update_usage(&mut u, None, &[Some(0), Some(0)], &[0.5, 0.5]);
        assert!(close(&u, &[0.25]), "{u:?}");
    }

    #[test]
    fn oneplus_and_sigmoid() {
        assert!((oneplus(0.0) - (1.0 + 2.0f32.ln())).abs() < 1e-6);
        assert_eq!(oneplus(100.0), 101.0);
        assert!((oneplus(-100.0) - 1.0).abs() < 1e-6);
        assert_eq!(sigmoid(0.0), 0.5);
    }
}
