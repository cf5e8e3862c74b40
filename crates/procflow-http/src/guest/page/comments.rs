//! One comment as the page shows it: its author, when it was written, and its text as plain
//! text (the template escapes it; the stylesheet keeps its line breaks), or that it was
//! deleted.

use procflow_domain::actor::Actor;
use procflow_domain::service::GuestComment;
use time::format_description::well_known::Rfc3339;

use super::dates::date_time;
use crate::guest::markup::Markup;

pub(super) struct CommentView<'a> {
    /// Its id as the page writes it, in its anchor.
    pub(super) id: Markup,
    pub(super) author: &'a str,
    pub(super) by_guest: bool,
    pub(super) iso: String,
    pub(super) when: String,
    pub(super) edited: bool,
    pub(super) deleted: bool,
    pub(super) text: &'a str,
}

impl<'a> CommentView<'a> {
    pub(super) fn new(shown: &'a GuestComment) -> Self {
        let comment = &shown.comment;
        Self {
            id: Markup::id(comment.id.as_uuid()),
            author: &shown.author,
            by_guest: comment.author == Actor::Guest,
            iso: comment.created_at.format(&Rfc3339).unwrap_or_default(),
            when: date_time(comment.created_at),
            edited: comment.edited_at.is_some() && !comment.deleted,
            deleted: comment.deleted,
            text: &comment.text,
        }
    }
}
