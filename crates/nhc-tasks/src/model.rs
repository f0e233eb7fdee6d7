//! A model is either a task's scripted solution or a learned θ; learned models live in JSON
//! files (layout: docs/MODEL_FILE.md).

use crate::registry::AnyTask;
use nhc_model::{Config, Params, ParamsError};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Version of the model-file layout written by this build.
pub const FORMAT: u32 = 1;

/// What drives the algorithmic modules.
#[derive(Debug, Clone, PartialEq)]
pub enum Model {
    /// The task's hand-written solution.
    Scripted,
    /// The learned modules on θ.
    Learned(Box<Params>),
}

/// The JSON model file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelFile {
    /// Layout version ([`FORMAT`]).
    pub format: u32,
    /// Task name, as on the command line.
    pub task: String,
    /// Sizes and switches of the algorithmic modules.
    pub config: Config,
    /// θ in the paper's order (see `nhc_model::Layout`).
    pub params: Vec<f32>,
    /// Free-form provenance (seed, iterations, command), ignored when loading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<serde_json::Value>,
}

/// A model that cannot be used.
#[derive(Debug, Error)]
pub enum ModelError {
    #[error("cannot read model file {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cannot write model file {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("{path} is not a valid model file: {source}")]
    Malformed { path: PathBuf, source: serde_json::Error },
    #[error("{path} has format {found}; this build reads format {FORMAT}")]
    Format { path: PathBuf, found: u32 },
    #[error("{path} holds a model for task `{found}`, not `{expected}`")]
    TaskMismatch { path: PathBuf, expected: String, found: String },
    #[error("{path} was made for another configuration of `{task}` (expected {expected}, found {found})")]
    ConfigMismatch { path: PathBuf, task: String, expected: String, found: String },
    #[error("{path}: {source}")]
    Params { path: PathBuf, source: ParamsError },
}

impl ModelFile {
    pub fn new(task: &str, params: &Params, meta: Option<serde_json::Value>) -> Self {
        ModelFile {
            format: FORMAT,
            task: task.to_string(),
            config: params.config().clone(),
            params: params.theta().to_vec(),
            meta,
        }
    }

    /// Reads a model file, checking format, task and config against `task`.
    pub fn load(path: &Path, task: &dyn AnyTask) -> Result<Params, ModelError> {
        let p = || path.to_path_buf();
        let text = std::fs::read_to_string(path).map_err(|source| ModelError::Read { path: p(), source })?;
        let file: ModelFile =
            serde_json::from_str(&text).map_err(|source| ModelError::Malformed { path: p(), source })?;
        if file.format != FORMAT {
            return Err(ModelError::Format { path: p(), found: file.format });
        }
        if file.task != task.name() {
            return Err(ModelError::TaskMismatch {
                path: p(),
                expected: task.name().into(),
                found: file.task,
            });
        }
        let expected = task.config();
        if file.config != expected {
            let show = |c: &Config| serde_json::to_string(c).unwrap_or_default();
            return Err(ModelError::ConfigMismatch {
                path: p(),
                task: file.task,
                expected: show(&expected),
                found: show(&file.config),
            });
        }
        Params::new(file.config, file.params).map_err(|source| ModelError::Params { path: p(), source })
    }

    /// Writes the file atomically: a temporary file beside it, then a rename.
    pub fn save(&self, path: &Path) -> Result<(), ModelError> {
        let err = |source| ModelError::Write { path: path.to_path_buf(), source };
        let text = serde_json::to_string_pretty(self).map_err(|e| err(std::io::Error::other(e)))?;
        write_atomic(path, text.as_bytes()).map_err(err)
    }
}

/// Writes `bytes` to `path` through a temporary file and a rename, so a reader (or a crash)
/// never sees a half-written file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)
}

impl Model {
    /// `scripted`, or the path of a model file for `task`.
    pub fn from_arg(arg: &str, task: &dyn AnyTask) -> Result<Model, ModelError> {
        if arg == "scripted" {
            return Ok(Model::Scripted);
        }
        ModelFile::load(Path::new(arg), task).map(|p| Model::Learned(Box::new(p)))
    }
}
