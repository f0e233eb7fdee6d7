//! A model is either an algorithm's scripted solution or a learned θ under a model variant;
//! learned models live in JSON files (layout: docs/MODEL_FILE.md).

use crate::Algorithm;
use crate::any_task::AnyTask;
use nhc_model::{Agent, Config, Params, ParamsError, Variant};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Version of the model-file layout this build reads and writes.
pub const FORMAT: u32 = 2;

/// What drives the algorithmic modules.
#[derive(Debug, Clone, PartialEq)]
pub enum Model {
    /// The algorithm's hand-written solution, on the full NHC's config.
    Scripted,
    /// Learned modules: θ under a model variant.
    Learned(Box<LearnedModel>),
}

/// θ with the variant it was trained as.
#[derive(Debug, Clone, PartialEq)]
pub struct LearnedModel {
    pub variant: Variant,
    pub params: Params,
}

/// The JSON model file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelFile {
    /// Layout version ([`FORMAT`]).
    pub format: u32,
    /// The algorithm, as on the command line; the model runs on any of its domains.
    pub algorithm: String,
    /// The model variant.
    pub variant: Variant,
    /// The domain it was trained on (provenance).
    pub domain: String,
    /// Sizes and switches of the algorithmic modules.
    pub config: Config,
    /// θ in the paper's order (see `nhc_model::Layout`), each a number a 32-bit float holds.
    #[serde(deserialize_with = "f32_values")]
    pub params: Vec<f32>,
    /// A digest of a declared algorithm's declaration (absent for the built-in algorithms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// Free-form provenance (seed, iterations, command), ignored when loading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<serde_json::Value>,
}

/// A model that cannot be used.
#[derive(Debug, Error)]
pub enum ModelError {
    #[error(transparent)]
    File(#[from] nhc_io::limits::LimitError),
    #[error("cannot write model file {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("{path} is not a valid model file: {source}")]
    Malformed { path: PathBuf, source: serde_json::Error },
    #[error("{path} is not a model file: it holds {found}, not the JSON object `nhc train` writes")]
    NotAnObject { path: PathBuf, found: &'static str },
    #[error("{path} has format {found}; this build reads format {FORMAT}")]
    Format { path: PathBuf, found: u32 },
    #[error("{path} holds a model of algorithm `{found}`, not `{expected}`")]
    AlgorithmMismatch { path: PathBuf, expected: String, found: String },
    /// `differs` names each field that differs, with the value expected and the one found.
    #[error("{path} does not fit `{algorithm}` as {variant}: its config has {differs}")]
    ConfigMismatch { path: PathBuf, algorithm: String, variant: Variant, differs: String },
    #[error("{path}: {source}")]
    Params { path: PathBuf, source: ParamsError },
    #[error(
        "{path} holds a model of variant {found}, not {asked}; drop --variant, or give a model of {asked}"
    )]
    VariantMismatch { path: PathBuf, asked: Variant, found: Variant },
    #[error("the scripted solution is written for the full NHC, not {0}")]
    ScriptedVariant(Variant),
    #[error("algorithm `{0}` has no scripted solution")]
    NoScript(String),
    #[error(
        "{path} holds a model of another declaration of `{algorithm}` (declaration digest {found}, this declaration's {expected})"
    )]
    DeclarationMismatch { path: PathBuf, algorithm: String, expected: String, found: String },
}

impl ModelFile {
    /// The file of a learned model of `task`'s algorithm, trained on `task`'s domain.
    pub fn new(task: &dyn AnyTask, model: &LearnedModel, meta: Option<serde_json::Value>) -> Self {
        ModelFile {
            format: FORMAT,
            algorithm: task.name().to_string(),
            variant: model.variant,
            domain: task.domain().to_string(),
            digest: task.digest(),
            config: model.params.config().clone(),
            params: model.params.theta().to_vec(),
            meta,
        }
    }

    /// Reads a model file, checking format, algorithm and config against `task`'s algorithm:
    /// a model loads for any domain of its algorithm.
    pub fn load(path: &Path, task: &dyn AnyTask) -> Result<LearnedModel, ModelError> {
        let p = || path.to_path_buf();
        let file = Self::read(path)?;
        let expected = task.algorithm();
        if file.algorithm != expected.name {
            return Err(ModelError::AlgorithmMismatch {
                path: p(),
                expected: expected.name.into(),
                found: file.algorithm,
            });
        }
        // A declared algorithm's model loads on its declaration only, and a built-in's on the
        // built-in only.
        if file.digest != task.digest() {
            let show = |d: Option<String>| d.unwrap_or_else(|| "none".to_string());
            return Err(ModelError::DeclarationMismatch {
                path: p(),
                algorithm: file.algorithm,
                expected: show(task.digest()),
                found: show(file.digest),
            });
        }
        // A model runs with the memory conventions and the Bus feedback it was trained with
        // (training configs choose them: nhc_train's `links`, `free_write`, `missing_link`,
        // `bus_feedback`, `free_gates`).
        let config = Config {
            links: file.config.links,
            free_write: file.config.free_write,
            missing_link: file.config.missing_link,
            margin: file.config.margin,
            bus_feedback: file.config.bus_feedback,
            free_gates: file.config.free_gates,
            ..expected.model(file.variant)
        };
        if file.config != config {
            return Err(ModelError::ConfigMismatch {
                path: p(),
                algorithm: file.algorithm,
                variant: file.variant,
                differs: differences(&config, &file.config),
            });
        }
        let params = Params::new(file.config, file.params)
            .map_err(|source| ModelError::Params { path: p(), source })?;
        Ok(LearnedModel { variant: file.variant, params })
    }

    /// Reads a model file of this build's format.
    pub fn read(path: &Path) -> Result<ModelFile, ModelError> {
        let p = || path.to_path_buf();
        let text = nhc_io::limits::read_text(path, "model file", nhc_io::limits::MAX_MODEL_BYTES)?;
        // The format first, so that a file of another format is named as such.
        #[derive(Deserialize)]
        struct Format {
            format: u32,
        }
        // JSON of another kind than an object is named (serde would read an array as the fields
        // in order and fail on what follows); text that is not JSON gets the parser's message.
        let malformed = |source| ModelError::Malformed { path: p(), source };
        let found = match serde_json::from_str::<serde_json::Value>(&text).map_err(malformed)? {
            serde_json::Value::Object(_) => None,
            serde_json::Value::Array(_) => Some("a JSON array"),
            serde_json::Value::String(_) => Some("a JSON string"),
            serde_json::Value::Number(_) => Some("a number"),
            serde_json::Value::Bool(_) => Some("a JSON boolean"),
            serde_json::Value::Null => Some("JSON null"),
        };
        if let Some(found) = found {
            return Err(ModelError::NotAnObject { path: p(), found });
        }
        match serde_json::from_str::<Format>(&text).map_err(malformed)?.format {
            FORMAT => serde_json::from_str(&text).map_err(malformed),
            found => Err(ModelError::Format { path: p(), found }),
        }
    }

    /// Whether the run that wrote this file spent its budget before finishing the curriculum
    /// (`meta.outcome` is `cap`): θ is then the run's last, not a learned one. Files without that
    /// record (older ones, or made by hand) are not said to be unfinished.
    pub fn did_not_learn(&self) -> bool {
        self.meta.as_ref().and_then(|m| m.get("outcome")).and_then(|o| o.as_str()) == Some("cap")
    }

    /// Writes the file atomically: a temporary file beside it, then a rename.
    pub fn save(&self, path: &Path) -> Result<(), ModelError> {
        let err = |source| ModelError::Write { path: path.to_path_buf(), source };
        let text = serde_json::to_string_pretty(self).map_err(|e| err(std::io::Error::other(e)))?;
        nhc_io::write_atomic(path, text.as_bytes()).map_err(err)
    }
}

/// θ's numbers as f32, each read as f64 first: one beyond f32's range is an error that says so
/// (a plain f32 read would make it infinite, and the model "not finite").
fn f32_values<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<f32>, D::Error> {
    let wide = Vec::<f64>::deserialize(d)?;
    wide.iter()
        .enumerate()
        .map(|(i, &x)| match x as f32 {
            y if y.is_finite() => Ok(y),
            _ => Err(serde::de::Error::custom(format!(
                "params[{i}] = {x:e} does not fit a 32-bit float (θ is stored as f32, and a model's |θ| is at most {:e})",
                nhc_model::params::MAX_PARAM
            ))),
        })
        .collect()
}

/// The fields in which config `found` differs from `expected`, as `name expected E, found F`.
fn differences(expected: &Config, found: &Config) -> String {
    let (e, f) = (serde_json::to_value(expected), serde_json::to_value(found));
    let (Ok(serde_json::Value::Object(e)), Ok(serde_json::Value::Object(f))) = (e, f) else {
        return "another config".to_string();
    };
    let differs: Vec<String> = e
        .iter()
        .filter(|(k, v)| f.get(*k) != Some(v))
        .map(|(k, v)| {
            format!("{k} {}, expected {v}", f.get(k).map_or("missing".to_string(), |x| x.to_string()))
        })
        .collect();
    if differs.is_empty() { "another config".to_string() } else { differs.join("; ") }
}

impl Model {
    /// `scripted`, or the path of a model file for `task`'s algorithm. `variant`, when given,
    /// must be the file's (the scripted solution exists only for the full NHC).
    pub fn from_arg(arg: &str, task: &dyn AnyTask, variant: Option<Variant>) -> Result<Model, ModelError> {
        if arg == "scripted" {
            if !task.has_script() {
                return Err(ModelError::NoScript(task.name().to_string()));
            }
            return match variant {
                None | Some(Variant::Nhc) => Ok(Model::Scripted),
                Some(v) => Err(ModelError::ScriptedVariant(v)),
            };
        }
        let path = Path::new(arg);
        let model = ModelFile::load(path, task)?;
        if let Some(asked) = variant.filter(|v| *v != model.variant) {
            return Err(ModelError::VariantMismatch {
                path: path.to_path_buf(),
                asked,
                found: model.variant,
            });
        }
        Ok(Model::Learned(Box::new(model)))
    }

    /// The variant the model runs as (the scripted solution: the full NHC).
    pub fn variant(&self) -> Variant {
        match self {
            Model::Scripted => Variant::Nhc,
            Model::Learned(m) => m.variant,
        }
    }

    /// The config of the machine the model runs on.
    pub fn config(&self, algorithm: &Algorithm) -> Config {
        match self {
            Model::Scripted => algorithm.config.clone(),
            Model::Learned(m) => m.params.config().clone(),
        }
    }

    /// A fresh policy for this model (one per thread).
    pub fn policy(&self, task: &dyn AnyTask) -> Agent {
        match self {
            Model::Scripted => Agent::Nhc(task.scripted()),
            Model::Learned(m) => Agent::learned(m.params.clone()),
        }
    }
}
