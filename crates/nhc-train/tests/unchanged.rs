//! Nothing learned changes: a short training run of every task (seed 1, 20 learning
//! iterations, the default config) gives the iterations, steps and θ recorded in
//! results/unchanged.json (written by `scripts/unchanged.py --record`, which also checks the
//! full runs and the evaluations of models/).

use nhc_model::Variant;
use nhc_train::{TrainConfig, Trainer};
use serde_json::Value;

/// FNV-1a, 64 bit, over the little-endian bytes of the f32 values (as scripts/unchanged.py).
fn fnv(theta: &[f32]) -> String {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for b in theta.iter().flat_map(|x| x.to_le_bytes()) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3);
    }
    format!("{h:016x}")
}

#[test]
fn short_runs_of_every_task_match_the_recorded_values() {
    let recorded: Value = serde_json::from_str(include_str!("../../../results/unchanged.json")).unwrap();
    let mut checked = 0;
    for name in nhc_tasks::registry::PAPER_TASKS {
        let key = format!("train {name} seed 1 max_iterations 20");
        let want = recorded.get(&key).unwrap_or_else(|| panic!("no recorded value for {key}"));
        let task = nhc_tasks::find(name).unwrap();
        let config = TrainConfig { max_iterations: 20, ..TrainConfig::default() }.validate().unwrap();
        let mut t = Trainer::new(task, Variant::Nhc, config, 1).unwrap();
        let s = t.run(|_| {}).unwrap();
        let got = serde_json::json!({
            "iterations": s.iterations,
            "learning_iterations": s.learning_iterations,
            "steps": t.state().steps,
            "theta_fnv": fnv(t.theta()),
        });
        assert_eq!(&got, want, "{key}");
        checked += 1;
    }
    assert_eq!(checked, 11, "every task of the paper has a recorded short run");
}
