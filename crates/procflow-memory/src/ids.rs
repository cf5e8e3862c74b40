//! Ids that count up, so tests can predict and order them.

use std::sync::atomic::{AtomicU64, Ordering};

use uuid::Uuid;

use procflow_domain::ports::IdGenerator;
use procflow_domain::values::ShareToken;

/// An [`IdGenerator`] handing out 1, 2, 3, ... as UUIDs (increasing, like UUIDv7) and
/// `token-1`, `token-2`, ... as share tokens.
#[derive(Debug, Default)]
pub struct SequentialIds(AtomicU64);

impl IdGenerator for SequentialIds {
    fn new_id(&self) -> Uuid {
        Uuid::from_u128(u128::from(self.0.fetch_add(1, Ordering::Relaxed) + 1))
    }

    fn share_token(&self) -> ShareToken {
        ShareToken::new(format!(
            "token-{}",
            self.0.fetch_add(1, Ordering::Relaxed) + 1
        ))
    }

    /// The next count in every byte: distinct, predictable.
    fn secret_key(&self) -> [u8; 32] {
        let n = self.0.fetch_add(1, Ordering::Relaxed) + 1;
        [n.to_le_bytes()[0]; 32]
    }
}
