//! Update a task: who it is assigned to, and who is notified.

use super::*;

fn assigned_events(w: &World, run: RunId) -> Vec<(Option<Assignee>, Option<Email>)> {
    w.events_of(run)
        .into_iter()
        .filter_map(|event| match event {
            EventPayload::TaskAssigned { task, email, .. } => Some((task.assignee, email)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_task_is_assigned_to_a_member_by_user_id() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, HELLO);
    let change = w
        .update(run.id, task.id, assign(Some(&w.ada.id.to_string())))
        .unwrap();
    assert_eq!(change.task.assignee, Some(Assignee::User(w.ada.id)));
    assert_eq!(
        w.task(run.id, HELLO).assignee,
        Some(Assignee::User(w.ada.id))
    );
    assert_eq!(
        assigned_events(&w, run.id),
        [(Some(Assignee::User(w.ada.id)), Some(w.ada.email.clone()))]
    );
}

#[test]
fn a_task_assigned_by_member_email_is_stored_as_their_user_id() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, HELLO);
    let change = w
        .update(run.id, task.id, assign(Some("ADA@demo.example")))
        .unwrap();
    assert_eq!(change.task.assignee, Some(Assignee::User(w.ada.id)));
    assert_eq!(
        assigned_events(&w, run.id),
        [(Some(Assignee::User(w.ada.id)), Some(w.ada.email.clone()))]
    );
}

#[test]
fn a_task_assigned_to_an_outside_email_is_stored_as_that_email() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, HELLO);
    let change = w
        .update(run.id, task.id, assign(Some("Guest@Example.org")))
        .unwrap();
    let guest = email("guest@example.org");
    assert_eq!(change.task.assignee, Some(Assignee::Email(guest.clone())));
    assert_eq!(
        assigned_events(&w, run.id),
        [(Some(Assignee::Email(guest.clone())), Some(guest))]
    );
    // Another team's member is an outsider here.
    let change = w
        .update(run.id, task.id, assign(Some("olga@other.example")))
        .unwrap();
    assert_eq!(
        change.task.assignee,
        Some(Assignee::Email(w.olga.email.clone()))
    );
}

#[test]
fn a_null_assignee_unassigns_the_task() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, HELLO);
    w.update(run.id, task.id, assign(Some(&w.admin.id.to_string())))
        .unwrap();
    let events = w.store.events().len();
    let change = w.update(run.id, task.id, assign(None)).unwrap();
    assert_eq!(change.task.assignee, None);
    assert!(change.changed);
    assert_eq!(w.task(run.id, HELLO).assignee, None);
    assert_eq!(
        w.store.events().len(),
        events,
        "unassigning notifies nobody"
    );
}

#[test]
fn assigning_the_same_assignee_again_notifies_nobody() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, HELLO);
    w.update(run.id, task.id, assign(Some("ada@demo.example")))
        .unwrap();
    let again = w
        .update(run.id, task.id, assign(Some(&w.ada.id.to_string())))
        .unwrap();
    assert!(!again.changed && again.events.is_empty());
    assert_eq!(assigned_events(&w, run.id).len(), 1);
}

#[test]
fn an_unknown_user_id_cannot_be_assigned() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, HELLO);
    let before = w.state_of(run.id);
    for user in [UserId::from_uuid(fixed_uuid(404)), w.olga.id] {
        let refused = w
            .update(run.id, task.id, assign(Some(&user.to_string())))
            .unwrap_err();
        assert_eq!(refused_field(refused), "assignee");
    }
    assert_eq!(w.state_of(run.id), before);
}

#[test]
fn an_inactive_member_cannot_be_assigned() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, HELLO);
    let before = w.state_of(run.id);
    for text in [w.ivan.id.to_string(), "Ivan@Demo.Example".to_owned()] {
        let refused = w.update(run.id, task.id, assign(Some(&text))).unwrap_err();
        assert_eq!(refused_field(refused), "assignee");
    }
    assert_eq!(w.state_of(run.id), before);
}

#[test]
fn an_assignee_that_is_neither_id_nor_email_is_refused() {
    for text in [
        "",
        "runner",
        "ada",
        "{00000000-0000-0000-0000-000000000001}",
    ] {
        let refused = text.parse::<Assignee>().unwrap_err();
        assert_eq!(refused_field(refused.into()), "assignee", "{text}");
    }
}
