//! Every registered task: learned models on arbitrary θ never panic, and evaluation gives the
//! same result on 1 and on 2 threads (samples have their own generators, SPEC §3).

use nhc_model::{Layout, Params, Variant};
use nhc_tasks::Model;
use nhc_tasks::model::LearnedModel;

/// A fixed, spread-out θ for `config`; `salt` varies it.
fn theta(len: usize, salt: usize) -> Vec<f32> {
    (0..len).map(|k| ((k * 37 + salt * 13) % 11) as f32 / 3.0 - 1.6).collect()
}

#[test]
fn evaluation_does_not_depend_on_thread_count() -> Result<(), Box<dyn std::error::Error>> {
    for task in nhc_tasks::registry::all() {
        let config = task.config();
        for salt in 0..4 {
            let params = Params::new(config.clone(), theta(Layout::new(&config).len(), salt))?;
            let model = Model::Learned(Box::new(LearnedModel { variant: Variant::Nhc, params }));
            let run = |threads: usize| -> Result<_, Box<dyn std::error::Error>> {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
                Ok(pool.install(|| task.evaluate(&model, 5, 64, 3))?)
            };
            let (one, two) = (run(1)?, run(2)?);
            assert_eq!(
                (one.solved, one.steps, one.mean_fitness),
                (two.solved, two.steps, two.mean_fitness),
                "{} salt {salt}",
                task.name()
            );
            // A run to the end, without stopping at mistakes.
            task.time_sample(&model, 6, 1, 100_000)?;
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
