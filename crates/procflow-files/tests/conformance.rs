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
    // The local directory's parts are 1 MiB (`LOCAL_PART_BYTES`).
    streams_in_parts(&store, 1024 * 1024, &staged).await;
}

#[tokio::test]
async fn a_local_directory_removes_what_uploads_killed_midway_left_once_old() {
    use procflow_domain::ports::files::FileStore;
    use std::time::{Duration, SystemTime};

    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("files");
    let store = ObjectFiles::local(&root).unwrap();
    let files_of = root.join("teams/t1/files");
    std::fs::create_dir_all(&files_of).unwrap();
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    let write = |name: &str, at: SystemTime| {
        let file = std::fs::File::create(files_of.join(name)).unwrap();
        file.set_modified(at).unwrap();
    };
    // A staged file left an hour ago, one being written now, an object, a file by hand.
    write("a1#1", hour_ago);
    write("a2#1", SystemTime::now());
    write("a3", hour_ago);
    write("notes#draft", hour_ago);
    let before = time::OffsetDateTime::now_utc() - time::Duration::minutes(30);
    let removed = store.remove_abandoned_uploads(before).await.unwrap();
    assert_eq!(removed, ["teams/t1/files/a1#1"]);
    let mut left: Vec<PathBuf> = files(&root);
    left.sort();
    assert_eq!(
        left,
        ["a2#1", "a3", "notes#draft"].map(|name| files_of.join(name))
    );
    // A store without a `teams` directory yet has nothing to remove.
    let empty = ObjectFiles::local(&dir.path().join("empty")).unwrap();
    assert!(
        empty
            .remove_abandoned_uploads(time::OffsetDateTime::now_utc())
            .await
            .unwrap()
            .is_empty()
    );
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
