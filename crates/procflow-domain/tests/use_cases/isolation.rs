//! Tenant isolation: another team's ids find nothing and change nothing.

use super::*;

#[test]
fn another_teams_templates_are_invisible_and_untouchable() {
    let w = world();
    let procflow = &w.procflow;
    let draft = block(procflow.create_template(&w.other, document(onboarding()))).unwrap();
    let published = block(procflow.create_template(&w.other, document(onboarding()))).unwrap();
    let published = block(procflow.publish_template(&w.other, published.id, true)).unwrap();
    let ours = w.create(form());

    let not_found = Some(DomainError::NotFound(Resource::Template));
    for id in [draft.id, published.id] {
        assert_eq!(block(procflow.get_template(&w.team, id)).err(), not_found);
        assert_eq!(
            block(procflow.list_template_tasks(&w.team, id, PageRequest::default())).err(),
            not_found
        );
        assert_eq!(
            block(procflow.replace_template(&w.team, id, document(form()), None)).err(),
            not_found
        );
        for publish in [true, false] {
            assert_eq!(
                block(procflow.publish_template(&w.team, id, publish)).err(),
                not_found
            );
        }
        assert_eq!(
            block(procflow.archive_template(&w.team, id)).err(),
            not_found
        );
        let run = w.create_run(CreateRun::of(id));
        assert_eq!(run.err(), not_found);
    }
    let listed = block(procflow.list_templates(&w.team, PageRequest::default())).unwrap();
    assert_eq!(
        listed.items.iter().map(|t| t.id).collect::<Vec<_>>(),
        [ours.id]
    );
    // Nothing of theirs changed.
    assert_eq!(block(procflow.get_template(&w.other, draft.id)), Ok(draft));
    assert_eq!(
        block(procflow.get_template(&w.other, published.id)),
        Ok(published)
    );
    assert!(w.store.events().is_empty());
}

#[test]
fn another_teams_runs_are_invisible_and_untouchable() {
    let w = world();
    let procflow = &w.procflow;
    let theirs = block(procflow.create_template(&w.other, document(onboarding()))).unwrap();
    block(procflow.publish_template(&w.other, theirs.id, true)).unwrap();
    let their_run = block(procflow.create_run(&w.other, CreateRun::of(theirs.id))).unwrap();
    let their_tasks = block(procflow.list_tasks(&w.other, their_run.id, PageRequest::default()))
        .unwrap()
        .items;
    let our_run = w.start(&w.published(onboarding()));
    let before_theirs = (
        block(procflow.get_run(&w.other, their_run.id)).unwrap(),
        their_tasks.clone(),
    );
    let before_ours = w.state_of(our_run.id);

    let no_run = DomainError::NotFound(Resource::Run);
    let task = their_tasks[HELLO].id;
    assert_eq!(
        block(procflow.get_run(&w.team, their_run.id)),
        Err(no_run.clone())
    );
    assert_eq!(
        block(procflow.list_tasks(&w.team, their_run.id, PageRequest::default())).map(|p| p.items),
        Err(no_run.clone())
    );
    assert_eq!(
        block(procflow.get_task(&w.team, their_run.id, task)),
        Err(no_run.clone())
    );
    assert_eq!(
        w.update(their_run.id, task, complete()).map(|c| c.run),
        Err(no_run.clone())
    );
    assert_eq!(
        w.invite(their_run.id, invitation(Some("guest@example.org")))
            .map(|c| c.share_url),
        Err(no_run.clone())
    );
    assert_eq!(
        block(procflow.stop_sharing(&w.team, their_run.id)),
        Err(no_run.clone())
    );
    // Our run with their task: the task is not found in our run.
    assert_eq!(
        w.update(our_run.id, task, complete()).map(|c| c.run),
        Err(DomainError::NotFound(Resource::Task))
    );
    assert_eq!(
        block(procflow.get_task(&w.team, our_run.id, task)),
        Err(DomainError::NotFound(Resource::Task))
    );

    assert_eq!(
        w.runs().iter().map(|r| r.id).collect::<Vec<_>>(),
        [our_run.id]
    );
    assert_eq!(
        (
            block(procflow.get_run(&w.other, their_run.id)).unwrap(),
            block(procflow.list_tasks(&w.other, their_run.id, PageRequest::default()))
                .unwrap()
                .items
        ),
        before_theirs
    );
    assert_eq!(w.state_of(our_run.id), before_ours);
    assert_eq!(block(w.store.get_share(w.other.id, their_run.id)), Ok(None));
}
