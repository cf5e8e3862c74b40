//! An upload's parts on their way to the store: each part is written while the next is read
//! from the body.

use object_store::{MultipartUpload, PutPayload};
use procflow_domain::error::{DomainError, DomainResult, StoreError};
use tokio::task::JoinHandle;

/// The write of the part in flight, if any. At most one part is in flight, so an upload holds
/// two parts at most: the one being written and the one being filled.
#[derive(Default)]
pub(crate) struct Parts {
    in_flight: Option<JoinHandle<DomainResult<()>>>,
}

impl Parts {
    /// Sends `payload` as the next part, once the part before it is written.
    ///
    /// # Errors
    /// When the part before it could not be written.
    pub(crate) async fn send(
        &mut self,
        upload: &mut dyn MultipartUpload,
        payload: PutPayload,
    ) -> DomainResult<()> {
        self.settle().await?;
        // Spawned: a bucket's part is a request, which makes progress only while polled.
        let write = upload.put_part(payload);
        self.in_flight = Some(tokio::spawn(async move {
            write.await.map_err(|e| crate::store_failure(&e))
        }));
        Ok(())
    }

    /// Waits for the last part's write.
    ///
    /// # Errors
    /// When it could not be written.
    pub(crate) async fn finish(mut self) -> DomainResult<()> {
        self.settle().await
    }

    /// Waits for the part in flight, if any.
    async fn settle(&mut self) -> DomainResult<()> {
        match self.in_flight.take() {
            Some(part) => part.await.map_err(|e| stopped(&e))?,
            None => Ok(()),
        }
    }

    /// Lets the part in flight end, whatever its outcome: an upload is aborted only once no
    /// write of its is pending.
    pub(crate) async fn abandon(mut self) {
        let _ended = self.settle().await;
    }
}

fn stopped(error: &tokio::task::JoinError) -> DomainError {
    tracing::warn!(error = %error, "a part's write stopped");
    StoreError::Other(format!("file store: a part's write stopped: {error}")).into()
}
