//! The controller (one LSTM layer, Methods, "Controller network"), the interface layer
//! `ξ_t = W_ξ h_t + b_ξ` and the output layer `y_t = W_y [h_t; r^1_t; …; r^R_t] + b_y` (the
//! paper's `υ_t + W_r [r^1_t; …; r^R_t]` in one matrix; here y_t are logits over the ALU
//! operations).

use crate::ops::sigmoid;
use crate::{DncSizes, Result, check_shape};
use candle_core::{DType, Device, Tensor, Var};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The learned parameters, each a [`Var`] so that backpropagation reaches it.
#[derive(Debug, Clone)]
pub struct Params {
    sizes: DncSizes,
    /// The LSTM's four gates `W [χ_t; h_{t−1}]`, rows (i, f, s, o) with H each, as nhc-model's
    /// `DncLayout`: `(4H, |χ| + H)`.
    pub lstm_weight: Var,
    /// `(4H)`.
    pub lstm_bias: Var,
    /// W_ξ, `(|ξ|, H)`.
    pub interface_weight: Var,
    /// b_ξ, `(|ξ|)`.
    pub interface_bias: Var,
    /// W_y, `(outputs, H + R·W)`.
    pub output_weight: Var,
    /// b_y, `(outputs)`.
    pub output_bias: Var,
}

impl Params {
    /// Weights drawn uniformly from ±1/√(fan-in) with a seeded generator, biases 0.
    pub fn init(sizes: &DncSizes, dtype: DType, device: &Device, seed: u64) -> Result<Self> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        Self::from_fn(sizes, dtype, device, |name, fan_in| {
            if name.ends_with("bias") {
                0.0
            } else {
                let a = 1.0 / (fan_in as f64).sqrt();
                rng.random_range(-a..a)
            }
        })
    }

    /// Every entry from `value(name, fan_in)`, in the order of [`Params::named`], row-major.
    pub fn from_fn(
        sizes: &DncSizes,
        dtype: DType,
        device: &Device,
        mut value: impl FnMut(&'static str, usize) -> f64,
    ) -> Result<Self> {
        let sizes = sizes.check()?;
        let (h, rw) = (sizes.hidden, sizes.read_heads * sizes.word);
        let chi = sizes.controller_input();
        let mut var = |name: &'static str, rows: usize, cols: usize| -> Result<Var> {
            let data: Vec<f64> = (0..rows * cols).map(|_| value(name, cols)).collect();
            let shape: Vec<usize> = if name.ends_with("bias") { vec![rows] } else { vec![rows, cols] };
            Ok(Var::from_tensor(&Tensor::from_vec(data, shape, device)?.to_dtype(dtype)?)?)
        };
        Ok(Params {
            sizes,
            lstm_weight: var("lstm_weight", 4 * h, chi + h)?,
            lstm_bias: var("lstm_bias", 4 * h, 1)?,
            interface_weight: var("interface_weight", sizes.interface(), h)?,
            interface_bias: var("interface_bias", sizes.interface(), 1)?,
            output_weight: var("output_weight", sizes.outputs, h + rw)?,
            output_bias: var("output_bias", sizes.outputs, 1)?,
        })
    }

    pub fn sizes(&self) -> &DncSizes {
        &self.sizes
    }
    pub fn dtype(&self) -> DType {
        self.lstm_weight.dtype()
    }
    pub fn device(&self) -> &Device {
        self.lstm_weight.device()
    }

    /// The parameters with their names.
    pub fn named(&self) -> [(&'static str, &Var); 6] {
        [
            ("lstm_weight", &self.lstm_weight),
            ("lstm_bias", &self.lstm_bias),
            ("interface_weight", &self.interface_weight),
            ("interface_bias", &self.interface_bias),
            ("output_weight", &self.output_weight),
            ("output_bias", &self.output_bias),
        ]
    }
    /// The parameters as named tensors (`param.NAME`), for a checkpoint.
    pub fn tensors(&self) -> std::collections::HashMap<String, Tensor> {
        nhc_grad::param_tensors(self.named())
    }
    /// Sets every parameter from tensors saved by [`Params::tensors`]; a missing or misshapen
    /// one is an error.
    pub fn restore(&self, tensors: &std::collections::HashMap<String, Tensor>) -> Result<()> {
        Ok(nhc_grad::restore_params(self.named(), tensors)?)
    }
    /// |θ|.
    pub fn len(&self) -> usize {
        self.named().iter().map(|(_, v)| v.elem_count()).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// One LSTM step `i, f, o = σ(W_{i,f,o} [χ_t; h_{t−1}] + b)`, `s_t = f ∘ s_{t−1} + i ∘
    /// tanh(W_s [χ_t; h_{t−1}] + b_s)`, `h_t = o ∘ tanh(s_t)` (Methods, "Controller network"), on
    /// χ_t = [x_t; r_{t−1}] `(B, |χ|)`.
    pub fn lstm(&self, chi: &Tensor, state: &ControllerState) -> Result<ControllerState> {
        let b = chi.dim(0)?;
        check_shape("controller input χ", chi, &[b, self.sizes.controller_input()])?;
        let h = self.sizes.hidden;
        let z = Tensor::cat(&[chi, &state.hidden], 1)?;
        let gates = linear(&z, &self.lstm_weight, &self.lstm_bias)?;
        let input = sigmoid(&gates.narrow(1, 0, h)?)?;
        let forget = sigmoid(&gates.narrow(1, h, h)?)?;
        let candidate = gates.narrow(1, 2 * h, h)?.tanh()?;
        let output = sigmoid(&gates.narrow(1, 3 * h, h)?)?;
        let cell = ((forget * &state.cell)? + (input * candidate)?)?;
        let hidden = (output * cell.tanh()?)?;
        Ok(ControllerState { hidden, cell })
    }

    /// The interface vector `ξ_t = W_ξ h_t + b_ξ`, `(B, |ξ|)`.
    pub fn interface(&self, hidden: &Tensor) -> Result<Tensor> {
        Ok(linear(hidden, &self.interface_weight, &self.interface_bias)?)
    }

    /// The output `y_t = W_y [h_t; r_t] + b_y` from h_t `(B, H)` and the read vectors
    /// `(B, R, W)`: logits `(B, outputs)`.
    pub fn output(&self, hidden: &Tensor, read_vectors: &Tensor) -> Result<Tensor> {
        let reads = read_vectors.flatten_from(1)?;
        Ok(linear(&Tensor::cat(&[hidden, &reads], 1)?, &self.output_weight, &self.output_bias)?)
    }
}

/// `x W^⊤ + b` for x `(B, in)`.
fn linear(x: &Tensor, weight: &Tensor, bias: &Tensor) -> candle_core::Result<Tensor> {
    x.matmul(&weight.t()?)?.broadcast_add(bias)
}

/// The LSTM's state: h_t and the cell s_t, each `(B, H)`.
#[derive(Debug, Clone)]
pub struct ControllerState {
    pub hidden: Tensor,
    pub cell: Tensor,
}

impl ControllerState {
    /// h_0 = s_0 = 0.
    pub fn zeros(sizes: &DncSizes, batch: usize, dtype: DType, device: &Device) -> Result<Self> {
        let zeros = Tensor::zeros((batch, sizes.hidden), dtype, device)?;
        Ok(ControllerState { hidden: zeros.clone(), cell: zeros })
    }
}
