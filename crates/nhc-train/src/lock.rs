//! One process per run directory: an advisory lock on `DIR/lock` (`std::fs::File::try_lock`),
//! held for the life of the [`DirLock`] and released by the OS when the process ends, however
//! it ends. The holder writes its pid into the file, so a second process can say who holds it.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The lock of one directory; dropping it releases the lock.
#[derive(Debug)]
pub struct DirLock {
    _file: File,
}

/// A directory that cannot be locked.
#[derive(Debug, Error)]
pub enum LockError {
    #[error("cannot create directory {}", dir.display())]
    CreateDir { dir: PathBuf, source: std::io::Error },
    #[error("{} exists and is not a directory", dir.display())]
    NotADirectory { dir: PathBuf },
    #[error(
        "{} is a symbolic link to {}, which does not exist; remove the link, create its target, or give another directory",
        dir.display(),
        target.display()
    )]
    BrokenLink { dir: PathBuf, target: PathBuf },
    #[error("cannot open lock file {}", path.display())]
    Open { path: PathBuf, source: std::io::Error },
    /// Another process holds the lock; `pid` is what it wrote into the file, if anything.
    #[error("{} is in use by another nhc process{}", dir.display(), pid.as_ref().map_or(String::new(), |p| format!(" (pid {p})")))]
    InUse { dir: PathBuf, pid: Option<String> },
    #[error("cannot lock {}", path.display())]
    Lock { path: PathBuf, source: std::io::Error },
    #[error("cannot write {}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

/// Creates `dir` if needed and locks it, before anything else is written there.
pub fn lock(dir: &Path) -> Result<DirLock, LockError> {
    if dir.exists() && !dir.is_dir() {
        return Err(LockError::NotADirectory { dir: dir.into() });
    }
    if !dir.exists()
        && let Ok(target) = std::fs::read_link(dir)
    {
        return Err(LockError::BrokenLink { dir: dir.into(), target });
    }
    std::fs::create_dir_all(dir).map_err(|source| LockError::CreateDir { dir: dir.into(), source })?;
    let path = dir.join("lock");
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|source| LockError::Open { path: path.clone(), source })?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut pid = String::new();
            let _ = file.read_to_string(&mut pid);
            let pid = pid.trim();
            let pid = (!pid.is_empty()).then(|| pid.to_string());
            return Err(LockError::InUse { dir: dir.into(), pid });
        }
        Err(TryLockError::Error(source)) => return Err(LockError::Lock { path, source }),
    }
    let write = |file: &mut File| -> std::io::Result<()> {
        file.set_len(0)?;
        file.rewind()?;
        write!(file, "{}", std::process::id())?;
        file.flush()
    };
    write(&mut file).map_err(|source| LockError::Write { path, source })?;
    Ok(DirLock { _file: file })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A symbolic link to nothing is named as such, not as "File exists".
    #[cfg(unix)]
    #[test]
    fn a_broken_link_is_named() -> Result<(), Box<dyn std::error::Error>> {
        let tmp = tempfile::tempdir()?;
        let link = tmp.path().join("out");
        std::os::unix::fs::symlink(tmp.path().join("gone"), &link)?;
        let err = lock(&link).err().ok_or("a broken link was locked")?;
        assert!(
            err.to_string().contains("is a symbolic link to ")
                && err.to_string().contains("gone, which does not exist"),
            "{err}"
        );
        Ok(())
    }

    #[test]
    fn a_second_lock_on_the_same_directory_is_refused_until_the_first_is_dropped()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let first = lock(dir.path())?;
        let err = lock(dir.path()).unwrap_err().to_string();
        assert!(err.contains("is in use by another nhc process"), "{err}");
        assert!(err.contains(&format!("pid {}", std::process::id())), "{err}");
        drop(first);
        lock(dir.path())?;
        Ok(())
    }

    #[test]
    fn a_file_in_place_of_the_directory_is_named() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let file = dir.path().join("run");
        std::fs::write(&file, "")?;
        let err = lock(&file).unwrap_err().to_string();
        assert_eq!(err, format!("{} exists and is not a directory", file.display()));
        Ok(())
    }
}
