//! A payload of every shape ever written to an outbox (see the module's list), written out by
//! hand as each version serialised it, and what the reader makes of each.

use serde_json::{Value, json};
use time::macros::datetime;
use uuid::Uuid;

use super::*;
use crate::actor::{Actor, Assignee};
use crate::event::EventPayload;
use crate::ids::{RunId, SectionId};

const TEAM: &str = "00000000-0000-7000-8000-000000000001";
const RUN: &str = "00000000-0000-7000-8000-000000000002";
const TASK: &str = "00000000-0000-7000-8000-000000000003";
const SECTION: &str = "00000000-0000-7000-8000-000000000004";
const USER: &str = "00000000-0000-7000-8000-000000000005";

fn event(kind_fields: Value) -> Value {
    json!({
        "id": "00000000-0000-7000-8000-0000000000e1",
        "team_id": TEAM,
        "occurred_at": "2026-11-21T10:00:00Z",
        "payload": kind_fields,
    })
}

fn run_v1() -> Value {
    json!({
        "id": RUN, "template_id": "00000000-0000-7000-8000-000000000006",
        "title": "Onboarding", "status": "active", "started_by": "api", "team_id": TEAM,
        "timezone": "UTC", "created_at": "2026-11-21T10:00:00Z", "completed_at": null,
    })
}

fn run_v2() -> Value {
    let mut run = run_v1();
    run["due_date"] = json!("2026-12-01T00:00:00Z");
    run["is_shared"] = json!(true);
    run
}

fn task_v1() -> Value {
    json!({
        "id": TASK, "instance_id": RUN, "template_task_id": "00000000-0000-7000-8000-000000000007",
        "title": "Sign the contract", "completed": true, "completed_at": "2026-11-21T10:00:00Z",
        "completed_by": USER, "assignee": USER, "webhook_enabled": true,
    })
}

fn task_v2() -> Value {
    let mut task = task_v1();
    task["section_id"] = json!(SECTION);
    task
}

fn task_v3() -> Value {
    let mut task = task_v2();
    task["due_date"] = json!("2026-11-30T00:00:00Z");
    task
}

#[test]
fn version_two_events_read_as_they_were_written() {
    let created = from_stored(event(json!({
        "kind": "run_created", "run": run_v2(), "task_count": 3,
    })))
    .unwrap();
    let EventPayload::RunCreated { run, task_count } = created.payload else {
        panic!("{created:?}")
    };
    assert_eq!(task_count, 3);
    assert!(run.is_shared);
    assert_eq!(run.due_date, Some(datetime!(2026-12-01 0:00 UTC)));

    let completed =
        from_stored(event(json!({"kind": "task_completed", "task": task_v2()}))).unwrap();
    let EventPayload::TaskCompleted { task } = completed.payload else {
        panic!("{completed:?}")
    };
    assert_eq!(
        task.section_id,
        SectionId::from_uuid(Uuid::parse_str(SECTION).unwrap())
    );
    assert_eq!(task.due_date, None, "version 2 had no task due date");
    assert_eq!(task.completed_by, Some(Actor::User(USER.parse().unwrap())));

    let assigned = from_stored(event(json!({
        "kind": "task_assigned", "task": task_v2(), "run_title": "Onboarding",
        "email": "ada@example.org",
    })))
    .unwrap();
    assert!(matches!(
        assigned.payload,
        EventPayload::TaskAssigned { task, .. } if task.assignee == Some(Assignee::User(USER.parse().unwrap()))
    ));
    let invited = from_stored(event(json!({
        "kind": "guest_invited", "run_id": RUN, "run_title": "Onboarding",
        "guest_id": "00000000-0000-7000-8000-000000000008", "email": "guest@example.org",
        "share_url": "https://example.org/instance/x?token=y",
    })))
    .unwrap();
    assert_eq!(
        invited.payload.run_id(),
        Some(RunId::from_uuid(Uuid::parse_str(RUN).unwrap()))
    );
    from_stored(event(json!({"kind": "run_completed", "run": run_v2()}))).unwrap();
}

#[test]
fn version_three_events_read_with_the_task_due_date() {
    let overdue = from_stored(event(json!({
        "kind": "task_overdue", "task": task_v3(), "run_title": "Onboarding",
    })))
    .unwrap();
    let EventPayload::TaskOverdue { task, .. } = overdue.payload else {
        panic!("{overdue:?}")
    };
    assert_eq!(task.due_date, Some(datetime!(2026-11-30 0:00 UTC)));
    from_stored(event(json!({
        "kind": "guest_reminder_due", "run_id": RUN, "run_title": "Onboarding",
        "guest_id": "00000000-0000-7000-8000-000000000008", "email": "guest@example.org",
    })))
    .unwrap();
}

#[test]
fn version_four_is_version_three_with_its_number() {
    let mut stored = event(json!({"kind": "task_completed", "task": task_v3()}));
    let legacy = from_stored(stored.clone()).unwrap();
    stored["version"] = json!(4);
    assert_eq!(from_stored(stored).unwrap(), legacy);
}

#[test]
fn versions_five_to_seven_are_version_four_with_their_number_and_seven_round_trips() {
    let mut stored = event(json!({"kind": "task_completed", "task": task_v3()}));
    stored["version"] = json!(4);
    let four = from_stored(stored.clone()).unwrap();
    stored["version"] = json!(5);
    let five = from_stored(stored.clone()).unwrap();
    assert_eq!(five, four);
    stored["version"] = json!(6);
    let six = from_stored(stored.clone()).unwrap();
    assert_eq!(six, four);
    stored["version"] = json!(7);
    let seven = from_stored(stored.clone()).unwrap();
    assert_eq!(seven, four);
    assert_eq!(to_stored(&seven).unwrap(), stored);
}

#[test]
fn an_unblocked_task_is_a_kind_of_version_five() {
    let mut stored = event(json!({
        "kind": "task_unblocked", "task": task_v3(), "run_title": "Onboarding",
    }));
    stored["version"] = json!(5);
    let read = from_stored(stored.clone()).unwrap();
    assert_eq!(read.payload.name(), "process_step.unblocked");
    stored["version"] = json!(EVENT_VERSION);
    assert_eq!(to_stored(&read).unwrap(), stored);
}

#[test]
fn a_schedules_failure_is_a_kind_of_version_six_about_no_run() {
    let mut stored = event(json!({
        "kind": "schedule_failed",
        "schedule_id": "00000000-0000-7000-8000-000000000009",
        "schedule_name": "Weekly check",
        "template_id": "00000000-0000-7000-8000-000000000006",
        "occurrence_at": "2026-12-07T09:00:00Z",
        "code": "template_not_published",
        "message": "the template is not published",
    }));
    stored["version"] = json!(6);
    let read = from_stored(stored.clone()).unwrap();
    assert_eq!(read.payload.name(), "schedule.failed");
    assert_eq!(read.payload.run_id(), None);
    stored["version"] = json!(EVENT_VERSION);
    assert_eq!(to_stored(&read).unwrap(), stored);
}

#[test]
fn comments_are_kinds_of_version_six_and_round_trip() {
    let comment = json!({
        "id": "00000000-0000-7000-8000-0000000000c1",
        "run_id": "00000000-0000-7000-8000-000000000002",
        "task_id": "00000000-0000-7000-8000-000000000003",
        "author": USER,
        "author_email": "ada@example.org",
        "text_excerpt": "See clause 4",
    });
    for (payload, name) in [
        (
            json!({"kind": "comment_created", "comment": comment}),
            "task.comment_created",
        ),
        (
            json!({"kind": "comment_notice", "comment": comment, "task_title": "Sign",
                   "run_title": "Onboarding", "email": "bob@example.org", "mentioned": true}),
            "task.comment_notice",
        ),
    ] {
        let mut stored = event(payload);
        stored["version"] = json!(6);
        let read = from_stored(stored.clone()).unwrap();
        assert_eq!(read.payload.name(), name);
        stored["version"] = json!(EVENT_VERSION);
        assert_eq!(to_stored(&read).unwrap(), stored);
    }
}

#[test]
fn a_version_one_event_is_refused_with_the_way_to_upgrade_it() {
    for payload in [
        json!({"kind": "run_created", "run": run_v1()}),
        json!({"kind": "run_completed", "run": run_v1()}),
        json!({"kind": "task_completed", "task": task_v1()}),
        json!({"kind": "task_assigned", "task": task_v1(), "run_title": "x", "email": null}),
    ] {
        let error = from_stored(event(payload.clone())).unwrap_err();
        assert!(
            error.reason().contains("outbox_upgrade_version_one()"),
            "{payload}: {error}"
        );
    }
}

#[test]
fn what_cannot_be_read_says_where_and_why() {
    let cases = [
        (json!({}), "missing field `id`"),
        (json!([]), "expected struct Event"),
        (json!("text"), "invalid type"),
        (event(json!({"kind": "no_such_kind"})), "payload"),
        (
            event(json!({"kind": "run_created", "run": run_v2()})),
            "payload: missing field `task_count`",
        ),
        (
            {
                let mut e = event(json!({"kind": "run_completed", "run": run_v2()}));
                e["version"] = json!(8);
                e
            },
            "version 8, written by a newer procflow",
        ),
        (
            {
                let mut e = event(json!({"kind": "run_completed", "run": run_v2()}));
                e["version"] = json!("4");
                e
            },
            "not a whole number",
        ),
        (
            {
                let mut e = event(json!({"kind": "run_completed", "run": run_v2()}));
                e["version"] = json!(2);
                e
            },
            "never written with a version field",
        ),
    ];
    for (stored, expected) in cases {
        let error = from_stored(stored.clone()).unwrap_err();
        assert!(error.reason().contains(expected), "{stored}: {error}");
    }
}

#[test]
fn an_attachment_is_a_kind_of_version_seven_and_round_trips() {
    let attachment = json!({
        "id": "00000000-0000-7000-8000-0000000000a1",
        "run_id": "00000000-0000-7000-8000-000000000002",
        "task_id": "00000000-0000-7000-8000-000000000003",
        "filename": "contract.pdf",
        "size": 1234,
    });
    let mut stored = event(json!({"kind": "attachment_added", "attachment": attachment}));
    stored["version"] = json!(7);
    let read = from_stored(stored.clone()).unwrap();
    assert_eq!(read.payload.name(), "task.attachment_added");
    assert_eq!(to_stored(&read).unwrap(), stored);
}
