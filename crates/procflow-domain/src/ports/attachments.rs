//! The rows of files attached to runs' tasks (API contract 14.2); their bytes are the
//! [`FileStore`](super::FileStore)'s.

use async_trait::async_trait;

use crate::attachment::Attachment;
use crate::error::DomainResult;
use crate::event::Event;
use crate::ids::{AttachmentId, RunId, TaskId, TeamId};
use crate::run::BareTask;
use crate::values::{Page, PageRequest};

/// An attachment to store, with the events it raises: written in one transaction.
#[derive(Clone, Debug, PartialEq)]
pub struct NewAttachment {
    /// The attachment.
    pub attachment: Attachment,
    /// `task.attachment_added`.
    pub events: Vec<Event>,
}

/// Decides a new attachment's row from the task as it is when the row is written.
pub type AttachmentDecision<'a> =
    dyn Fn(&BareTask) -> DomainResult<NewAttachment> + Send + Sync + 'a;

/// Attachments of a team's run tasks.
#[async_trait]
pub trait AttachmentStore: Send + Sync {
    /// Writes the attachment `decide` makes of the task, with its events, in one transaction;
    /// the task is read so that no change of it (hiding it) can commit between the decision
    /// and the write. Nothing is written when `decide` refuses.
    ///
    /// # Errors
    /// `NotFound(Run)` for a missing or other team's run, `NotFound(Task)` for a task not of
    /// that run; whatever `decide` answers.
    async fn add_attachment(
        &self,
        team: TeamId,
        run: RunId,
        task: TaskId,
        decide: &AttachmentDecision<'_>,
    ) -> DomainResult<Attachment>;

    /// A page of a task's attachments, oldest first (by id).
    ///
    /// # Errors
    /// `NotFound` as for [`add_attachment`](Self::add_attachment); an unknown cursor (one that
    /// names no attachment of the task) as a validation error.
    async fn list_attachments(
        &self,
        team: TeamId,
        run: RunId,
        task: TaskId,
        page: PageRequest,
    ) -> DomainResult<Page<Attachment>>;

    /// The newest `limit` attachments of the run's tasks (every task's, hidden ones' too),
    /// oldest first (by id): the guest page's file lists, in one read.
    ///
    /// # Errors
    /// Only store failures; a run with no attachments, or none of the team's, answers an empty
    /// list.
    async fn latest_run_attachments(
        &self,
        team: TeamId,
        run: RunId,
        limit: usize,
    ) -> DomainResult<Vec<Attachment>>;

    /// One attachment.
    ///
    /// # Errors
    /// `NotFound(Attachment)` for a missing or other team's attachment.
    async fn get_attachment(&self, team: TeamId, id: AttachmentId) -> DomainResult<Attachment>;

    /// The team's attachments among `ids` that exist, in id order; the others are left out.
    ///
    /// # Errors
    /// Store failures only.
    async fn find_attachments(
        &self,
        team: TeamId,
        ids: &[AttachmentId],
    ) -> DomainResult<Vec<Attachment>>;

    /// Removes an attachment's row and answers what it was; its bytes are the caller's to
    /// remove afterwards.
    ///
    /// # Errors
    /// `NotFound(Attachment)` as for [`get_attachment`](Self::get_attachment).
    async fn delete_attachment(&self, team: TeamId, id: AttachmentId) -> DomainResult<Attachment>;
}
