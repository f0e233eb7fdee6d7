//! The DNC is trainable end to end: Adam (nhc-grad's, unclipped) fits a fixed
//! batch of short sequences whose targets depend on earlier inputs.

#![allow(clippy::unwrap_used)] // test helpers: a failed unwrap is a failing test

use candle_core::{DType, Device, Tensor};
use nhc_dnc::{Dnc, DncSizes, Params};
use nhc_grad::{Adam, AdamConfig};

#[test]
fn adam_fits_a_fixed_batch() {
    let sizes = DncSizes { input: 2, hidden: 8, locations: 4, word: 4, read_heads: 1, outputs: 2 };
    let dnc = Dnc::new(Params::init(&sizes, DType::F32, &Device::Cpu, 3).unwrap());
    // Two sequences of 4 steps: a bit shown at step 1 (input 0), then cues (input 1); the target
    // is 0 at the first two steps and the shown bit at the last two.
    let x = |a: f32, b: f32, c: f32, d: f32| Tensor::new(&[[a, b], [c, d]], &Device::Cpu).unwrap();
    let inputs =
        vec![x(1.0, 0.0, -1.0, 0.0), x(0.0, 1.0, 0.0, 1.0), x(0.0, 1.0, 0.0, 1.0), x(0.0, 1.0, 0.0, 1.0)];
    let targets = vec![vec![0, 0], vec![0, 0], vec![1, 0], vec![1, 0]];
    let config = AdamConfig { learning_rate: 0.02, clip_norm: 0.0, ..AdamConfig::default() };
    let mut adam = Adam::new(dnc.params.named(), config).unwrap();
    let loss = |d: &Dnc| -> f32 { d.sequence_loss(&inputs, &targets).unwrap().to_scalar().unwrap() };
    let first = loss(&dnc);
    for _ in 0..150 {
        adam.step(&dnc.sequence_loss(&inputs, &targets).unwrap().backward().unwrap()).unwrap();
    }
    let last = loss(&dnc);
    assert!(last < 0.05, "loss {first} → {last}");
}

/// The time of one forward and backward pass (no assertion; run with `--ignored --nocapture`,
/// best in `--profile ci`).
#[test]
#[ignore]
fn time_of_a_step() {
    let sizes = DncSizes { input: 10, hidden: 16, locations: 16, word: 6, read_heads: 2, outputs: 8 };
    let (batch, steps) = (16, 30);
    let dnc = Dnc::new(Params::init(&sizes, DType::F32, &Device::Cpu, 3).unwrap());
    let inputs: Vec<Tensor> =
        (0..steps).map(|_| Tensor::zeros((batch, sizes.input), DType::F32, &Device::Cpu).unwrap()).collect();
    let targets = vec![vec![1u32; batch]; steps];
    let start = std::time::Instant::now();
    let reps = 5;
    for _ in 0..reps {
        let grads = dnc.sequence_loss(&inputs, &targets).unwrap().backward().unwrap();
        assert!(grads.get(&dnc.params.lstm_weight).is_some());
    }
    let per = start.elapsed() / reps;
    eprintln!("{sizes:?}, batch {batch}, {steps} steps: {per:?} per forward + backward");
}
