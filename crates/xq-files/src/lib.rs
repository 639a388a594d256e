//! File helpers shared by every xq crate that writes results people keep: configurations,
//! checkpoints, optimizer state, run state, reports and plots.
//!
//! A stage killed at any moment must leave either the old file or the new one, never half of
//! the new one, so a rerun can trust what it finds. Every such write goes through a temporary
//! file in the same directory (so the rename stays on one file system), synced to disk before
//! it replaces the target; then the directory is synced, because on Linux a rename is on disk
//! only once its directory is. This is the one atomic-write primitive of xq: configurations,
//! checkpoints, optimizer and run state, reports, plots and the shards' sidecars all use it.
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("state.json");
//! xq_files::write_atomic(&path, b"{\"step\": 1}")?;
//! xq_files::write_atomic(&path, b"{\"step\": 2}")?;
//! assert_eq!(std::fs::read_to_string(&path)?, "{\"step\": 2}");
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The temporary name a write to `path` goes through: a hidden file beside it, named after it
/// and this process, so two processes never share one.
pub fn temporary_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// Replaces `path` with `bytes`: writes them to [`temporary_path`], syncs, renames, syncs the
/// directory.
///
/// # Errors
/// The first I/O error; the temporary file is removed (best effort) and `path` is left as it
/// was.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |file| file.write_all(bytes))
}

/// Replaces `path` with what `write` puts into the temporary file (given open for writing),
/// then syncs, renames and syncs the directory, as [`write_atomic`] does.
///
/// # Errors
/// `write`'s error or the first I/O error; `path` is left as it was.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let tmp = temporary_path(path);
    let result = (|| {
        let mut file = fs::File::create(&tmp)?;
        write(&mut file)?;
        file.sync_all()?;
        drop(file);
        rename_durably(&tmp, path)
    })();
    if result.is_err() {
        // Best effort: the caller reports the first error, a leftover temporary file is only untidy.
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Renames `from` to `to` and syncs `to`'s directory, so the rename survives a crash. For
/// files written elsewhere (a streaming Parquet writer) that are already synced.
///
/// # Errors
/// The rename's or the sync's I/O error.
pub fn rename_durably(from: &Path, to: &Path) -> std::io::Result<()> {
    fs::rename(from, to)?;
    sync_dir(to.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")))
}

/// Syncs a directory, making the renames and creations inside it durable (a no-op where the
/// platform cannot open directories).
///
/// # Errors
/// The I/O error of opening or syncing the directory.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    fs::File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.json");
        write_atomic(&path, b"old").unwrap();
        let failure = write_atomic_with(&path, |file| {
            file.write_all(b"half of the ne")?;
            Err(std::io::Error::other("killed"))
        });
        assert_eq!(failure.unwrap_err().to_string(), "killed");
        assert_eq!(fs::read(&path).unwrap(), b"old");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("report.json")]);
    }

    #[test]
    fn a_write_into_a_missing_directory_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing").join("state.json");
        assert_eq!(write_atomic(&path, b"x").unwrap_err().kind(), std::io::ErrorKind::NotFound);
        assert!(!path.exists());
    }

    #[test]
    fn a_rename_into_a_relative_path_syncs_the_current_directory() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("a");
        fs::write(&from, b"x").unwrap();
        rename_durably(&from, &dir.path().join("b")).unwrap();
        assert_eq!(fs::read(dir.path().join("b")).unwrap(), b"x");
        sync_dir(Path::new(".")).unwrap();
    }

    #[test]
    fn the_temporary_name_is_hidden_beside_the_target() {
        let tmp = temporary_path(Path::new("models/run/loop.json"));
        assert_eq!(tmp.parent(), Some(Path::new("models/run")));
        let name = tmp.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(".loop.json.tmp-"), "{name}");
    }
}
