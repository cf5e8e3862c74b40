//! Comments on the guest page (API contract 14.1, 7.1): the guest writes through the share
//! link, and reads each visible task's thread with its authors named as the page shows them.

use super::{Author, Comments};
use crate::actor::Actor;
use crate::comment::{Comment, comment_text};
use crate::error::DomainResult;
use crate::ids::{RunId, TaskId};
use crate::service::SharedRun;
use crate::service::page_names::{member_names, shown_name};
use crate::values::ShareToken;

/// The most comments of one run the guest page shows: the newest ones.
///
/// ```
/// assert_eq!(procflow_domain::service::GUEST_PAGE_COMMENTS, 500);
/// ```
pub const GUEST_PAGE_COMMENTS: usize = 500;

/// A comment as the guest page shows it, with its author's name.
///
/// ```
/// use procflow_domain::service::{GuestComment, GuestThreads};
///
/// fn authors(threads: &GuestThreads) -> Vec<&str> {
///     threads.comments.iter().map(|shown: &GuestComment| shown.author.as_str()).collect()
/// }
/// assert!(authors(&GuestThreads::default()).is_empty());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuestComment {
    /// The comment.
    pub comment: Comment,
    /// Who wrote it, as the page names them: a member's name (their address when they have
    /// none), `Guest`, or `API`.
    pub author: String,
}

/// The comments of a shared run's visible tasks, oldest first.
///
/// ```
/// use procflow_domain::service::GuestThreads;
///
/// let threads = GuestThreads::default();
/// assert!(threads.comments.is_empty() && !threads.truncated);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GuestThreads {
    /// At most [`GUEST_PAGE_COMMENTS`], the newest, oldest first.
    pub comments: Vec<GuestComment>,
    /// Whether older comments of the run were left out.
    pub truncated: bool,
}

impl GuestThreads {
    /// The comments of one task, oldest first.
    pub fn of_task(&self, task: TaskId) -> impl Iterator<Item = &GuestComment> {
        self.comments
            .iter()
            .filter(move |shown| shown.comment.task_id == task)
    }
}

impl Comments {
    /// Writes a comment as the guest of a shared run (the guest page), on any visible task of
    /// it, theirs or not, on a completed run too: the author is the guest (with the invited
    /// email, if any), and the events and emails are those of [`add`](Self::add). A
    /// textarea's CRLF line breaks are stored as `\n`.
    ///
    /// # Errors
    /// A validation error for the text (checked first); `NotFound(Run)` alike for a wrong
    /// token, an unknown run or one no longer shared; `SubscriptionInactive` for a right link
    /// while the team's subscription is not active; `NotFound(Task)` for a task not of that
    /// run; `TaskHidden` while a rule hides the task.
    pub async fn add_as_guest(
        &self,
        run: RunId,
        token: &ShareToken,
        task: TaskId,
        text: &str,
    ) -> DomainResult<Comment> {
        let text = comment_text(&text.replace("\r\n", "\n"))?;
        let (run, share) = self.ports.runs.find_shared_run(run, token).await?;
        let author = Author {
            actor: Actor::Guest,
            email: share.guest.map(|guest| guest.email),
        };
        self.write(run.team_id, run.id, task, author, text, Vec::new())
            .await
    }

    /// The threads of the shared run's visible tasks (the newest [`GUEST_PAGE_COMMENTS`]
    /// comments of the run), each author named: a member by name, else by the address the
    /// comment was written with; the guest as `Guest`; the API as `API`.
    ///
    /// # Errors
    /// Only store failures.
    pub async fn guest_threads(&self, shared: &SharedRun) -> DomainResult<GuestThreads> {
        let (team, run) = (shared.run.team_id, shared.run.id);
        let mut comments = self
            .ports
            .comments
            .latest_run_comments(team, run, GUEST_PAGE_COMMENTS + 1)
            .await?;
        let truncated = comments.len() > GUEST_PAGE_COMMENTS;
        if truncated {
            comments.remove(0);
        }
        comments.retain(|comment| {
            shared
                .tasks
                .iter()
                .any(|task| task.id == comment.task_id && !task.hidden)
        });
        let names =
            member_names(&*self.ports.teams, team, comments.iter().map(|c| c.author)).await?;
        let comments = comments
            .into_iter()
            .map(|comment| {
                let author = shown_name(comment.author, comment.author_email.as_ref(), &names);
                GuestComment { comment, author }
            })
            .collect();
        Ok(GuestThreads {
            comments,
            truncated,
        })
    }
}
