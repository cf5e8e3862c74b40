//! `PROCFLOW_STORAGE_URL`: where the bytes of attachments live (API contract 14.2), read once
//! at start-up into a [`FileStore`].

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use procflow_domain::ports::FileStore;
use procflow_files::ObjectFiles;

/// The setting's name, for messages.
pub const SETTING: &str = "PROCFLOW_STORAGE_URL";

/// Where attachments' bytes are stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StorageUrl {
    /// `file:///absolute/path`: a local directory (created when missing).
    Local(PathBuf),
    /// `s3://bucket?endpoint=...&region=...`: an S3-compatible bucket.
    S3(String),
}

impl StorageUrl {
    /// A local directory.
    #[must_use]
    pub fn local(dir: &Path) -> Self {
        Self::Local(dir.to_path_buf())
    }

    /// The default of `procflow serve`: `.data/files` under the working directory (where
    /// `make run` keeps its database and mail too).
    #[must_use]
    pub fn default_local() -> Self {
        let base = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        Self::Local(base.join(".data").join("files"))
    }

    /// The file store this names.
    ///
    /// # Errors
    /// A message naming the setting when the directory cannot be used, or for a bucket, which
    /// this build cannot use yet.
    pub fn open(&self) -> Result<Arc<dyn FileStore>, String> {
        match self {
            Self::Local(dir) => ObjectFiles::local(dir)
                .map(|files| Arc::new(files) as Arc<dyn FileStore>)
                .map_err(|e| format!("{SETTING}: {e}")),
            Self::S3(_) => Err(format!(
                "{SETTING}: s3:// buckets are not supported by this build yet; use a \
                 file:///absolute/path"
            )),
        }
    }
}

impl fmt::Display for StorageUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Local(dir) => write!(f, "file://{}", dir.display()),
            // The query may name an endpoint, never credentials (they come from the AWS
            // variables); the bucket alone is shown all the same.
            Self::S3(url) => f.write_str(url.split('?').next().unwrap_or_default()),
        }
    }
}

impl FromStr for StorageUrl {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let parsed = url::Url::parse(text).map_err(|e| {
            format!("{text:?} is not a URL ({e}): use file:///absolute/path or s3://bucket")
        })?;
        match parsed.scheme() {
            "file" => {
                if parsed.host_str().is_some_and(|h| !h.is_empty()) {
                    return Err(format!(
                        "{text:?} names a host: use file:///absolute/path (three slashes)"
                    ));
                }
                let path = parsed
                    .to_file_path()
                    .map_err(|()| format!("{text:?} is not an absolute file path"))?;
                Ok(Self::Local(path))
            }
            "s3" if parsed.host_str().is_some_and(|h| !h.is_empty()) => {
                Ok(Self::S3(text.to_owned()))
            }
            "s3" => Err(format!("{text:?} names no bucket: use s3://bucket")),
            other => Err(format!(
                "{other}: is not a storage scheme: use file:///absolute/path or s3://bucket"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_urls_are_absolute_local_directories() {
        assert_eq!(
            "file:///var/lib/procflow/files".parse::<StorageUrl>(),
            Ok(StorageUrl::Local(PathBuf::from("/var/lib/procflow/files")))
        );
        for bad in ["file://host/x", "files", "http://x/y", "s3://", "/var/lib"] {
            assert!(bad.parse::<StorageUrl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_bucket_is_read_and_refused_at_start_naming_the_setting() {
        let url: StorageUrl = "s3://bucket?endpoint=http://127.0.0.1:9000&region=x"
            .parse()
            .unwrap();
        assert_eq!(url.to_string(), "s3://bucket");
        let error = url.open().err().unwrap();
        assert!(error.starts_with("PROCFLOW_STORAGE_URL: s3://"), "{error}");
    }

    #[test]
    fn a_local_directory_is_created() {
        let dir = tempfile::tempdir().unwrap();
        let inside = dir.path().join("a/b");
        assert!(StorageUrl::local(&inside).open().is_ok());
        assert!(inside.is_dir());
    }
}
