//! What the tests of the commands on candle share: running `nhc` on one thread (as their runs
//! train) and checking its answers and refusals.

#![allow(dead_code)] // each test binary uses a part

use std::process::{Command, Output};

pub fn nhc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nhc"))
        .args(args)
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .expect("nhc runs")
}

pub fn fails_with(args: &[&str], needle: &str) {
    let out = nhc(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} should fail");
    assert!(err.contains(needle), "{args:?}: expected `{needle}` in `{err}`");
    assert!(!err.contains("panicked"), "{err}");
}

pub fn ok(args: &[&str]) -> String {
    let out = nhc(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}
