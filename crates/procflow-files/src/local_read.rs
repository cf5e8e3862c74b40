//! Reading a stored file of the local directory in large chunks.
//!
//! object_store streams a local file in chunks of 8 KiB, each read on a blocking thread of its
//! own: a 10 MiB download was 1,280 hand-overs between threads, and served at 0.38 of a plain
//! file server's speed (`make bench`, row F1). One read of 256 KiB per hand-over brings the
//! hand-overs down 32-fold, at 256 KiB of memory per download in flight.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;

use async_trait::async_trait;
use procflow_domain::ports::files::{ByteSource, SourceError};

/// Bytes read per hand-over to a blocking thread.
const CHUNK: u64 = 256 * 1024;

/// The bytes `range` of an open file, read as they are asked for.
pub(crate) struct FileReading {
    file: Option<File>,
    left: u64,
}

impl FileReading {
    /// Positions the file at the range's start once (a seek does not block); each read then
    /// goes on from where the last one stopped.
    pub(crate) fn new(mut file: File, range: Range<u64>) -> std::io::Result<Self> {
        file.seek(SeekFrom::Start(range.start))?;
        Ok(Self {
            file: Some(file),
            left: range.end.saturating_sub(range.start),
        })
    }
}

#[async_trait]
impl ByteSource for FileReading {
    async fn next_chunk(&mut self) -> Result<Option<bytes::Bytes>, SourceError> {
        if self.left == 0 {
            return Ok(None);
        }
        let Some(mut file) = self.file.take() else {
            return Err(SourceError(
                "the stored file was given up after an error".into(),
            ));
        };
        let len = self.left.min(CHUNK);
        let read = tokio::task::spawn_blocking(move || {
            // Read into capacity that is not zeroed first: a zeroed allocation of this size
            // made the allocator hand out fresh pages, one page fault each.
            let mut buffer = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
            (&mut file).take(len).read_to_end(&mut buffer)?;
            if buffer.len() as u64 != len {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            Ok::<_, std::io::Error>((file, buffer))
        })
        .await
        .map_err(|e| SourceError(format!("cannot read the stored file: {e}")))?
        .map_err(|e| SourceError(format!("cannot read the stored file: {e}")))?;
        let (file, buffer) = read;
        self.file = Some(file);
        self.left -= len;
        Ok(Some(bytes::Bytes::from(buffer)))
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    fn file_of(bytes: &[u8]) -> File {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(bytes).unwrap();
        file
    }

    async fn read_all(mut reading: FileReading) -> (Vec<u8>, usize) {
        let (mut all, mut chunks) = (Vec::new(), 0);
        while let Some(chunk) = reading.next_chunk().await.unwrap() {
            assert!(chunk.len() as u64 <= CHUNK);
            all.extend_from_slice(&chunk);
            chunks += 1;
        }
        (all, chunks)
    }

    #[tokio::test]
    async fn a_file_over_several_chunks_reads_back_whole_and_a_range_reads_only_itself() {
        let bytes: Vec<u8> = (0..600 * 1024).map(|n| (n % 251) as u8).collect();
        let (all, chunks) =
            read_all(FileReading::new(file_of(&bytes), 0..bytes.len() as u64).unwrap()).await;
        assert_eq!(all, bytes);
        assert_eq!(chunks, 3, "256 + 256 + 88 KiB");
        let (part, _) = read_all(FileReading::new(file_of(&bytes), 1000..300_000).unwrap()).await;
        assert_eq!(part, bytes[1000..300_000]);
    }

    #[tokio::test]
    async fn a_file_shorter_than_its_range_is_an_error_not_a_short_read() {
        let mut reading = FileReading::new(file_of(b"short"), 0..10).unwrap();
        assert!(reading.next_chunk().await.is_err());
        assert!(
            reading.next_chunk().await.is_err(),
            "given up after the error"
        );
    }
}
