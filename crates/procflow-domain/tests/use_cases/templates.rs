//! Publishing, replacing and archiving templates (API contract 5).

use super::*;

#[test]
fn publishing_adds_one_to_the_version_and_republishing_does_not() {
    let w = world();
    let draft = w.create(onboarding());
    assert_eq!((draft.version, draft.is_published), (0, false));
    let publish = |published| {
        let template = block(w.procflow.publish_template(&w.team, draft.id, published)).unwrap();
        (template.version, template.is_published)
    };
    assert_eq!(publish(true), (1, true));
    assert_eq!(publish(true), (1, true));
    assert_eq!(publish(false), (1, false));
    assert_eq!(publish(false), (1, false));
    assert_eq!(publish(true), (2, true));
    let stored = block(w.procflow.get_template(&w.team, draft.id)).unwrap();
    assert_eq!((stored.version, stored.is_published), (2, true));
}

#[test]
fn a_template_without_tasks_cannot_be_published() {
    let w = world();
    let empty = w.create(json!({"title": "Empty", "sections": [{"title": "Nothing yet"}]}));
    let refused = block(w.procflow.publish_template(&w.team, empty.id, true)).unwrap_err();
    assert_eq!(refused, DomainError::TemplateHasNoTask);
    let stored = block(w.procflow.get_template(&w.team, empty.id)).unwrap();
    assert_eq!(stored, empty);
}

#[test]
fn a_published_template_cannot_be_replaced() {
    let w = world();
    let template = w.published(onboarding());
    let refused = block(
        w.procflow
            .replace_template(&w.team, template.id, document(form()), None),
    );
    assert_eq!(refused, Err(DomainError::TemplatePublished));
    assert_eq!(
        block(w.procflow.get_template(&w.team, template.id)),
        Ok(template.clone())
    );

    block(w.procflow.publish_template(&w.team, template.id, false)).unwrap();
    w.clock.advance(Duration::minutes(1));
    let replaced = block(
        w.procflow
            .replace_template(&w.team, template.id, document(form()), None),
    )
    .unwrap();
    assert_eq!(replaced.id, template.id);
    assert_eq!(replaced.title, "Form");
    assert_eq!(replaced.version, 1);
    assert_eq!(replaced.created_at, template.created_at);
    assert_eq!(replaced.updated_at, w.clock.now());
    assert_eq!(
        block(w.procflow.get_template(&w.team, template.id)),
        Ok(replaced)
    );
}

#[test]
fn an_invalid_replacement_leaves_the_template_as_it_was() {
    let w = world();
    let template = w.create(onboarding());
    let refused = block(w.procflow.replace_template(
        &w.team,
        template.id,
        document(json!({"title": "Bad", "sections": [{"title": "S", "color": "pink"}]})),
        None,
    ))
    .unwrap_err();
    assert_eq!(refused_field(refused), "sections[0].color");
    assert_eq!(
        block(w.procflow.get_template(&w.team, template.id)),
        Ok(template)
    );
}

#[test]
fn an_archived_template_is_gone_but_its_runs_stay() {
    let w = world();
    let template = w.published(onboarding());
    let run = w.start(&template);
    block(w.procflow.archive_template(&w.team, template.id)).unwrap();

    let not_found = DomainError::NotFound(Resource::Template);
    assert_eq!(
        block(w.procflow.get_template(&w.team, template.id)),
        Err(not_found.clone())
    );
    assert!(
        block(w.procflow.list_templates(&w.team, PageRequest::default()))
            .unwrap()
            .items
            .is_empty()
    );
    assert_eq!(
        block(
            w.procflow
                .list_template_tasks(&w.team, template.id, PageRequest::default())
        )
        .map(|p| p.items.len()),
        Err(not_found.clone())
    );
    assert_eq!(
        w.create_run(CreateRun::of(template.id)),
        Err(not_found.clone())
    );
    assert_eq!(
        block(w.procflow.publish_template(&w.team, template.id, false)).map(|t| t.id),
        Err(not_found.clone())
    );
    assert_eq!(
        block(w.procflow.archive_template(&w.team, template.id)),
        Err(not_found)
    );

    // The run carries on.
    assert_eq!(w.run(run.id).template_id, template.id);
    let task = w.task(run.id, HELLO);
    assert!(
        w.update(run.id, task.id, complete())
            .unwrap()
            .task
            .completed()
    );
}
