//! Writing an upload to the local directory durably: an acknowledged file survives a power
//! cut as its attachment row does (PostgreSQL commits with `fsync`).
//!
//! The upload goes to a staged file `<key>#<n>` (object_store's own naming, which its listing
//! hides and the sweep finds: `staged.rs`), renamed into place at the end. object_store's
//! local store can make that durable too (`with_fsync`), but then the whole file goes to the
//! disk at the end, the client waiting: about a fifth of a 10 MiB upload's time on the bench's
//! machines. Here each part, once written, is started on its way to the disk
//! (`fadvise`, which waits for nothing) and flushed beside the next part's write, one flush at
//! a time (`flusher.rs`); the end's `fdatasync` then finds little left to write, and the file
//! and its directory entry are flushed once more each. (A `fdatasync` after each part, waited
//! for before the next part's write, did as well on a quiet disk; but on a virtual disk whose
//! flush takes 3 ms a MiB, as long as a part of the body takes to arrive, it holds the writes
//! back.)

use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::num::NonZeroU64;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use futures_util::FutureExt;
use object_store::{MultipartUpload, PutPayload, PutResult, UploadPart};
use rustix::fs::{Advice, fadvise};

use crate::flusher::Flusher;
use crate::recent::RecentUploads;

/// An upload in progress in the local directory.
#[derive(Debug)]
pub(crate) struct LocalUpload {
    /// The staged file; `None` once completed or aborted.
    file: Option<Arc<File>>,
    staged: PathBuf,
    dest: PathBuf,
    /// Where the next part starts.
    offset: u64,
    /// Told of the file once it is in place.
    recent: Arc<RecentUploads>,
    /// Flushes the staged file as its parts are written.
    flusher: Arc<Flusher>,
}

impl LocalUpload {
    /// Creates the staged file of `dest` (and the directories it needs, made durable). A
    /// blocking call: made on a blocking thread.
    pub(crate) fn start(dest: PathBuf, recent: Arc<RecentUploads>) -> std::io::Result<Self> {
        let mut n = 1u32;
        let mut made_dirs = false;
        loop {
            let staged = crate::staged::staged_path(&dest, n);
            match OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&staged)
            {
                Ok(file) => {
                    return Ok(Self {
                        file: Some(Arc::new(file)),
                        staged,
                        dest,
                        offset: 0,
                        recent,
                        flusher: Arc::default(),
                    });
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => n += 1,
                Err(e) if e.kind() == ErrorKind::NotFound && !made_dirs => {
                    create_dirs(&staged)?;
                    made_dirs = true;
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// Creates the missing directories above `path`, each made durable in its parent.
fn create_dirs(path: &Path) -> std::io::Result<()> {
    let Some(parent) = path.parent() else {
        return Ok(());
    };
    let mut missing = Vec::new();
    let mut dir = parent;
    while !dir.exists() {
        missing.push(dir);
        match dir.parent() {
            Some(up) => dir = up,
            None => break,
        }
    }
    for dir in missing.into_iter().rev() {
        match std::fs::create_dir(dir) {
            Ok(()) => {}
            // Made meanwhile by another upload: this one relies on its entry all the same.
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        sync_parent(dir)?;
    }
    Ok(())
}

/// Makes the entry of `path` in its directory durable.
fn sync_parent(path: &Path) -> std::io::Result<()> {
    match path.parent() {
        Some(parent) => File::open(parent)?.sync_all(),
        None => Ok(()),
    }
}

fn failure(error: std::io::Error, path: &Path) -> object_store::Error {
    object_store::Error::Generic {
        store: "LocalDirectory",
        source: format!("{}: {error}", path.display()).into(),
    }
}

fn ended() -> object_store::Error {
    object_store::Error::Generic {
        store: "LocalDirectory",
        source: "the upload has ended".into(),
    }
}

/// Flushes the staged file and renames it into place, its directory flushed too.
fn place(file: &File, flusher: &Flusher, staged: &Path, dest: &Path) -> object_store::Result<()> {
    // The data and the size: what reading the file back needs.
    flusher.finish(file).map_err(|e| failure(e, staged))?;
    std::fs::rename(staged, dest).map_err(|e| failure(e, dest))?;
    sync_parent(dest).map_err(|e| failure(e, dest))
}

/// Runs `work` on a blocking thread.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> object_store::Result<T> + Send + 'static,
) -> object_store::Result<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| object_store::Error::Generic {
            store: "LocalDirectory",
            source: Box::new(e),
        })?
}

#[async_trait]
impl MultipartUpload for LocalUpload {
    fn put_part(&mut self, data: PutPayload) -> UploadPart {
        let start = self.offset;
        self.offset += data.content_length() as u64;
        let (file, staged) = (self.file.clone(), self.staged.clone());
        let flusher = self.flusher.clone();
        blocking(move || {
            let file = file.ok_or_else(ended)?;
            let mut at = start;
            for bytes in &data {
                file.write_all_at(bytes, at)
                    .map_err(|e| failure(e, &staged))?;
                at += bytes.len() as u64;
            }
            // Starts the part's writing to the disk without waiting for it (Linux starts the
            // writeback of the range's dirty pages, then lets go of the pages it may), then,
            // from the second part on, its flush beside the next part's write, so that the
            // end's flush finds little left to wait for. Neither is needed: the end's flush
            // makes the file durable whether they ran or not. Not after the first part: a
            // file of one part is flushed at its end at once, and a flush begun just before
            // made the end wait for two (a 200 KB upload 0.5 to 1.5 ms slower).
            let _advised = fadvise(&*file, start, NonZeroU64::new(at - start), Advice::DontNeed);
            if start > 0 {
                flusher.written(&file);
            }
            Ok(())
        })
        .boxed()
    }

    async fn complete(&mut self) -> object_store::Result<PutResult> {
        let file = self.file.take().ok_or_else(ended)?;
        let (staged, dest) = (self.staged.clone(), self.dest.clone());
        let (recent, size, flusher) = (self.recent.clone(), self.offset, self.flusher.clone());
        blocking(move || {
            if let Err(error) = place(&file, &flusher, &staged, &dest) {
                // Nothing of a failed upload stays (the sweep would remove it in time).
                let _gone = std::fs::remove_file(&staged);
                return Err(error);
            }
            recent.written(dest, size);
            Ok(PutResult {
                e_tag: None,
                version: None,
                extensions: Default::default(),
            })
        })
        .await
    }

    async fn abort(&mut self) -> object_store::Result<()> {
        if self.file.take().is_none() {
            return Ok(());
        }
        let staged = self.staged.clone();
        blocking(move || match std::fs::remove_file(&staged) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(failure(e, &staged)),
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;

    fn recent() -> Arc<RecentUploads> {
        Arc::new(RecentUploads::new(crate::DEFAULT_UPLOAD_CACHE_BYTES))
    }

    /// An upload that ended takes no part and cannot end again.
    async fn assert_ended(upload: &mut LocalUpload) {
        assert!(
            upload
                .put_part(PutPayload::from_static(b"x"))
                .await
                .is_err()
        );
        assert!(upload.complete().await.is_err());
    }

    #[tokio::test]
    async fn an_upload_is_written_part_by_part_then_put_in_place_in_new_directories() {
        let root = tempfile::tempdir().unwrap();
        let dest = root.path().join("teams/t1/files/a1");
        let mut upload = LocalUpload::start(dest.clone(), recent()).unwrap();
        assert_eq!(upload.staged, root.path().join("teams/t1/files/a1#1"));
        upload
            .put_part(PutPayload::from_iter([
                bytes::Bytes::from_static(b"one "),
                bytes::Bytes::from_static(b"two "),
            ]))
            .await
            .unwrap();
        upload
            .put_part(PutPayload::from_static(b"three"))
            .await
            .unwrap();
        assert_eq!(std::fs::read(&upload.staged).unwrap(), b"one two three");
        assert!(!dest.exists());
        upload.complete().await.unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"one two three");
        assert!(!upload.staged.exists());
        assert_ended(&mut upload).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn parts_after_the_first_are_flushed_beside_the_writes() {
        let root = tempfile::tempdir().unwrap();
        let mut upload = LocalUpload::start(root.path().join("a1"), recent()).unwrap();
        upload
            .put_part(PutPayload::from_static(b"one"))
            .await
            .unwrap();
        assert_eq!(upload.flusher.background_flushes().await, 0);
        upload
            .put_part(PutPayload::from_static(b"two"))
            .await
            .unwrap();
        assert_eq!(upload.flusher.background_flushes().await, 1);
        upload.complete().await.unwrap();
    }

    #[tokio::test]
    async fn uploads_of_one_key_at_once_are_staged_apart() {
        let root = tempfile::tempdir().unwrap();
        let dest = root.path().join("a1");
        let first = LocalUpload::start(dest.clone(), recent()).unwrap();
        let second = LocalUpload::start(dest.clone(), recent()).unwrap();
        assert_eq!(first.staged, root.path().join("a1#1"));
        assert_eq!(second.staged, root.path().join("a1#2"));
    }

    #[tokio::test]
    async fn an_aborted_upload_leaves_nothing_and_takes_no_more_parts() {
        let root = tempfile::tempdir().unwrap();
        let mut upload = LocalUpload::start(root.path().join("a1"), recent()).unwrap();
        upload
            .put_part(PutPayload::from_static(b"part"))
            .await
            .unwrap();
        upload.abort().await.unwrap();
        assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 0);
        assert_ended(&mut upload).await;
        // Aborting again is no error.
        upload.abort().await.unwrap();
    }

    #[tokio::test]
    async fn an_end_that_cannot_put_the_file_in_place_fails_and_leaves_nothing() {
        let root = tempfile::tempdir().unwrap();
        let dest = root.path().join("a1");
        let mut upload = LocalUpload::start(dest.clone(), recent()).unwrap();
        upload
            .put_part(PutPayload::from_static(b"part"))
            .await
            .unwrap();
        // Where the file goes is a directory now: the rename cannot replace it.
        std::fs::create_dir(&dest).unwrap();
        std::fs::write(dest.join("inside"), b"x").unwrap();
        assert!(upload.complete().await.is_err());
        assert!(!upload.staged.exists());
        assert!(dest.is_dir());
    }
}
