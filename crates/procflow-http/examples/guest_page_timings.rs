//! Times the guest page of a run of 50 tasks of 3 fields (the bench's template) beside the
//! API's JSON of the same tasks: rendering the page, building its view alone, and serialising
//! the task list. In release mode, the fastest of 5 batches of 500 (the machine is shared):
//! `cargo run --release -p procflow-http --example guest_page_timings`.
#![allow(
    clippy::print_stdout,
    clippy::expect_used,
    reason = "a measuring tool prints its figures and fails loudly"
)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use procflow_domain::service::{CreateRun, Ports, Procflow, SharedRun};
use procflow_domain::sharing::Invitation;
use procflow_domain::template::TemplateDocument;
use procflow_http::measure;
use procflow_http::views::RunTaskListView;
use procflow_memory::{FixedClock, InMemoryStore, SequentialIds};
use serde_json::json;

const TASKS: usize = 50;
const ROUNDS: u32 = 500;

/// The API's answer to a task list, as `GET /runs/{id}/tasks` wraps it.
#[derive(serde::Serialize)]
struct Envelope<'a> {
    data: Vec<RunTaskListView<'a>>,
}

/// A run of `tasks` tasks of 3 fields, shared, as its guest opens it.
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
    .expect("the bench's template is valid");
    let template = procflow
        .create_template(&team, document)
        .await
        .expect("create the template");
    procflow
        .publish_template(&team, template.id, true)
        .await
        .expect("publish the template");
    let run = procflow
        .create_run(&team, CreateRun::of(template.id))
        .await
        .expect("start a run");
    let share = procflow
        .invite_guest(&team, run.id, Invitation::default())
        .await
        .expect("share the run");
    procflow
        .open_shared_run(run.id, &share.token)
        .await
        .expect("open the shared run")
}

/// The time of one call of `work` (the fastest of 5 batches of `ROUNDS`) and what it returned.
fn fastest(work: &dyn Fn() -> usize) -> (Duration, usize) {
    (0..5)
        .map(|_| {
            let started = Instant::now();
            let mut bytes = 0;
            for _ in 0..ROUNDS {
                bytes = work();
            }
            (started.elapsed() / ROUNDS, bytes)
        })
        .min()
        .expect("five batches")
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let shared = shared_run(TASKS).await;
    let (page, bytes) = fastest(&|| measure::guest_page(&shared).expect("render").len());
    let (build, _) = fastest(&|| {
        measure::guest_page_view(&shared);
        0
    });
    let (api, json_bytes) = fastest(&|| {
        let data = shared.tasks.iter().map(RunTaskListView::from).collect();
        serde_json::to_vec(&Envelope { data })
            .expect("serialise")
            .len()
    });
    println!(
        "{TASKS} tasks x 3 fields: the guest page {page:?} ({bytes} bytes; its view {build:?}), \
         the API's JSON {api:?} ({json_bytes} bytes)"
    );
}
