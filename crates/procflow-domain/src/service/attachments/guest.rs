//! Attachments on the guest page (API contract 14.2, 7.1): the guest uploads through the share
//! link on the tasks they may act on, lists each visible task's files with their uploaders
//! named as the page names them, and downloads the files of visible tasks of the shared run.

use super::{Attachments, Upload, refuse_hidden};
use crate::actor::Actor;
use crate::attachment::Attachment;
use crate::error::{DomainError, DomainResult, Resource};
use crate::guest;
use crate::ids::{AttachmentId, RunId, TaskId, TeamId};
use crate::ports::files::ByteSource;
use crate::run::{BareTask, Run, RunTask};
use crate::service::SharedRun;
use crate::service::page_names::{member_names, shown_name};
use crate::values::{Email, ShareToken};

/// The most attachments of one run the guest page lists: the newest ones.
///
/// ```
/// assert_eq!(procflow_domain::service::GUEST_PAGE_ATTACHMENTS, 500);
/// ```
pub const GUEST_PAGE_ATTACHMENTS: usize = 500;

/// What the guest's browser says of a file it uploads; the bytes come separately.
///
/// ```
/// use procflow_domain::service::GuestUpload;
///
/// let upload = GuestUpload { filename: Some("scan.pdf".into()), content_type: None };
/// assert_eq!(upload.filename.as_deref(), Some("scan.pdf"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GuestUpload {
    /// The filename it sent, if any (sanitised for display).
    pub filename: Option<String>,
    /// The content type it declared, if any.
    pub content_type: Option<String>,
}

/// An attachment as the guest page lists it, with its uploader's name.
///
/// ```
/// use procflow_domain::service::{GuestAttachment, GuestFiles};
///
/// fn uploaders(files: &GuestFiles) -> Vec<&str> {
///     files.attachments.iter().map(|shown: &GuestAttachment| shown.uploader.as_str()).collect()
/// }
/// assert!(uploaders(&GuestFiles::default()).is_empty());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuestAttachment {
    /// The attachment.
    pub attachment: Attachment,
    /// Who uploaded it, as the page names them: a member's name (their address when they have
    /// none), `Guest`, or `API`.
    pub uploader: String,
}

/// The attachments of a shared run's visible tasks, oldest first.
///
/// ```
/// use procflow_domain::service::GuestFiles;
///
/// let files = GuestFiles::default();
/// assert!(files.attachments.is_empty() && !files.truncated);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GuestFiles {
    /// At most [`GUEST_PAGE_ATTACHMENTS`], the newest, oldest first.
    pub attachments: Vec<GuestAttachment>,
    /// Whether older attachments of the run were left out.
    pub truncated: bool,
}

impl GuestFiles {
    /// The attachments of one task, oldest first.
    pub fn of_task(&self, task: TaskId) -> impl Iterator<Item = &GuestAttachment> {
        self.attachments
            .iter()
            .filter(move |shown| shown.attachment.task_id == task)
    }
}

/// Whether the guest may attach a file to `task` of `run` now: the task is visible, the
/// guest's to act on ([`guest::may_act`]), and the run still active (the rule of the task's
/// form: on a completed run the page offers no form).
fn refuse_guest<E>(run: &Run, guest_email: Option<&Email>, task: &RunTask<E>) -> DomainResult<()> {
    refuse_hidden(task)?;
    if !guest::may_act(guest_email, task) {
        return Err(DomainError::NotGuestsTask);
    }
    if run.is_completed() {
        return Err(DomainError::RunCompleted);
    }
    Ok(())
}

impl Attachments {
    /// Attaches the bytes of `body` to a task of a shared run as its guest (the guest page):
    /// the same storage, event (`task.attachment_added`) and rules as
    /// [`upload`](Self::upload), uploaded by [`Actor::Guest`] with the invited email, if any.
    ///
    /// The guest may attach files only where they may act: a visible task, unassigned or
    /// assigned to the guest's email, of an active run. That is checked before a byte is read,
    /// again once the bytes are stored (the link, the run's state: the upload may have taken a
    /// while), and for the task under the store's lock as the row is written; a refusal after
    /// the bytes were stored removes them.
    ///
    /// # Errors
    /// `NotFound(Run)` alike for a wrong token, an unknown run or one no longer shared;
    /// `SubscriptionInactive` for a right link while the team's subscription is not active;
    /// `NotFound(Task)` for a task not of that run; `TaskHidden` while a rule hides the task;
    /// `NotGuestsTask`; `RunCompleted`; a validation error on `file` carrying the source's
    /// reason when `body` fails.
    pub async fn upload_as_guest(
        &self,
        run: RunId,
        token: &ShareToken,
        task: TaskId,
        upload: GuestUpload,
        body: &mut dyn ByteSource,
    ) -> DomainResult<Attachment> {
        let (team, guest_email) = self.guest_may_upload(run, token, task).await?;
        let bytes = self.put_bytes(team, body).await?;
        let still = match self.ports.runs.find_shared_run(run, token).await {
            Ok((now, _)) if now.is_completed() => Err(DomainError::RunCompleted),
            Ok(_) => Ok(()),
            Err(error) => Err(error),
        };
        if let Err(refused) = still {
            let _ = self.ports.files.delete(&bytes.key).await;
            return Err(refused);
        }
        let upload = Upload {
            filename: upload.filename,
            content_type: upload.content_type,
            uploaded_by: Actor::Guest,
            uploader_email: guest_email.clone(),
        };
        let decide = |task: &BareTask| {
            refuse_hidden(task)?;
            if guest::may_act(guest_email.as_ref(), task) {
                Ok(())
            } else {
                Err(DomainError::NotGuestsTask)
            }
        };
        self.write_row(team, (run, task), bytes, upload, &decide)
            .await
    }

    /// Whether the guest of a shared run may attach a file to `task` now (the checks
    /// [`upload_as_guest`](Self::upload_as_guest) makes before a byte is read): the run's
    /// team and the guest's email when so. The guest page asks it when an upload carries no
    /// file, so that a wrong link is told apart from a missing file.
    ///
    /// # Errors
    /// As [`upload_as_guest`](Self::upload_as_guest), but the body's.
    pub async fn guest_may_upload(
        &self,
        run: RunId,
        token: &ShareToken,
        task: TaskId,
    ) -> DomainResult<(TeamId, Option<Email>)> {
        let (shared, share) = self.ports.runs.find_shared_run(run, token).await?;
        let guest_email = share.guest.map(|guest| guest.email);
        let before = self
            .ports
            .runs
            .get_task(shared.team_id, shared.id, task)
            .await?;
        refuse_guest(&shared, guest_email.as_ref(), &before)?;
        Ok((shared.team_id, guest_email))
    }

    /// The attachments of the shared run's visible tasks (the newest
    /// [`GUEST_PAGE_ATTACHMENTS`] of the run), each uploader named as the page names comment
    /// authors: a member by name, else by the address they uploaded with; the guest as
    /// `Guest`; the API as `API`.
    ///
    /// # Errors
    /// Only store failures.
    pub async fn guest_files(&self, shared: &SharedRun) -> DomainResult<GuestFiles> {
        let (team, run) = (shared.run.team_id, shared.run.id);
        let mut attachments = self
            .ports
            .attachments
            .latest_run_attachments(team, run, GUEST_PAGE_ATTACHMENTS + 1)
            .await?;
        let truncated = attachments.len() > GUEST_PAGE_ATTACHMENTS;
        if truncated {
            attachments.remove(0);
        }
        attachments.retain(|attachment| {
            shared
                .tasks
                .iter()
                .any(|task| task.id == attachment.task_id && !task.hidden)
        });
        let names = member_names(
            &*self.ports.teams,
            team,
            attachments.iter().map(|a| a.uploaded_by),
        )
        .await?;
        let attachments = attachments
            .into_iter()
            .map(|attachment| {
                let uploader = shown_name(
                    attachment.uploaded_by,
                    attachment.uploader_email.as_ref(),
                    &names,
                );
                GuestAttachment {
                    attachment,
                    uploader,
                }
            })
            .collect();
        Ok(GuestFiles {
            attachments,
            truncated,
        })
    }

    /// An attachment of a visible task of a shared run, with its bytes, for its guest.
    ///
    /// # Errors
    /// `NotFound(Run)` alike for a wrong token, an unknown run or one no longer shared;
    /// `SubscriptionInactive` for a right link while the team's subscription is not active;
    /// `NotFound(Attachment)` alike for an attachment of another team or run, of a task a rule
    /// hides, or none at all; `NotFound(File)` when its bytes are gone.
    pub async fn guest_content(
        &self,
        run: RunId,
        token: &ShareToken,
        id: AttachmentId,
    ) -> DomainResult<(Attachment, Box<dyn ByteSource>)> {
        let (shared, _) = self.ports.runs.find_shared_run(run, token).await?;
        let missing = DomainError::NotFound(Resource::Attachment);
        let attachment = self
            .ports
            .attachments
            .get_attachment(shared.team_id, id)
            .await?;
        if attachment.run_id != shared.id {
            return Err(missing);
        }
        let task = match self
            .ports
            .runs
            .get_task(shared.team_id, shared.id, attachment.task_id)
            .await
        {
            Ok(task) => task,
            Err(DomainError::NotFound(_)) => return Err(missing),
            Err(error) => return Err(error),
        };
        if task.hidden {
            return Err(missing);
        }
        let bytes = self.ports.files.get(&attachment.key()).await?;
        Ok((attachment, bytes))
    }
}
