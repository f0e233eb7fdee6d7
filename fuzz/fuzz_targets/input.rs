//! `--input` JSON: any bytes are read by every task (every domain) or refused with a message.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else { return };
    for task in nhc_tasks::registry::all() {
        if let Err(e) = task.check_input(&value) {
            assert!(!e.to_string().is_empty());
        }
    }
});
