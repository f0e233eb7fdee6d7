//! The DNC of Graves et al., "Hybrid computing using a neural network with dynamic external
//! memory" (Nature 2016), as published: soft attention everywhere, on candle tensors, so that it
//! can be trained by backpropagation through time. It is the paper's baseline "DNC trained by
//! backpropagation"; the formulas are the ones nhc-model's DNC+is+ha uses under hard attention,
//! and the tests hold the two to each other.
//!
//! Every tensor carries a batch dimension B first. Sizes: N locations, word size W, R read
//! heads, one write head, LSTM hidden size H.
//!
//! - [`sizes`]: the sizes of one DNC ([`DncSizes`]).
//! - [`ops`]: oneplus, σ, softmax, the norm with a finite gradient at 0.
//! - [`addressing`]: content weighting, usage, allocation, write weighting, temporal links,
//!   precedence, forward/backward and read weightings (Methods, "Memory addressing").
//! - [`interface`]: the interface vector ξ_t parsed into its parts ([`Interface`]).
//! - [`memory`]: the memory state and one memory step ([`MemoryState`]).
//! - [`controller`]: the parameters ([`Params`]), the LSTM controller and the output layer.
//! - [`dnc`]: controller and memory together, one step and a sequence's loss ([`Dnc`]).

pub mod addressing;
pub mod controller;
pub mod dnc;
pub mod episodes;
pub mod eval;
pub mod interface;
pub mod memory;
pub mod ops;
pub mod row;
pub mod sizes;
pub mod train;

pub use controller::{ControllerState, Params};
pub use dnc::{Dnc, DncState};
pub use interface::Interface;
pub use memory::MemoryState;
pub use sizes::DncSizes;

/// What can go wrong in this crate.
#[derive(Debug, thiserror::Error)]
pub enum DncError {
    #[error(transparent)]
    Candle(#[from] candle_core::Error),
    #[error(transparent)]
    Grad(#[from] nhc_grad::GradError),
    #[error("DNC size {name} must be at least 1")]
    ZeroSize { name: &'static str },
    #[error("{what}: expected shape {expected:?}, got {got:?}")]
    Shape { what: &'static str, expected: Vec<usize>, got: Vec<usize> },
    #[error("a sequence of {inputs} inputs has {targets} targets")]
    Targets { inputs: usize, targets: usize },
    #[error("step {step} has {got} targets for a batch of {batch}")]
    TargetBatch { step: usize, got: usize, batch: usize },
    #[error("target {target} is not one of the {outputs} outputs")]
    TargetRange { target: u32, outputs: usize },
}

pub type Result<T> = std::result::Result<T, DncError>;

/// Checks that `t` has shape `expected`.
pub(crate) fn check_shape(what: &'static str, t: &candle_core::Tensor, expected: &[usize]) -> Result<()> {
    if t.dims() == expected {
        Ok(())
    } else {
        Err(DncError::Shape { what, expected: expected.to_vec(), got: t.dims().to_vec() })
    }
}
