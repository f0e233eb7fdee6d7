//! DNC+is+ha end to end: trained from scratch by the same loop as the NHC, saved in a model file
//! that names it, loaded, evaluated and traced. Copy seed 1 learns all training levels (as the
//! paper's DNC+is+ha does) and, as in the paper, does not generalize to level 100.

use nhc_model::{Arch, Variant};
use nhc_tasks::any_task::TraceSource;
use nhc_tasks::model::{LearnedModel, ModelFile};
use nhc_tasks::{Model, find};
use nhc_train::{RunOutcome, TrainConfig, TrainError, Trainer};

#[test]
fn dnc_is_ha_trains_saves_loads_and_runs() -> Result<(), Box<dyn std::error::Error>> {
    let copy = find("copy")?;
    let mut t = Trainer::new(copy, Variant::DncIsHa, TrainConfig::default().validate()?, 1)?;
    assert_eq!(t.model().memory, Arch::Dnc);
    while !t.done() && t.state().iteration < 40_000 {
        t.step()?;
    }
    let s = t.summary();
    assert_eq!(s.outcome, Some(RunOutcome::Solved), "{s:?}");

    let dir = std::env::temp_dir().join(format!("nhc-dnc-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("model.json");
    let learned = LearnedModel { variant: Variant::DncIsHa, params: t.params()? };
    ModelFile::new(copy, &learned, None).save(&path)?;
    let text = std::fs::read_to_string(&path)?;
    assert!(text.contains("\"variant\": \"dnc-is-ha\"") && text.contains("\"memory\": \"dnc\""));

    let model = Model::from_arg(path.to_str().ok_or("path")?, copy, None)?;
    assert_eq!(model.variant(), Variant::DncIsHa);
    // Refused under another variant.
    assert!(Model::from_arg(path.to_str().ok_or("path")?, copy, Some(Variant::Nhc)).is_err());

    let at10 = copy.evaluate(&model, 10, 50, 1000)?;
    assert_eq!(at10.solved, 50, "{at10:?}");
    let at100 = copy.evaluate(&model, 100, 50, 1000)?;
    assert!(at100.solved < 50, "{at100:?}");

    let (rows, report) = copy.trace(&model, &TraceSource::Level { level: 3, seed: 1, index: 0 })?;
    assert!(report.correct);
    assert_eq!(rows.len() as u64, report.steps);
    assert!(rows.iter().all(|r| r.control.dnc.is_some()));
    assert!(rows.iter().all(|r| ["b", "c", "f"].contains(&r.reads[0].0.as_str())));
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

#[test]
fn dnc_is_ha_refuses_word_noise() {
    let config = TrainConfig { word_noise: 0.1, ..TrainConfig::default() }.validate().unwrap();
    let err = Trainer::new(find("copy").unwrap(), Variant::DncIsHa, config, 1).err();
    assert!(matches!(err, Some(TrainError::WordNoise(Variant::DncIsHa))), "{err:?}");
}
