//! The envelope every webhook and every item of the event feed is (API contract 8.2), built
//! from the domain events the outbox holds.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::WebhookEvent;
use crate::actor::{Actor, Assignee};
use crate::event::{Event, EventPayload};
use crate::ids::{
    AttachmentId, CommentId, EventId, RunId, ScheduleId, SectionId, TaskId, TemplateId,
    TemplateTaskId, UserId,
};
use crate::values::Email;

/// `{id, event, timestamp, test, data}`: `id` is the event's, the same for every endpoint,
/// attempt and redelivery.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope {
    /// The event's id (`webhook-id`).
    pub id: EventId,
    /// Its name.
    pub event: WebhookEvent,
    /// When it happened.
    #[serde(with = "time::serde::rfc3339")]
    pub timestamp: OffsetDateTime,
    /// Whether it is a sample sent by `POST /webhooks/:id/test`.
    pub test: bool,
    /// What the event carries.
    pub data: EnvelopeData,
}

/// Who started a run or completed a task: `{user_id, email, is_guest}`, with a null id and
/// email for `api`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Person {
    /// The member's user id.
    pub user_id: Option<UserId>,
    /// The member's or the guest's email.
    pub email: Option<Email>,
    /// Whether the guest acted, through the share link.
    pub is_guest: bool,
}

/// The data of each event (API contract 8.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EnvelopeData {
    /// `process_run.created`.
    RunCreated {
        /// The run.
        instance_id: RunId,
        /// Its template.
        template_id: TemplateId,
        /// Its title.
        title: String,
        /// Who started it.
        started_by: Person,
        /// When.
        #[serde(with = "time::serde::rfc3339")]
        started_at: OffsetDateTime,
        /// When it is due.
        #[serde(with = "time::serde::rfc3339::option")]
        due_date: Option<OffsetDateTime>,
        /// Whether link sharing is on.
        is_shared: bool,
        /// How many tasks it has.
        task_count: u32,
    },
    /// `process_run.completed`.
    RunCompleted {
        /// The run.
        instance_id: RunId,
        /// Its template.
        template_id: TemplateId,
        /// Its title.
        title: String,
        /// Who started it.
        started_by: Person,
        /// When.
        #[serde(with = "time::serde::rfc3339")]
        started_at: OffsetDateTime,
        /// When its last open task closed.
        #[serde(with = "time::serde::rfc3339")]
        completed_at: OffsetDateTime,
    },
    /// `process_step.completed`.
    StepCompleted {
        /// The task.
        task_id: TaskId,
        /// Its run.
        instance_id: RunId,
        /// The template task it was copied from.
        template_task_id: TemplateTaskId,
        /// Its section.
        section_id: SectionId,
        /// Its title.
        title: String,
        /// When it was completed.
        #[serde(with = "time::serde::rfc3339")]
        completed_at: OffsetDateTime,
        /// Who completed it.
        completed_by: Person,
    },
    /// `process_step.unblocked`.
    StepUnblocked {
        /// The task.
        task_id: TaskId,
        /// Its run.
        instance_id: RunId,
        /// The template task it was copied from.
        template_task_id: TemplateTaskId,
        /// Its title.
        title: String,
        /// Its assignee: a member's user id, the email of someone outside the team, or null.
        assignee: Option<Assignee>,
    },
    /// `task.comment_created`.
    CommentCreated {
        /// The comment.
        comment_id: CommentId,
        /// Its task.
        task_id: TaskId,
        /// The task's run.
        instance_id: RunId,
        /// Who wrote it.
        author: Person,
        /// At most 200 characters of its text.
        text_excerpt: String,
    },
    /// `task.attachment_added` (API contract 14.2).
    AttachmentAdded {
        /// The attachment.
        attachment_id: AttachmentId,
        /// Its task.
        task_id: TaskId,
        /// The task's run.
        instance_id: RunId,
        /// Its display name.
        filename: String,
        /// Its size in bytes.
        size: u64,
    },
    /// `schedule.failed` (API contract 13.1).
    ScheduleFailed {
        /// The schedule.
        schedule_id: ScheduleId,
        /// The template it starts runs from.
        template_id: TemplateId,
        /// The occurrence that started no run.
        #[serde(with = "time::serde::rfc3339")]
        occurrence_at: OffsetDateTime,
        /// The error code (`last_error.code`).
        code: String,
        /// What went wrong (`last_error.message`).
        message: String,
    },
}

/// The webhook event a domain event is, if any: runs created and completed, completions of
/// tasks with `webhook_enabled` (other task completions raise no webhook), tasks unblocked,
/// and schedules' failed occurrences.
#[must_use]
pub fn webhook_event(payload: &EventPayload) -> Option<WebhookEvent> {
    match payload {
        EventPayload::RunCreated { .. } => Some(WebhookEvent::RunCreated),
        EventPayload::RunCompleted { .. } => Some(WebhookEvent::RunCompleted),
        EventPayload::TaskCompleted { task } if task.webhook_enabled => {
            Some(WebhookEvent::StepCompleted)
        }
        EventPayload::TaskUnblocked { .. } => Some(WebhookEvent::StepUnblocked),
        EventPayload::CommentCreated { .. } => Some(WebhookEvent::CommentCreated),
        EventPayload::ScheduleFailed { .. } => Some(WebhookEvent::ScheduleFailed),
        EventPayload::AttachmentAdded { .. } => Some(WebhookEvent::AttachmentAdded),
        _ => None,
    }
}

/// The emails an envelope names, looked up when it is built: the events carry only who acted
/// ([`Actor`]), and a member's email or the run's guest is read from the store.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct People {
    /// Members' emails by user id.
    pub members: HashMap<UserId, Email>,
    /// The invited guest's email by run.
    pub guests: HashMap<RunId, Email>,
}

impl People {
    /// Who to look up for `event`: the member who acted, or the run whose guest acted.
    #[must_use]
    pub fn needed(payload: &EventPayload) -> (Option<UserId>, Option<RunId>) {
        let actor = match payload {
            EventPayload::RunCreated { run, .. } | EventPayload::RunCompleted { run } => {
                Some(run.started_by)
            }
            EventPayload::TaskCompleted { task } => task.completed_by,
            _ => None,
        };
        match actor {
            Some(Actor::User(user)) => (Some(user), None),
            Some(Actor::Guest) => (None, payload.run_id()),
            Some(Actor::Api) | None => (None, None),
        }
    }

    fn person(&self, actor: Option<Actor>, run: RunId) -> Person {
        match actor {
            Some(Actor::User(user)) => Person {
                user_id: Some(user),
                email: self.members.get(&user).cloned(),
                is_guest: false,
            },
            Some(Actor::Guest) => Person {
                user_id: None,
                email: self.guests.get(&run).cloned(),
                is_guest: true,
            },
            Some(Actor::Api) | None => Person {
                user_id: None,
                email: None,
                is_guest: false,
            },
        }
    }
}

impl Envelope {
    /// The envelope of a domain event, with the emails of `people`; `None` for events that
    /// are not webhooks.
    #[must_use]
    pub fn of(event: &Event, people: &People) -> Option<Self> {
        let name = webhook_event(&event.payload)?;
        let data = match &event.payload {
            EventPayload::RunCreated { run, task_count } => EnvelopeData::RunCreated {
                instance_id: run.id,
                template_id: run.template_id,
                title: run.title.clone(),
                started_by: people.person(Some(run.started_by), run.id),
                started_at: run.created_at,
                due_date: run.due_date,
                is_shared: run.is_shared,
                task_count: *task_count,
            },
            EventPayload::RunCompleted { run } => EnvelopeData::RunCompleted {
                instance_id: run.id,
                template_id: run.template_id,
                title: run.title.clone(),
                started_by: people.person(Some(run.started_by), run.id),
                started_at: run.created_at,
                completed_at: run.completed_at.unwrap_or(event.occurred_at),
            },
            EventPayload::TaskCompleted { task } => EnvelopeData::StepCompleted {
                task_id: task.id,
                instance_id: task.instance_id,
                template_task_id: task.template_task_id,
                section_id: task.section_id,
                title: task.title.clone(),
                completed_at: task.completed_at.unwrap_or(event.occurred_at),
                completed_by: people.person(task.completed_by, task.instance_id),
            },
            EventPayload::TaskUnblocked { task, .. } => EnvelopeData::StepUnblocked {
                task_id: task.id,
                instance_id: task.instance_id,
                template_task_id: task.template_task_id,
                title: task.title.clone(),
                assignee: task.assignee.clone(),
            },
            EventPayload::CommentCreated { comment } => EnvelopeData::CommentCreated {
                comment_id: comment.id,
                task_id: comment.task_id,
                instance_id: comment.run_id,
                // The comment keeps its author's address: nothing to look up.
                author: Person {
                    user_id: comment.author.user(),
                    email: comment.author_email.clone(),
                    is_guest: comment.author == Actor::Guest,
                },
                text_excerpt: comment.text_excerpt.clone(),
            },
            EventPayload::AttachmentAdded { attachment } => EnvelopeData::AttachmentAdded {
                attachment_id: attachment.id,
                task_id: attachment.task_id,
                instance_id: attachment.run_id,
                filename: attachment.filename.clone(),
                size: attachment.size,
            },
            EventPayload::ScheduleFailed {
                schedule_id,
                template_id,
                occurrence_at,
                code,
                message,
                ..
            } => EnvelopeData::ScheduleFailed {
                schedule_id: *schedule_id,
                template_id: *template_id,
                occurrence_at: *occurrence_at,
                code: code.clone(),
                message: message.clone(),
            },
            _ => return None,
        };
        Some(Self {
            id: event.id,
            event: name,
            timestamp: event.occurred_at,
            test: false,
            data,
        })
    }

    /// A sample of `event` with `test: true`, as `POST /webhooks/:id/test` sends it: made-up
    /// ids (nil UUIDs), a run titled "Sample run", started by the API.
    #[must_use]
    pub fn sample(event: WebhookEvent, id: EventId, now: OffsetDateTime) -> Self {
        let nil = uuid::Uuid::nil();
        let api = Person {
            user_id: None,
            email: None,
            is_guest: false,
        };
        let title = "Sample run".to_owned();
        let data = match event {
            WebhookEvent::RunCreated => EnvelopeData::RunCreated {
                instance_id: RunId::from_uuid(nil),
                template_id: TemplateId::from_uuid(nil),
                title,
                started_by: api,
                started_at: now,
                due_date: None,
                is_shared: false,
                task_count: 1,
            },
            WebhookEvent::RunCompleted => EnvelopeData::RunCompleted {
                instance_id: RunId::from_uuid(nil),
                template_id: TemplateId::from_uuid(nil),
                title,
                started_by: api,
                started_at: now,
                completed_at: now,
            },
            WebhookEvent::StepCompleted => EnvelopeData::StepCompleted {
                task_id: TaskId::from_uuid(nil),
                instance_id: RunId::from_uuid(nil),
                template_task_id: TemplateTaskId::from_uuid(nil),
                section_id: SectionId::from_uuid(nil),
                title: "Sample task".to_owned(),
                completed_at: now,
                completed_by: api,
            },
            WebhookEvent::StepUnblocked => EnvelopeData::StepUnblocked {
                task_id: TaskId::from_uuid(nil),
                instance_id: RunId::from_uuid(nil),
                template_task_id: TemplateTaskId::from_uuid(nil),
                title: "Sample task".to_owned(),
                assignee: None,
            },
            WebhookEvent::CommentCreated => EnvelopeData::CommentCreated {
                comment_id: CommentId::from_uuid(nil),
                task_id: TaskId::from_uuid(nil),
                instance_id: RunId::from_uuid(nil),
                author: api,
                text_excerpt: "A sample comment".to_owned(),
            },
            WebhookEvent::AttachmentAdded => EnvelopeData::AttachmentAdded {
                attachment_id: AttachmentId::from_uuid(nil),
                task_id: TaskId::from_uuid(nil),
                instance_id: RunId::from_uuid(nil),
                filename: "sample.pdf".to_owned(),
                size: 1024,
            },
            WebhookEvent::ScheduleFailed => EnvelopeData::ScheduleFailed {
                schedule_id: ScheduleId::from_uuid(nil),
                template_id: TemplateId::from_uuid(nil),
                occurrence_at: now,
                code: "template_not_published".to_owned(),
                message: "Sample: the template is not published".to_owned(),
            },
        };
        Self {
            id,
            event,
            timestamp: now,
            test: true,
            data,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use time::macros::datetime;
    use uuid::Uuid;

    use super::*;
    use crate::ids::TeamId;
    use crate::run::RunStatus;
    use crate::run::{RunSnapshot, TaskSnapshot};

    fn run(started_by: Actor) -> RunSnapshot {
        RunSnapshot {
            id: RunId::from_uuid(Uuid::from_u128(1)),
            template_id: TemplateId::from_uuid(Uuid::from_u128(2)),
            title: "Onboarding".into(),
            status: RunStatus::Active,
            started_by,
            team_id: TeamId::from_uuid(Uuid::from_u128(3)),
            timezone: "UTC".into(),
            created_at: datetime!(2026-01-01 9:00 UTC),
            completed_at: None,
            due_date: Some(datetime!(2026-01-08 0:00 UTC)),
            is_shared: false,
        }
    }

    fn event(payload: EventPayload) -> Event {
        Event {
            id: EventId::from_uuid(Uuid::from_u128(9)),
            team_id: TeamId::from_uuid(Uuid::from_u128(3)),
            occurred_at: datetime!(2026-01-01 9:00 UTC),
            payload,
        }
    }

    #[test]
    fn a_created_run_carries_its_starter_with_the_members_email() {
        let user = UserId::from_uuid(Uuid::from_u128(7));
        let mut people = People::default();
        people
            .members
            .insert(user, "ada@example.org".parse().unwrap());
        let event = event(EventPayload::RunCreated {
            run: run(Actor::User(user)),
            task_count: 3,
        });
        assert_eq!(People::needed(&event.payload), (Some(user), None));
        let envelope = Envelope::of(&event, &people).unwrap();
        assert_eq!(
            serde_json::to_value(&envelope).unwrap(),
            json!({
                "id": "00000000-0000-0000-0000-000000000009",
                "event": "process_run.created",
                "timestamp": "2026-01-01T09:00:00Z",
                "test": false,
                "data": {
                    "instance_id": "00000000-0000-0000-0000-000000000001",
                    "template_id": "00000000-0000-0000-0000-000000000002",
                    "title": "Onboarding",
                    "started_by": {"user_id": "00000000-0000-0000-0000-000000000007",
                                   "email": "ada@example.org", "is_guest": false},
                    "started_at": "2026-01-01T09:00:00Z",
                    "due_date": "2026-01-08T00:00:00Z",
                    "is_shared": false,
                    "task_count": 3
                }
            })
        );
    }

    fn task(webhook_enabled: bool, by: Actor) -> TaskSnapshot {
        TaskSnapshot {
            id: TaskId::from_uuid(Uuid::from_u128(4)),
            instance_id: RunId::from_uuid(Uuid::from_u128(1)),
            template_task_id: TemplateTaskId::from_uuid(Uuid::from_u128(5)),
            section_id: SectionId::from_uuid(Uuid::from_u128(6)),
            title: "Sign".into(),
            completed: true,
            completed_at: Some(datetime!(2026-01-01 9:00 UTC)),
            completed_by: Some(by),
            assignee: None,
            webhook_enabled,
            due_date: None,
        }
    }

    #[test]
    fn a_guest_completion_names_the_runs_guest() {
        let mut people = People::default();
        let run = RunId::from_uuid(Uuid::from_u128(1));
        people
            .guests
            .insert(run, "guest@example.org".parse().unwrap());
        let event = event(EventPayload::TaskCompleted {
            task: task(true, Actor::Guest),
        });
        assert_eq!(People::needed(&event.payload), (None, Some(run)));
        let envelope = Envelope::of(&event, &people).unwrap();
        let data = serde_json::to_value(&envelope.data).unwrap();
        assert_eq!(
            data["completed_by"],
            json!({"user_id": null, "email": "guest@example.org", "is_guest": true})
        );
        assert_eq!(data["section_id"], "00000000-0000-0000-0000-000000000006");
    }

    #[test]
    fn an_unblocked_task_carries_its_ids_title_and_assignee_whatever_its_webhook_flag() {
        let mut snapshot = task(false, Actor::Api);
        snapshot.assignee = Some(Assignee::Email("ops@example.org".parse().unwrap()));
        let event = event(EventPayload::TaskUnblocked {
            task: snapshot,
            run_title: "Onboarding".into(),
        });
        assert_eq!(People::needed(&event.payload), (None, None));
        let envelope = Envelope::of(&event, &People::default()).unwrap();
        assert_eq!(envelope.event, WebhookEvent::StepUnblocked);
        assert_eq!(
            serde_json::to_value(&envelope.data).unwrap(),
            json!({
                "task_id": "00000000-0000-0000-0000-000000000004",
                "instance_id": "00000000-0000-0000-0000-000000000001",
                "template_task_id": "00000000-0000-0000-0000-000000000005",
                "title": "Sign",
                "assignee": "ops@example.org"
            })
        );
        let text = serde_json::to_string(&envelope).unwrap();
        assert_eq!(serde_json::from_str::<Envelope>(&text).unwrap(), envelope);
    }

    #[test]
    fn a_schedules_failure_carries_the_schedule_template_occurrence_and_error() {
        let event = event(EventPayload::ScheduleFailed {
            schedule_id: ScheduleId::from_uuid(Uuid::from_u128(8)),
            schedule_name: Some("Weekly check".into()),
            template_id: TemplateId::from_uuid(Uuid::from_u128(2)),
            occurrence_at: datetime!(2026-01-05 9:00 UTC),
            code: "template_not_published".into(),
            message: "the template is not published".into(),
        });
        assert_eq!(People::needed(&event.payload), (None, None));
        let envelope = Envelope::of(&event, &People::default()).unwrap();
        assert_eq!(envelope.event, WebhookEvent::ScheduleFailed);
        assert_eq!(
            serde_json::to_value(&envelope).unwrap(),
            json!({
                "id": "00000000-0000-0000-0000-000000000009",
                "event": "schedule.failed",
                "timestamp": "2026-01-01T09:00:00Z",
                "test": false,
                "data": {
                    "schedule_id": "00000000-0000-0000-0000-000000000008",
                    "template_id": "00000000-0000-0000-0000-000000000002",
                    "occurrence_at": "2026-01-05T09:00:00Z",
                    "code": "template_not_published",
                    "message": "the template is not published"
                }
            })
        );
        let text = serde_json::to_string(&envelope).unwrap();
        assert_eq!(serde_json::from_str::<Envelope>(&text).unwrap(), envelope);
    }

    #[test]
    fn only_webhook_enabled_tasks_and_runs_are_webhooks() {
        let plain = event(EventPayload::TaskCompleted {
            task: task(false, Actor::Api),
        });
        assert_eq!(Envelope::of(&plain, &People::default()), None);
        let completed = event(EventPayload::RunCompleted {
            run: RunSnapshot {
                completed_at: Some(datetime!(2026-01-02 9:00 UTC)),
                ..run(Actor::Api)
            },
        });
        let envelope = Envelope::of(&completed, &People::default()).unwrap();
        let data = serde_json::to_value(&envelope.data).unwrap();
        assert_eq!(
            data["started_by"],
            json!({"user_id": null, "email": null, "is_guest": false})
        );
        assert_eq!(data["completed_at"], "2026-01-02T09:00:00Z");
    }

    #[test]
    fn a_sample_is_marked_test_and_reads_back() {
        for name in WebhookEvent::ALL {
            let sample = Envelope::sample(
                name,
                EventId::from_uuid(Uuid::from_u128(1)),
                datetime!(2026-01-01 0:00 UTC),
            );
            assert!(sample.test);
            let text = serde_json::to_string(&sample).unwrap();
            assert_eq!(serde_json::from_str::<Envelope>(&text).unwrap(), sample);
        }
    }
}
