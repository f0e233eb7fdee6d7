//! Model files: any bytes load as a model of copy or are refused with a message.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("nhc-fuzz-model-{}.json", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let task = nhc_tasks::find("copy").expect("copy is a task");
    if let Err(e) = nhc_tasks::ModelFile::load(&path, task) {
        assert!(!e.to_string().is_empty());
    }
});
