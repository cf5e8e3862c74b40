//! Conditional writes (API contract 11): `If-Match` compared with the resource's tag where the
//! write decides, and tags that follow every change of what a resource shows.

use procflow_domain::etag::{IfMatch, Tagged};

use super::*;

fn if_match(tag: procflow_domain::etag::ETag) -> Option<IfMatch> {
    Some(IfMatch::OneOf(vec![tag]))
}

#[test]
fn an_update_with_the_current_tag_applies() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, HELLO);
    let change = w
        .update(
            run.id,
            task.id,
            UpdateTask {
                if_match: if_match(task.etag()),
                ..complete()
            },
        )
        .unwrap();
    assert!(change.task.completed());
    assert_ne!(change.task.etag(), task.etag());
    assert_eq!(w.task(run.id, HELLO).etag(), change.task.etag());
}

#[test]
fn an_update_with_a_stale_tag_is_refused_and_changes_nothing() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let read = w.task(run.id, HELLO);
    w.update(run.id, read.id, assign(Some("ada@demo.example")))
        .unwrap();
    let before = w.state_of(run.id);

    let refused = w.update(
        run.id,
        read.id,
        UpdateTask {
            if_match: if_match(read.etag()),
            ..complete()
        },
    );
    assert_eq!(refused, Err(DomainError::PreconditionFailed));
    assert_eq!(w.state_of(run.id), before);
}

#[test]
fn a_star_matches_any_state_and_an_empty_list_none() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, HELLO);
    let none = w.update(
        run.id,
        task.id,
        UpdateTask {
            if_match: Some(IfMatch::OneOf(Vec::new())),
            ..complete()
        },
    );
    assert_eq!(none, Err(DomainError::PreconditionFailed));
    let any = UpdateTask {
        if_match: Some(IfMatch::Any),
        ..complete()
    };
    assert!(w.update(run.id, task.id, any).unwrap().task.completed());
}

#[test]
fn a_missing_task_is_not_found_before_its_precondition_is_read() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let refused = w.update(
        run.id,
        TaskId::from_uuid(fixed_uuid(0xBAD)),
        UpdateTask {
            if_match: Some(IfMatch::OneOf(Vec::new())),
            ..complete()
        },
    );
    assert_eq!(refused, Err(DomainError::NotFound(Resource::Task)));
}

#[test]
fn a_tasks_tag_changes_with_its_value_completion_and_assignee_only() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, COLLECT);
    let sibling = w.task(run.id, HELLO);
    let name = task.custom_elements[0].id;
    let mut seen = vec![task.etag()];
    for request in [
        write(name, json!("Ada")),
        assign(Some("ada@demo.example")),
        complete(),
    ] {
        let change = w.update(run.id, task.id, request).unwrap();
        let tag = w.task(run.id, COLLECT).etag();
        assert_eq!(
            tag,
            change.task.etag(),
            "the answer's tag is the stored one"
        );
        assert!(!seen.contains(&tag), "a change kept an earlier tag");
        seen.push(tag);
    }
    // Writing what is already there changes nothing, so neither does the tag.
    w.update(run.id, task.id, write(name, json!("Ada")))
        .unwrap();
    assert_eq!(w.task(run.id, COLLECT).etag(), *seen.last().unwrap());
    // Another task's changes leave this one's tag alone: writers of different tasks never
    // refuse each other.
    assert_eq!(w.task(run.id, HELLO).etag(), sibling.etag());
}

#[test]
fn a_runs_tag_changes_when_a_siblings_completion_completes_it() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let tasks = w.tasks(run.id);
    w.update(run.id, tasks[COLLECT].id, complete()).unwrap();
    w.update(
        run.id,
        tasks[APPROVE].id,
        UpdateTask {
            decision: Some(Decision::Approved),
            ..UpdateTask::default()
        },
    )
    .unwrap();
    let active = w.run(run.id);
    let task = w.task(run.id, COLLECT);
    let last = w.update(run.id, tasks[HELLO].id, complete()).unwrap();
    assert_eq!(last.run.status(), RunStatus::Completed);
    assert_ne!(w.run(run.id).etag(), active.etag());
    // The task's own representation did not change: its tag stays.
    assert_eq!(w.task(run.id, COLLECT).etag(), task.etag());
}

#[test]
fn a_template_is_replaced_only_while_its_tag_is_current() {
    let w = world();
    let template = w.create(onboarding());
    let stale = template.etag();
    let replaced = block(w.procflow.replace_template(
        &w.team,
        template.id,
        document(form()),
        if_match(stale.clone()).as_ref(),
    ))
    .unwrap();
    assert_ne!(replaced.etag(), stale);
    let current = block(w.procflow.get_template(&w.team, template.id)).unwrap();
    assert_eq!(current.etag(), replaced.etag());

    let refused = block(w.procflow.replace_template(
        &w.team,
        template.id,
        document(onboarding()),
        if_match(stale).as_ref(),
    ));
    assert_eq!(refused, Err(DomainError::PreconditionFailed));
    assert_eq!(
        block(w.procflow.get_template(&w.team, template.id)),
        Ok(current)
    );
}
