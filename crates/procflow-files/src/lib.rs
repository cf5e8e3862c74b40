//! The [`FileStore`] port on `object_store`: a local directory (the default, `file:///path`) or
//! an S3-compatible bucket ([`ObjectFiles::s3`]), picked by a storage URL ([`open`]).
//! Writes stream through a multipart upload, which `object_store` completes atomically (the
//! local filesystem stages the parts in a file of its own and renames it into place), so that a
//! failed upload leaves nothing under its key.

#![deny(missing_docs)]

mod flusher;
mod local_read;
mod local_write;
mod parts;
mod recent;
mod s3;
mod staged;
mod storage_url;
#[cfg(feature = "testing")]
pub mod testing;

pub use s3::{S3Credentials, S3Settings};
pub use storage_url::{OpenError, StorageUrl, StorageUrlError, open};

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use bytes::BytesMut;
use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use object_store::local::LocalFileSystem;
use object_store::path::Path as ObjectPath;
use object_store::{MultipartUpload, ObjectStore, ObjectStoreExt, PutPayload};
use parts::Parts;
use procflow_domain::error::{DomainError, DomainResult, Resource, StoreError, ValidationError};
use procflow_domain::ports::files::{
    ByteSource, FileStore, ListedObject, SourceError, StorageKey, StoredObject,
};
use sha2::{Digest, Sha256};

/// Parts are sent to the store once this many bytes are buffered: memory stays flat whatever
/// the object's size, at about two parts per upload in progress (one being filled, one being
/// written). On disk any size will do; each part costs a hand-over to a blocking thread and
/// back, some 45 µs on the bench's machine (a 10 MiB upload took 1.4 ms longer in parts of
/// 256 KiB, 0.5 ms longer in parts of 512 KiB), while a small part keeps short the write of the
/// last one, which the answer waits for (parts of 2 and 4 MiB were slower too, measured when
/// each part's hash also had a thread of its own).
const LOCAL_PART_BYTES: usize = 1024 * 1024;

/// The bytes of the latest uploads a local directory leaves in the page cache, unless told
/// otherwise ([`ObjectFiles::with_upload_cache`]).
pub const DEFAULT_UPLOAD_CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// The file store over one `object_store` backend.
#[derive(Clone, Debug)]
pub struct ObjectFiles {
    store: Arc<dyn ObjectStore>,
    /// The size of the parts an upload is sent in (but the last).
    part_bytes: usize,
    /// A local store's directory; `None` for a bucket.
    local: Option<LocalDirectory>,
}

/// What a local store keeps beside object_store's.
#[derive(Clone, Debug)]
struct LocalDirectory {
    /// Where the files are, and the staged uploads the sweep walks (a bucket's incomplete
    /// uploads expire by its lifecycle rule).
    root: PathBuf,
    /// The uploads whose pages stay in the cache.
    recent: Arc<recent::RecentUploads>,
}

impl ObjectFiles {
    /// A store in the local directory `root`, created when missing.
    ///
    /// # Errors
    /// When the directory cannot be created or used.
    pub fn local(root: &Path) -> Result<Self, StoreError> {
        std::fs::create_dir_all(root)
            .map_err(|e| StoreError::Other(format!("cannot create {}: {e}", root.display())))?;
        let store = LocalFileSystem::new_with_prefix(root)
            .map_err(|e| StoreError::Other(format!("cannot use {}: {e}", root.display())))?;
        Ok(Self {
            store: Arc::new(store),
            part_bytes: LOCAL_PART_BYTES,
            local: Some(LocalDirectory {
                root: root.to_path_buf(),
                recent: Arc::new(recent::RecentUploads::new(DEFAULT_UPLOAD_CACHE_BYTES)),
            }),
        })
    }

    /// The same store, a local directory's leaving the pages of its latest uploads in the page
    /// cache up to `bytes` (0: none), an older upload's let go once newer ones pass it. A
    /// bucket writes nothing on this machine: it is returned as it is.
    #[must_use]
    pub fn with_upload_cache(mut self, bytes: u64) -> Self {
        if let Some(local) = &mut self.local {
            local.recent = Arc::new(recent::RecentUploads::new(bytes));
        }
        self
    }

    /// Starts the multipart upload of `key`. A local directory's is ours (`local_write.rs`:
    /// on the disk before it is answered) and creates its staged file there and then, a
    /// blocking call made on a blocking thread, not on the thread that serves requests. A
    /// bucket's is a request, awaited as it is.
    async fn start_upload(&self, key: &StorageKey) -> DomainResult<Box<dyn MultipartUpload>> {
        let Some(local) = &self.local else {
            return self
                .store
                .put_multipart(&path(key))
                .await
                .map_err(|e| store_failure(&e));
        };
        let dest = local.root.join(key.as_str());
        let recent = local.recent.clone();
        let started =
            tokio::task::spawn_blocking(move || local_write::LocalUpload::start(dest, recent))
                .await
                .map_err(|e| {
                    StoreError::Other(format!("file store: the upload did not start: {e}"))
                })?
                .map_err(|e| io_failure(&e))?;
        Ok(Box::new(started))
    }
}

fn failure(error: &object_store::Error) -> DomainError {
    match error {
        object_store::Error::NotFound { .. } => DomainError::NotFound(Resource::File),
        other => store_failure(other),
    }
}

/// A failure where no key is read (a write, a listing): a "not found" there is the bucket's
/// or the directory's, the store's failure rather than a missing file.
pub(crate) fn store_failure(error: &object_store::Error) -> DomainError {
    tracing::warn!(error = %error, "file store failure");
    let message = format!("file store: {error}");
    if is_outage(error) {
        StoreError::Unavailable(message).into()
    } else {
        StoreError::Other(message).into()
    }
}

/// Whether the bucket could not be reached (a refused connection, a timeout, a request cut
/// off), after the client's retries: the same request may succeed later, as when the database
/// is down. An answer the bucket gave (a 403 of a wrong key, a 404 of a missing bucket) is a
/// fault of the set-up. (object_store keeps the status of an answer to itself, so a 503 the
/// bucket gave is counted with the answers.)
fn is_outage(error: &object_store::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = cause {
        if current.is::<object_store::client::HttpError>() {
            return true;
        }
        cause = current.source();
    }
    false
}

/// A failure of the local directory's own file operations (around object_store's).
fn io_failure(error: &std::io::Error) -> DomainError {
    tracing::warn!(error = %error, "file store failure");
    StoreError::Other(format!("file store: {error}")).into()
}

/// Removes what a failed upload staged: nothing of it stays. Gives back why it failed.
async fn abort(
    upload: &mut dyn MultipartUpload,
    key: &StorageKey,
    error: DomainError,
) -> DomainError {
    if let Err(abort) = upload.abort().await {
        tracing::warn!(error = %abort, key = %key, "cannot abort a failed upload");
    }
    error
}

fn path(key: &StorageKey) -> ObjectPath {
    ObjectPath::from(key.as_str())
}

/// A stored object's bytes, read as they are asked for.
struct Reading(BoxStream<'static, object_store::Result<bytes::Bytes>>);

#[async_trait]
impl ByteSource for Reading {
    async fn next_chunk(&mut self) -> Result<Option<bytes::Bytes>, SourceError> {
        match self.0.next().await {
            None => Ok(None),
            Some(Ok(bytes)) => Ok(Some(bytes)),
            Some(Err(e)) => Err(SourceError(format!("cannot read the stored file: {e}"))),
        }
    }
}

#[async_trait]
impl FileStore for ObjectFiles {
    async fn put(&self, key: &StorageKey, body: &mut dyn ByteSource) -> DomainResult<StoredObject> {
        let mut upload = self.start_upload(key).await?;
        let mut parts = Parts::default();
        let mut size: u64 = 0;
        // The body's chunks (8 to 64 KiB each from actix) are copied into one buffer per
        // part: a part kept as the list of its chunks was written with a `write` per chunk,
        // 1,280 system calls per 10 MiB, where a copy costs far less. A part is filled to its
        // size exactly: a chunk that crossed it grew the buffer, copying the part once more.
        let mut part = BytesMut::with_capacity(self.part_bytes);
        // Hashed here, a chunk at a time (64 KiB at most from actix in the bench, 40 µs), not
        // a part at a time on a blocking thread: on two cores the hand-over of each part's
        // hash cost more than running it beside the body's reads gained (the server's CPU per
        // 10 MiB upload 28 → 25 ms, its MB/s 8 % up: `docs/performance.md`, "Attachments").
        let mut hash = Sha256::new();
        let outcome: DomainResult<()> = async {
            loop {
                let chunk = body.next_chunk().await.map_err(|e| {
                    DomainError::from(ValidationError::field("file", e.to_string()))
                })?;
                let Some(mut chunk) = chunk else {
                    if !part.is_empty() {
                        parts
                            .send(upload.as_mut(), PutPayload::from(part.split().freeze()))
                            .await?;
                    }
                    return Ok(());
                };
                size += chunk.len() as u64;
                hash.update(&chunk);
                while !chunk.is_empty() {
                    let room = self.part_bytes - part.len();
                    part.extend_from_slice(&chunk.split_to(room.min(chunk.len())));
                    if part.len() == self.part_bytes {
                        let full = part.split().freeze();
                        part.reserve(self.part_bytes);
                        parts.send(upload.as_mut(), PutPayload::from(full)).await?;
                    }
                }
            }
        }
        .await;
        match outcome {
            Ok(()) => {
                if let Err(error) = parts.finish().await {
                    return Err(abort(upload.as_mut(), key, error).await);
                }
                upload.complete().await.map_err(|e| store_failure(&e))?;
                Ok(StoredObject {
                    size,
                    sha256: hash.finalize().into(),
                })
            }
            Err(error) => {
                parts.abandon().await;
                Err(abort(upload.as_mut(), key, error).await)
            }
        }
    }

    async fn get(&self, key: &StorageKey) -> DomainResult<Box<dyn ByteSource>> {
        let found = self.store.get(&path(key)).await.map_err(|e| failure(&e))?;
        match found.payload {
            object_store::GetResultPayload::File(file, _) => {
                let reading =
                    local_read::FileReading::new(file, found.range).map_err(|e| io_failure(&e))?;
                Ok(Box::new(reading))
            }
            object_store::GetResultPayload::Stream(stream) => Ok(Box::new(Reading(stream))),
        }
    }

    async fn delete(&self, key: &StorageKey) -> DomainResult<()> {
        match self.store.delete(&path(key)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(failure(&e)),
        }
    }

    async fn list(&self, prefix: &str) -> DomainResult<Vec<ListedObject>> {
        let prefix = ObjectPath::from(prefix);
        let mut listed = self.store.list(Some(&prefix));
        let mut found = Vec::new();
        while let Some(meta) = listed.next().await {
            let meta = meta.map_err(|e| store_failure(&e))?;
            let Ok(key) = StorageKey::parse(meta.location.as_ref()) else {
                // Not an object of ours (a staged part, a file put there by hand).
                continue;
            };
            let written_at =
                time::OffsetDateTime::from_unix_timestamp(meta.last_modified.timestamp())
                    .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
            found.push(ListedObject { key, written_at });
        }
        Ok(found)
    }

    async fn remove_abandoned_uploads(
        &self,
        before: time::OffsetDateTime,
    ) -> DomainResult<Vec<String>> {
        let Some(root) = self.local.as_ref().map(|local| local.root.clone()) else {
            return Ok(Vec::new());
        };
        let before = std::time::SystemTime::from(before);
        tokio::task::spawn_blocking(move || staged::remove_staged(&root, before))
            .await
            .map_err(|e| StoreError::Other(format!("file store: the sweep stopped: {e}")))?
            .map_err(|e| io_failure(&e))
    }
}

#[cfg(test)]
mod tests {
    use super::{DEFAULT_UPLOAD_CACHE_BYTES, ObjectFiles, S3Credentials, S3Settings};

    fn upload_cache(files: &ObjectFiles) -> Option<u64> {
        files.local.as_ref().map(|local| local.recent.budget())
    }

    #[test]
    fn a_local_directory_keeps_the_upload_cache_it_is_given() {
        let dir = tempfile::tempdir().unwrap();
        let files = ObjectFiles::local(dir.path()).unwrap();
        assert_eq!(upload_cache(&files), Some(DEFAULT_UPLOAD_CACHE_BYTES));
        assert_eq!(upload_cache(&files.clone().with_upload_cache(0)), Some(0));
        assert_eq!(
            upload_cache(&files.with_upload_cache(1 << 30)),
            Some(1 << 30)
        );
    }

    #[test]
    fn a_bucket_has_no_upload_cache_to_set() {
        let bucket = ObjectFiles::s3(&S3Settings {
            bucket: "b".to_owned(),
            endpoint: Some("http://127.0.0.1:9".to_owned()),
            region: Some("x".to_owned()),
            credentials: Some(S3Credentials {
                access_key_id: "k".to_owned(),
                secret_access_key: "s".to_owned(),
                session_token: None,
            }),
        })
        .unwrap();
        assert_eq!(upload_cache(&bucket.with_upload_cache(0)), None);
    }
}
