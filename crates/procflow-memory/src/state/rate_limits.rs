//! The rate limiter's counts the store keeps.

use std::collections::HashMap;

use procflow_domain::ids::{ApiKeyId, TeamId};
use procflow_domain::window::SecondCounts;

/// Each key's accepted requests, one counter per second of the window.
pub(crate) type RateLogs = HashMap<(TeamId, ApiKeyId), SecondCounts>;
