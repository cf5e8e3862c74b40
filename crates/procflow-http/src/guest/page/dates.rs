//! Dates as the guest page shows them: a day, or a day and a time in UTC.

use time::OffsetDateTime;
use time::macros::format_description;

pub(super) fn date(at: OffsetDateTime) -> String {
    at.format(format_description!(
        "[day padding:none] [month repr:short] [year]"
    ))
    .unwrap_or_default()
}

pub(super) fn date_time(at: OffsetDateTime) -> String {
    let at = at.to_offset(time::UtcOffset::UTC);
    at.format(format_description!(
        "[day padding:none] [month repr:short] [year], [hour]:[minute] UTC"
    ))
    .unwrap_or_default()
}
