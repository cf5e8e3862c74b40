//! What the rate-limit tables share: rows of one counter per second of the window
//! (`second`, the newest second counted, and `counts`, oldest first), read back into the
//! domain's [`SecondCounts`](procflow_domain::window::SecondCounts).

use procflow_domain::error::DomainResult;

use crate::rows::to_u32;

/// The counters of a row as the domain counts them; a NULL counter (never written by the
/// store) counts 0. The vector is made at its size: collected through `Result`, it grew from
/// nothing, five allocations for a minute's 60 counters on every admission.
pub(super) fn stored_counts(counts: &[Option<i32>]) -> DomainResult<Vec<u32>> {
    let mut out = Vec::with_capacity(counts.len());
    for count in counts {
        out.push(to_u32("rate-limit counter", count.unwrap_or(0))?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_minutes_counters_are_read_into_a_vector_of_their_size() {
        let stored: Vec<Option<i32>> = (0..60).map(|s| (s % 7 != 0).then_some(s)).collect();
        let counts = stored_counts(&stored).unwrap();
        let expected: Vec<u32> = (0..60).map(|s| if s % 7 == 0 { 0 } else { s }).collect();
        assert_eq!(counts, expected);
        assert_eq!(counts.capacity(), 60);
    }

    #[test]
    fn a_negative_counter_is_refused() {
        assert!(stored_counts(&[Some(1), Some(-1)]).is_err());
    }
}
