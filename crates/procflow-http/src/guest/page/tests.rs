//! The page's view of a run, over the domain's fakes. What rendering it costs is measured by
//! the crate's `guest_page_timings` example, not here.

use std::sync::Arc;

use askama::Template;
use procflow_domain::service::{CreateRun, Ports, Procflow, SharedRun};
use procflow_domain::sharing::Invitation;
use procflow_domain::template::TemplateDocument;
use procflow_memory::{FixedClock, InMemoryStore, SequentialIds};
use serde_json::json;

use super::*;

/// A run of `tasks` tasks of 3 fields (as the bench's template), shared, as its guest opens it.
async fn shared_run(tasks: usize) -> SharedRun {
    let store = Arc::new(InMemoryStore::default());
    let procflow = Procflow::new(Ports {
        templates: store.clone(),
        runs: store.clone(),
        teams: store.clone(),
        clock: Arc::new(FixedClock::default()),
        ids: Arc::new(SequentialIds::default()),
    });
    let team = store.demo_team();
    let tasks: Vec<_> = (0..tasks)
        .map(|n| {
            json!({"title": format!("Task {n}"), "custom_elements": [
                {"type": "shortText", "label": format!("Name {n}"), "required": true},
                {"type": "number", "label": format!("Amount {n}")},
                {"type": "email", "label": format!("Contact {n}")}]})
        })
        .collect();
    let document = TemplateDocument::from_json(json!({"title": "Bench", "sections": [
        {"title": "All", "color": "#3B82F6", "tasks": tasks}]}))
    .unwrap();
    let template = procflow.create_template(&team, document).await.unwrap();
    procflow
        .publish_template(&team, template.id, true)
        .await
        .unwrap();
    let run = procflow
        .create_run(&team, CreateRun::of(template.id))
        .await
        .unwrap();
    let share = procflow
        .invite_guest(&team, run.id, Invitation::default())
        .await
        .unwrap();
    procflow
        .open_shared_run(run.id, &share.token)
        .await
        .unwrap()
}

fn render(shared: &SharedRun) -> String {
    let link = Link::from_page(shared.run.id, "token");
    PageView::new(shared, &link, OffsetDateTime::UNIX_EPOCH, None)
        .render()
        .unwrap()
}

#[tokio::test]
async fn every_task_of_the_run_is_on_the_page_once() {
    let shared = shared_run(3).await;
    let html = render(&shared);
    for task in &shared.tasks {
        assert_eq!(html.matches(&format!("id=\"task-{}\"", task.id)).count(), 1);
    }
    // A form per task, a comment form per task, and an upload form per task (each the
    // guest's: unassigned).
    assert_eq!(html.matches("<form ").count(), 9);
    assert_eq!(html.matches("class=\"comment-form\"").count(), 3);
    assert_eq!(html.matches("class=\"upload-form\"").count(), 3);
    assert_eq!(html.matches("enctype=\"multipart/form-data\"").count(), 3);
    assert_eq!(html.matches("<input ").count(), 12);
    assert_eq!(html.matches("<input type=\"file\"").count(), 3);
}
