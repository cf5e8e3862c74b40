//! An upload's parts on their way to the store: each part is hashed on a blocking thread while
//! object_store writes it, and both run while the next part is read from the body. The body's
//! reads, the hash and the write then share the machine's cores instead of taking turns on the
//! request's thread (the hash alone is about a quarter of a local upload's time).

use object_store::{MultipartUpload, PutPayload};
use procflow_domain::error::{DomainError, DomainResult, StoreError};
use sha2::{Digest, Sha256};
use tokio::task::JoinHandle;

/// The parts sent so far and the hash of their bytes. At most one part is in flight, so an
/// upload holds two parts at most: the one in flight and the one being filled.
#[derive(Default)]
pub(crate) struct Parts {
    /// The hash of every part sent, when none is in flight.
    hash: Sha256,
    /// The part in flight: its write and its hash, which yields the hash of every part sent.
    in_flight: Option<JoinHandle<DomainResult<Sha256>>>,
}

impl Parts {
    /// Sends `payload` as the next part, once the part before it is written and hashed.
    ///
    /// # Errors
    /// When the part before it could not be written.
    pub(crate) async fn send(
        &mut self,
        upload: &mut dyn MultipartUpload,
        payload: PutPayload,
    ) -> DomainResult<()> {
        let mut hash = self.settle().await?;
        let write = upload.put_part(payload.clone());
        self.in_flight = Some(tokio::spawn(async move {
            let hashing = tokio::task::spawn_blocking(move || {
                for bytes in &payload {
                    hash.update(bytes);
                }
                hash
            });
            let (hashed, written) = futures_util::future::join(hashing, write).await;
            written.map_err(|e| crate::store_failure(&e))?;
            hashed.map_err(|e| stopped(&e))
        }));
        Ok(())
    }

    /// The hash of every part, once the last is written.
    ///
    /// # Errors
    /// When the last part could not be written.
    pub(crate) async fn finish(mut self) -> DomainResult<[u8; 32]> {
        Ok(self.settle().await?.finalize().into())
    }

    /// Waits for the part in flight, if any, and takes the hash of every part sent.
    async fn settle(&mut self) -> DomainResult<Sha256> {
        match self.in_flight.take() {
            Some(part) => part.await.map_err(|e| stopped(&e))?,
            None => Ok(std::mem::take(&mut self.hash)),
        }
    }

    /// Lets the part in flight end, whatever its outcome: an upload is aborted only once no
    /// write of its is pending.
    pub(crate) async fn abandon(mut self) {
        if let Some(part) = self.in_flight.take() {
            let _ended = part.await;
        }
    }
}

fn stopped(error: &tokio::task::JoinError) -> DomainError {
    tracing::warn!(error = %error, "a part's write stopped");
    StoreError::Other(format!("file store: a part's write stopped: {error}")).into()
}
