//! The nonlinearities of the interface (Methods, "Interface parameters") and the norm of the
//! cosine similarity, on tensors of any float type.

use candle_core::{D, Tensor};

/// Added under the square root of a norm: the gradient of √x at a zero word (the initial
/// memory) is 1/0, and 0·∞ would make every gradient NaN. It changes no norm of a word with
/// |m|² above ~1e-22 in f32 (nor the cosine of a zero word, which stays 0).
pub const NORM_FLOOR: f64 = 1e-30;

/// `oneplus(x) = 1 + log(1 + e^x)`, computed as `1 + relu(x) + log(1 + e^{−|x|})` so that no
/// exponential overflows.
pub fn oneplus(x: &Tensor) -> candle_core::Result<Tensor> {
    let tail = x.abs()?.neg()?.exp()?.affine(1.0, 1.0)?.log()?;
    (x.relu()? + tail)?.affine(1.0, 1.0)
}

/// `σ(x) = 1 / (1 + e^{−x})`.
pub fn sigmoid(x: &Tensor) -> candle_core::Result<Tensor> {
    candle_nn::ops::sigmoid(x)
}

/// Softmax over the last dimension, shifted by the maximum.
pub fn softmax(x: &Tensor) -> candle_core::Result<Tensor> {
    candle_nn::ops::softmax(x, D::Minus1)
}

/// `1 − x`.
pub fn one_minus(x: &Tensor) -> candle_core::Result<Tensor> {
    x.affine(-1.0, 1.0)
}

/// `|x|` over the last dimension, kept as a dimension of size 1 (see [`NORM_FLOOR`]).
pub fn norm(x: &Tensor) -> candle_core::Result<Tensor> {
    x.sqr()?.sum_keepdim(D::Minus1)?.affine(1.0, NORM_FLOOR)?.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{DType, Device, Var};
    use nhc_model::dnc::addressing as hard;

    #[test]
    fn oneplus_and_sigmoid_equal_nhc_model() {
        let xs = [-100.0f32, -3.0, -0.5, 0.0, 0.5, 3.0, 19.0, 25.0, 100.0];
        let t = Tensor::new(&xs, &Device::Cpu).unwrap();
        let op: Vec<f32> = oneplus(&t).unwrap().to_vec1().unwrap();
        let sg: Vec<f32> = sigmoid(&t).unwrap().to_vec1().unwrap();
        for (k, x) in xs.iter().enumerate() {
            assert!((op[k] - hard::oneplus(*x)).abs() <= 1e-6 * hard::oneplus(*x), "{x}: {}", op[k]);
            assert!((sg[k] - hard::sigmoid(*x)).abs() <= 1e-6, "{x}: {}", sg[k]);
        }
    }

    #[test]
    fn oneplus_has_the_derivative_sigma_even_at_zero() {
        let x = Var::new(&[-2.0f64, 0.0, 2.0], &Device::Cpu).unwrap();
        let g = oneplus(&x).unwrap().sum_all().unwrap().backward().unwrap();
        let g: Vec<f64> = g.get(&x).unwrap().to_vec1().unwrap();
        for (gk, x) in g.iter().zip([-2.0f64, 0.0, 2.0]) {
            assert!((gk - 1.0 / (1.0 + (-x).exp())).abs() < 1e-12, "{x}: {gk}");
        }
    }

    #[test]
    fn the_norm_of_a_zero_word_has_a_finite_gradient() {
        let m = Var::zeros((2, 3), DType::F32, &Device::Cpu).unwrap();
        let g = norm(&m).unwrap().sum_all().unwrap().backward().unwrap();
        let g: Vec<Vec<f32>> = g.get(&m).unwrap().to_vec2().unwrap();
        assert!(g.iter().flatten().all(|v| v.is_finite()), "{g:?}");
    }
}
