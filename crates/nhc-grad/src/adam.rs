//! Adam (Kingma & Ba 2015) with the gradient clipped to a global norm, its moments kept as named
//! tensors so that a checkpoint holds them (candle-nn's AdamW keeps its state private).

use crate::{GradError, Result, check_shape};
use candle_core::backprop::GradStore;
use candle_core::{Tensor, Var};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Adam's hyperparameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AdamConfig {
    pub learning_rate: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub epsilon: f64,
    /// The gradient is scaled down to this global L2 norm when longer (0: no clipping).
    pub clip_norm: f64,
}

impl Default for AdamConfig {
    /// Kingma & Ba's defaults (α = 10⁻³, β₁ = 0.9, β₂ = 0.999, ε = 10⁻⁸), clipped at norm 10.
    fn default() -> Self {
        AdamConfig { learning_rate: 1e-3, beta1: 0.9, beta2: 0.999, epsilon: 1e-8, clip_norm: 10.0 }
    }
}

/// Adam's state: the step count and both moments of every parameter.
#[derive(Debug)]
pub struct Adam {
    pub config: AdamConfig,
    pub steps: u64,
    vars: Vec<(String, Var, Tensor, Tensor)>,
}

impl Adam {
    /// Zero moments for every named parameter.
    pub fn new<'a, N: Into<String>>(
        params: impl IntoIterator<Item = (N, &'a Var)>,
        config: AdamConfig,
    ) -> Result<Self> {
        let vars = params
            .into_iter()
            .map(|(name, v)| Ok((name.into(), v.clone(), v.zeros_like()?, v.zeros_like()?)))
            .collect::<Result<_>>()?;
        Ok(Adam { config, steps: 0, vars })
    }

    /// One update from `grads`; returns the gradient's global norm before clipping.
    pub fn step(&mut self, grads: &GradStore) -> Result<f64> {
        let mut squares = 0f64;
        let gs: Vec<Option<Tensor>> = self.vars.iter().map(|(_, v, _, _)| grads.get(v).cloned()).collect();
        for g in gs.iter().flatten() {
            squares += g.sqr()?.sum_all()?.to_dtype(candle_core::DType::F64)?.to_scalar::<f64>()?;
        }
        let norm = squares.sqrt();
        let c = self.config;
        let scale = if c.clip_norm > 0.0 && norm > c.clip_norm { c.clip_norm / norm } else { 1.0 };
        self.steps += 1;
        let t = self.steps as i32;
        let (bias1, bias2) = (1.0 - c.beta1.powi(t), 1.0 - c.beta2.powi(t));
        for ((_, var, m, v), g) in self.vars.iter_mut().zip(gs) {
            let Some(g) = g else { continue };
            let g = g.affine(scale, 0.0)?;
            *m = (m.affine(c.beta1, 0.0)? + g.affine(1.0 - c.beta1, 0.0)?)?;
            *v = (v.affine(c.beta2, 0.0)? + g.sqr()?.affine(1.0 - c.beta2, 0.0)?)?;
            let denom = v.affine(1.0 / bias2, 0.0)?.sqrt()?.affine(1.0, c.epsilon)?;
            let update = (m.affine(c.learning_rate / bias1, 0.0)? / denom)?;
            var.set(&(var.as_tensor() - update)?)?;
        }
        Ok(norm)
    }

    /// The moments as named tensors (`m.NAME`, `v.NAME`).
    pub fn moments(&self) -> HashMap<String, Tensor> {
        let mut out = HashMap::new();
        for (name, _, m, v) in &self.vars {
            out.insert(format!("m.{name}"), m.clone());
            out.insert(format!("v.{name}"), v.clone());
        }
        out
    }

    /// Restores the moments saved by [`Adam::moments`]; a missing one is an error.
    pub fn restore(&mut self, tensors: &HashMap<String, Tensor>, steps: u64) -> Result<()> {
        for (name, _, m, v) in &mut self.vars {
            for (prefix, slot) in [("m", m), ("v", v)] {
                let key = format!("{prefix}.{name}");
                let t = tensors.get(&key).ok_or(GradError::Missing { name: key.clone() })?;
                check_shape(&key, t, slot.dims())?;
                *slot = t.clone();
            }
        }
        self.steps = steps;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    /// One step from zero moments moves each parameter by α·sign(g) (m̂ = g, v̂ = g², ε aside),
    /// and the clipped gradient keeps its direction.
    #[test]
    fn the_first_step_moves_by_the_step_size() {
        let x = Var::new(&[1.0f32, -2.0, 3.0], &Device::Cpu).unwrap();
        let config = AdamConfig { learning_rate: 0.1, clip_norm: 1.0, ..AdamConfig::default() };
        let mut adam = Adam::new([("x", &x)], config).unwrap();
        // loss = 5·x₀ − x₁ + 0·x₂: gradient (5, −1, 0), norm √26 > 1.
        let w = Tensor::new(&[5.0f32, -1.0, 0.0], &Device::Cpu).unwrap();
        let loss = (x.as_tensor() * &w).unwrap().sum_all().unwrap();
        let norm = adam.step(&loss.backward().unwrap()).unwrap();
        assert!((norm - 26f64.sqrt()).abs() < 1e-5);
        let got = x.as_tensor().to_vec1::<f32>().unwrap();
        for (g, want) in got.iter().zip([0.9f32, -1.9, 3.0]) {
            assert!((g - want).abs() < 1e-5, "{got:?}");
        }
    }

    /// Restoring saved moments and step count continues exactly as the uninterrupted run.
    #[test]
    fn restored_moments_continue_the_run_bit_for_bit() {
        let step = |x: &Var, adam: &mut Adam| {
            let loss = x.as_tensor().sqr().unwrap().sum_all().unwrap();
            adam.step(&loss.backward().unwrap()).unwrap();
        };
        let run = |steps: usize, restart_at: usize| {
            let mut x = Var::new(&[0.5f32, -1.5], &Device::Cpu).unwrap();
            let mut adam = Adam::new([("x", &x)], AdamConfig::default()).unwrap();
            for k in 0..steps {
                if k == restart_at {
                    // A new process: the parameter and Adam built afresh from the saved tensors.
                    let (moments, t) = (adam.moments(), adam.steps);
                    x = Var::from_tensor(&x.as_tensor().copy().unwrap()).unwrap();
                    adam = Adam::new([("x", &x)], AdamConfig::default()).unwrap();
                    adam.restore(&moments, t).unwrap();
                }
                step(&x, &mut adam);
            }
            x.as_tensor().to_vec1::<f32>().unwrap()
        };
        assert_eq!(run(7, usize::MAX), run(7, 3));
        let x = Var::new(&[0.0f32], &Device::Cpu).unwrap();
        let mut adam = Adam::new([("x", &x)], AdamConfig::default()).unwrap();
        assert!(matches!(adam.restore(&HashMap::new(), 1), Err(GradError::Missing { .. })));
    }
}
