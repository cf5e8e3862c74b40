//! What the rate-limit tables share: rows of one counter per second of the window
//! (`second`, the newest second counted, and `counts`, oldest first), read back into the
//! domain's [`SecondCounts`](procflow_domain::window::SecondCounts).

use procflow_domain::error::DomainResult;

use crate::rows::to_u32;

/// The counters of a row as the domain counts them; a NULL counter (never written by the
/// store) counts 0.
pub(super) fn stored_counts(counts: &[Option<i32>]) -> DomainResult<Vec<u32>> {
    counts
        .iter()
        .map(|count| to_u32("rate-limit counter", count.unwrap_or(0)))
        .collect()
}
