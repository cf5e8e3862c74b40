//! The `FileStore` contract on every adapter: the local directory, an S3-compatible bucket
//! (moto's server on loopback), and the in-memory fake.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests fail loudly"
)]

mod conformance {
    pub mod contract;
    pub mod s3;
    pub mod s3_server;
}

use conformance::contract::contract;
use procflow_files::ObjectFiles;
use procflow_memory::InMemoryFiles;

#[tokio::test]
async fn a_local_directory_keeps_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    let store = ObjectFiles::local(&dir.path().join("files")).unwrap();
    contract(&store).await;
    // Nothing of the failed uploads is left on disk either: only the empty object remains.
    let mut left = Vec::new();
    let mut stack = vec![dir.path().to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(at).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            } else {
                left.push(entry.path());
            }
        }
    }
    assert_eq!(left, [dir.path().join("files/teams/t1/files/empty")]);
}

#[tokio::test]
async fn the_memory_fake_keeps_the_contract() {
    contract(&InMemoryFiles::default()).await;
}
