//! The pages of every outcome but the run itself: the one 404 page, and the answers to a post
//! that cannot be applied (someone else's task, a completed run, too many posts, ...).

use askama::Template;

use super::style::CSS;

/// A page of a heading, a few sentences and, where it helps, a link back to the run.
#[derive(Template)]
#[template(path = "guest/message.html")]
pub(crate) struct Message {
    css: &'static str,
    heading: &'static str,
    paragraphs: Vec<String>,
    back: Option<String>,
}

impl Message {
    fn new(heading: &'static str, paragraphs: &[&'static str], back: Option<String>) -> Self {
        Self {
            css: CSS,
            heading,
            paragraphs: paragraphs.iter().map(|p| (*p).to_owned()).collect(),
            back,
        }
    }

    /// A post on a task a rule hides now (the page no longer shows it).
    pub(crate) fn task_hidden(back: Option<String>) -> Self {
        Self::new(
            "This task is not part of the run now",
            &["An answer in the run leaves it out. Nothing was changed."],
            back,
        )
    }

    /// Completing or approving a task that waits for others.
    pub(crate) fn task_blocked(waiting_for: &[String], back: Option<String>) -> Self {
        let mut message = Self::new("This task is waiting for other tasks", &[], back);
        message.paragraphs = vec![
            format!(
                "It can be completed once these are done: {}.",
                waiting_for.join(", ")
            ),
            "Nothing was changed.".to_owned(),
        ];
        message
    }

    /// The one page of a wrong or void link: it says nothing of what exists.
    pub(crate) fn not_found() -> Self {
        Self::new(
            "This link does not work",
            &[
                "The link may be incomplete, or the run is no longer shared.",
                "Ask the person who sent it to you for a new link.",
            ],
            None,
        )
    }

    /// A right link to a run whose team has no active subscription.
    pub(crate) fn not_available() -> Self {
        Self::new(
            "This run is not available right now",
            &[
                "The team that shared it cannot use procflow at the moment. Nothing was changed.",
                "Ask the team, or try the link again later.",
            ],
            None,
        )
    }

    /// A post on a task assigned to someone else.
    pub(crate) fn not_yours(back: Option<String>) -> Self {
        Self::new(
            "This task is not yours to change",
            &["It is assigned to someone else. Nothing was changed."],
            back,
        )
    }

    /// A post on a task of a completed run.
    pub(crate) fn run_completed(back: Option<String>) -> Self {
        Self::new(
            "This run is completed",
            &["Its tasks can no longer change. Nothing was changed."],
            back,
        )
    }

    /// A post the state machine refuses outright (a decision on a task that takes none).
    pub(crate) fn refused(back: Option<String>) -> Self {
        Self::new(
            "This change cannot be made",
            &["The task does not take this action. Nothing was changed."],
            back,
        )
    }

    /// A body that is no web form, or cannot be read.
    pub(crate) fn unreadable(back: Option<String>) -> Self {
        Self::new(
            "The form could not be read",
            &["Nothing was changed. Go back to the run and try again."],
            back,
        )
    }

    /// A body over the size limit.
    pub(crate) fn too_large(back: Option<String>) -> Self {
        Self::new(
            "What you sent is too large",
            &["Nothing was changed. Shorten the longest entries and try again."],
            back,
        )
    }

    /// An upload without a file (the file input left empty) or whose file part cannot be read.
    pub(crate) fn no_file(back: Option<String>) -> Self {
        Self::new(
            "No file was received",
            &["Choose a file with the file input, then press Attach. Nothing was attached."],
            back,
        )
    }

    /// An upload over the size limit; `max` is the limit as a person reads it.
    pub(crate) fn file_too_large(max: &str, back: Option<String>) -> Self {
        let mut message = Self::new("This file is too large", &[], back);
        message.paragraphs = vec![
            format!("Files of up to {max} can be attached. Nothing was attached."),
            "Send a smaller file, or split it in parts.".to_owned(),
        ];
        message
    }

    /// Over the post limits.
    pub(crate) fn too_many(back: Option<String>) -> Self {
        Self::new(
            "Too many changes at once",
            &["Nothing was changed. Wait a minute, then try again."],
            back,
        )
    }

    /// The database cannot be reached.
    pub(crate) fn unavailable() -> Self {
        Self::new(
            "The page is not available right now",
            &["Nothing was changed. Try again in a minute."],
            None,
        )
    }

    /// Anything unexpected; the cause is in the log.
    pub(crate) fn failed() -> Self {
        Self::new(
            "Something went wrong on our side",
            &[
                "Try again in a few minutes. If it keeps happening, tell the person who shared this link with you.",
            ],
            None,
        )
    }
}
