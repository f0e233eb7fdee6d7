//! Every registered task: learned models on arbitrary θ never panic, and evaluation gives the
//! same result on 1 and on 2 threads (samples have their own generators, MODEL §3).

use nhc_model::{Arch, Params, Variant, theta_len};
use nhc_tasks::Model;
use nhc_tasks::model::LearnedModel;

/// A fixed, spread-out θ for `config`; `salt` varies it.
fn theta(len: usize, salt: usize) -> Vec<f32> {
    (0..len).map(|k| ((k * 37 + salt * 13) % 11) as f32 / 3.0 - 1.6).collect()
}

/// Every variant runs on every task. For DNC+is+ha this also checks that its LSTM state starts
/// afresh on every sample: one thread runs all samples on one policy, two threads split them.
#[test]
fn evaluation_does_not_depend_on_thread_count() -> Result<(), Box<dyn std::error::Error>> {
    for task in nhc_tasks::registry::all() {
        for (variant, salt) in [0, 1, 2, 3]
            .map(|s| (Variant::Nhc, s))
            .into_iter()
            .chain(Variant::ALL[1..].iter().map(|&v| (v, 0)))
        {
            let config = task.algorithm().model(variant);
            let params = Params::new(config.clone(), theta(theta_len(&config), salt))?;
            let model = Model::Learned(Box::new(LearnedModel { variant, params }));
            let run = |threads: usize| -> Result<_, Box<dyn std::error::Error>> {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
                Ok(pool.install(|| task.evaluate(&model, 5, 64, 3))?)
            };
            let (one, two) = (run(1)?, run(2)?);
            assert_eq!(
                (one.solved, one.steps, one.mean_fitness),
                (two.solved, two.steps, two.mean_fitness),
                "{} {variant} salt {salt}",
                task.name()
            );
            // A run to the end, without stopping at mistakes (the DNC's step costs O(N)).
            let cap = if config.memory == Arch::Nhc { 100_000 } else { 3_000 };
            task.time_sample(&model, 6, 1, cap)?;
        }
    }
    Ok(())
}

/// One registry: every entry's algorithm is consistent (ops match the config's Bus size, the
/// config is valid for every variant), each (task, domain) pair is there once, each task's
/// first entry is its training domain, and the paper's eleven tasks are all there.
#[test]
fn registry_is_consistent() {
    use nhc_model::Variant;
    let all = nhc_tasks::registry::all();
    for (k, t) in all.iter().enumerate() {
        let a = t.algorithm();
        assert_eq!(a.ops.len(), a.config.ops, "{}", a.name);
        for v in Variant::ALL {
            assert_eq!(a.model(v).check(), Ok(()), "{} as {v}", a.name);
        }
        assert!(
            !all[..k].iter().any(|u| u.name() == t.name() && u.domain() == t.domain()),
            "{} on {} is registered twice",
            t.name(),
            t.domain()
        );
        assert_eq!(
            nhc_tasks::find(t.name()).map(|f| f.domain()).ok(),
            nhc_tasks::registry::domains(t.name()).first().copied()
        );
    }
    let paper = nhc_tasks::registry::PAPER_TASKS;
    assert_eq!(nhc_tasks::names()[..11], paper);
    assert!(matches!(nhc_tasks::find("nope"), Err(nhc_tasks::TaskError::Unknown { .. })));
    assert!(matches!(
        nhc_tasks::registry::find_in("sort", Some("nope")),
        Err(nhc_tasks::TaskError::UnknownDomain { .. })
    ));
}

/// Arbitrary JSON: scalars of every kind (huge and negative numbers, long strings) nested in
/// arrays and objects with the keys the tasks read.
fn json() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (0u64..3).prop_map(Value::from),
        any::<f64>().prop_map(|x| serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)),
        "[ -~]{0,12}".prop_map(Value::from),
        "[01]{0,40}".prop_map(Value::from),
        "[0-9 +*/-]{0,30}".prop_map(Value::from),
        "[#$@ -]{6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        let keys = prop_oneof![
            Just("a".to_string()),
            Just("b".to_string()),
            Just("items".to_string()),
            Just("copies".to_string()),
            Just("start".to_string()),
            Just("goal".to_string()),
            "[a-z]{1,6}",
        ];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::from),
            prop::collection::btree_map(keys, inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, ..Default::default() })]

    /// No input makes a task panic: every task (every domain) parses it or refuses it plainly.
    #[test]
    fn every_task_takes_or_refuses_any_json(v in json()) {
        for task in nhc_tasks::registry::all() {
            if let Err(e) = task.check_input(&v) {
                proptest::prop_assert!(!e.to_string().is_empty());
            }
        }
    }

    /// Text maps: any rows parse or are refused.
    #[test]
    fn any_map_text_parses_or_is_refused(rows in proptest::collection::vec("[ -~]{0,9}", 0..9)) {
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let _ = nhc_tasks::search_plan::sokoban::Board::<6>::parse(&rows);
    }

    /// Model files: any JSON (and any bytes) loads or is refused.
    #[test]
    fn any_model_file_loads_or_is_refused(v in json(), bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
        let dir = std::env::temp_dir().join(format!("nhc-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let task = nhc_tasks::find("copy").unwrap();
        for (k, content) in [v.to_string().into_bytes(), bytes].into_iter().enumerate() {
            let path = dir.join(format!("m{k}.json"));
            std::fs::write(&path, content).unwrap();
            let _ = nhc_tasks::ModelFile::load(&path, task);
        }
    }
}

/// A model file whose θ is a valid JSON object but out of range is refused, not run.
#[test]
fn model_files_with_extreme_numbers_are_refused() {
    let dir = std::env::temp_dir().join(format!("nhc-extreme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let task = nhc_tasks::find("copy").unwrap();
    let len = theta_len(&task.config());
    for (value, needle) in [
        ("3e38", "out of range"),
        ("1e39", "params[0] = 1e39 does not fit a 32-bit float"),
        ("1e400", "not a valid"),
    ] {
        let params = vec![value; len].join(",");
        let text = format!(
            r#"{{"format":2,"algorithm":"copy","variant":"nhc","domain":"binary","config":{},"params":[{params}]}}"#,
            serde_json::to_string(&task.config()).unwrap()
        );
        let path = dir.join("m.json");
        std::fs::write(&path, text).unwrap();
        let err = nhc_tasks::ModelFile::load(&path, task).unwrap_err().to_string();
        assert!(err.contains(needle), "{value}: {err}");
    }
    // A config that differs is named by the field that differs, not printed whole.
    let mut config = serde_json::to_value(task.config()).unwrap();
    config["controller"] = serde_json::json!(7);
    let text = format!(
        r#"{{"format":2,"algorithm":"copy","variant":"nhc","domain":"binary","config":{config},"params":[]}}"#
    );
    let path = dir.join("m.json");
    std::fs::write(&path, text).unwrap();
    let err = nhc_tasks::ModelFile::load(&path, task).unwrap_err().to_string();
    assert!(err.ends_with("does not fit `copy` as nhc: its config has controller 7, expected 6"), "{err}");
}
