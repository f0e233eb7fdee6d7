//! Training configs (`--config`, `[tasks.NAME]` tables): any text is read or refused in one line.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Err(e) = nhc_train::TaskConfigs::from_toml(text) {
        let message = e.to_string();
        assert!(!message.is_empty() && !message.contains('\n'), "{message}");
    }
});
