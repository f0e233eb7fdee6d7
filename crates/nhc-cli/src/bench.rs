//! `nhc bench`: model steps per second, and with `--train` training iterations per second.

use anyhow::Result;
use nhc_model::{Params, Variant, theta_len};
use nhc_tasks::any_task::AnyTask;
use nhc_tasks::{Model, TaskError, find};
use nhc_train::{Trainer, ValidConfig};
use rand::{RngExt, SeedableRng};
use std::time::Instant;

/// What bare `nhc bench` measures: one task per algorithm family, a short run.
pub const SHORT: &[&str] = &["copy", "sort", "addition", "arithmetic", "search"];

/// The tasks `--tasks` names: none, the short set ([`SHORT`]); `all`, the tasks `all` gives.
fn chosen(
    tasks: &[String],
    all: impl FnOnce() -> Result<Vec<&'static dyn AnyTask>, TaskError>,
) -> Result<Vec<&'static dyn AnyTask>> {
    Ok(match tasks {
        [] => SHORT.iter().map(|t| find(t)).collect::<Result<_, _>>()?,
        [one] if one == "all" => all()?,
        names => names.iter().map(|t| find(t)).collect::<Result<_, _>>()?,
    })
}

/// Steps per second of the learned path (random θ), the DNC+is+ha path (random θ) and the
/// scripted path, one level-`level` sample each, fastest of `repeat`.
pub fn bench(tasks: &[String], level: usize, repeat: usize) -> Result<()> {
    nhc_io::limits::at_most("--repeat", repeat as u64, 1_000)?;
    let tasks = chosen(tasks, || Ok(nhc_tasks::registry::all().to_vec()))?;
    crate::emit("| task | path | level | steps | seconds | steps/s | ns/step |\n")?;
    crate::emit("|---|---|---:|---:|---:|---:|---:|\n")?;
    for task in tasks {
        let learned = |variant: Variant| -> Result<Model> {
            let config = task.algorithm().model(variant);
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
            let theta: Vec<f32> = (0..theta_len(&config)).map(|_| rng.random_range(-1.0f32..1.0)).collect();
            let params = Params::new(config, theta)?;
            Ok(Model::Learned(Box::new(nhc_tasks::model::LearnedModel { variant, params })))
        };
        let (nhc, dnc) = (learned(Variant::Nhc)?, learned(Variant::DncIsHa)?);
        for (path, model, cap) in [
            ("learned, random θ", &nhc, 2_000_000u64),
            ("DNC+is+ha, random θ", &dnc, 10_000u64),
            ("scripted", &Model::Scripted, u64::MAX),
        ] {
            let mut best: Option<(u64, f64)> = None;
            for _ in 0..repeat {
                let (steps, secs) = task.time_sample(model, level, 1, cap)?;
                if best.is_none_or(|(_, b)| secs < b) {
                    best = Some((steps, secs));
                }
            }
            let (steps, secs) = best.unwrap_or((0, 0.0));
            crate::emit(&format!(
                "| {} | {path} | {level} | {steps} | {secs:.4} | {:.3e} | {:.1} |\n",
                label(task),
                steps as f64 / secs,
                1e9 * secs / steps as f64
            ))?;
        }
    }
    Ok(())
}

/// The task's name, with its domain when it is not the training domain.
fn label(task: &dyn AnyTask) -> String {
    match find(task.name()) {
        Ok(t) if t.domain() == task.domain() => task.name().to_string(),
        _ => format!("{} ({})", task.name(), task.domain()),
    }
}

/// `iterations` training iterations of a fresh run (seed 1, default config) placed at each
/// curriculum level 1–10 in turn: (iterations, model steps, seconds).
fn timed_training(task: &'static dyn AnyTask, iterations: u64) -> Result<(u64, u64, f64)> {
    let (mut n, mut steps, mut secs) = (0u64, 0u64, 0.0f64);
    for level in 1..=10 {
        let mut state = Trainer::new(task, Variant::Nhc, ValidConfig::paper(), 1)?.into_state();
        state.curriculum.level = level;
        let mut trainer = Trainer::from_state(task, state)?;
        let start = Instant::now();
        for _ in 0..iterations {
            steps += trainer.step()?.steps;
            n += 1;
        }
        secs += start.elapsed().as_secs_f64();
    }
    Ok((n, steps, secs))
}

/// The process's CPU time in seconds: on a shared machine, less disturbed by other processes
/// than the wall time.
fn cpu_seconds() -> Result<f64> {
    use nix::time::{ClockId, clock_gettime};
    let t = clock_gettime(ClockId::CLOCK_PROCESS_CPUTIME_ID)?;
    Ok(t.tv_sec() as f64 + t.tv_nsec() as f64 * 1e-9)
}

/// What the declared path costs (`nhc bench --train --declared`): copy and sort built in and
/// declared (nhc_tasks::declared::examples), timed alternately `repeat` times each as
/// [`timed_training`] does; the least CPU time of each counts (and its wall time is shown). The
/// two run the same iterations (they train to the same θ).
pub fn declared(iterations: u64, repeat: usize) -> Result<()> {
    use nhc_tasks::declared::examples;
    nhc_io::limits::at_most("--iterations", iterations, 1_000_000)?;
    let pairs: [(&'static dyn AnyTask, &'static dyn AnyTask); 2] =
        [(find("copy")?, &examples::COPY), (find("sort")?, &examples::SORT)];
    crate::emit(
        "| task | iterations | built in: CPU s (wall s) | declared: CPU s (wall s) | declared / built in (CPU) |\n",
    )?;
    crate::emit("|---|---:|---:|---:|---:|\n")?;
    for (built_in, own) in pairs {
        let mut best = [(f64::INFINITY, 0.0); 2];
        let mut n = 0;
        for _ in 0..repeat {
            for (k, task) in [built_in, own].into_iter().enumerate() {
                let cpu = cpu_seconds()?;
                let (iterations, _, wall) = timed_training(task, iterations)?;
                let cpu = cpu_seconds()? - cpu;
                if cpu < best[k].0 {
                    best[k] = (cpu, wall);
                }
                n = iterations;
            }
        }
        let [(a, wa), (b, wb)] = best;
        crate::emit(&format!(
            "| {} | {n} | {a:.3} ({wa:.3}) | {b:.3} ({wb:.3}) | {:.3} |\n",
            built_in.name(),
            b / a
        ))?;
    }
    Ok(())
}

/// Training throughput (`nhc bench --train`): for each task, a fresh run (seed 1, default config)
/// is placed at curriculum level 1, 2, …, 10 in turn and `iterations` iterations are timed at
/// each; prints iterations and model steps per second over all levels.
pub fn throughput(tasks: &[String], iterations: u64) -> Result<()> {
    nhc_io::limits::at_most("--iterations", iterations, 1_000_000)?;
    let tasks = chosen(tasks, || nhc_tasks::names().into_iter().map(find).collect())?;
    crate::emit("| task | iterations | seconds | iterations/s | steps | steps/s |\n")?;
    crate::emit("|---|---:|---:|---:|---:|---:|\n")?;
    for task in tasks {
        let (n, steps, secs) = timed_training(task, iterations)?;
        crate::emit(&format!(
            "| {} | {n} | {secs:.2} | {:.1} | {steps} | {:.3e} |\n",
            task.name(),
            n as f64 / secs,
            steps as f64 / secs
        ))?;
    }
    Ok(())
}
