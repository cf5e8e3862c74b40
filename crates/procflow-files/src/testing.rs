//! For tests: a bucket on a test's own S3-compatible server (moto, or a port nothing listens
//! on), with keys given here rather than the environment's, which are not a test's to set.

use crate::{S3Credentials, StorageUrl};

/// The storage URL of `bucket` on the server at `endpoint` (`http://127.0.0.1:<port>`), with
/// test keys (moto takes any).
///
/// # Panics
/// When `endpoint` does not make a bucket's URL.
#[must_use]
#[expect(
    clippy::panic,
    reason = "a test helper: a URL it cannot make fails the test"
)]
pub fn bucket_url(bucket: &str, endpoint: &str) -> StorageUrl {
    let url = format!("s3://{bucket}?endpoint={endpoint}&region=us-east-1");
    let Ok(StorageUrl::S3(mut settings)) = StorageUrl::parse(&url) else {
        panic!("{url} is not read as a bucket");
    };
    settings.credentials = Some(S3Credentials {
        access_key_id: "testing".into(),
        secret_access_key: "testing".into(),
        session_token: None,
    });
    StorageUrl::S3(settings)
}
