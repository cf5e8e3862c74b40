//! The comments of runs' tasks (API contract 14.1).

use async_trait::async_trait;

use crate::comment::Comment;
use crate::error::DomainResult;
use crate::event::Event;
use crate::ids::{CommentId, RunId, TaskId, TeamId};
use crate::run::BareTask;
use crate::values::{Page, PageRequest};

/// A comment to store, with the events it raises: written in one transaction.
#[derive(Clone, Debug, PartialEq)]
pub struct NewComment {
    /// The comment.
    pub comment: Comment,
    /// `task.comment_created`, and one notice per email to send.
    pub events: Vec<Event>,
}

/// Decides a new comment from the run's title and the task as they are when it is written.
pub type CommentDecision<'a> =
    dyn Fn(&str, &BareTask) -> DomainResult<NewComment> + Send + Sync + 'a;

/// Decides a comment's new state (an edit, its deletion) from its current one.
pub type CommentEdit<'a> = dyn Fn(&Comment) -> DomainResult<Comment> + Send + Sync + 'a;

/// Comments of a team's run tasks.
#[async_trait]
pub trait CommentStore: Send + Sync {
    /// Writes the comment `decide` makes of the run's title and the task, with its events, in
    /// one transaction; the task is read so that no change of it (hiding it) can commit
    /// between the decision and the write. Nothing is written when `decide` refuses.
    ///
    /// # Errors
    /// `NotFound(Run)` for a missing or other team's run, `NotFound(Task)` for a task not of
    /// that run; whatever `decide` answers.
    async fn add_comment(
        &self,
        team: TeamId,
        run: RunId,
        task: TaskId,
        decide: &CommentDecision<'_>,
    ) -> DomainResult<Comment>;

    /// A page of a task's comments, oldest first (by id), deleted ones included.
    ///
    /// # Errors
    /// `NotFound` as for [`add_comment`](Self::add_comment); an unknown cursor (one that names
    /// no comment of the task) as a validation error.
    async fn list_comments(
        &self,
        team: TeamId,
        run: RunId,
        task: TaskId,
        page: PageRequest,
    ) -> DomainResult<Page<Comment>>;

    /// The newest `limit` comments of the run's tasks (every task's, hidden ones' too), oldest
    /// first (by id), deleted ones included: the guest page's threads, in one read.
    ///
    /// # Errors
    /// Only store failures; a run with no comments, or none of the team's, answers an empty
    /// list.
    async fn latest_run_comments(
        &self,
        team: TeamId,
        run: RunId,
        limit: usize,
    ) -> DomainResult<Vec<Comment>>;

    /// One comment.
    ///
    /// # Errors
    /// `NotFound(Comment)` for a missing or other team's comment.
    async fn get_comment(&self, team: TeamId, id: CommentId) -> DomainResult<Comment>;

    /// Replaces a comment by what `decide` makes of it, under a lock on it, and returns the
    /// new state. Nothing is written when `decide` refuses or changes nothing.
    ///
    /// # Errors
    /// `NotFound(Comment)` as for [`get_comment`](Self::get_comment); whatever `decide`
    /// answers.
    async fn update_comment(
        &self,
        team: TeamId,
        id: CommentId,
        decide: &CommentEdit<'_>,
    ) -> DomainResult<Comment>;
}
