//! Property tests for what users feed the trainer: TOML configs (`--config`, `[tasks.NAME]`
//! tables) and checkpoints. Malformed and extreme inputs get a one-line error, never a panic.

use nhc_model::Variant;
use nhc_train::{TaskConfigs, TrainConfig, TrainState, Trainer};
use proptest::prelude::*;
use serde_json::Value;

/// The config's keys, as a TOML file names them.
fn keys() -> Vec<String> {
    match serde_json::to_value(TrainConfig::default()) {
        Ok(Value::Object(map)) => map.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// TOML values of every kind, extreme ones included.
fn toml_value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|x| x.to_string()),
        (0i64..40).prop_map(|x| x.to_string()),
        any::<f64>().prop_map(|x| format!("{x:e}")),
        prop_oneof![Just("inf"), Just("-inf"), Just("nan"), Just("1e400"), Just("-0.0")]
            .prop_map(String::from),
        any::<bool>().prop_map(|b| b.to_string()),
        "[ -~]{0,10}".prop_map(|s| format!("{s:?}")),
        Just("[1, 2]".to_string()),
        Just("{ a = 1 }".to_string()),
        Just("\"relearn\"".to_string()),
        Just("\"restart\"".to_string()),
    ]
}

/// A config file: lines `key = value` (known keys, and some unknown), table headers and noise.
fn toml_text() -> impl Strategy<Value = String> {
    let key = prop_oneof![4 => proptest::sample::select(keys()), 1 => "[a-z_]{1,12}"];
    let line = prop_oneof![
        8 => (key, toml_value()).prop_map(|(k, v)| format!("{k} = {v}")),
        1 => prop_oneof![Just("copy"), Just("sort"), Just("nope"), Just("")]
            .prop_map(|t| format!("[tasks.{t}]")),
        1 => "[ -~]{0,20}",
    ];
    proptest::collection::vec(line, 0..8).prop_map(|lines| lines.join("\n"))
}

/// A value of any JSON kind, to put anywhere in a checkpoint's state.
fn json_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (0u64..30).prop_map(Value::from),
        any::<f64>().prop_map(|x| serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)),
        "[ -~]{0,8}".prop_map(Value::from),
        Just(Value::Array(Vec::new())),
        Just(serde_json::json!([1.0, -1.0])),
        Just(serde_json::json!({})),
    ]
}

/// The JSON pointer of every node of `v` (the root excepted).
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, x) in map {
                let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        _ => {}
    }
}

/// A state five iterations into a copy run, as a checkpoint holds it.
fn state() -> TrainState {
    let config = TrainConfig { max_iterations: 50, ..TrainConfig::default() }.validate();
    let task = nhc_tasks::find("copy").expect("copy is a task");
    let mut trainer =
        Trainer::new(task, Variant::Nhc, config.expect("the default config"), 3).expect("a copy trainer");
    for _ in 0..5 {
        trainer.step().expect("an iteration");
    }
    trainer.into_state()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any config text is read or refused in one line; a config read makes a trainer or a
    /// one-line refusal (e.g. of its cost), never a panic.
    #[test]
    fn any_config_text_is_read_or_refused(text in toml_text()) {
        match TaskConfigs::from_toml(&text) {
            Ok(configs) => {
                let task = nhc_tasks::find("copy").expect("copy is a task");
                let config = configs.get("copy").clone();
                if let Err(e) = Trainer::new(task, Variant::Nhc, config, 1) {
                    prop_assert!(!e.to_string().contains('\n'), "{e}");
                }
            }
            Err(e) => {
                let message = e.to_string();
                prop_assert!(!message.is_empty() && !message.contains('\n'), "{text:?}: {message}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// A checkpoint's state with any one value replaced (its digest made to match, as a careful
    /// editor would) is refused in one line, or resumes and runs: never a panic.
    #[test]
    fn any_edited_state_is_refused_or_runs(pick in any::<proptest::sample::Index>(), value in json_value()) {
        let state = state();
        let config = state.config.clone();
        let mut v = serde_json::to_value(&state).expect("a state is JSON");
        let mut all = Vec::new();
        pointers(&v, String::new(), &mut all);
        let at = pick.get(&all).clone();
        if let Some(node) = v.pointer_mut(&at) {
            *node = value;
        }
        let Ok(edited) = serde_json::from_value::<TrainState>(v) else { return Ok(()) };
        let task = nhc_tasks::find("copy").expect("copy is a task");
        let same_config = edited.config == config;
        match Trainer::from_state(task, edited) {
            Err(e) => prop_assert!(!e.to_string().contains('\n'), "{at}: {e}"),
            // A config edited within its bounds may make iterations of any cost: it is checked,
            // not run.
            Ok(mut trainer) if same_config => {
                for _ in 0..3 {
                    if trainer.done() {
                        break;
                    }
                    if let Err(e) = trainer.step() {
                        prop_assert!(!e.to_string().contains('\n'), "{at}: {e}");
                        break;
                    }
                }
            }
            Ok(_) => {}
        }
    }
}
