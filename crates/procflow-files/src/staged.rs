//! The staged files of a local directory's uploads that never ended. An upload is written to
//! `<key>#<n>` (object_store's naming, which `local_write.rs` keeps) and renamed into place at
//! the end; a process killed midway leaves the staged file, which object_store's own listing
//! hides. Found here by walking the tree.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The `n`th staged file of an upload to `dest`: `<dest>#<n>` (`local_write.rs` writes them).
pub(crate) fn staged_path(dest: &Path, n: u32) -> PathBuf {
    let mut staged = dest.as_os_str().to_owned();
    staged.push(format!("#{n}"));
    staged.into()
}

/// Whether a file name is a staged upload's: `<name>#<digits>`. Keys of ours never hold `#`.
fn is_staged(name: &str) -> bool {
    name.rsplit_once('#').is_some_and(|(stem, suffix)| {
        !stem.is_empty() && !suffix.is_empty() && suffix.bytes().all(|b| b.is_ascii_digit())
    })
}

/// Removes the staged files under `root/teams` last written before `before`; their paths
/// under `root`. What vanishes meanwhile (another instance's sweep) is no error.
///
/// # Errors
/// A directory or file that cannot be read or removed.
pub fn remove_staged(root: &Path, before: SystemTime) -> std::io::Result<Vec<String>> {
    let mut removed = Vec::new();
    let mut stack = vec![root.join("teams")];
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        for entry in entries {
            let entry = entry?;
            let kind = entry.file_type()?;
            if kind.is_dir() {
                stack.push(entry.path());
                continue;
            }
            if !kind.is_file() || !entry.file_name().to_str().is_some_and(is_staged) {
                continue;
            }
            let written = match entry.metadata().and_then(|m| m.modified()) {
                Ok(written) => written,
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            };
            if written >= before {
                continue;
            }
            match std::fs::remove_file(entry.path()) {
                Ok(()) => {}
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            }
            let path = entry.path();
            let shown = path.strip_prefix(root).unwrap_or(&path);
            removed.push(shown.to_string_lossy().into_owned());
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_staged_names_are_staged() {
        for staged in ["0190-ab#1", "x#12"] {
            assert!(is_staged(staged), "{staged}");
        }
        let made = staged_path(Path::new("/d/0190-ab"), 12);
        assert!(is_staged(&made.file_name().unwrap().to_string_lossy()));
        for other in ["0190-ab", "#1", "x#", "x#1a", "x#-1"] {
            assert!(!is_staged(other), "{other}");
        }
    }
}
