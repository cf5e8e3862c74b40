//! The `FileStore` contract as one function over any store, so that every adapter runs every
//! case: put, get, delete, a missing key, and a failed upload that leaves nothing.

use async_trait::async_trait;
use procflow_domain::error::{DomainError, Resource};
use procflow_domain::ports::files::{ByteSource, FileStore, SourceError, StorageKey};
use sha2::{Digest, Sha256};

/// `chunks`, then (when `fail`) an error instead of the end.
struct Chunks {
    chunks: Vec<Vec<u8>>,
    fail: bool,
}

#[async_trait]
impl ByteSource for Chunks {
    async fn next_chunk(&mut self) -> Result<Option<bytes::Bytes>, SourceError> {
        if self.chunks.is_empty() {
            return if self.fail {
                Err(SourceError("the client went away".into()))
            } else {
                Ok(None)
            };
        }
        Ok(Some(self.chunks.remove(0).into()))
    }
}

async fn read_all(mut source: Box<dyn ByteSource>) -> Vec<u8> {
    let mut all = Vec::new();
    while let Some(chunk) = source.next_chunk().await.unwrap() {
        all.extend_from_slice(&chunk);
    }
    all
}

fn key(name: &str) -> StorageKey {
    StorageKey::parse(&format!("teams/t1/files/{name}")).unwrap()
}

/// Every clause of the contract, on `store`.
pub async fn contract(store: &dyn FileStore) {
    // Put and get back, in chunks larger than a part and smaller.
    let big: Vec<u8> = (0..6 * 1024 * 1024 + 17).map(|i| (i % 251) as u8).collect();
    let chunks: Vec<Vec<u8>> = big.chunks(1024 * 1024).map(<[u8]>::to_vec).collect();
    let stored = store
        .put(
            &key("a"),
            &mut Chunks {
                chunks,
                fail: false,
            },
        )
        .await
        .unwrap();
    assert_eq!(stored.size, big.len() as u64);
    assert_eq!(stored.sha256, <[u8; 32]>::from(Sha256::digest(&big)));
    assert_eq!(read_all(store.get(&key("a")).await.unwrap()).await, big);

    // An empty object is an object.
    let empty = store
        .put(
            &key("empty"),
            &mut Chunks {
                chunks: vec![],
                fail: false,
            },
        )
        .await
        .unwrap();
    assert_eq!(empty.size, 0);
    assert!(
        read_all(store.get(&key("empty")).await.unwrap())
            .await
            .is_empty()
    );

    // A missing key.
    assert!(matches!(
        store.get(&key("missing")).await.err(),
        Some(DomainError::NotFound(Resource::File))
    ));

    // A failed upload leaves nothing under its key, and nothing a listing shows.
    let failed = store
        .put(
            &key("cut"),
            &mut Chunks {
                chunks: vec![vec![1; 1024], vec![2; 6 * 1024 * 1024]],
                fail: true,
            },
        )
        .await;
    assert!(
        matches!(failed, Err(DomainError::Validation(_))),
        "{failed:?}"
    );
    assert!(matches!(
        store.get(&key("cut")).await.err(),
        Some(DomainError::NotFound(Resource::File))
    ));
    // ...and leaves an object already there as it was.
    let failed = store
        .put(
            &key("a"),
            &mut Chunks {
                chunks: vec![vec![9; 10]],
                fail: true,
            },
        )
        .await;
    assert!(failed.is_err());
    assert_eq!(read_all(store.get(&key("a")).await.unwrap()).await, big);

    let mut listed: Vec<String> = store
        .list("teams/t1")
        .await
        .unwrap()
        .into_iter()
        .map(|o| o.key.to_string())
        .collect();
    listed.sort();
    assert_eq!(listed, ["teams/t1/files/a", "teams/t1/files/empty"]);
    assert!(store.list("teams/t2").await.unwrap().is_empty());

    // Delete, twice.
    store.delete(&key("a")).await.unwrap();
    store.delete(&key("a")).await.unwrap();
    assert!(store.get(&key("a")).await.is_err());
}

/// 12 MiB in chunks of 64 KiB that, before its last chunk, asks `stored` how many bytes of the
/// upload in progress the store already holds.
struct Watched<'a> {
    sent: usize,
    stored: &'a (dyn Fn() -> u64 + Sync),
    seen: Option<u64>,
}

const WATCHED_BYTES: usize = 12 * 1024 * 1024;
const WATCHED_CHUNK: usize = 64 * 1024;

#[async_trait]
impl ByteSource for Watched<'_> {
    async fn next_chunk(&mut self) -> Result<Option<bytes::Bytes>, SourceError> {
        if self.sent == WATCHED_BYTES {
            return Ok(None);
        }
        if self.sent + WATCHED_CHUNK == WATCHED_BYTES {
            self.seen = Some((self.stored)());
        }
        self.sent += WATCHED_CHUNK;
        Ok(Some(vec![7; WATCHED_CHUNK].into()))
    }
}

/// A put streams: parts of the object reach the store while the source still reads, so the
/// adapter never holds the whole of it (`stored` says how many bytes of the upload in progress
/// the store holds). The adapter holds two parts of `part_bytes` at most: the one being filled
/// and the one on its way to the store.
pub async fn streams_in_parts(
    store: &dyn FileStore,
    part_bytes: u64,
    stored: &(dyn Fn() -> u64 + Sync),
) {
    let mut source = Watched {
        sent: 0,
        stored,
        seen: None,
    };
    let done = store.put(&key("streamed"), &mut source).await.unwrap();
    assert_eq!(done.size, WATCHED_BYTES as u64);
    // When the last chunk was read, everything read before it but two parts was stored.
    let seen = source.seen.unwrap();
    let read = (WATCHED_BYTES - WATCHED_CHUNK) as u64;
    assert!(
        seen > 0 && seen >= read.saturating_sub(2 * part_bytes),
        "{seen} bytes stored of {read} read, in parts of {part_bytes}"
    );
    let back = read_all(store.get(&key("streamed")).await.unwrap()).await;
    assert_eq!(back.len(), WATCHED_BYTES);
    assert!(back.iter().all(|&b| b == 7));
    store.delete(&key("streamed")).await.unwrap();
}
