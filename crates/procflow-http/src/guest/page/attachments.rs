//! One attachment as the page lists it: its filename as text (the template escapes it), its
//! size in a human form, who uploaded it and when; the link to its bytes is built from its id
//! alone, never from its name.

use procflow_domain::actor::Actor;
use procflow_domain::service::GuestAttachment;
use time::format_description::well_known::Rfc3339;

use super::dates::date_time;
use crate::guest::markup::Markup;

pub(super) struct AttachmentView<'a> {
    /// Its id as the page writes it, in its anchor and its link.
    pub(super) id: Markup,
    pub(super) filename: &'a str,
    pub(super) size: String,
    pub(super) uploader: &'a str,
    pub(super) by_guest: bool,
    pub(super) iso: String,
    pub(super) when: String,
}

impl<'a> AttachmentView<'a> {
    pub(super) fn new(shown: &'a GuestAttachment) -> Self {
        let attachment = &shown.attachment;
        Self {
            id: Markup::id(attachment.id.as_uuid()),
            filename: &attachment.filename,
            size: human_size(attachment.size),
            uploader: &shown.uploader,
            by_guest: attachment.uploaded_by == Actor::Guest,
            iso: attachment.created_at.format(&Rfc3339).unwrap_or_default(),
            when: date_time(attachment.created_at),
        }
    }
}

/// `bytes` as a person reads a file's size: `512 bytes`, `1.5 KB`, `25 MB` (units of 1,024,
/// as file managers show them; one decimal below 10).
pub(crate) fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    match bytes {
        1 => return "1 byte".to_owned(),
        0..1024 => return format!("{bytes} bytes"),
        _ => {}
    }
    let (mut unit, mut scale) = (0, 1024u64);
    while unit + 1 < UNITS.len() && bytes / scale >= 1024 {
        unit += 1;
        scale *= 1024;
    }
    let tenths = u128::from(bytes) * 10 / u128::from(scale);
    if tenths < 100 {
        format!("{}.{} {}", tenths / 10, tenths % 10, UNITS[unit])
    } else {
        let whole = (u128::from(bytes) + u128::from(scale / 2)) / u128::from(scale);
        format!("{whole} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::human_size;

    #[test]
    fn sizes_read_as_a_file_manager_shows_them() {
        for (bytes, shown) in [
            (0, "0 bytes"),
            (1, "1 byte"),
            (1023, "1023 bytes"),
            (1024, "1.0 KB"),
            (1536, "1.5 KB"),
            (200_000, "195 KB"),
            (25 * 1024 * 1024, "25 MB"),
            (3 * 1024 * 1024 * 1024 / 2, "1.5 GB"),
            (u64::MAX, "16777216 TB"),
        ] {
            assert_eq!(human_size(bytes), shown, "{bytes}");
        }
    }
}
