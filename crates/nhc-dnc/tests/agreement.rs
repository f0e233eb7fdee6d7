//! The soft DNC against nhc-model's DNC+is+ha formulas: on the same inputs (one-hot weightings
//! where nhc-model takes locations), content weighting, usage, allocation and the parsed
//! interface agree to 1e-6. The project has one DNC; these tests keep the two from drifting.

#![allow(clippy::unwrap_used)] // test helpers: a failed unwrap is a failing test

use candle_core::{Device, Tensor};
use nhc_dnc::addressing::{allocation_weighting, content_weighting, update_usage};
use nhc_dnc::{DncSizes, Interface};
use nhc_model::DncDecision;
use nhc_model::dnc::addressing as hard;
use nhc_model::dnc::controller::parse_interface;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const TOL: f32 = 1e-6;

fn row(v: &[f32]) -> Tensor {
    Tensor::from_slice(v, (1, v.len()), &Device::Cpu).unwrap()
}
fn flat(t: &Tensor) -> Vec<f32> {
    t.flatten_all().unwrap().to_vec1().unwrap()
}
fn assert_close(what: &str, soft: &[f32], hard: &[f32]) {
    assert_eq!(soft.len(), hard.len(), "{what}");
    for (s, h) in soft.iter().zip(hard) {
        assert!((s - h).abs() <= TOL * h.abs().max(1.0), "{what}: {soft:?} vs {hard:?}");
    }
}
fn one_hot(n: usize, at: Option<usize>) -> Vec<f32> {
    (0..n).map(|i| if Some(i) == at { 1.0 } else { 0.0 }).collect()
}

#[test]
fn content_weighting_agrees() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let (n, w) = (6, 4);
    for case in 0..50 {
        let mut memory: Vec<f32> = (0..n * w).map(|_| rng.random_range(-2.0..2.0)).collect();
        // A zero word (the never-written location) and, now and then, a zero key.
        memory[(case % n) * w..(case % n + 1) * w].fill(0.0);
        let key: Vec<f32> =
            (0..w).map(|_| if case % 7 == 0 { 0.0 } else { rng.random_range(-2.0..2.0) }).collect();
        let strength = rng.random_range(1.0..20.0f32);
        let mut expected = vec![0.0; n];
        hard::content_weighting(&memory, &key, strength, &mut expected);
        let m = Tensor::from_slice(&memory, (1, n, w), &Device::Cpu).unwrap();
        let k = Tensor::from_slice(&key, (1, 1, w), &Device::Cpu).unwrap();
        let got = content_weighting(&m, &k, &row(&[strength])).unwrap();
        assert_close("content weighting", &flat(&got), &expected);
    }
}

#[test]
fn usage_update_agrees_on_one_hot_weightings() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let (n, r) = (5, 3);
    for case in 0..50 {
        let usage: Vec<f32> = (0..n).map(|_| rng.random_range(0.0..1.0)).collect();
        let written = (case % 4 != 0).then(|| rng.random_range(0..n));
        let read: Vec<Option<usize>> =
            (0..r).map(|_| (case % 5 != 0).then(|| rng.random_range(0..n))).collect();
        let free: Vec<f32> = (0..r).map(|_| rng.random_range(0.0..1.0)).collect();
        let mut expected = usage.clone();
        hard::update_usage(&mut expected, written, &read, &free);
        let read_hot: Vec<f32> = read.iter().flat_map(|&l| one_hot(n, l)).collect();
        let read_t = Tensor::from_vec(read_hot, (1, r, n), &Device::Cpu).unwrap();
        let got = update_usage(&row(&usage), &row(&one_hot(n, written)), &read_t, &row(&free)).unwrap();
        assert_close("usage", &flat(&got), &expected);
    }
}

#[test]
fn allocation_weighting_agrees() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let n = 7;
    for case in 0..60 {
        let usage: Vec<f32> = (0..n)
            .map(|_| match case % 3 {
                // Distinct values.
                0 => rng.random_range(0.0..1.0),
                // Ties, zeros and ones.
                1 => [0.0, 0.25, 0.5, 1.0][rng.random_range(0..4)],
                // Ties without a zero (the general formula in nhc-model).
                _ => [0.3, 0.6, 0.9][rng.random_range(0..3)],
            })
            .collect();
        let mut expected = vec![0.0; n];
        hard::allocation_weighting(&usage, &mut expected, &mut Vec::new());
        let got = allocation_weighting(&row(&usage)).unwrap();
        assert_close(&format!("allocation of {usage:?}"), &flat(&got), &expected);
    }
}

#[test]
fn interface_parsing_agrees() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    for (word, read_heads) in [(1, 1), (3, 1), (4, 2), (6, 3)] {
        let sizes = DncSizes { input: 1, hidden: 1, locations: 2, word, read_heads, outputs: 1 };
        let xi: Vec<f32> = (0..sizes.interface()).map(|_| rng.random_range(-6.0..6.0)).collect();
        let mut expected = DncDecision::new(word, read_heads);
        parse_interface(&xi, word, &mut expected);
        let got = Interface::parse(&row(&xi), &sizes).unwrap();
        assert_close("read keys", &flat(&got.read_keys), &expected.read_keys);
        assert_close("read strengths", &flat(&got.read_strengths), &expected.read_strengths);
        assert_close("write key", &flat(&got.write_key), &expected.write_key);
        assert_close("write strength", &flat(&got.write_strength), &[expected.write_strength]);
        assert_close("erase", &flat(&got.erase), &expected.erase);
        assert_close("write vector", &flat(&got.write), &expected.write);
        assert_close("free gates", &flat(&got.free_gates), &expected.free_gates);
        assert_close("allocation gate", &flat(&got.allocation_gate), &[expected.allocation_gate]);
        assert_close("write gate", &flat(&got.write_gate), &[expected.write_gate]);
        let modes: Vec<f32> = expected.read_modes.iter().flatten().copied().collect();
        assert_close("read modes", &flat(&got.read_modes), &modes);
    }
}

#[test]
fn interface_size_is_nhc_models() {
    let sizes = DncSizes { input: 1, hidden: 1, locations: 2, word: 5, read_heads: 2, outputs: 1 };
    assert_eq!(sizes.interface(), 2 * 5 + 2 + 5 + 1 + 5 + 5 + 2 + 1 + 1 + 3 * 2);
    let xi = row(&vec![0.0; sizes.interface() + 1]);
    assert!(Interface::parse(&xi, &sizes).is_err());
}
