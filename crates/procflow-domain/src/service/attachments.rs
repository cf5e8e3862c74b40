//! Use cases of files attached to tasks (API contract 14.2): upload (bytes first, then the row
//! and its event), list, read back, delete; and the sweep of bytes whose row never committed.

use std::sync::Arc;

use crate::actor::Actor;
use crate::attachment::{Attachment, declared_content_type, display_filename};
use crate::error::{DomainError, DomainResult};
use crate::event::{Event, EventPayload};
use crate::ids::{AttachmentId, EventId, RunId, TaskId, TeamId};
use crate::ports::NewAttachment;
use crate::ports::files::{ByteSource, FileStore, StorageKey, StoredObject};
use crate::ports::{AttachmentStore, Clock, IdGenerator, RunStore, TeamStore};
use crate::run::{BareTask, RunTask};
use crate::team::Team;
use crate::values::{Email, Page, PageRequest};

mod guest;
mod sweep;

pub use guest::{GUEST_PAGE_ATTACHMENTS, GuestAttachment, GuestFiles, GuestUpload};
pub use sweep::{SWEEP_GRACE, Swept};

/// The adapters [`Attachments`] runs on.
#[derive(Clone)]
pub struct AttachmentPorts {
    /// The rows.
    pub attachments: Arc<dyn AttachmentStore>,
    /// The bytes.
    pub files: Arc<dyn FileStore>,
    /// Runs and tasks: a missing or hidden task is refused before any byte is stored.
    pub runs: Arc<dyn RunStore>,
    /// Members: the uploaders the guest page names.
    pub teams: Arc<dyn TeamStore>,
    /// The time.
    pub clock: Arc<dyn Clock>,
    /// Ids.
    pub ids: Arc<dyn IdGenerator>,
}

/// What a client says of a file it uploads; the bytes come separately.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upload {
    /// The filename it sent, if any (sanitised by [`display_filename`]).
    pub filename: Option<String>,
    /// The content type it declared, if any ([`declared_content_type`]).
    pub content_type: Option<String>,
    /// Who uploads it.
    pub uploaded_by: Actor,
    /// The uploader's address, if known.
    pub uploader_email: Option<Email>,
}

/// The attachment use cases. Cheap to clone.
#[derive(Clone)]
pub struct Attachments {
    ports: AttachmentPorts,
}

impl Attachments {
    /// The use cases over these adapters.
    #[must_use]
    pub fn new(ports: AttachmentPorts) -> Self {
        Self { ports }
    }

    /// Attaches the bytes of `body` to a task of the team's run, on a completed run too. The
    /// bytes are stored first under a key of ours; only then is the row written, with
    /// `task.attachment_added`, in one transaction. When `body` fails (the client went away,
    /// or it passed a limit) nothing is stored and no row written; when the row cannot be
    /// written the bytes are removed again (and the sweep removes them should that fail too).
    ///
    /// # Errors
    /// `NotFound(Run)`, `NotFound(Task)`; `TaskHidden` while a rule hides the task; a
    /// validation error on `file` carrying the source's reason when `body` fails.
    pub async fn upload(
        &self,
        team: &Team,
        run: RunId,
        task: TaskId,
        upload: Upload,
        body: &mut dyn ByteSource,
    ) -> DomainResult<Attachment> {
        let team = team.id;
        // Refused before a byte is read: the answer does not depend on the body.
        let before = self.ports.runs.get_task(team, run, task).await?;
        refuse_hidden(&before)?;
        let bytes = self.put_bytes(team, body).await?;
        self.write_row(team, (run, task), bytes, upload, &refuse_hidden::<()>)
            .await
    }

    /// Stores the bytes of `body` under a new attachment id and a key of ours. When `body`
    /// fails (the client went away, or it passed a limit) the store keeps nothing.
    async fn put_bytes(&self, team: TeamId, body: &mut dyn ByteSource) -> DomainResult<Bytes> {
        let id = AttachmentId::from_uuid(self.ports.ids.new_id());
        let key = StorageKey::of_file(team, id.as_uuid());
        let stored = self.ports.files.put(&key, body).await?;
        Ok(Bytes { id, key, stored })
    }

    /// Writes the row of stored `bytes` with its event, `decide` checking the task as it is
    /// under the store's lock. When the row cannot be written the bytes are removed again (and
    /// the sweep removes them should that fail too).
    async fn write_row(
        &self,
        team: TeamId,
        (run, task): (RunId, TaskId),
        bytes: Bytes,
        upload: Upload,
        decide: &(dyn Fn(&BareTask) -> DomainResult<()> + Send + Sync),
    ) -> DomainResult<Attachment> {
        let Bytes { id, key, stored } = bytes;
        let filename = display_filename(upload.filename.as_deref().unwrap_or_default());
        let content_type = declared_content_type(upload.content_type.as_deref());
        let (clock, ids) = (&*self.ports.clock, &*self.ports.ids);
        let written = self
            .ports
            .attachments
            .add_attachment(team, run, task, &|task| {
                decide(task)?;
                let now = clock.now();
                let attachment = Attachment {
                    id,
                    team_id: team,
                    run_id: run,
                    task_id: task.id,
                    filename: filename.clone(),
                    content_type: content_type.clone(),
                    size: stored.size,
                    sha256: stored.sha256,
                    uploaded_by: upload.uploaded_by,
                    uploader_email: upload.uploader_email.clone(),
                    created_at: now,
                };
                let event = Event {
                    id: EventId::from_uuid(ids.new_id()),
                    team_id: team,
                    occurred_at: now,
                    payload: EventPayload::AttachmentAdded {
                        attachment: attachment.snapshot(),
                    },
                };
                Ok(NewAttachment {
                    attachment,
                    events: vec![event],
                })
            })
            .await;
        if written.is_err() {
            // Best effort: what stays behind is the sweep's.
            let _ = self.ports.files.delete(&key).await;
        }
        written
    }

    /// A page of a task's attachments, oldest first.
    ///
    /// # Errors
    /// `NotFound(Run)`, `NotFound(Task)`; a validation error for an unknown cursor.
    pub async fn list(
        &self,
        team: &Team,
        run: RunId,
        task: TaskId,
        page: PageRequest,
    ) -> DomainResult<Page<Attachment>> {
        self.ports
            .attachments
            .list_attachments(team.id, run, task, page)
            .await
    }

    /// One attachment of the team.
    ///
    /// # Errors
    /// `NotFound(Attachment)`.
    pub async fn get(&self, team: TeamId, id: AttachmentId) -> DomainResult<Attachment> {
        self.ports.attachments.get_attachment(team, id).await
    }

    /// An attachment with its bytes, read as they are asked for.
    ///
    /// # Errors
    /// `NotFound(Attachment)`; `NotFound(File)` when its bytes are gone (a store that lost
    /// them).
    pub async fn content(
        &self,
        team: TeamId,
        id: AttachmentId,
    ) -> DomainResult<(Attachment, Box<dyn ByteSource>)> {
        let attachment = self.get(team, id).await?;
        let bytes = self.ports.files.get(&attachment.key()).await?;
        Ok((attachment, bytes))
    }

    /// Deletes an attachment: its row, then its bytes (a failure to remove them leaves them
    /// to the sweep, as no row names them any more). Comments that showed it no longer do.
    ///
    /// # Errors
    /// `NotFound(Attachment)`.
    pub async fn delete(&self, team: TeamId, id: AttachmentId) -> DomainResult<()> {
        let gone = self.ports.attachments.delete_attachment(team, id).await?;
        let _ = self.ports.files.delete(&gone.key()).await;
        Ok(())
    }
}

/// Bytes stored for an attachment whose row is not written yet.
struct Bytes {
    id: AttachmentId,
    key: StorageKey,
    stored: StoredObject,
}

fn refuse_hidden<E>(task: &RunTask<E>) -> DomainResult<()> {
    if task.hidden {
        return Err(DomainError::TaskHidden {
            task: task.name(),
            item: None,
        });
    }
    Ok(())
}
