//! A fingerprint of a migrations directory, for template keys that change when migrations do.

use std::path::{Path, PathBuf};

use crate::naming::fnv1a;

/// A 16-hex-digit hash of every file under `dir` (relative paths and contents).
///
/// Template databases live as long as their server. With the private server that is one test
/// process; with `DATABASE_URL` it is across runs, so a template key must change whenever the
/// migrations do. Put this fingerprint in the key, e.g.
/// `format!("store_{}", dir_fingerprint(migrations_dir)?)`.
///
/// # Errors
/// When `dir` or a file under it cannot be read.
pub fn dir_fingerprint(dir: impl AsRef<Path>) -> std::io::Result<String> {
    let dir = dir.as_ref();
    let mut files = Vec::new();
    collect_files(dir, &mut files)?;
    files.sort();
    let mut hash = None;
    for file in files {
        let relative = file.strip_prefix(dir).unwrap_or(&file);
        let name = relative.to_string_lossy();
        hash = Some(fnv1a(name.bytes().chain([0]), hash));
        let contents = std::fs::read(&file)?;
        hash = Some(fnv1a(contents.into_iter().chain([0]), hash));
    }
    Ok(format!("{:016x}", hash.unwrap_or_else(|| fnv1a([], None))))
}

fn collect_files(dir: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            collect_files(&entry.path(), files)?;
        } else {
            files.push(entry.path());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_changes_with_any_file_and_only_then() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("2024_01_01_init")).unwrap();
        let up = dir.path().join("2024_01_01_init/up.sql");
        std::fs::write(&up, "CREATE TABLE a ();").unwrap();
        let first = dir_fingerprint(dir.path()).unwrap();
        assert_eq!(first.len(), 16);
        assert_eq!(dir_fingerprint(dir.path()).unwrap(), first);

        std::fs::write(&up, "CREATE TABLE b ();").unwrap();
        let edited = dir_fingerprint(dir.path()).unwrap();
        assert_ne!(edited, first);

        std::fs::write(dir.path().join("2024_01_01_init/down.sql"), "").unwrap();
        assert_ne!(dir_fingerprint(dir.path()).unwrap(), edited);
    }

    #[test]
    fn a_missing_directory_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(dir_fingerprint(dir.path().join("absent")).is_err());
    }
}
