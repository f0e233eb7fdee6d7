//! The whole DNC: the controller reads `χ_t = [x_t; r_{t−1}]`, its `ξ_t` drives one memory step,
//! and the output layer sees `[h_t; r_t]` (Methods, "Controller network").

use crate::interface::Interface;
use crate::{ControllerState, DncError, DncSizes, MemoryState, Params, Result, check_shape};
use candle_core::Tensor;

/// A DNC on its parameters.
#[derive(Debug, Clone)]
pub struct Dnc {
    pub params: Params,
}

/// The state carried from step to step.
#[derive(Debug, Clone)]
pub struct DncState {
    pub controller: ControllerState,
    pub memory: MemoryState,
}

impl DncState {
    /// The same values cut from the graph that computed them: a run without backpropagation
    /// keeps no step's graph alive.
    pub fn detach(&self) -> DncState {
        let m = &self.memory;
        DncState {
            controller: ControllerState {
                hidden: self.controller.hidden.detach(),
                cell: self.controller.cell.detach(),
            },
            memory: MemoryState {
                memory: m.memory.detach(),
                usage: m.usage.detach(),
                links: m.links.detach(),
                precedence: m.precedence.detach(),
                write_weighting: m.write_weighting.detach(),
                read_weightings: m.read_weightings.detach(),
                read_vectors: m.read_vectors.detach(),
            },
        }
    }
}

impl Dnc {
    pub fn new(params: Params) -> Self {
        Dnc { params }
    }
    pub fn sizes(&self) -> &DncSizes {
        self.params.sizes()
    }

    /// The state before the first step, all zeros, for a batch of `batch`.
    pub fn initial_state(&self, batch: usize) -> Result<DncState> {
        self.initial_state_with(batch, self.sizes().locations)
    }

    /// The initial state with a memory of `locations` locations: no parameter depends on N, so
    /// one DNC runs on any memory size.
    pub fn initial_state_with(&self, batch: usize, locations: usize) -> Result<DncState> {
        let s = DncSizes { locations, ..*self.sizes() }.check()?;
        let (dtype, device) = (self.params.dtype(), self.params.device());
        Ok(DncState {
            controller: ControllerState::zeros(&s, batch, dtype, device)?,
            memory: MemoryState::zeros(&s, batch, dtype, device)?,
        })
    }

    /// One step on x_t `(B, input)`: the logits y_t `(B, outputs)` and the next state.
    pub fn step(&self, x: &Tensor, state: &DncState) -> Result<(Tensor, DncState)> {
        let b = state.controller.hidden.dim(0)?;
        check_shape("input x", x, &[b, self.sizes().input])?;
        let x = x.to_dtype(self.params.dtype())?;
        let chi = Tensor::cat(&[&x, &state.memory.read_vectors.flatten_from(1)?], 1)?;
        let controller = self.params.lstm(&chi, &state.controller)?;
        let xi = Interface::parse(&self.params.interface(&controller.hidden)?, self.sizes())?;
        let memory = state.memory.step(&xi)?;
        let logits = self.params.output(&controller.hidden, &memory.read_vectors)?;
        Ok((logits, DncState { controller, memory }))
    }

    /// The logits of every step of a sequence of inputs `(B, input)`, from the initial state.
    pub fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let batch = inputs.first().map_or(Ok(1), |x| x.dim(0))?;
        self.run_from(self.initial_state(batch)?, inputs)
    }

    /// The logits of every step of `inputs` from `state`.
    pub fn run_from(&self, mut state: DncState, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let mut out = Vec::with_capacity(inputs.len());
        for x in inputs {
            let (logits, next) = self.step(x, &state)?;
            out.push(logits);
            state = next;
        }
        Ok(out)
    }

    /// The cross-entropy of the targets (one class per batch row and step) under the logits,
    /// averaged over steps and the batch: the supervised loss of the paper's baseline, at
    /// every step.
    pub fn sequence_loss(&self, inputs: &[Tensor], targets: &[Vec<u32>]) -> Result<Tensor> {
        if inputs.len() != targets.len() || inputs.is_empty() {
            return Err(DncError::Targets { inputs: inputs.len(), targets: targets.len() });
        }
        let outputs = self.sizes().outputs;
        if let Some(&target) = targets.iter().flatten().find(|&&t| t as usize >= outputs) {
            return Err(DncError::TargetRange { target, outputs });
        }
        let batch = inputs[0].dim(0)?;
        if let Some((step, t)) = targets.iter().enumerate().find(|(_, t)| t.len() != batch) {
            return Err(DncError::TargetBatch { step, got: t.len(), batch });
        }
        let logits = self.run(inputs)?;
        let device = self.params.device();
        let mut total: Option<Tensor> = None;
        for (y, t) in logits.iter().zip(targets) {
            let t = Tensor::new(t.as_slice(), device)?;
            let loss = candle_nn::loss::cross_entropy(y, &t)?;
            total = Some(match total {
                Some(sum) => (sum + loss)?,
                None => loss,
            });
        }
        let total = total.ok_or(DncError::Targets { inputs: 0, targets: 0 })?;
        Ok(total.affine(1.0 / inputs.len() as f64, 0.0)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{DType, Device};

    const SIZES: DncSizes =
        DncSizes { input: 2, hidden: 3, locations: 4, word: 3, read_heads: 2, outputs: 3 };

    fn dnc() -> Dnc {
        Dnc::new(Params::init(&SIZES, DType::F32, &Device::Cpu, 1).unwrap())
    }
    fn zeros(b: usize, n: usize) -> Tensor {
        Tensor::zeros((b, n), DType::F32, &Device::Cpu).unwrap()
    }

    #[test]
    fn sizes_and_shapes_are_checked() {
        let zero = DncSizes { locations: 0, ..SIZES };
        assert!(matches!(
            Params::init(&zero, DType::F32, &Device::Cpu, 1),
            Err(DncError::ZeroSize { name: "locations" })
        ));
        let d = dnc();
        let state = d.initial_state(2).unwrap();
        assert!(matches!(d.step(&zeros(2, 3), &state), Err(DncError::Shape { .. })));
        assert!(matches!(d.step(&zeros(1, 2), &state), Err(DncError::Shape { .. })));
        let (y, next) = d.step(&zeros(2, 2), &state).unwrap();
        assert_eq!(y.dims(), [2, 3]);
        assert_eq!(next.memory.read_vectors.dims(), [2, 2, 3]);
    }

    #[test]
    fn targets_are_checked() {
        let d = dnc();
        let x = vec![zeros(1, 2), zeros(1, 2)];
        assert!(matches!(d.sequence_loss(&x, &[vec![0]]), Err(DncError::Targets { .. })));
        assert!(matches!(d.sequence_loss(&[], &[]), Err(DncError::Targets { .. })));
        assert!(matches!(
            d.sequence_loss(&x, &[vec![0], vec![0, 1]]),
            Err(DncError::TargetBatch { step: 1, got: 2, batch: 1 })
        ));
        assert!(matches!(
            d.sequence_loss(&x, &[vec![0], vec![3]]),
            Err(DncError::TargetRange { target: 3, outputs: 3 })
        ));
        let loss: f32 = d.sequence_loss(&x, &[vec![0], vec![2]]).unwrap().to_scalar().unwrap();
        // Small initial weights: the logits are near 0, the loss near ln 3.
        assert!((loss - 3.0f32.ln()).abs() < 0.5, "{loss}");
    }

    #[test]
    fn parameter_count() {
        // LSTM 4H × (X + RW + H) + 4H, interface |ξ| × H + |ξ|, output O × (H + RW) + O.
        let xi = SIZES.interface();
        let expected = 12 * (2 + 6 + 3) + 12 + xi * 3 + xi + 3 * (3 + 6) + 3;
        assert_eq!(dnc().params.len(), expected);
    }
}
