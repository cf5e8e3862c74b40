//! `PROCFLOW_STORAGE_URL`: where the bytes of attachments live (API contract 14.2), read once
//! at start-up into a [`FileStore`]. The URL's grammar and both adapters (a local directory,
//! an S3-compatible bucket) are `procflow-files`'; this names the setting in its messages and
//! holds `procflow serve`'s default.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use procflow_domain::ports::FileStore;
pub use procflow_files::StorageUrl;
use procflow_files::StorageUrlError;

/// The setting's name, for messages.
pub const SETTING: &str = "PROCFLOW_STORAGE_URL";

/// The setting as the command line reads it: boxed, since a bucket's settings are large beside
/// every other argument of `procflow serve`.
#[derive(Clone, Debug)]
pub struct StorageSetting(pub Box<StorageUrl>);

impl FromStr for StorageSetting {
    type Err = StorageUrlError;

    fn from_str(text: &str) -> Result<Self, StorageUrlError> {
        text.parse().map(|url| Self(Box::new(url)))
    }
}

/// A local directory.
#[must_use]
pub fn local(dir: &Path) -> StorageUrl {
    StorageUrl::Local(dir.to_path_buf())
}

/// The default of `procflow serve`: `.data/files` under the working directory (where `make run`
/// keeps its database and mail too).
#[must_use]
pub fn default_local() -> StorageUrl {
    let base = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    local(&base.join(".data").join("files"))
}

/// The file store `url` names; a bucket's credentials come from the `AWS_*` variables. A local
/// directory leaves the pages of its latest `upload_cache_bytes` of uploads in the page cache.
///
/// # Errors
/// A message naming the setting when the store cannot be used (a local directory that cannot
/// be made, a bucket without credentials or region it can work out).
pub fn open(url: &StorageUrl, upload_cache_bytes: u64) -> Result<Arc<dyn FileStore>, String> {
    url.open()
        .map(|files| Arc::new(files.with_upload_cache(upload_cache_bytes)) as Arc<dyn FileStore>)
        .map_err(|e| format!("{SETTING}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_and_bucket_urls_are_read_and_others_refused() {
        assert_eq!(
            "file:///var/lib/procflow/files".parse::<StorageUrl>().ok(),
            Some(StorageUrl::Local(PathBuf::from("/var/lib/procflow/files")))
        );
        let bucket: StorageUrl = "s3://bucket?endpoint=http://127.0.0.1:9000&region=x"
            .parse()
            .unwrap();
        assert!(matches!(bucket, StorageUrl::S3(_)));
        for bad in ["file://host/x", "files", "http://x/y", "s3://", "/var/lib"] {
            assert!(bad.parse::<StorageUrl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_local_directory_is_created() {
        let dir = tempfile::tempdir().unwrap();
        let inside = dir.path().join("a/b");
        assert!(open(&local(&inside), 0).is_ok());
        assert!(inside.is_dir());
    }
}
