//! The guest of a shared run acting through the share link (API contract 7.1): the same state
//! machine and events as the API, as `guest`, on the guest's own tasks only.

use procflow_domain::guest::{FormField, GuestForm, GuestIntent};
use procflow_domain::service::{GuestPost, SharedRun};

use super::*;

fn token_of(share_url: &str) -> ShareToken {
    let (_, token) = share_url.split_once("?token=").unwrap();
    ShareToken::new(token.to_owned())
}

/// A run of `onboarding()` shared with `guest@example.org` (or without an email), and its token.
fn shared(w: &World, guest: Option<&str>) -> (Run, ShareToken) {
    let run = w.start(&w.published(onboarding()));
    let change = w.invite(run.id, invitation(guest)).unwrap();
    (run, token_of(&change.share_url))
}

fn open(w: &World, run: RunId, token: &ShareToken) -> Result<SharedRun, DomainError> {
    block(w.procflow.open_shared_run(run, token))
}

fn post(
    w: &World,
    run: RunId,
    token: &ShareToken,
    task: TaskId,
    form: &GuestForm,
) -> Result<GuestPost, DomainError> {
    block(w.procflow.post_as_guest(run, token, task, form))
}

fn press(intent: GuestIntent) -> GuestForm {
    GuestForm {
        intent,
        entries: Vec::new(),
        comment: None,
    }
}

fn applied(outcome: Result<GuestPost, DomainError>) -> TaskChange {
    match outcome {
        Ok(GuestPost::Applied(change)) => *change,
        other => panic!("expected an applied change, got {other:?}"),
    }
}

#[test]
fn opening_the_link_records_the_guests_engagement_once() {
    let w = world();
    let (run, token) = shared(&w, Some("guest@example.org"));
    let first_open = w.clock.now();
    let opened = open(&w, run.id, &token).unwrap();
    assert_eq!(opened.tasks.len(), 3);
    assert_eq!(opened.guest.unwrap().engaged_at, Some(first_open));
    w.clock.advance(Duration::hours(2));
    let again = open(&w, run.id, &token).unwrap();
    assert_eq!(
        again.guest.unwrap().engaged_at,
        Some(first_open),
        "the first opening's time is kept"
    );
    let share = block(w.store.get_share(w.team.id, run.id))
        .unwrap()
        .unwrap();
    assert_eq!(share.guest.unwrap().engaged_at, Some(first_open));

    let (anonymous, token) = shared(&w, None);
    assert_eq!(open(&w, anonymous.id, &token).unwrap().guest, None);
}

#[test]
fn the_guest_completes_a_task_as_guest_with_the_apis_events() {
    let w = world();
    let (run, token) = shared(&w, Some("guest@example.org"));
    let collect = w.task(run.id, COLLECT);
    let name = collect.custom_elements[0].id;
    let form = GuestForm {
        entries: vec![(name, vec!["Ada".into()])],
        ..press(GuestIntent::Complete)
    };
    let change = applied(post(&w, run.id, &token, collect.id, &form));
    assert_eq!(change.task.completed_by(), Some(Actor::Guest));
    let stored = w.task(run.id, COLLECT);
    assert_eq!(stored.completed_by(), Some(Actor::Guest));
    assert_eq!(stored.custom_elements[0].value, Some(json!("Ada")));
    let completed = w
        .events_of(run.id)
        .into_iter()
        .find_map(|event| match event {
            EventPayload::TaskCompleted { task } => Some(task),
            _ => None,
        })
        .unwrap();
    assert_eq!(completed.completed_by, Some(Actor::Guest));
    assert_eq!(completed.id, collect.id);
}

#[test]
fn the_guest_finishing_the_last_task_completes_the_run_once() {
    let w = world();
    let (run, token) = shared(&w, None);
    for task in w.tasks(run.id) {
        let intent = if task.task_type == procflow_domain::template::TaskType::Approval {
            GuestIntent::Approve
        } else {
            GuestIntent::Complete
        };
        applied(post(&w, run.id, &token, task.id, &press(intent)));
    }
    let done = w.run(run.id);
    assert_eq!(done.status(), RunStatus::Completed);
    assert_eq!(count(&w.events_of(run.id), "process_run.completed"), 1);
    let opened = open(&w, run.id, &token).unwrap();
    assert!(opened.tasks.iter().all(|task| !opened.may_act(task)));
    assert_eq!(
        post(
            &w,
            run.id,
            &token,
            opened.tasks[0].id,
            &press(GuestIntent::Reopen)
        ),
        Err(DomainError::RunCompleted)
    );
}

#[test]
fn the_guest_acts_only_on_unassigned_tasks_and_those_assigned_to_the_guest() {
    let w = world();
    let (run, token) = shared(&w, Some("guest@example.org"));
    let [collect, approve, hello] = [COLLECT, APPROVE, HELLO].map(|i| w.task(run.id, i));
    w.update(run.id, collect.id, assign(Some("GUEST@example.org")))
        .unwrap();
    w.update(run.id, approve.id, assign(Some("ada@demo.example")))
        .unwrap();
    w.update(run.id, hello.id, assign(Some("someone@else.example")))
        .unwrap();
    let before = w.state_of(run.id);
    for task in [approve.id, hello.id] {
        assert_eq!(
            post(&w, run.id, &token, task, &press(GuestIntent::Complete)),
            Err(DomainError::NotGuestsTask)
        );
    }
    assert_eq!(w.state_of(run.id), before, "a refused post changes nothing");
    let opened = open(&w, run.id, &token).unwrap();
    let may: Vec<bool> = opened.tasks.iter().map(|t| opened.may_act(t)).collect();
    assert_eq!(may, [true, false, false]);
    applied(post(
        &w,
        run.id,
        &token,
        collect.id,
        &press(GuestIntent::Complete),
    ));

    // Shared without an email, the guest has no tasks of its own: unassigned ones only.
    let (anonymous, token) = shared(&w, None);
    let collect = w.task(anonymous.id, COLLECT);
    w.update(anonymous.id, collect.id, assign(Some("guest@example.org")))
        .unwrap();
    assert_eq!(
        post(
            &w,
            anonymous.id,
            &token,
            collect.id,
            &press(GuestIntent::Save)
        ),
        Err(DomainError::NotGuestsTask)
    );
    let hello = w.task(anonymous.id, HELLO);
    applied(post(
        &w,
        anonymous.id,
        &token,
        hello.id,
        &press(GuestIntent::Complete),
    ));
}

#[test]
fn refused_values_are_reported_by_field_and_nothing_is_stored() {
    let w = world();
    let (run, token) = shared(&w, None);
    let collect = w.task(run.id, COLLECT);
    let (name, department) = (collect.custom_elements[0].id, collect.custom_elements[1].id);
    let before = w.state_of(run.id);
    let form = GuestForm {
        entries: vec![(name, vec!["Ada".into()]), (department, vec!["HR".into()])],
        ..press(GuestIntent::Complete)
    };
    match post(&w, run.id, &token, collect.id, &form) {
        Ok(GuestPost::Invalid(errors)) => {
            assert_eq!(errors.len(), 1, "{errors:?}");
            assert_eq!(errors[0].field, FormField::Element(department));
            assert!(errors[0].error.to_string().contains("\"Eng\", \"Sales\""));
        }
        other => panic!("expected refused values, got {other:?}"),
    }
    assert_eq!(w.state_of(run.id), before);
}

#[test]
fn a_wrong_token_another_runs_task_and_a_stopped_share_open_nothing() {
    let w = world();
    let (run, token) = shared(&w, None);
    let (other, other_token) = shared(&w, None);
    let task = w.task(run.id, HELLO);
    let complete = press(GuestIntent::Complete);
    assert_eq!(
        post(
            &w,
            run.id,
            &ShareToken::new("guess".into()),
            task.id,
            &complete
        ),
        Err(DomainError::NotFound(Resource::Run))
    );
    assert_eq!(
        post(&w, other.id, &other_token, task.id, &complete),
        Err(DomainError::NotFound(Resource::Task)),
        "a task of another run, with that run's valid link"
    );
    assert_eq!(
        post(&w, run.id, &other_token, task.id, &complete),
        Err(DomainError::NotFound(Resource::Run))
    );
    block(w.procflow.stop_sharing(&w.team, run.id)).unwrap();
    assert_eq!(
        post(&w, run.id, &token, task.id, &complete),
        Err(DomainError::NotFound(Resource::Run))
    );
    assert_eq!(
        open(&w, run.id, &token),
        Err(DomainError::NotFound(Resource::Run))
    );
    assert!(w.task(run.id, HELLO).is_open());
}

#[test]
fn the_guest_approves_rejects_and_reopens_as_the_api_does() {
    let w = world();
    let (run, token) = shared(&w, None);
    let approve = w.task(run.id, APPROVE);
    let reject = GuestForm {
        comment: Some("Not yet".into()),
        ..press(GuestIntent::Reject)
    };
    let change = applied(post(&w, run.id, &token, approve.id, &reject));
    assert_eq!(change.task.decision, Some(Decision::Rejected));
    assert_eq!(change.task.comment.as_deref(), Some("Not yet"));
    assert!(change.task.is_open());

    let change = applied(post(
        &w,
        run.id,
        &token,
        approve.id,
        &press(GuestIntent::Approve),
    ));
    assert_eq!(change.task.decision, Some(Decision::Approved));
    assert_eq!(
        change.task.state,
        TaskState::Completed {
            at: w.clock.now(),
            by: Actor::Guest
        }
    );
    let change = applied(post(
        &w,
        run.id,
        &token,
        approve.id,
        &press(GuestIntent::Reopen),
    ));
    assert!(change.task.is_open());
    assert_eq!(change.task.decision, None, "reopening clears the decision");

    let hello = w.task(run.id, HELLO);
    assert!(matches!(
        post(&w, run.id, &token, hello.id, &press(GuestIntent::Approve)),
        Err(DomainError::Validation(_))
    ));
}
