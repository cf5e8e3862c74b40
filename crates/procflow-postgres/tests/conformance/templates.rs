//! `TemplateStore`: round trips, lists, archive, publish and replace.

use procflow_domain::error::{DomainError, Resource};
use procflow_domain::ids::TemplateId;
use procflow_domain::template::TemplateDocument;
use procflow_domain::values::{Cursor, Limit, PageRequest};
use serde_json::json;
use time::Duration;
use uuid::Uuid;

use super::env::{Env, conformance_test};
use super::support::{document, published};

conformance_test!(a_template_reads_back_as_written);
async fn a_template_reads_back_as_written(env: Env) {
    let doc = TemplateDocument::from_json(document()).unwrap();
    let created = env.procflow.create_template(&env.team, doc).await.unwrap();
    let read = env
        .store
        .get_template(env.team.id, created.id)
        .await
        .unwrap();
    assert_eq!(read, created);
    assert_eq!(read.sections.len(), 2);
    assert_eq!(read.tasks.len(), 3);
    assert_eq!(read.version, 0);
}

conformance_test!(templates_list_by_creation_in_pages_without_tasks);
async fn templates_list_by_creation_in_pages_without_tasks(env: Env) {
    let mut ids = Vec::new();
    for _ in 0..5 {
        let doc = TemplateDocument::from_json(document()).unwrap();
        ids.push(
            env.procflow
                .create_template(&env.team, doc)
                .await
                .unwrap()
                .id,
        );
        env.clock.advance(Duration::seconds(1));
    }
    let limit = Limit::new(2).unwrap();
    let mut seen = Vec::new();
    let mut cursor = None;
    loop {
        let page = env
            .store
            .list_templates(env.team.id, PageRequest { limit, cursor })
            .await
            .unwrap();
        assert!(
            page.items
                .iter()
                .all(|t| t.tasks.is_empty() && t.sections.len() == 2)
        );
        seen.extend(page.items.iter().map(|t| t.id));
        if !page.has_more {
            break;
        }
        cursor = page.next_cursor;
    }
    assert_eq!(seen, ids);
}

conformance_test!(a_cursor_naming_no_template_is_refused);
async fn a_cursor_naming_no_template_is_refused(env: Env) {
    let page = PageRequest {
        limit: Limit::default(),
        cursor: Some(Cursor::after(Uuid::now_v7())),
    };
    let refused = env
        .store
        .list_templates(env.team.id, page)
        .await
        .unwrap_err();
    assert_eq!(refused, DomainError::Validation(Cursor::unknown()));
}

conformance_test!(template_tasks_list_by_order_after_a_cursor);
async fn template_tasks_list_by_order_after_a_cursor(env: Env) {
    let template = published(&env, &env.team, document()).await;
    let first = env
        .store
        .list_template_tasks(
            env.team.id,
            template.id,
            PageRequest {
                limit: Limit::new(1).unwrap(),
                cursor: None,
            },
        )
        .await
        .unwrap();
    assert!(first.has_more);
    let rest = env
        .store
        .list_template_tasks(
            env.team.id,
            template.id,
            PageRequest {
                limit: Limit::default(),
                cursor: first.next_cursor,
            },
        )
        .await
        .unwrap();
    let orders: Vec<u32> = first
        .items
        .iter()
        .chain(&rest.items)
        .map(|t| t.order)
        .collect();
    assert_eq!(orders, [0, 1, 2]);
    assert!(!rest.has_more);
}

conformance_test!(archived_templates_leave_lists_and_gets);
async fn archived_templates_leave_lists_and_gets(env: Env) {
    let template = published(&env, &env.team, document()).await;
    env.procflow
        .archive_template(&env.team, template.id)
        .await
        .unwrap();
    let gone = DomainError::NotFound(Resource::Template);
    assert_eq!(
        env.store
            .get_template(env.team.id, template.id)
            .await
            .unwrap_err(),
        gone
    );
    assert_eq!(
        env.store
            .list_template_tasks(env.team.id, template.id, PageRequest::default())
            .await
            .unwrap_err(),
        gone
    );
    let list = env
        .store
        .list_templates(env.team.id, PageRequest::default())
        .await
        .unwrap();
    assert!(list.items.is_empty());
    assert_eq!(
        env.procflow
            .archive_template(&env.team, template.id)
            .await
            .unwrap_err(),
        gone
    );
}

conformance_test!(publishing_adds_one_to_the_version_once);
async fn publishing_adds_one_to_the_version_once(env: Env) {
    let template = published(&env, &env.team, document()).await;
    assert_eq!((template.is_published, template.version), (true, 1));
    let again = env
        .procflow
        .publish_template(&env.team, template.id, true)
        .await
        .unwrap();
    assert_eq!(again.version, 1);
    let draft = env
        .procflow
        .publish_template(&env.team, template.id, false)
        .await
        .unwrap();
    let read = env
        .store
        .get_template(env.team.id, template.id)
        .await
        .unwrap();
    assert_eq!(read, draft);
    assert!(!read.is_published);
    let republished = env
        .procflow
        .publish_template(&env.team, template.id, true)
        .await
        .unwrap();
    assert_eq!(republished.version, 2);
}

conformance_test!(a_published_template_cannot_be_replaced_and_a_draft_keeps_given_ids);
async fn a_published_template_cannot_be_replaced_and_a_draft_keeps_given_ids(env: Env) {
    let template = published(&env, &env.team, document()).await;
    let replacement = || {
        TemplateDocument::from_json(json!({
            "title": "Renamed",
            "sections": [{"id": template.sections[0].id, "title": "Only", "tasks": [
                {"id": template.tasks[0].id, "title": "Kept"},
                {"title": "New"}]}]
        }))
        .unwrap()
    };
    let refused = env
        .procflow
        .replace_template(&env.team, template.id, replacement(), None)
        .await;
    assert_eq!(refused.unwrap_err(), DomainError::TemplatePublished);
    assert_eq!(
        env.store
            .get_template(env.team.id, template.id)
            .await
            .unwrap(),
        template
    );

    env.procflow
        .publish_template(&env.team, template.id, false)
        .await
        .unwrap();
    let replaced = env
        .procflow
        .replace_template(&env.team, template.id, replacement(), None)
        .await
        .unwrap();
    let read = env
        .store
        .get_template(env.team.id, template.id)
        .await
        .unwrap();
    assert_eq!(read, replaced);
    assert_eq!(read.title, "Renamed");
    assert_eq!(read.tasks.len(), 2);
    assert_eq!(read.tasks[0].id, template.tasks[0].id);
    assert_eq!(read.tasks[0].created_at, template.tasks[0].created_at);
    assert_eq!(read.sections[0].id, template.sections[0].id);
}

conformance_test!(a_refused_decision_changes_nothing);
async fn a_refused_decision_changes_nothing(env: Env) {
    let empty = TemplateDocument::from_json(json!({"title": "Empty"})).unwrap();
    let draft = env
        .procflow
        .create_template(&env.team, empty)
        .await
        .unwrap();
    let refused = env
        .procflow
        .publish_template(&env.team, draft.id, true)
        .await
        .unwrap_err();
    assert_eq!(refused, DomainError::TemplateHasNoTask);
    assert_eq!(
        env.store.get_template(env.team.id, draft.id).await.unwrap(),
        draft
    );
}

conformance_test!(inserting_an_existing_template_id_is_a_conflict);
async fn inserting_an_existing_template_id_is_a_conflict(env: Env) {
    let template = published(&env, &env.team, document()).await;
    let refused = env.store.insert_template(&template).await.unwrap_err();
    assert!(matches!(refused, DomainError::Conflict(_)), "{refused:?}");
}

conformance_test!(an_unknown_template_is_not_found);
async fn an_unknown_template_is_not_found(env: Env) {
    let unknown = TemplateId::from_uuid(Uuid::now_v7());
    assert_eq!(
        env.store
            .get_template(env.team.id, unknown)
            .await
            .unwrap_err(),
        DomainError::NotFound(Resource::Template)
    );
}

conformance_test!(a_template_republished_with_a_new_document_reads_it_on_every_instance);
async fn a_template_republished_with_a_new_document_reads_it_on_every_instance(env: Env) {
    let template = published(&env, &env.team, document()).await;
    // The other instance reads the published version first (a PostgreSQL store keeps its
    // document), then this one unpublishes, replaces and publishes it again.
    let other = env.another_instance(2);
    let first = other.get_template(env.team.id, template.id).await.unwrap();
    assert_eq!(first, template);
    env.procflow
        .publish_template(&env.team, template.id, false)
        .await
        .unwrap();
    let replacement = TemplateDocument::from_json(json!({
        "title": "Renamed",
        "sections": [{"title": "Only", "tasks": [{"title": "New"}]}]
    }))
    .unwrap();
    env.procflow
        .replace_template(&env.team, template.id, replacement, None)
        .await
        .unwrap();
    // The draft read here only: the other instance still keeps version 1.
    let draft = env
        .store
        .get_template(env.team.id, template.id)
        .await
        .unwrap();
    assert_eq!((draft.is_published, draft.tasks.len()), (false, 1));
    let republished = env
        .procflow
        .publish_template(&env.team, template.id, true)
        .await
        .unwrap();
    assert_eq!(republished.version, 2);
    for _ in 0..2 {
        let read = other.get_template(env.team.id, template.id).await.unwrap();
        assert_eq!(read, republished);
        assert_eq!(read.tasks[0].title, "New");
    }
    // Archived: gone on every instance, whatever it kept.
    env.procflow
        .archive_template(&env.team, template.id)
        .await
        .unwrap();
    assert_eq!(
        other.get_template(env.team.id, template.id).await,
        Err(DomainError::NotFound(Resource::Template))
    );
}
