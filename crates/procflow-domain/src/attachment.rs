//! Files attached to a run's tasks (API contract 14.2). The bytes live in the file store under
//! a key of ours ([`StorageKey::of_file`]); the row keeps what a reader is shown: a filename
//! for display only, the content type the uploader declared, the size and the SHA-256.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::actor::Actor;
use crate::ids::{AttachmentId, RunId, TaskId, TeamId};
use crate::ports::files::StorageKey;
use crate::values::Email;

/// The longest filename kept, in characters (longer ones keep their end, the extension).
pub const MAX_FILENAME_CHARS: usize = 255;

/// The name shown for a file whose own name leaves nothing once sanitised.
pub const UNNAMED: &str = "file";

/// The filename a client sent, made fit for display: only its last path part (after any `/`
/// or `\`), without control characters, trimmed, at most [`MAX_FILENAME_CHARS`] characters;
/// never empty, `.` or `..` ([`UNNAMED`] instead). It is never used to name stored bytes.
///
/// ```
/// use procflow_domain::attachment::display_filename;
///
/// assert_eq!(display_filename("../../etc/passwd"), "passwd");
/// assert_eq!(display_filename("C:\\Users\\ada\\contract.pdf"), "contract.pdf");
/// assert_eq!(display_filename("a\u{0}b\nc.txt"), "abc.txt");
/// assert_eq!(display_filename("dir/"), "file");
/// assert_eq!(display_filename(".."), "file");
/// ```
#[must_use]
pub fn display_filename(raw: &str) -> String {
    let last = raw.rsplit(['/', '\\']).next().unwrap_or_default();
    let clean: String = last.chars().filter(|c| !c.is_control()).collect();
    let clean = clean.trim();
    if clean.is_empty() || clean == "." || clean == ".." {
        return UNNAMED.to_owned();
    }
    let count = clean.chars().count();
    if count <= MAX_FILENAME_CHARS {
        return clean.to_owned();
    }
    clean.chars().skip(count - MAX_FILENAME_CHARS).collect()
}

/// The content type a client declared, kept when it looks like `type/subtype` (parameters
/// dropped, lower-cased), else `application/octet-stream`. What is served is decided again at
/// download time from a short safe list.
///
/// ```
/// use procflow_domain::attachment::declared_content_type;
///
/// assert_eq!(declared_content_type(Some("Image/PNG")), "image/png");
/// assert_eq!(declared_content_type(Some("text/plain; charset=utf-8")), "text/plain");
/// assert_eq!(declared_content_type(Some("nonsense")), "application/octet-stream");
/// assert_eq!(declared_content_type(None), "application/octet-stream");
/// ```
#[must_use]
pub fn declared_content_type(raw: Option<&str>) -> String {
    const FALLBACK: &str = "application/octet-stream";
    let Some(raw) = raw else {
        return FALLBACK.to_owned();
    };
    let essence = raw.split(';').next().unwrap_or_default().trim();
    let token = |part: &str| {
        !part.is_empty()
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
    };
    match essence.split_once('/') {
        Some((kind, sub)) if token(kind) && token(sub) && essence.len() <= 255 => {
            essence.to_ascii_lowercase()
        }
        _ => FALLBACK.to_owned(),
    }
}

/// A file attached to a task. Its bytes are under [`Attachment::key`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Attachment {
    /// Its id (time-ordered: a task's attachments are listed in id order).
    pub id: AttachmentId,
    /// Its team.
    pub team_id: TeamId,
    /// The run of its task.
    pub run_id: RunId,
    /// Its task.
    pub task_id: TaskId,
    /// For display only, as [`display_filename`] made it.
    pub filename: String,
    /// As the uploader declared it ([`declared_content_type`]).
    pub content_type: String,
    /// Its size in bytes.
    pub size: u64,
    /// The SHA-256 of its bytes.
    pub sha256: [u8; 32],
    /// Who uploaded it: a member, the API, or the run's guest.
    pub uploaded_by: Actor,
    /// The uploader's address when it was uploaded, if known.
    pub uploader_email: Option<Email>,
    /// When its row was written (after its bytes were stored).
    pub created_at: OffsetDateTime,
}

impl Attachment {
    /// Where its bytes are.
    #[must_use]
    pub fn key(&self) -> StorageKey {
        StorageKey::of_file(self.team_id, self.id.as_uuid())
    }

    /// The SHA-256 in lower-case hex.
    #[must_use]
    pub fn sha256_hex(&self) -> String {
        hex::encode(self.sha256)
    }

    /// What its event carries.
    #[must_use]
    pub fn snapshot(&self) -> AttachmentSnapshot {
        AttachmentSnapshot {
            id: self.id,
            run_id: self.run_id,
            task_id: self.task_id,
            filename: self.filename.clone(),
            size: self.size,
        }
    }
}

/// An attachment as `task.attachment_added` carries it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttachmentSnapshot {
    /// The attachment.
    pub id: AttachmentId,
    /// The run of its task.
    pub run_id: RunId,
    /// Its task.
    pub task_id: TaskId,
    /// Its display name.
    pub filename: String,
    /// Its size in bytes.
    pub size: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_name_keeps_its_end_and_a_blank_one_becomes_file() {
        let long = format!("{}.pdf", "a".repeat(400));
        let kept = display_filename(&long);
        assert_eq!(kept.chars().count(), MAX_FILENAME_CHARS);
        assert!(kept.ends_with(".pdf"));
        assert_eq!(display_filename("  \t "), UNNAMED);
        assert_eq!(display_filename(""), UNNAMED);
        assert_eq!(display_filename("x/\u{7f}"), UNNAMED);
    }

    #[test]
    fn markup_in_a_name_is_kept_as_text_for_the_reader_to_escape() {
        assert_eq!(
            display_filename("<script>alert(1)<\\script>.png"),
            "script>.png"
        );
        assert_eq!(display_filename("<b>x</b>.png"), "b>.png");
    }
}
