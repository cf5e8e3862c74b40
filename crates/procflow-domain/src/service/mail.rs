//! Use cases of emails: turning outbox events into the messages they call for (beside the
//! webhook fan-out, from the same outbox), and raising the notices whose time has come.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Arc;

use crate::actor::{Actor, Assignee};
use crate::error::{DomainError, DomainResult};
use crate::event::{Event, EventPayload};
use crate::ids::{EmailId, EventId, RunId, TeamId};
use crate::mail::{DueNotice, MailComment, MailContent, MailKind, NewMail};
use crate::ports::{Clock, IdGenerator, MailQueue, NoticeStore, RunStore, TeamStore};
use crate::run::TaskSnapshot;
use crate::sharing::{Share, share_url};
use crate::team::Team;
use crate::values::Email;

/// The adapters [`Mailer`] runs on.
#[derive(Clone)]
pub struct MailPorts {
    /// The emails to send.
    pub queue: Arc<dyn MailQueue>,
    /// Reminders and overdue tasks.
    pub notices: Arc<dyn NoticeStore>,
    /// Teams (the sender's name, share links) and members (their addresses).
    pub teams: Arc<dyn TeamStore>,
    /// Shares, for the links and the guest's address.
    pub runs: Arc<dyn RunStore>,
    /// The time.
    pub clock: Arc<dyn Clock>,
    /// Ids.
    pub ids: Arc<dyn IdGenerator>,
}

/// The email use cases. Cheap to clone.
#[derive(Clone)]
pub struct Mailer {
    ports: MailPorts,
}

/// What fan-out reads once per team and run while it goes through a batch of events.
#[derive(Default)]
struct Lookups {
    teams: HashMap<TeamId, Team>,
    shares: HashMap<(TeamId, RunId), Option<Share>>,
}

impl Mailer {
    /// The use cases over these adapters.
    #[must_use]
    pub fn new(ports: MailPorts) -> Self {
        Self { ports }
    }

    /// The adapters.
    #[must_use]
    pub fn ports(&self) -> &MailPorts {
        &self.ports
    }

    /// Queues the emails `events` call for: a guest's invitation and reminder, a task's
    /// assignment, overdue and ready-to-start notices, and a schedule's failure (one to each
    /// active admin of the team). Safe to repeat (the queue keeps one email per event and
    /// recipient).
    /// Answers how many were queued.
    ///
    /// # Errors
    /// Store failures; the events are then fanned out again when their lease runs out.
    pub async fn fan_out(&self, events: &[Event]) -> DomainResult<usize> {
        let mut lookups = Lookups::default();
        let mut mails = Vec::new();
        for event in events {
            if let EventPayload::ScheduleFailed { .. } = &event.payload {
                mails.extend(self.admin_mails(event, &mut lookups).await?);
            } else if let Some(mail) = self.mail_for(event, &mut lookups).await? {
                mails.push(mail);
            }
        }
        if !mails.is_empty() {
            self.ports.queue.enqueue_mail(&mails).await?;
        }
        Ok(mails.len())
    }

    async fn mail_for(
        &self,
        event: &Event,
        lookups: &mut Lookups,
    ) -> DomainResult<Option<NewMail>> {
        let team = event.team_id;
        if let EventPayload::CommentNotice {
            comment,
            task_title,
            run_title,
            email,
            mentioned,
        } = &event.payload
        {
            let link = self
                .guest_link(team, comment.run_id, email, lookups)
                .await?;
            let team = self.team(team, lookups).await?;
            return Ok(Some(NewMail {
                id: EmailId::from_uuid(self.ports.ids.new_id()),
                team_id: event.team_id,
                event_id: event.id,
                kind: MailKind::TaskComment,
                recipient: email.clone(),
                content: MailContent {
                    team_name: team.name.clone(),
                    run_title: run_title.clone(),
                    task_title: Some(task_title.clone()),
                    due_date: None,
                    share_url: link,
                    problem: None,
                    comment: Some(MailComment {
                        author: comment.author_email.as_ref().map_or_else(
                            || match comment.author {
                                Actor::Guest => "The guest".to_owned(),
                                _ => "Someone, through the API,".to_owned(),
                            },
                            ToString::to_string,
                        ),
                        excerpt: comment.text_excerpt.clone(),
                        mentioned: *mentioned,
                    }),
                },
                created_at: self.ports.clock.now(),
            }));
        }
        let (kind, recipient, run_title, task, share_url) = match &event.payload {
            EventPayload::GuestInvited {
                run_title,
                email,
                share_url,
                ..
            } => (
                MailKind::GuestInvitation,
                email.clone(),
                run_title,
                None,
                Some(share_url.clone()),
            ),
            EventPayload::GuestReminderDue {
                run_id,
                run_title,
                email,
                ..
            } => {
                // Sent only while the run is still shared with this guest.
                let Some(link) = self.guest_link(team, *run_id, email, lookups).await? else {
                    return Ok(None);
                };
                (
                    MailKind::GuestReminder,
                    email.clone(),
                    run_title,
                    None,
                    Some(link),
                )
            }
            EventPayload::TaskAssigned {
                task,
                run_title,
                email,
            } => {
                let Some(recipient) = self.assignee_email(team, task, email.as_ref()).await? else {
                    return Ok(None);
                };
                let link = self
                    .guest_link(team, task.instance_id, &recipient, lookups)
                    .await?;
                (
                    MailKind::TaskAssigned,
                    recipient,
                    run_title,
                    Some(task),
                    link,
                )
            }
            EventPayload::TaskOverdue { task, run_title }
            | EventPayload::TaskUnblocked { task, run_title } => {
                let Some(recipient) = self.assignee_email(team, task, None).await? else {
                    return Ok(None);
                };
                let link = self
                    .guest_link(team, task.instance_id, &recipient, lookups)
                    .await?;
                let kind = match &event.payload {
                    EventPayload::TaskUnblocked { .. } => MailKind::TaskReady,
                    _ => MailKind::TaskOverdue,
                };
                (kind, recipient, run_title, Some(task), link)
            }
            _ => return Ok(None),
        };
        let team = self.team(team, lookups).await?;
        Ok(Some(NewMail {
            id: EmailId::from_uuid(self.ports.ids.new_id()),
            team_id: event.team_id,
            event_id: event.id,
            kind,
            recipient,
            content: MailContent {
                team_name: team.name.clone(),
                run_title: run_title.clone(),
                task_title: task.map(|task| task.title.clone()),
                due_date: task.and_then(|task| task.due_date),
                share_url,
                comment: None,
                problem: None,
            },
            created_at: self.ports.clock.now(),
        }))
    }

    /// A schedule's failure, told to each active admin of the team (none when it has none).
    async fn admin_mails(
        &self,
        event: &Event,
        lookups: &mut Lookups,
    ) -> DomainResult<Vec<NewMail>> {
        let EventPayload::ScheduleFailed {
            schedule_id,
            schedule_name,
            occurrence_at,
            code,
            message,
            ..
        } = &event.payload
        else {
            return Ok(Vec::new());
        };
        let admins = self.ports.teams.active_admins(event.team_id).await?;
        if admins.is_empty() {
            return Ok(Vec::new());
        }
        let team = self.team(event.team_id, lookups).await?;
        let content = MailContent {
            team_name: team.name.clone(),
            run_title: schedule_name
                .clone()
                .unwrap_or_else(|| format!("schedule {schedule_id}")),
            task_title: None,
            due_date: Some(*occurrence_at),
            share_url: None,
            problem: Some(format!("{message} ({code})")),
            comment: None,
        };
        let now = self.ports.clock.now();
        Ok(admins
            .into_iter()
            .map(|admin| NewMail {
                id: EmailId::from_uuid(self.ports.ids.new_id()),
                team_id: event.team_id,
                event_id: event.id,
                kind: MailKind::ScheduleFailed,
                recipient: admin.email,
                content: content.clone(),
                created_at: now,
            })
            .collect())
    }

    /// Where a task's notice goes: the address the event names, the external assignee's, or
    /// the member's (while active).
    async fn assignee_email(
        &self,
        team: TeamId,
        task: &TaskSnapshot,
        named: Option<&Email>,
    ) -> DomainResult<Option<Email>> {
        match (&task.assignee, named) {
            (None, _) => Ok(None),
            (Some(_), Some(email)) | (Some(Assignee::Email(email)), None) => {
                Ok(Some(email.clone()))
            }
            (Some(Assignee::User(user)), None) => Ok(self
                .ports
                .teams
                .find_member(team, *user)
                .await?
                .filter(|member| member.active)
                .map(|member| member.email)),
        }
    }

    /// A new share link, when `email` is the run's invited guest and the run is still shared.
    async fn guest_link(
        &self,
        team: TeamId,
        run: RunId,
        email: &Email,
        lookups: &mut Lookups,
    ) -> DomainResult<Option<String>> {
        if let Entry::Vacant(slot) = lookups.shares.entry((team, run)) {
            let share = match self.ports.runs.get_share(team, run).await {
                Ok(share) => share,
                Err(DomainError::NotFound(_)) => None,
                Err(error) => return Err(error),
            };
            slot.insert(share);
        }
        let Some(Some(share)) = lookups.shares.get(&(team, run)).cloned() else {
            return Ok(None);
        };
        if share
            .guest
            .as_ref()
            .is_none_or(|guest| &guest.email != email)
        {
            return Ok(None);
        }
        // The server keeps only the digests of the run's links: each email gets a link of its
        // own, which opens the run as the others do until sharing is turned off.
        let token = self.ports.ids.share_token();
        if !self
            .ports
            .runs
            .add_share_link(team, run, &token, self.ports.clock.now())
            .await?
        {
            return Ok(None);
        }
        let base = self.team(team, lookups).await?.base_url.clone();
        Ok(Some(share_url(&base, run, &token)))
    }

    async fn team<'a>(&self, id: TeamId, lookups: &'a mut Lookups) -> DomainResult<&'a Team> {
        Ok(match lookups.teams.entry(id) {
            Entry::Occupied(known) => known.into_mut(),
            Entry::Vacant(slot) => slot.insert(self.ports.teams.get_team(id).await?),
        })
    }

    /// Raises the events of up to `limit` notices due now (reminders, overdue tasks), each
    /// once however many instances run this at the same time. A completed run's guest is not
    /// reminded. Answers how many notices were taken.
    ///
    /// # Errors
    /// Store failures.
    pub async fn raise_due_notices(&self, limit: usize) -> DomainResult<usize> {
        let now = self.ports.clock.now();
        let ids = &*self.ports.ids;
        let event = |team_id, payload| Event {
            id: EventId::from_uuid(ids.new_id()),
            team_id,
            occurred_at: now,
            payload,
        };
        self.ports
            .notices
            .take_due_notices(now, limit, &|notice| match notice {
                DueNotice::Reminder {
                    run_active: false, ..
                } => None,
                DueNotice::Reminder {
                    team_id,
                    run_id,
                    run_title,
                    guest_id,
                    email,
                    ..
                } => Some(event(
                    *team_id,
                    EventPayload::GuestReminderDue {
                        run_id: *run_id,
                        run_title: run_title.clone(),
                        guest_id: *guest_id,
                        email: email.clone(),
                    },
                )),
                DueNotice::Overdue {
                    team_id,
                    run_title,
                    task,
                } => Some(event(
                    *team_id,
                    EventPayload::TaskOverdue {
                        task: task.snapshot(),
                        run_title: run_title.clone(),
                    },
                )),
            })
            .await
    }
}
