//! The progress bar of long work (`eval`, `verify`, `run`, `trace`): started when the work is
//! announced ([`nhc_io::limits::check_work`]), filled from the model steps run
//! ([`nhc_model::score::steps_run`]), cleared before the result is printed. Drawn only when
//! stderr is a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::Mutex;
use std::time::Duration;

static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Starts a bar for work of about `steps` model steps (one bar at a time).
pub fn start(steps: u64) {
    let target = ProgressDrawTarget::stderr();
    if target.is_hidden() {
        return;
    }
    let mut slot = BAR.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if slot.is_some() {
        return;
    }
    let bar = ProgressBar::with_draw_target(Some(steps), target);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {percent:>3} % of the estimate  {elapsed_precise}")
    {
        bar.set_style(style);
    }
    *slot = Some(bar.clone());
    let base = nhc_model::score::steps_run();
    std::thread::spawn(move || {
        while !bar.is_finished() {
            bar.set_position(nhc_model::score::steps_run().saturating_sub(base).min(steps));
            std::thread::sleep(Duration::from_millis(200));
        }
    });
}

/// Clears the bar, if one is drawn.
pub fn end() {
    let mut slot = BAR.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(bar) = slot.take() {
        bar.finish_and_clear();
    }
}
