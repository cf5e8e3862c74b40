//! A process run from start to finish, using nothing but `procflow-domain`'s public API:
//! author a template from a document, publish it, start a run with a pre-filled form field,
//! close every task and print where the run ended up.
//!
//! The use cases run over the in-memory fakes; an embedding service passes its own adapters
//! in `Ports` instead. Run it with `cargo run -p procflow-domain --example lifecycle`.

// An example reports what it did on the terminal; that is its whole output.
#![allow(clippy::print_stdout)]

use std::error::Error;
use std::sync::Arc;

use procflow_domain::run::{Decision, ElementWrite, Prefill, RunTask};
use procflow_domain::service::{CreateRun, Ports, Procflow, UpdateTask};
use procflow_domain::template::{TaskType, TemplateDocument};
use procflow_domain::values::{Email, PageRequest};
use procflow_memory::{FixedClock, InMemoryStore, SequentialIds};
use serde_json::json;
use time::format_description::well_known::Rfc3339;

fn main() -> Result<(), Box<dyn Error>> {
    // The use cases are async; over the fakes nothing ever waits, so any executor will do.
    futures_executor::block_on(lifecycle())
}

async fn lifecycle() -> Result<(), Box<dyn Error>> {
    // 1. Wire the use cases to their ports: one in-memory store plays every store.
    let store = Arc::new(InMemoryStore::default());
    let procflow = Procflow::new(Ports {
        templates: store.clone(),
        runs: store.clone(),
        teams: store.clone(),
        clock: Arc::new(FixedClock::default()),
        ids: Arc::new(SequentialIds::default()),
    });
    let team = store.demo_team();
    let member: Email = "admin@demo.example".parse()?;

    // 2. Author a template from its document, and publish it.
    let document = TemplateDocument::from_json(json!({
        "title": "Employee onboarding",
        "sections": [{"title": "First week", "color": "#EC4899", "tasks": [
            {"title": "Collect documents", "is_essential": true, "assignee": "runner",
             "custom_elements": [
                {"type": "shortText", "label": "Full name", "required": true},
                {"type": "dropdown", "label": "Department", "options": ["Eng", "Sales"]}
             ]},
            {"title": "Approve contract", "type": "approval", "is_essential": true},
            {"title": "Team lunch"}
        ]}]
    }))?;
    let template = procflow.create_template(&team, document).await?;
    let template = procflow.publish_template(&team, template.id, true).await?;
    println!(
        "template {:?} published, version {}",
        template.title, template.version
    );

    // 3. Start a run for a member, with the first task's name field pre-filled.
    let first = &template.tasks[0];
    let run = procflow
        .create_run(
            &team,
            CreateRun {
                name: Some("Onboarding: Ada".into()),
                actor_email: Some(member.clone()),
                custom_elements: vec![Prefill {
                    task_id: first.id,
                    element_id: first.custom_elements[0].id,
                    value: json!("Ada Lovelace"),
                }],
                ..CreateRun::of(template.id)
            },
        )
        .await?;
    println!(
        "run {:?} started by {}, {} tasks open",
        run.title,
        run.started_by,
        run.open_tasks()
    );

    // 4. Close every task: skip what may be skipped, approve approvals, complete the rest.
    let tasks = procflow
        .list_tasks(&team, run.id, PageRequest::default())
        .await?
        .items;
    for task in tasks {
        let request = if !task.is_essential {
            UpdateTask {
                skipped: Some(true),
                ..UpdateTask::default()
            }
        } else if task.task_type == TaskType::Approval {
            UpdateTask {
                decision: Some(Decision::Approved),
                comment: Some("Signed and filed".into()),
                actor_email: Some(member.clone()),
                ..UpdateTask::default()
            }
        } else {
            // A listing carries its tasks' elements unparsed (for its answer to pass them on).
            let department = task.custom_elements.parse()?[1].id;
            UpdateTask {
                completed: Some(true),
                actor_email: Some(member.clone()),
                custom_elements: vec![ElementWrite {
                    id: department,
                    value: json!("Eng"),
                }],
                ..UpdateTask::default()
            }
        };
        let change = procflow
            .update_task(&team, run.id, task.id, request)
            .await?;
        println!("  {:<20} {}", task.title, describe(&change.task));
    }

    // 5. The run completed itself when its last open task closed.
    let run = procflow.get_run(&team, run.id).await?;
    let completed_at = match run.completed_at() {
        Some(at) => at.format(&Rfc3339)?,
        None => "never".to_owned(),
    };
    println!(
        "run {:?} is {} (completed at {completed_at})",
        run.title,
        run.status().as_str()
    );
    let events: Vec<&str> = store.events().iter().map(|e| e.payload.name()).collect();
    println!("events for the outbox: {}", events.join(", "));
    Ok(())
}

fn describe(task: &RunTask) -> String {
    match (task.completed_by(), task.skipped()) {
        (Some(by), _) => format!("completed by {by}"),
        (None, true) => "skipped".to_owned(),
        (None, false) => "open".to_owned(),
    }
}
