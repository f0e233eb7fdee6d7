//! Adam (Kingma & Ba 2015) with the gradient clipped to a global norm, its moments kept as named
//! tensors so that a checkpoint holds them (candle-nn's AdamW keeps its state private).

use crate::{Params, Result};
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
    vars: Vec<(&'static str, Var, Tensor, Tensor)>,
}

impl Adam {
    /// Zero moments for every parameter of `params`.
    pub fn new(params: &Params, config: AdamConfig) -> Result<Self> {
        let vars = params
            .named()
            .into_iter()
            .map(|(name, v)| Ok((name, v.clone(), v.zeros_like()?, v.zeros_like()?)))
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
                let t = tensors.get(&key).ok_or(crate::DncError::Missing { name: key.clone() })?;
                crate::check_shape("Adam moment", t, slot.dims())?;
                *slot = t.clone();
            }
        }
        self.steps = steps;
        Ok(())
    }
}
