//! Measurement (run with `--ignored --nocapture`): how fast copy learns with the paper's config.
use nhc_model::Variant;
use nhc_train::{Advance, TrainConfig, Trainer};
use std::time::Instant;

#[test]
#[ignore]
fn measure_copy() {
    let iters: u64 = std::env::var("ITERS").ok().and_then(|s| s.parse().ok()).unwrap_or(3000);
    let seed: u64 = std::env::var("SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let lr: f64 = std::env::var("LR").ok().and_then(|s| s.parse().ok()).unwrap_or(0.01);
    let config = TrainConfig { max_iterations: iters, learning_rate: lr, ..Default::default() };
    let task = nhc_tasks::find("copy").unwrap();
    let mut t = Trainer::new(task, Variant::Nhc, config.validate().unwrap(), seed).unwrap();
    let start = Instant::now();
    let mut last_fit = 0.0;
    let _ = t.run(|log| {
        if log.advance != Advance::Stay || log.iteration % 250 == 0 {
            println!(
                "{:>6} {:>7.2}s level {:>2} fit {:.3} best {:?} learn {} restarts {} {:?}",
                log.iteration,
                start.elapsed().as_secs_f64(),
                log.level,
                log.fitness_raw,
                log.best_offspring,
                log.learning_iterations,
                log.restarts,
                log.advance
            );
        }
        last_fit = log.fitness_raw;
    });
    println!("{:?} in {:.2}s", t.summary(), start.elapsed().as_secs_f64());
}
