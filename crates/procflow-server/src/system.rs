//! The production clock and id generator: the system time and the operating system's CSPRNG.

use procflow_domain::ports::{Clock, IdGenerator};
use procflow_domain::values::ShareToken;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

/// The system time in UTC, truncated to microseconds: what PostgreSQL keeps, so a value reads
/// back equal to what was written.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> OffsetDateTime {
        truncate_to_micros(OffsetDateTime::now_utc())
    }
}

fn truncate_to_micros(at: OffsetDateTime) -> OffsetDateTime {
    at - Duration::nanoseconds(i64::from(at.nanosecond() % 1_000))
}

/// Ids are UUIDv7 (time-ordered); share tokens are 256 random bits, base64url.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomIds;

/// Random bytes in a share token.
const SHARE_TOKEN_BYTES: usize = 32;

impl IdGenerator for RandomIds {
    fn new_id(&self) -> Uuid {
        Uuid::now_v7()
    }

    #[expect(
        clippy::expect_used,
        reason = "without the OS CSPRNG no safe token can be made; uuid's generator panics alike"
    )]
    fn share_token(&self) -> ShareToken {
        ShareToken::new(
            procflow_http::keys::random_token(SHARE_TOKEN_BYTES)
                .expect("the operating system's random number generator failed"),
        )
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    #[test]
    fn the_clock_keeps_microseconds_only() {
        assert_eq!(
            truncate_to_micros(datetime!(2026-03-01 9:00:00.123_456_789 UTC)),
            datetime!(2026-03-01 9:00:00.123_456 UTC)
        );
        let now = SystemClock.now();
        assert_eq!(now.nanosecond() % 1_000, 0);
        assert_eq!(now.offset(), time::UtcOffset::UTC);
    }

    #[test]
    fn ids_are_time_ordered_v7_and_tokens_are_long_and_random() {
        let (a, b) = (RandomIds.new_id(), RandomIds.new_id());
        assert_eq!(a.get_version_num(), 7);
        assert!(a < b);
        let (x, y) = (RandomIds.share_token(), RandomIds.share_token());
        assert_ne!(x, y);
        assert_eq!(x.expose().len(), 43);
        assert!(
            x.expose()
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
    }
}
