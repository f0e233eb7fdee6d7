//! One process per run directory: an advisory lock on `DIR/lock` (`std::fs::File::try_lock`),
//! held for the life of the process and released by the OS when it ends, however it ends. The
//! holder writes its pid into the file, so a second process can say who holds it.

use anyhow::{Context, Result, bail};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::Path;

/// The lock of one directory; dropping it releases the lock.
#[derive(Debug)]
pub struct DirLock {
    _file: File,
}

/// Creates `dir` if needed and locks it, before anything else is written there.
pub fn lock(dir: &Path) -> Result<DirLock> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create directory {}", dir.display()))?;
    let path = dir.join("lock");
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("cannot open lock file {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut pid = String::new();
            let _ = file.read_to_string(&mut pid);
            let pid = pid.trim();
            let who = if pid.is_empty() { String::new() } else { format!(" (pid {pid})") };
            bail!("{} is in use by another nhc process{who}", dir.display());
        }
        Err(TryLockError::Error(e)) => {
            return Err(e).with_context(|| format!("cannot lock {}", path.display()));
        }
    }
    let write = |file: &mut File| -> std::io::Result<()> {
        file.set_len(0)?;
        file.rewind()?;
        write!(file, "{}", std::process::id())?;
        file.flush()
    };
    write(&mut file).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(DirLock { _file: file })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_directory_is_refused_until_the_first_is_dropped() -> Result<()> {
        let dir = tempfile::tempdir()?;
        let first = lock(dir.path())?;
        let err = lock(dir.path()).unwrap_err().to_string();
        assert!(err.contains("is in use by another nhc process"), "{err}");
        assert!(err.contains(&format!("pid {}", std::process::id())), "{err}");
        drop(first);
        lock(dir.path())?;
        Ok(())
    }
}
