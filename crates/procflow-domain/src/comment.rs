//! Comments on a run's tasks (API contract 14.1): plain text, never HTML, with `@email`
//! mentions of the team's active members. A deleted comment stays in its thread, its text gone.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::actor::Actor;
use crate::attachment::Attachment;
use crate::error::ValidationError;
use crate::etag::Tagged;
use crate::ids::{CommentId, RunId, TaskId, TeamId, UserId};
use crate::values::Email;

/// The longest comment, in characters.
pub const MAX_COMMENT_CHARS: usize = 10_000;

/// The longest excerpt an event or an email carries, in characters.
pub const EXCERPT_CHARS: usize = 200;

/// A comment's text, checked: 1 to [`MAX_COMMENT_CHARS`] characters, not blank, no NUL.
///
/// ```
/// use procflow_domain::comment::comment_text;
///
/// assert_eq!(comment_text("See clause 4").unwrap(), "See clause 4");
/// assert!(comment_text("  ").is_err());
/// assert!(comment_text("a\0b").is_err());
/// ```
///
/// # Errors
/// A validation error on `text` naming what is wrong.
pub fn comment_text(text: &str) -> Result<String, ValidationError> {
    if text.trim().is_empty() {
        return Err(ValidationError::field("text", "must not be empty or blank"));
    }
    if text.contains('\0') {
        return Err(ValidationError::field(
            "text",
            "must not contain NUL characters",
        ));
    }
    let chars = text.chars().count();
    if chars > MAX_COMMENT_CHARS {
        return Err(ValidationError::field(
            "text",
            format!("is {chars} characters long; at most {MAX_COMMENT_CHARS} are allowed"),
        ));
    }
    Ok(text.to_owned())
}

/// The addresses written as `@<email>` in `text`, each once, in the order they first appear.
/// An `@` counts only at the start or after a space or an opening bracket; punctuation that
/// ends a sentence is not part of the address.
///
/// ```
/// use procflow_domain::comment::mentioned_emails;
///
/// let found = mentioned_emails("@Ada@example.org, please check (cc @bob@example.org).");
/// let found: Vec<&str> = found.iter().map(|e| e.as_str()).collect();
/// assert_eq!(found, ["ada@example.org", "bob@example.org"]);
/// assert!(mentioned_emails("mail me at x@example.org").is_empty());
/// ```
#[must_use]
pub fn mentioned_emails(text: &str) -> Vec<Email> {
    let mut found: Vec<Email> = Vec::new();
    let mut previous: Option<char> = None;
    for (at, c) in text.char_indices() {
        let starts = c == '@' && previous.is_none_or(|p| p.is_whitespace() || "([{<".contains(p));
        previous = Some(c);
        if !starts {
            continue;
        }
        let rest = &text[at + 1..];
        let end = rest
            .find(|c: char| c.is_whitespace() || "()[]{}<>,;\"'".contains(c))
            .unwrap_or(rest.len());
        let word = rest[..end].trim_end_matches(['.', ':', '!', '?']);
        if let Ok(email) = word.parse::<Email>()
            && !found.contains(&email)
        {
            found.push(email);
        }
    }
    found
}

/// At most [`EXCERPT_CHARS`] characters of `text`, ending with `…` when cut.
///
/// ```
/// use procflow_domain::comment::excerpt;
///
/// assert_eq!(excerpt("short"), "short");
/// assert_eq!(excerpt(&"x".repeat(300)).chars().count(), 200);
/// ```
#[must_use]
pub fn excerpt(text: &str) -> String {
    if text.chars().count() <= EXCERPT_CHARS {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(EXCERPT_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// A comment on a task. Its `ETag` is the fingerprint of the whole value, so an edit or a
/// deletion changes it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Comment {
    /// Its id (time-ordered: a thread is in id order).
    pub id: CommentId,
    /// Its team.
    pub team_id: TeamId,
    /// The run of its task.
    pub run_id: RunId,
    /// Its task.
    pub task_id: TaskId,
    /// Who wrote it: a member, the API, or the run's guest.
    pub author: Actor,
    /// The author's address when it was written (a member's, or the invited guest's).
    pub author_email: Option<Email>,
    /// Its text; empty once deleted.
    pub text: String,
    /// The active members it mentions; empty once deleted.
    pub mentions: Vec<UserId>,
    /// The attachments of its task it shows (API contract 14.2), in the order named; one
    /// deleted since is no longer among them.
    pub attachments: Vec<Attachment>,
    /// Whether it was deleted (it stays in the thread).
    pub deleted: bool,
    /// When it was written.
    pub created_at: OffsetDateTime,
    /// When its text last changed (an edit or its deletion).
    pub edited_at: Option<OffsetDateTime>,
}

impl Tagged for Comment {}

impl Comment {
    /// The comment with a new text and mentions, at `now`.
    ///
    /// # Errors
    /// [`crate::DomainError::Conflict`] on a deleted comment: there is nothing to edit.
    pub fn edited(
        &self,
        text: String,
        mentions: Vec<UserId>,
        now: OffsetDateTime,
    ) -> crate::DomainResult<Self> {
        if self.deleted {
            return Err(crate::DomainError::Conflict(format!(
                "comment {} is deleted: it cannot be edited",
                self.id
            )));
        }
        Ok(Self {
            text,
            mentions,
            edited_at: Some(now),
            ..self.clone()
        })
    }

    /// The comment deleted at `now`: its text and mentions gone, its place in the thread kept.
    /// Deleting a deleted comment changes nothing.
    #[must_use]
    pub fn deleted_at(&self, now: OffsetDateTime) -> Self {
        if self.deleted {
            return self.clone();
        }
        Self {
            text: String::new(),
            mentions: Vec::new(),
            deleted: true,
            edited_at: Some(now),
            ..self.clone()
        }
    }

    /// What events carry of it.
    #[must_use]
    pub fn snapshot(&self) -> CommentSnapshot {
        CommentSnapshot {
            id: self.id,
            run_id: self.run_id,
            task_id: self.task_id,
            author: self.author,
            author_email: self.author_email.clone(),
            text_excerpt: excerpt(&self.text),
        }
    }
}

/// A comment as its events carry it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommentSnapshot {
    /// The comment.
    pub id: CommentId,
    /// The run of its task.
    pub run_id: RunId,
    /// Its task.
    pub task_id: TaskId,
    /// Who wrote it.
    pub author: Actor,
    /// The author's address, when known.
    pub author_email: Option<Email>,
    /// At most [`EXCERPT_CHARS`] characters of its text.
    pub text_excerpt: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_refused_past_the_limit_and_kept_at_it() {
        assert!(comment_text(&"é".repeat(MAX_COMMENT_CHARS)).is_ok());
        let error = comment_text(&"é".repeat(MAX_COMMENT_CHARS + 1)).unwrap_err();
        assert!(error.to_string().contains("10001"), "{error}");
    }

    #[test]
    fn mentions_ignore_addresses_without_an_at_in_front_and_repeats() {
        let found = mentioned_emails("@a@example.org @A@EXAMPLE.org x@b.org @not-an-email @");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].as_str(), "a@example.org");
    }

    #[test]
    fn an_excerpt_cuts_on_characters_not_bytes() {
        let text = "é".repeat(500);
        let cut = excerpt(&text);
        assert_eq!(cut.chars().count(), EXCERPT_CHARS);
        assert!(cut.ends_with('…'));
    }
}
