//! The use cases of `Procflow`, driven over the in-memory fakes of every port.
//!
//! This file sets up the world every test starts from and the helpers they share; the tests
//! themselves live in `tests/use_cases/`, one file per area.

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers: an unexpected outcome of a set-up step fails the test"
)]

use std::future::Future;
use std::sync::Arc;

use procflow_domain::actor::{Actor, Assignee};
use procflow_domain::error::{DomainError, Resource, ValidationError};
use procflow_domain::event::{Event, EventPayload};
use procflow_domain::ids::{ElementId, RunId, TaskId, TeamId, TemplateId, TemplateTaskId, UserId};
use procflow_domain::ports::{Clock, RunStore, TeamStore, TemplateStore};
use procflow_domain::run::{
    Decision, ElementWrite, ListedTask, Prefill, Run, RunFilter, RunStatus, RunTask, TaskChange,
    TaskState,
};
use procflow_domain::service::{CreateRun, Ports, Procflow, UpdateTask};
use procflow_domain::sharing::Invitation;
use procflow_domain::team::{Member, Role, Subscription, Team};
use procflow_domain::template::{Template, TemplateDocument};
use procflow_domain::values::{Cursor, Email, Limit, Page, PageRequest, ShareToken};
use procflow_memory::{FixedClock, InMemoryStore, SequentialIds};
use serde_json::{Value, json};
use time::Duration;
use uuid::Uuid;

// ---------------------------------------------------------------------------------------------
// The world every test starts from
// ---------------------------------------------------------------------------------------------

fn block<F: Future>(future: F) -> F::Output {
    futures_executor::block_on(future)
}

fn email(text: &str) -> Email {
    text.parse().unwrap()
}

/// Ids far from the ones `SequentialIds` hands out.
fn fixed_uuid(n: u128) -> Uuid {
    Uuid::from_u128(0xF1CE_0000_0000_0000_0000 + n)
}

/// Our team (`Demo`, with its admin, an active member Ada and an inactive member Ivan) and
/// another team (`Other`, with its admin Olga), over one in-memory store.
struct World {
    store: Arc<InMemoryStore>,
    clock: Arc<FixedClock>,
    procflow: Procflow,
    team: Team,
    admin: Member,
    ada: Member,
    ivan: Member,
    other: Team,
    olga: Member,
}

fn member(team: TeamId, n: u128, address: &str, active: bool) -> Member {
    Member {
        id: UserId::from_uuid(fixed_uuid(n)),
        team_id: team,
        email: email(address),
        name: None,
        role: Role::Member,
        active,
        created_at: time::macros::datetime!(2026-01-01 0:00 UTC),
    }
}

fn world() -> World {
    let store = Arc::new(InMemoryStore::default());
    let clock = Arc::new(FixedClock::default());
    let procflow = Procflow::new(Ports {
        templates: store.clone(),
        runs: store.clone(),
        teams: store.clone(),
        clock: clock.clone(),
        ids: Arc::new(SequentialIds::default()),
    });
    let team = store.demo_team();
    let admin = block(store.find_member_by_email(team.id, &email("admin@demo.example")))
        .unwrap()
        .unwrap();
    let ada = member(team.id, 1, "ada@demo.example", true);
    let ivan = member(team.id, 2, "ivan@demo.example", false);
    block(store.add_member(&ada)).unwrap();
    block(store.add_member(&ivan)).unwrap();
    let other = Team {
        id: TeamId::from_uuid(fixed_uuid(0x07E)),
        name: "Other".into(),
        base_url: "https://other.example".into(),
        timezone: "Europe/Paris".into(),
        subscription: Subscription::Active,
        created_at: clock.now(),
    };
    let olga = Member {
        role: Role::Admin,
        ..member(other.id, 3, "olga@other.example", true)
    };
    block(store.create_team(&other, &olga)).unwrap();
    World {
        store,
        clock,
        procflow,
        team,
        admin,
        ada,
        ivan,
        other,
        olga,
    }
}

/// Tasks of `onboarding()`, by order.
const COLLECT: usize = 0;
const APPROVE: usize = 1;
const HELLO: usize = 2;

/// Three tasks: an essential one for the runner with a name, a dropdown and a display-only
/// text; an approval; a plain optional one.
fn onboarding() -> Value {
    json!({
        "title": "Onboarding",
        "sections": [{"title": "Week one", "color": "#EC4899", "tasks": [
            {"title": "Collect documents", "is_essential": true, "assignee": "runner",
             "custom_elements": [
                {"type": "shortText", "label": "Full name"},
                {"type": "dropdown", "label": "Department", "options": ["Eng", "Sales"]},
                {"type": "text", "label": "Welcome", "value": "<p>Hi</p>"}
             ]},
            {"title": "Approve contract", "type": "approval"},
            {"title": "Say hello"}
        ]}]
    })
}

/// One task holding all 14 element types, in the order of `ElementType::ALL`.
fn form() -> Value {
    json!({
        "title": "Form",
        "sections": [{"title": "All", "tasks": [{"title": "Fill in", "custom_elements": [
            {"type": "shortText", "label": "Short"},
            {"type": "longText", "label": "Long"},
            {"type": "number", "label": "Number"},
            {"type": "email", "label": "Email"},
            {"type": "website", "label": "Website"},
            {"type": "date", "label": "Date"},
            {"type": "checkbox", "label": "Checkbox"},
            {"type": "dropdown", "label": "Department", "options": ["Eng", "Sales", "R&D"]},
            {"type": "multichoice", "label": "Tools", "options": ["Git", "Jira"]},
            {"type": "text", "label": "Text", "value": "<p>Read me</p>"},
            {"type": "image", "label": "Image", "value": "https://example.com/i.png"},
            {"type": "video", "label": "Video", "value": "https://example.com/v.mp4"},
            {"type": "file", "label": "File", "file_url": "https://example.com/f.pdf"},
            {"type": "lineBreak"}
        ]}]}]
    })
}

fn document(value: Value) -> TemplateDocument {
    TemplateDocument::from_json(value).unwrap()
}

fn page(limit: i64, cursor: Option<Cursor>) -> PageRequest {
    PageRequest {
        limit: Limit::new(limit).unwrap(),
        cursor,
    }
}

fn complete() -> UpdateTask {
    UpdateTask {
        completed: Some(true),
        ..UpdateTask::default()
    }
}

fn skip() -> UpdateTask {
    UpdateTask {
        skipped: Some(true),
        ..UpdateTask::default()
    }
}

/// Assigns `to`, a user id or an email, as the API reads it.
fn assign(to: Option<&str>) -> UpdateTask {
    UpdateTask {
        assignee: Some(to.map(|text| text.parse().unwrap())),
        ..UpdateTask::default()
    }
}

fn write(element: ElementId, value: Value) -> UpdateTask {
    UpdateTask {
        custom_elements: vec![ElementWrite { id: element, value }],
        ..UpdateTask::default()
    }
}

/// The field a validation error names.
fn refused_field(error: DomainError) -> String {
    match error {
        DomainError::Validation(ValidationError::Field { field, .. }) => field,
        other => panic!("expected a refused field, got {other:?}"),
    }
}

/// The run an event is about.
fn run_of(event: &Event) -> RunId {
    match event.payload.run_id() {
        Some(run) => run,
        None => panic!("expected an event about a run, got {event:?}"),
    }
}

impl World {
    fn create(&self, doc: Value) -> Template {
        block(self.procflow.create_template(&self.team, document(doc))).unwrap()
    }

    fn published(&self, doc: Value) -> Template {
        let template = self.create(doc);
        block(
            self.procflow
                .publish_template(&self.team, template.id, true),
        )
        .unwrap()
    }

    fn create_run(&self, request: CreateRun) -> Result<Run, DomainError> {
        block(self.procflow.create_run(&self.team, request))
    }

    fn start(&self, template: &Template) -> Run {
        self.create_run(CreateRun::of(template.id)).unwrap()
    }

    fn run(&self, run: RunId) -> Run {
        block(self.procflow.get_run(&self.team, run)).unwrap()
    }

    fn tasks(&self, run: RunId) -> Vec<RunTask> {
        block(self.procflow.list_tasks(&self.team, run, page(100, None)))
            .unwrap()
            .items
            .into_iter()
            .map(|t| t.parsed().unwrap())
            .collect()
    }

    fn task(&self, run: RunId, index: usize) -> RunTask {
        self.tasks(run).swap_remove(index)
    }

    fn update(
        &self,
        run: RunId,
        task: TaskId,
        request: UpdateTask,
    ) -> Result<TaskChange, DomainError> {
        block(self.procflow.update_task(&self.team, run, task, request))
    }

    fn runs(&self) -> Vec<Run> {
        block(
            self.procflow
                .list_runs(&self.team, RunFilter::default(), page(100, None)),
        )
        .unwrap()
        .items
    }

    fn events_of(&self, run: RunId) -> Vec<EventPayload> {
        self.store
            .events()
            .into_iter()
            .filter(|event| run_of(event) == run)
            .map(|event| event.payload)
            .collect()
    }

    /// Everything a refused call must leave as it was.
    fn state_of(&self, run: RunId) -> (Run, Vec<RunTask>, usize) {
        (self.run(run), self.tasks(run), self.store.events().len())
    }

    fn invite(
        &self,
        run: RunId,
        invitation: Invitation,
    ) -> Result<procflow_domain::sharing::ShareChange, DomainError> {
        block(self.procflow.invite_guest(&self.team, run, invitation))
    }
}

fn invitation(address: Option<&str>) -> Invitation {
    Invitation {
        email: address.map(email),
        ..Invitation::default()
    }
}

fn count(events: &[EventPayload], name: &str) -> usize {
    events.iter().filter(|e| e.name() == name).count()
}

// ---------------------------------------------------------------------------------------------
// The tests, by area (files under `tests/use_cases/`)
// ---------------------------------------------------------------------------------------------

#[path = "use_cases/assignees.rs"]
mod assignees;
#[path = "use_cases/batch.rs"]
mod batch;
#[path = "use_cases/conditional.rs"]
mod conditional;
#[path = "use_cases/create_run.rs"]
mod create_run;
#[path = "use_cases/form_values.rs"]
mod form_values;
#[path = "use_cases/guest.rs"]
mod guest;
#[path = "use_cases/isolation.rs"]
mod isolation;
#[path = "use_cases/pagination.rs"]
mod pagination;
#[path = "use_cases/sharing.rs"]
mod sharing;
#[path = "use_cases/templates.rs"]
mod templates;
#[path = "use_cases/update_task.rs"]
mod update_task;
