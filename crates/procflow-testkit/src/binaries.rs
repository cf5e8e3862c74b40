//! Finding PostgreSQL's server binaries (`initdb`, `pg_ctl`) for the private server.

use std::path::{Path, PathBuf};

use crate::error::Error;

/// Names a directory holding `initdb` and `pg_ctl`; overrides the search.
pub(crate) const BIN_ENV: &str = "PROCFLOW_PG_BIN";

/// Where Debian and Ubuntu install each major version's server binaries.
const DEBIAN_ROOT: &str = "/usr/lib/postgresql";

/// The server binaries the private server runs.
#[derive(Debug, Clone)]
pub(crate) struct Binaries {
    pub(crate) initdb: PathBuf,
    pub(crate) pg_ctl: PathBuf,
}

impl Binaries {
    /// Looks in `$PROCFLOW_PG_BIN`, then the highest `/usr/lib/postgresql/<major>/bin`, then `PATH`.
    pub(crate) fn find() -> Result<Self, Error> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        locate(
            std::env::var_os(BIN_ENV).map(PathBuf::from),
            Path::new(DEBIAN_ROOT),
            std::env::split_paths(&path),
        )
    }

    fn in_dir(dir: &Path) -> Option<Self> {
        let found = Self {
            initdb: dir.join("initdb"),
            pg_ctl: dir.join("pg_ctl"),
        };
        (found.initdb.is_file() && found.pg_ctl.is_file()).then_some(found)
    }
}

fn locate(
    overridden: Option<PathBuf>,
    debian_root: &Path,
    path: impl IntoIterator<Item = PathBuf>,
) -> Result<Binaries, Error> {
    if let Some(dir) = overridden {
        return Binaries::in_dir(&dir).ok_or_else(|| {
            Error::Setup(format!(
                "{BIN_ENV}={} holds no initdb and pg_ctl; point it at PostgreSQL's server \
                 binaries (e.g. /usr/lib/postgresql/15/bin) or unset it",
                dir.display()
            ))
        });
    }
    highest_debian_version(debian_root)
        .into_iter()
        .chain(path)
        .find_map(|dir| Binaries::in_dir(&dir))
        .ok_or_else(|| {
            Error::Setup(format!(
                "PostgreSQL's server binaries (initdb, pg_ctl) were not found in {BIN_ENV}, \
                 {}/<version>/bin or PATH. Install them (Debian/Ubuntu: \
                 `apt-get install postgresql`, or `make postgres-tools`), set {BIN_ENV} to \
                 their directory, or set DATABASE_URL to an existing PostgreSQL server",
                debian_root.display()
            ))
        })
}

/// `<root>/<major>/bin` directories, highest major version first.
fn highest_debian_version(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut versions: Vec<(u32, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let major = entry.file_name().to_str()?.parse().ok()?;
            Some((major, entry.path().join("bin")))
        })
        .collect();
    versions.sort_by_key(|(major, _)| std::cmp::Reverse(*major));
    versions.into_iter().map(|(_, dir)| dir).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_bin(dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("initdb"), "").unwrap();
        std::fs::write(dir.join("pg_ctl"), "").unwrap();
    }

    #[test]
    fn the_highest_debian_version_wins_over_path() {
        let root = tempfile::tempdir().unwrap();
        fake_bin(&root.path().join("9/bin"));
        fake_bin(&root.path().join("15/bin"));
        fake_bin(&root.path().join("elsewhere"));
        let found = locate(None, root.path(), [root.path().join("elsewhere")]).unwrap();
        assert_eq!(found.initdb, root.path().join("15/bin/initdb"));
    }

    #[test]
    fn path_is_searched_when_debian_has_none() {
        let root = tempfile::tempdir().unwrap();
        fake_bin(&root.path().join("elsewhere"));
        let found = locate(
            None,
            &root.path().join("none"),
            [root.path().join("elsewhere")],
        );
        assert_eq!(found.unwrap().pg_ctl, root.path().join("elsewhere/pg_ctl"));
    }

    #[test]
    fn the_override_must_hold_the_binaries() {
        let root = tempfile::tempdir().unwrap();
        fake_bin(&root.path().join("15/bin"));
        let err = locate(Some(root.path().join("empty")), root.path(), []).unwrap_err();
        assert!(err.to_string().contains(BIN_ENV), "{err}");
    }

    #[test]
    fn a_missing_installation_says_what_to_install() {
        let root = tempfile::tempdir().unwrap();
        let err = locate(None, root.path(), [root.path().to_path_buf()]).unwrap_err();
        let message = err.to_string();
        assert!(message.contains("apt-get install postgresql"), "{message}");
        assert!(message.contains("DATABASE_URL"), "{message}");
    }
}
