//! Dates as the guest page shows them: a day, or a day and a time, both in UTC, so that a
//! task completed at 23:30 UTC shows the day its time says, whatever offset the value came with.

use time::macros::format_description;
use time::{OffsetDateTime, UtcOffset};

pub(super) fn date(at: OffsetDateTime) -> String {
    at.to_offset(UtcOffset::UTC)
        .format(format_description!(
            "[day padding:none] [month repr:short] [year]"
        ))
        .unwrap_or_default()
}

pub(super) fn date_time(at: OffsetDateTime) -> String {
    at.to_offset(UtcOffset::UTC)
        .format(format_description!(
            "[day padding:none] [month repr:short] [year], [hour]:[minute] UTC"
        ))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    #[test]
    fn a_day_and_a_time_are_read_in_utc_whatever_the_offset() {
        // 23:30 UTC on the 1st, carried with an offset that puts it on the 2nd.
        let at = datetime!(2026-01-02 09:30 +10:00);
        assert_eq!(date(at), "1 Jan 2026");
        assert_eq!(date_time(at), "1 Jan 2026, 23:30 UTC");
    }

    #[test]
    fn a_utc_value_is_shown_as_it_is() {
        let at = datetime!(2026-11-29 07:05 UTC);
        assert_eq!(date(at), "29 Nov 2026");
        assert_eq!(date_time(at), "29 Nov 2026, 07:05 UTC");
    }
}
