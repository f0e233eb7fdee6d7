//! Infrastructure every layer uses: bounds on every size a user can give and the memory a run
//! may take ([`limits`]), bounded file reading, and atomic file writes (model files, checkpoints,
//! reports).

use std::path::{Path, PathBuf};

pub mod limits;

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

#[cfg(test)]
mod tests {
    #[test]
    fn an_atomic_write_replaces_the_file_whole() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("f.json");
        super::write_atomic(&path, b"first")?;
        super::write_atomic(&path, b"second")?;
        assert_eq!(std::fs::read(&path)?, b"second");
        assert!(!dir.path().join("f.json.tmp").exists());
        Ok(())
    }
}
