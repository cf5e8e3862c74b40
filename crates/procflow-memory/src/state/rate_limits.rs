//! The rate limiter's logs the store keeps.

use std::collections::HashMap;

use procflow_domain::ids::{ApiKeyId, TeamId};
use time::OffsetDateTime;

/// Each key's accepted requests, oldest first.
pub(crate) type RateLogs = HashMap<(TeamId, ApiKeyId), Vec<OffsetDateTime>>;
