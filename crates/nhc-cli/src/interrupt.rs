//! Ctrl-C during `nhc train` and `nhc sweep`: the first one asks the run to stop after the
//! iteration it is in (a checkpoint is written, and the command says how to resume); a second
//! one ends the process at once, the last checkpoint still there to resume from.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// Exit code of a command stopped by Ctrl-C (128 + SIGINT, as a shell reports it).
pub const EXIT_INTERRUPTED: i32 = 130;

static REQUESTED: AtomicBool = AtomicBool::new(false);
/// What a second Ctrl-C prints before it ends the process.
static AT_ONCE: OnceLock<String> = OnceLock::new();

/// Catches Ctrl-C (SIGINT) from now on; `at_once` is the line a second Ctrl-C prints.
pub fn catch(at_once: String) {
    if AT_ONCE.set(at_once).is_err() {
        return;
    }
    // Without the handler (it cannot be installed), Ctrl-C ends the process as before.
    let _ = ctrlc::set_handler(|| {
        if REQUESTED.swap(true, Ordering::SeqCst) {
            diag!("\n{}", AT_ONCE.get().map_or("", String::as_str));
            std::process::exit(EXIT_INTERRUPTED);
        }
    });
}

/// Whether Ctrl-C was pressed.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// A command stopped by Ctrl-C, cleanly: `main` prints it (not as an error) and exits with
/// [`EXIT_INTERRUPTED`].
#[derive(Debug)]
pub struct Interrupted(pub String);

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Interrupted {}
