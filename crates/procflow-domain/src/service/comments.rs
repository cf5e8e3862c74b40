//! Use cases of comments on tasks (API contract 14.1): write, list, edit, delete, and the
//! events (the webhook, the emails to the assignee and the members mentioned) a new one raises.

mod guest;

use std::sync::Arc;

use crate::actor::{Actor, Assignee};
use crate::attachment::Attachment;
use crate::comment::{Comment, comment_text, mentioned_emails};
use crate::error::{DomainError, DomainResult, ValidationError};
use crate::etag::IfMatch;
use crate::event::{Event, EventPayload};
use crate::ids::{AttachmentId, CommentId, EventId, RunId, TaskId, TeamId, UserId};
use crate::ports::NewComment;
use crate::ports::{AttachmentStore, Clock, CommentStore, IdGenerator, RunStore, TeamStore};
use crate::team::Team;
use crate::values::{Email, Page, PageRequest};

pub use self::guest::{GUEST_PAGE_COMMENTS, GuestComment, GuestThreads};

/// The adapters [`Comments`] runs on.
#[derive(Clone)]
pub struct CommentPorts {
    /// The comments.
    pub comments: Arc<dyn CommentStore>,
    /// Runs and tasks, for the task's assignee and the run's guest.
    pub runs: Arc<dyn RunStore>,
    /// Members: authors and mentions.
    pub teams: Arc<dyn TeamStore>,
    /// The attachments a comment may show.
    pub attachments: Arc<dyn AttachmentStore>,
    /// The time.
    pub clock: Arc<dyn Clock>,
    /// Ids.
    pub ids: Arc<dyn IdGenerator>,
}

/// Write a comment (`POST .../tasks/:task_id/comments`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AddComment {
    /// Its text, checked by [`comment_text`].
    pub text: String,
    /// The member who writes it; the API when it names no active member.
    pub actor_email: Option<Email>,
    /// Attachments of the task to show with it (API contract 14.2).
    pub attachment_ids: Vec<AttachmentId>,
}

/// The comment use cases. Cheap to clone.
#[derive(Clone)]
pub struct Comments {
    ports: CommentPorts,
}

/// Who writes a comment, as it is stored.
#[derive(Clone, Debug)]
struct Author {
    actor: Actor,
    email: Option<Email>,
}

impl Comments {
    /// The use cases over these adapters.
    #[must_use]
    pub fn new(ports: CommentPorts) -> Self {
        Self { ports }
    }

    /// Writes a comment on a task of the team's run, on a completed run too, raising
    /// `task.comment_created` and an email to the task's assignee and to each active member
    /// it mentions, the author excepted.
    ///
    /// # Errors
    /// A validation error for the text or an attachment id; `NotFound(Run)`,
    /// `NotFound(Task)`; `TaskHidden` while a rule hides the task.
    pub async fn add(
        &self,
        team: &Team,
        run: RunId,
        task: TaskId,
        request: AddComment,
    ) -> DomainResult<Comment> {
        let text = comment_text(&request.text)?;
        let attachments = self
            .attachments_of_task(team.id, run, task, &request.attachment_ids)
            .await?;
        let author = match self
            .active_member(team.id, request.actor_email.as_ref())
            .await?
        {
            Some((user, email)) => Author {
                actor: Actor::User(user),
                email: Some(email),
            },
            None => Author {
                actor: Actor::Api,
                email: None,
            },
        };
        self.write(team.id, run, task, author, text, attachments)
            .await
    }

    async fn write(
        &self,
        team: TeamId,
        run: RunId,
        task: TaskId,
        author: Author,
        text: String,
        attachments: Vec<Attachment>,
    ) -> DomainResult<Comment> {
        let mut mentions: Vec<(UserId, Email)> = Vec::new();
        for email in mentioned_emails(&text) {
            if let Some(member) = self.active_member(team, Some(&email)).await? {
                mentions.push(member);
            }
        }
        // The assignee's address is looked up before the write; the decision uses it only
        // while the task still has that assignee.
        let before = self.ports.runs.task_assignee(team, run, task).await?;
        let assignee = match &before {
            Some(Assignee::User(user)) => self
                .ports
                .teams
                .find_member(team, *user)
                .await?
                .filter(|member| member.active)
                .map(|member| member.email),
            Some(Assignee::Email(email)) => Some(email.clone()),
            None => None,
        };
        let (clock, ids) = (&*self.ports.clock, &*self.ports.ids);
        self.ports
            .comments
            .add_comment(team, run, task, &|run_title, task| {
                if task.hidden {
                    return Err(DomainError::TaskHidden {
                        task: task.name(),
                        item: None,
                    });
                }
                let now = clock.now();
                let comment = Comment {
                    id: CommentId::from_uuid(ids.new_id()),
                    team_id: team,
                    run_id: run,
                    task_id: task.id,
                    author: author.actor,
                    author_email: author.email.clone(),
                    text: text.clone(),
                    mentions: mentions.iter().map(|(user, _)| *user).collect(),
                    attachments: attachments.clone(),
                    deleted: false,
                    created_at: now,
                    edited_at: None,
                };
                let current_assignee = (task.assignee == before)
                    .then(|| assignee.clone())
                    .flatten();
                let snapshot = comment.snapshot();
                let event = |payload| Event {
                    id: EventId::from_uuid(ids.new_id()),
                    team_id: team,
                    occurred_at: now,
                    payload,
                };
                let mut events = vec![event(EventPayload::CommentCreated {
                    comment: snapshot.clone(),
                })];
                for (email, mentioned) in recipients(&author, &mentions, current_assignee) {
                    events.push(event(EventPayload::CommentNotice {
                        comment: snapshot.clone(),
                        task_title: task.title.clone(),
                        run_title: run_title.to_owned(),
                        email,
                        mentioned,
                    }));
                }
                Ok(NewComment { comment, events })
            })
            .await
    }

    /// A page of a task's comments, oldest first, deleted ones included (without their text).
    ///
    /// # Errors
    /// `NotFound(Run)`, `NotFound(Task)`; a validation error for an unknown cursor.
    pub async fn list(
        &self,
        team: &Team,
        run: RunId,
        task: TaskId,
        page: PageRequest,
    ) -> DomainResult<Page<Comment>> {
        self.ports
            .comments
            .list_comments(team.id, run, task, page)
            .await
    }

    /// Replaces a comment's text (and so its mentions), if the comment still is what
    /// `if_match` names (checked under the store's lock). Mentions added by an edit are not
    /// emailed: only a new comment is.
    ///
    /// # Errors
    /// A validation error for the text; `NotFound(Comment)`; `PreconditionFailed` when
    /// `if_match` names no current tag; `Conflict` on a deleted comment.
    pub async fn edit(
        &self,
        team: &Team,
        id: CommentId,
        text: &str,
        if_match: Option<&IfMatch>,
    ) -> DomainResult<Comment> {
        let text = comment_text(text)?;
        let mut mentions = Vec::new();
        for email in mentioned_emails(&text) {
            if let Some((user, _)) = self.active_member(team.id, Some(&email)).await? {
                mentions.push(user);
            }
        }
        let clock = &*self.ports.clock;
        self.ports
            .comments
            .update_comment(team.id, id, &|comment| {
                if let Some(condition) = if_match {
                    condition.check(comment)?;
                }
                comment.edited(text.clone(), mentions.clone(), clock.now())
            })
            .await
    }

    /// Deletes a comment: it stays in its thread as deleted, its text gone. Deleting it again
    /// changes nothing.
    ///
    /// # Errors
    /// `NotFound(Comment)`.
    pub async fn delete(&self, team: &Team, id: CommentId) -> DomainResult<Comment> {
        let clock = &*self.ports.clock;
        self.ports
            .comments
            .update_comment(team.id, id, &|comment| Ok(comment.deleted_at(clock.now())))
            .await
    }

    /// The attachments of the task that `ids` name, each once, in the order named.
    async fn attachments_of_task(
        &self,
        team: TeamId,
        run: RunId,
        task: TaskId,
        ids: &[AttachmentId],
    ) -> DomainResult<Vec<Attachment>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let found = self.ports.attachments.find_attachments(team, ids).await?;
        let mut kept: Vec<Attachment> = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let Some(attachment) = found
                .iter()
                .find(|a| a.id == *id && a.run_id == run && a.task_id == task)
            else {
                return Err(ValidationError::field(
                    format!("attachment_ids[{i}]"),
                    format!("no attachment of this task has id {id}"),
                )
                .into());
            };
            if !kept.iter().any(|a| a.id == *id) {
                kept.push(attachment.clone());
            }
        }
        Ok(kept)
    }

    async fn active_member(
        &self,
        team: TeamId,
        email: Option<&Email>,
    ) -> DomainResult<Option<(UserId, Email)>> {
        let Some(email) = email else {
            return Ok(None);
        };
        Ok(self
            .ports
            .teams
            .find_member_by_email(team, email)
            .await?
            .filter(|member| member.active)
            .map(|member| (member.id, member.email)))
    }
}

/// Who is emailed about a new comment, each once: the members mentioned (`true`), then the
/// task's assignee (`false`) unless mentioned already; never the author.
fn recipients(
    author: &Author,
    mentions: &[(UserId, Email)],
    assignee: Option<Email>,
) -> Vec<(Email, bool)> {
    let is_author = |user: Option<UserId>, email: &Email| {
        user.is_some_and(|user| author.actor == Actor::User(user))
            || author.email.as_ref() == Some(email)
    };
    let mut found: Vec<(Email, bool)> = Vec::new();
    for (user, email) in mentions {
        if !is_author(Some(*user), email) && !found.iter().any(|(e, _)| e == email) {
            found.push((email.clone(), true));
        }
    }
    if let Some(email) = assignee
        && !is_author(None, &email)
        && !found.iter().any(|(e, _)| *e == email)
    {
        found.push((email, false));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn email(text: &str) -> Email {
        text.parse().unwrap()
    }

    #[test]
    fn the_author_is_never_a_recipient_and_nobody_is_told_twice() {
        let ada = (
            UserId::from_uuid(uuid::Uuid::from_u128(1)),
            email("ada@x.org"),
        );
        let bob = (
            UserId::from_uuid(uuid::Uuid::from_u128(2)),
            email("bob@x.org"),
        );
        let author = Author {
            actor: Actor::User(ada.0),
            email: Some(ada.1.clone()),
        };
        let found = recipients(&author, &[ada.clone(), bob.clone()], Some(bob.1.clone()));
        assert_eq!(found, [(bob.1.clone(), true)]);
        let found = recipients(&author, &[], Some(ada.1.clone()));
        assert!(found.is_empty());
        let guest = Author {
            actor: Actor::Guest,
            email: Some(email("guest@y.org")),
        };
        assert!(recipients(&guest, &[], Some(email("guest@y.org"))).is_empty());
        assert_eq!(
            recipients(&guest, &[], Some(bob.1.clone())),
            [(bob.1, false)]
        );
    }
}
