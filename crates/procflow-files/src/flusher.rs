//! A staged file's data flushed to the disk beside its writes, so that the flush that ends an
//! upload finds little left to do.
//!
//! Why flush before the end at all: on a virtual machine the guest's own writeback reaches only
//! the host's cache, and it is the flush (`fdatasync`, a cache flush of the virtual disk) that
//! makes the host write the data out. One flush of a whole 10 MiB file at the end took 4 to 19
//! ms in the service on one of the bench's machines, 14 to 22 ms in a test of its file system
//! alone even with every part written back long before (`docs/performance.md`, "Attachments").
//! Flushed as the parts came, one flush at a time and never waited for by the writes, the end's
//! flush in that test took 0.1 to 2 ms.
//!
//! A flush here is an optimisation only: the end's flush makes the file durable whether the
//! ones before it ran or not. But their failures count: Linux reports a failed writeback once
//! to each open file, so an error a flush here saw would not be seen again by the end's
//! ([`Flusher::finish`] gives it back).

use std::fs::File;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// The flushes of one staged file.
#[derive(Debug, Default)]
pub(crate) struct Flusher {
    /// Written since the last flush began.
    dirty: AtomicBool,
    /// A flushing task is running (or about to).
    busy: AtomicBool,
    /// Held through each flush, so that the end's waits for the one in progress; holds the
    /// first failure.
    flushing: Mutex<Option<std::io::Error>>,
    /// The flushes run beside the writes.
    #[cfg(test)]
    background: std::sync::atomic::AtomicU32,
}

impl Flusher {
    /// Records a write to `file` and, when no flush is running, starts one on a blocking
    /// thread, which flushes again as long as writes keep coming. Called within the runtime
    /// (a blocking thread of it included).
    pub(crate) fn written(self: &Arc<Self>, file: &Arc<File>) {
        self.dirty.store(true, Ordering::Release);
        if self.busy.swap(true, Ordering::AcqRel) {
            return;
        }
        let (flusher, file) = (self.clone(), file.clone());
        // Not awaited: the writes go on while it runs. A write that comes as it stops is not
        // flushed until the end's flush, which flushes everything anyway.
        drop(tokio::task::spawn_blocking(move || {
            while flusher.dirty.swap(false, Ordering::AcqRel) {
                let mut failed = flusher
                    .flushing
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                if failed.is_some() {
                    break;
                }
                if let Err(error) = file.sync_data() {
                    *failed = Some(error);
                }
                #[cfg(test)]
                flusher.background.fetch_add(1, Ordering::Relaxed);
            }
            flusher.busy.store(false, Ordering::Release);
        }));
    }

    /// The flushes run beside the writes so far, once none is running.
    #[cfg(test)]
    pub(crate) async fn background_flushes(&self) -> u32 {
        while self.busy.load(Ordering::Acquire) {
            tokio::task::yield_now().await;
        }
        self.background.load(Ordering::Relaxed)
    }

    /// Flushes `file` once more, after the flush in progress if any: the file's data is on the
    /// disk when it returns `Ok`. A blocking call.
    ///
    /// # Errors
    /// When this flush or one before it failed.
    pub(crate) fn finish(&self, file: &File) -> std::io::Result<()> {
        let mut failed = self.flushing.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(error) = failed.take() {
            return Err(error);
        }
        file.sync_data()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use std::io::Write;

    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn writes_are_flushed_beside_them_and_the_end_flushes_after_the_last() {
        let dir = tempfile::tempdir().unwrap();
        let file = Arc::new(File::create(dir.path().join("f")).unwrap());
        let flusher = Arc::new(Flusher::default());
        for _ in 0..20 {
            (&*file).write_all(&[7; 4096]).unwrap();
            flusher.written(&file);
        }
        // The flushing task stops once no write came during its last flush.
        let ran = flusher.background_flushes().await;
        assert!((1..=20).contains(&ran), "{ran} flushes beside 20 writes");
        assert!(!flusher.dirty.load(Ordering::Acquire));
        // A write after it stopped starts another.
        (&*file).write_all(&[7; 4096]).unwrap();
        flusher.written(&file);
        let (f, fl) = (file.clone(), flusher.clone());
        tokio::task::spawn_blocking(move || fl.finish(&f))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(flusher.background_flushes().await, ran + 1);
        assert_eq!(file.metadata().unwrap().len(), 21 * 4096);
    }

    #[test]
    fn a_failure_seen_before_the_end_fails_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let file = File::create(dir.path().join("f")).unwrap();
        let flusher = Flusher::default();
        *flusher.flushing.lock().unwrap() = Some(std::io::Error::other("EIO"));
        let error = flusher.finish(&file).unwrap_err();
        assert_eq!(error.to_string(), "EIO");
    }
}
