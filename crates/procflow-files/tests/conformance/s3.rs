//! The S3 adapter against moto's S3 server on loopback: the whole contract, nothing left of a
//! failed upload on the server (no multipart upload in progress), and the failures of a
//! missing bucket and of a server that is down.

use std::time::{Duration, Instant};

use procflow_domain::error::{DomainError, StoreError};
use procflow_domain::ports::files::{ByteSource, FileStore, SourceError, StorageKey};
use procflow_files::{ObjectFiles, testing};

use super::contract::{contract, streams_in_parts};
use super::s3_server::S3Server;

/// The store the storage URL of `bucket` on `endpoint` names, with keys given here (moto
/// takes any): the environment's are not the tests' to set.
fn bucket(bucket: &str, endpoint: &str) -> ObjectFiles {
    testing::bucket_url(bucket, endpoint).open().unwrap()
}

fn key() -> StorageKey {
    StorageKey::parse("teams/t1/files/x").unwrap()
}

/// One chunk, then the end.
struct One(Option<Vec<u8>>);

#[async_trait::async_trait]
impl ByteSource for One {
    async fn next_chunk(&mut self) -> Result<Option<bytes::Bytes>, SourceError> {
        Ok(self.0.take().map(Into::into))
    }
}

#[tokio::test]
async fn an_s3_bucket_keeps_the_contract() {
    let server = S3Server::start(&["procflow-files"]);
    contract(&bucket("procflow-files", &server.endpoint())).await;
    // The failed uploads were aborted, not left in progress (where S3 keeps, and bills, their
    // parts), and only the empty object remains.
    let uploads = server.get("/procflow-files?uploads");
    assert!(uploads.starts_with("HTTP/1.1 200"), "{uploads}");
    assert!(uploads.contains("ListMultipartUploadsResult"), "{uploads}");
    assert!(!uploads.contains("<Upload>"), "{uploads}");
    let objects = server.get("/procflow-files?list-type=2");
    assert!(objects.starts_with("HTTP/1.1 200"), "{objects}");
    assert_eq!(objects.matches("<Key>").count(), 1, "{objects}");
    assert!(
        objects.contains("<Key>teams/t1/files/empty</Key>"),
        "{objects}"
    );
}

/// The text of each `<tag>` element of `xml`, in order.
fn elements<'a>(xml: &'a str, tag: &str) -> Vec<&'a str> {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    xml.split(&open)
        .skip(1)
        .filter_map(|rest| rest.split_once(&close).map(|(text, _)| text))
        .collect()
}

#[tokio::test]
async fn an_upload_reaches_the_bucket_part_by_part() {
    let server = S3Server::start(&["procflow-files"]);
    let store = bucket("procflow-files", &server.endpoint());
    // The bytes of the parts of the upload in progress, as the server lists them.
    let stored = || {
        let uploads = server.get("/procflow-files?uploads");
        let ids = elements(&uploads, "UploadId");
        assert_eq!(ids.len(), 1, "{uploads}");
        let parts = server.get(&format!(
            "/procflow-files/teams/t1/files/streamed?uploadId={}",
            ids[0]
        ));
        elements(&parts, "Size")
            .iter()
            .map(|size| size.parse::<u64>().unwrap())
            .sum()
    };
    // A bucket's parts are 5 MiB, S3's smallest but the last.
    streams_in_parts(&store, 5 * 1024 * 1024, &stored).await;
}

#[tokio::test]
async fn a_missing_bucket_is_a_store_failure() {
    let server = S3Server::start(&[]);
    let store = bucket("no-such-bucket", &server.endpoint());
    // A set-up's fault, not an outage: trying again will not help.
    let put = store.put(&key(), &mut One(Some(vec![1; 10]))).await;
    assert!(
        matches!(put, Err(DomainError::Store(StoreError::Other(_)))),
        "{put:?}"
    );
    let listed = store.list("teams").await;
    assert!(
        matches!(listed, Err(DomainError::Store(StoreError::Other(_)))),
        "{listed:?}"
    );
}

#[tokio::test]
async fn a_server_that_is_down_is_a_store_failure_within_seconds() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let store = bucket("procflow-files", &format!("http://127.0.0.1:{port}"));
    // Each call retries a refused connection a few times, briefly. object_store's default (ten
    // retries, random waits growing up to 15 s) took 4 to 16 s for the two calls here, once
    // 26 s in CI.
    let started = Instant::now();
    let put = store.put(&key(), &mut One(Some(vec![1; 10]))).await;
    unavailable_soon("put", put.err(), started);
    let started = Instant::now();
    let got = store.get(&key()).await.err();
    unavailable_soon("get", got, started);
}

/// A call's failure is `Unavailable`, as a database that is down (the request can be tried
/// again), and came within 5 s of `started`.
fn unavailable_soon(call: &str, error: Option<DomainError>, started: Instant) {
    let took = started.elapsed();
    assert!(
        matches!(error, Some(DomainError::Store(StoreError::Unavailable(_)))),
        "the {call}: {error:?}"
    );
    assert!(
        took < Duration::from_secs(5),
        "the {call} failed after {took:?}"
    );
}
