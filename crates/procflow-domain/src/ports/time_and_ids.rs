//! The clock and the id generator every use case takes: in the domain so that tests fix the
//! time and the ids, and so that the database's precision (microseconds) is a rule here.

use time::OffsetDateTime;
use uuid::Uuid;

use crate::values::ShareToken;

/// The current time.
pub trait Clock: Send + Sync {
    /// Now, with at most microsecond precision (what the database keeps).
    fn now(&self) -> OffsetDateTime;
}

/// Fresh ids and secrets.
pub trait IdGenerator: Send + Sync {
    /// A new unique id; time-ordered (UUIDv7) so that ids sort by creation.
    fn new_id(&self) -> Uuid;

    /// A new share token of at least 128 random bits.
    fn share_token(&self) -> ShareToken;

    /// The key bytes of a new webhook signing secret: random, at least 24 bytes of entropy.
    ///
    /// By default two random (v4) UUIDs, 244 random bits; a generator with the operating
    /// system's CSPRNG at hand should give 256.
    fn secret_key(&self) -> [u8; 32] {
        let mut key = [0; 32];
        key[..16].copy_from_slice(Uuid::new_v4().as_bytes());
        key[16..].copy_from_slice(Uuid::new_v4().as_bytes());
        key
    }
}
