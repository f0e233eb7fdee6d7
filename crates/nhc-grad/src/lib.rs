//! What the parts of nhc trained by gradients share: the DNC baseline (crate `nhc-dnc`) and the
//! learned data modules (crate `nhc-learned`).
//!
//! - [`adam`]: Adam with its moments as named tensors, so that a checkpoint holds them.
//! - [`save_tensors`]: a tensors file written so that a kill never leaves half of one.

pub mod adam;

pub use adam::{Adam, AdamConfig};

use candle_core::{Tensor, Var};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum GradError {
    #[error(transparent)]
    Candle(#[from] candle_core::Error),
    #[error("a saved tensor `{name}` is missing")]
    Missing { name: String },
    #[error("{what}: expected shape {expected:?}, got {got:?}")]
    Shape { what: String, expected: Vec<usize>, got: Vec<usize> },
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
}

pub type Result<T> = std::result::Result<T, GradError>;

/// Writes `tensors` to `path` through a synced temporary file and a rename, then removes the
/// files in the same directory whose names start with `prefix` (older checkpoints): a kill at any
/// point leaves either the old file or the new one whole.
pub fn save_tensors(tensors: &HashMap<String, Tensor>, path: &Path, prefix: &str) -> Result<()> {
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |source| GradError::Io { path: p, source }
    };
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    candle_core::safetensors::save(tensors, &tmp)?;
    std::fs::File::open(&tmp).and_then(|f| f.sync_all()).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let keep = path.file_name();
    for entry in std::fs::read_dir(dir).map_err(io(dir))?.flatten() {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with(prefix) && Some(name.as_os_str()) != keep {
            std::fs::remove_file(entry.path()).map_err(io(&entry.path()))?;
        }
    }
    Ok(())
}

/// The parameters as named tensors (`param.NAME`), for a checkpoint.
pub fn param_tensors<'a, N: AsRef<str>>(
    params: impl IntoIterator<Item = (N, &'a Var)>,
) -> HashMap<String, Tensor> {
    params.into_iter().map(|(name, v)| (format!("param.{}", name.as_ref()), v.as_tensor().clone())).collect()
}

/// Sets every parameter from the tensors [`param_tensors`] saved, in the parameter's dtype; a
/// missing or misshapen one is an error.
pub fn restore_params<'a, N: AsRef<str>>(
    params: impl IntoIterator<Item = (N, &'a Var)>,
    tensors: &HashMap<String, Tensor>,
) -> Result<()> {
    for (name, var) in params {
        let key = format!("param.{}", name.as_ref());
        let t = tensors.get(&key).ok_or_else(|| GradError::Missing { name: key.clone() })?;
        check_shape(&key, t, var.dims())?;
        var.set(&t.to_dtype(var.dtype())?)?;
    }
    Ok(())
}

/// Checks that `t` has shape `expected`.
pub fn check_shape(what: &str, t: &Tensor, expected: &[usize]) -> Result<()> {
    if t.dims() == expected {
        Ok(())
    } else {
        Err(GradError::Shape { what: what.into(), expected: expected.to_vec(), got: t.dims().to_vec() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    #[test]
    fn a_new_checkpoint_replaces_the_old_one_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("other.json"), "{}").unwrap();
        let t = |v: f32| HashMap::from([("x".to_string(), Tensor::new(&[v], &Device::Cpu).unwrap())]);
        save_tensors(&t(1.0), &dir.path().join("tensors-1.safetensors"), "tensors-").unwrap();
        save_tensors(&t(2.0), &dir.path().join("tensors-2.safetensors"), "tensors-").unwrap();
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["other.json", "tensors-2.safetensors"]);
        let back =
            candle_core::safetensors::load(dir.path().join("tensors-2.safetensors"), &Device::Cpu).unwrap();
        assert_eq!(back["x"].to_vec1::<f32>().unwrap(), [2.0]);
    }
}
