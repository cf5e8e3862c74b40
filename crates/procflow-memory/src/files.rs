//! `FileStore` in memory: objects by key, each written whole once its source ends.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use async_trait::async_trait;
use procflow_domain::error::{DomainError, DomainResult, Resource, ValidationError};
use procflow_domain::ports::files::{
    ByteSource, FileStore, ListedObject, SourceError, StorageKey, StoredObject,
};
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

/// Objects in memory, for tests of the use cases that store files.
#[derive(Debug, Default)]
pub struct InMemoryFiles(Mutex<HashMap<StorageKey, (Vec<u8>, OffsetDateTime)>>);

/// A stored object read back in one chunk.
struct Whole(Option<bytes::Bytes>);

#[async_trait]
impl ByteSource for Whole {
    async fn next_chunk(&mut self) -> Result<Option<bytes::Bytes>, SourceError> {
        Ok(self.0.take())
    }
}

#[async_trait]
impl FileStore for InMemoryFiles {
    async fn put(&self, key: &StorageKey, body: &mut dyn ByteSource) -> DomainResult<StoredObject> {
        let mut bytes = Vec::new();
        while let Some(chunk) = body
            .next_chunk()
            .await
            .map_err(|e| DomainError::from(ValidationError::field("file", e.to_string())))?
        {
            bytes.extend_from_slice(&chunk);
        }
        let stored = StoredObject {
            size: bytes.len() as u64,
            sha256: Sha256::digest(&bytes).into(),
        };
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key.clone(), (bytes, OffsetDateTime::now_utc()));
        Ok(stored)
    }

    async fn get(&self, key: &StorageKey) -> DomainResult<Box<dyn ByteSource>> {
        let objects = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let (bytes, _) = objects
            .get(key)
            .ok_or(DomainError::NotFound(Resource::File))?;
        Ok(Box::new(Whole(Some(bytes::Bytes::from(bytes.clone())))))
    }

    async fn delete(&self, key: &StorageKey) -> DomainResult<()> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(key);
        Ok(())
    }

    async fn list(&self, prefix: &str) -> DomainResult<Vec<ListedObject>> {
        let objects = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(objects
            .iter()
            .filter(|(key, _)| {
                key.as_str()
                    .strip_prefix(prefix)
                    .is_some_and(|rest| prefix.is_empty() || rest.starts_with('/'))
            })
            .map(|(key, (_, written_at))| ListedObject {
                key: key.clone(),
                written_at: *written_at,
            })
            .collect())
    }
}
