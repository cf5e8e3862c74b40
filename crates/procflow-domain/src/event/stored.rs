//! The stored form of an event: the JSON an outbox row keeps, stamped with the version of its
//! shape, and the one reader that accepts every shape an outbox may still hold.
//!
//! The shapes, by version (the migrations named rewrote older rows in place):
//!
//! 1. 2026-11-21: no `task_count`, no run `due_date` or `is_shared`, no task `section_id` or
//!    `due_date`. Migration `2026-11-24-000100_webhooks` filled the missing fields of every
//!    such row from its run and tasks (which are never deleted), and
//!    `2026-11-26-000100_outbox_dead_letters` does it again through
//!    `outbox_upgrade_version_one()` for rows an older instance wrote after that.
//! 2. 2026-11-24: as today without the task's `due_date`.
//! 3. 2026-11-25: the task's `due_date` (optional), and the kinds `guest_reminder_due` and
//!    `task_overdue`.
//! 4. 2026-11-26: as 3, with `"version": 4` beside the event's fields.
//! 5. 2026-11-27: as 4, and the kind `task_unblocked` (process logic), which an instance that
//!    reads only up to 4 must set aside rather than misread.
//! 6. 2026-11-28: as 5, and the kinds `comment_created` and `comment_notice` (comments on
//!    tasks) and `schedule_failed` (a schedule's occurrence that started no run, so an event
//!    about no run), which an instance that reads only up to 5 must set aside rather than
//!    misread.
//! 7. 2026-11-29: as 6, and the kind `attachment_added` (files attached to tasks), which an
//!    instance that reads only up to 6 must set aside rather than misread.
//!
//! Versions 1 to 3 carry no version field; 2 to 6 read as 7 does. A change of shape bumps
//! [`EVENT_VERSION`] and teaches [`from_stored`] the older one, so that events queued before an
//! upgrade are still delivered after it.

use serde::Serialize;
use serde_json::Value;

use super::Event;

/// The version of the shape [`to_stored`] writes.
pub const EVENT_VERSION: u32 = 7;

/// The first version written with a version field.
const FIRST_VERSIONED: u32 = 4;

/// Why a stored event cannot be read: it is set aside rather than retried, since reading it
/// again gives the same answer.
///
/// ```
/// use procflow_domain::event::from_stored;
///
/// let error = from_stored(serde_json::json!({})).unwrap_err();
/// assert!(error.to_string().contains("missing field"), "{error}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnreadableEvent(String);

impl UnreadableEvent {
    /// The reason, for operators.
    #[must_use]
    pub fn reason(&self) -> &str {
        &self.0
    }
}

/// An event as an outbox row keeps it, at [`EVENT_VERSION`]: what [`to_stored`] makes a
/// `Value` of, for a writer that serialises it straight to text (a store's bind) instead.
///
/// ```
/// use procflow_domain::event::{StoredEvent, to_stored};
/// # use procflow_domain::event::{Event, EventPayload};
/// # use procflow_domain::ids::{EventId, GuestId, RunId, TeamId};
/// # let nil = uuid::Uuid::nil();
/// # let event = Event {
/// #     id: EventId::from_uuid(nil),
/// #     team_id: TeamId::from_uuid(nil),
/// #     occurred_at: time::OffsetDateTime::UNIX_EPOCH,
/// #     payload: EventPayload::GuestInvited {
/// #         run_id: RunId::from_uuid(nil),
/// #         run_title: "Onboarding".into(),
/// #         guest_id: GuestId::from_uuid(nil),
/// #         email: "guest@example.org".parse().unwrap(),
/// #         share_url: "https://example.org/instance/x?token=y".into(),
/// #     },
/// # };
/// let text = serde_json::to_string(&StoredEvent::of(&event)).unwrap();
/// let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
/// assert_eq!(parsed, to_stored(&event).unwrap());
/// ```
#[derive(Debug, Serialize)]
pub struct StoredEvent<'a> {
    version: u32,
    #[serde(flatten)]
    event: &'a Event,
}

impl<'a> StoredEvent<'a> {
    /// `event` at [`EVENT_VERSION`].
    #[must_use]
    pub fn of(event: &'a Event) -> Self {
        Self {
            version: EVENT_VERSION,
            event,
        }
    }
}

/// The JSON an outbox row keeps for `event`, at [`EVENT_VERSION`].
///
/// ```
/// use procflow_domain::event::{EVENT_VERSION, from_stored, to_stored};
/// # use procflow_domain::event::{Event, EventPayload};
/// # use procflow_domain::ids::{EventId, GuestId, RunId, TeamId};
/// # let nil = uuid::Uuid::nil();
/// # let event = Event {
/// #     id: EventId::from_uuid(nil),
/// #     team_id: TeamId::from_uuid(nil),
/// #     occurred_at: time::OffsetDateTime::UNIX_EPOCH,
/// #     payload: EventPayload::GuestInvited {
/// #         run_id: RunId::from_uuid(nil),
/// #         run_title: "Onboarding".into(),
/// #         guest_id: GuestId::from_uuid(nil),
/// #         email: "guest@example.org".parse().unwrap(),
/// #         share_url: "https://example.org/instance/x?token=y".into(),
/// #     },
/// # };
/// let stored = to_stored(&event).unwrap();
/// assert_eq!(stored["version"], EVENT_VERSION);
/// assert_eq!(from_stored(stored).unwrap(), event);
/// ```
///
/// # Errors
/// Only serde's, which an event's fields do not give.
pub fn to_stored(event: &Event) -> Result<Value, serde_json::Error> {
    serde_json::to_value(StoredEvent::of(event))
}

/// Reads a stored event of any version an outbox may hold.
///
/// ```
/// use procflow_domain::event::from_stored;
///
/// let newer = serde_json::json!({"version": 99});
/// assert!(from_stored(newer).unwrap_err().reason().contains("newer"));
/// ```
///
/// # Errors
/// [`UnreadableEvent`] naming what is wrong: a field missing or malformed (with its path), a
/// version this build does not know, a version-1 event that no migration upgraded.
pub fn from_stored(mut stored: Value) -> Result<Event, UnreadableEvent> {
    let version = match stored.as_object_mut().and_then(|o| o.remove("version")) {
        None => None,
        Some(value) => Some(
            value
                .as_u64()
                .and_then(|v| u32::try_from(v).ok())
                .ok_or_else(|| {
                    UnreadableEvent(format!("its version is not a whole number: {value}"))
                })?,
        ),
    };
    match version {
        Some(v) if v > EVENT_VERSION => Err(UnreadableEvent(format!(
            "it is version {v}, written by a newer procflow (this one reads up to \
             {EVENT_VERSION}); re-queue it once that version runs"
        ))),
        Some(v) if v < FIRST_VERSIONED => Err(UnreadableEvent(format!(
            "version {v} was never written with a version field"
        ))),
        Some(_) => read(stored),
        None if is_version_one(&stored) => Err(UnreadableEvent(
            "a version-1 event (written before 2026-11-24) that no migration upgraded; \
             `SELECT outbox_upgrade_version_one()` fills it from its run, then re-queue it"
                .to_owned(),
        )),
        None => read(stored),
    }
}

fn read(stored: Value) -> Result<Event, UnreadableEvent> {
    serde_path_to_error::deserialize(stored).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            UnreadableEvent(inner.to_string())
        } else {
            UnreadableEvent(format!("{path}: {inner}"))
        }
    })
}

/// Whether `stored` is of the first shape: a run without `is_shared` or a task without
/// `section_id`, the fields version 2 added.
fn is_version_one(stored: &Value) -> bool {
    let payload = &stored["payload"];
    let run_lacks = payload["run"].is_object() && payload["run"].get("is_shared").is_none();
    let task_lacks = payload["task"].is_object() && payload["task"].get("section_id").is_none();
    run_lacks || task_lacks
}

#[cfg(test)]
#[path = "stored/tests.rs"]
mod tests;
