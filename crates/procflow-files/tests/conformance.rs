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

use std::path::{Path, PathBuf};

use conformance::contract::{contract, streams_in_parts};
use procflow_files::ObjectFiles;
use procflow_memory::InMemoryFiles;

#[tokio::test]
async fn a_local_directory_keeps_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    let store = ObjectFiles::local(&dir.path().join("files")).unwrap();
    contract(&store).await;
    // Nothing of the failed uploads is left on disk either: only the empty object remains.
    assert_eq!(
        files(dir.path()),
        [dir.path().join("files/teams/t1/files/empty")]
    );
    // An upload in progress is a staged file `<key>#<n>`, written part by part.
    let staged = || {
        files(dir.path())
            .iter()
            .filter(|f| f.to_string_lossy().contains('#'))
            .map(|f| f.metadata().unwrap().len())
            .sum()
    };
    streams_in_parts(&store, &staged).await;
}

/// Every file under `root`.
fn files(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(at).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            } else {
                found.push(entry.path());
            }
        }
    }
    found
}

#[tokio::test]
async fn the_memory_fake_keeps_the_contract() {
    contract(&InMemoryFiles::default()).await;
}
