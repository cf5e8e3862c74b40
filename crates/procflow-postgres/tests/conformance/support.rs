//! Fixtures: members, template documents, and a started run.

use procflow_domain::ids::{RunId, ScheduleId, TemplateId, UserId};
use procflow_domain::ports::IdGenerator;
use procflow_domain::run::{ListedTask, Run, RunTask};
use procflow_domain::schedule::{Recurrence, Schedule, ScheduledRun, Timezone};
use procflow_domain::service::CreateRun;
use procflow_domain::sharing::{Invitation, ShareChange};
use procflow_domain::team::{Member, Role, Team};
use procflow_domain::template::{Template, TemplateDocument};
use procflow_domain::values::ShareToken;
use procflow_domain::values::{Limit, PageRequest};
use serde_json::{Value, json};
use uuid::Uuid;

use super::env::Env;

/// Member `n` of `team`: its id is the team's plus `n`.
pub fn member(team: &Team, n: u128, email: &str, role: Role) -> Member {
    Member {
        id: UserId::from_uuid(Uuid::from_u128(team.id.as_uuid().as_u128() + n)),
        team_id: team.id,
        email: email.parse().expect("email"),
        name: Some(email.to_owned()),
        role,
        active: true,
        created_at: team.created_at,
    }
}

/// A document of two sections and three tasks, with elements of several types.
pub fn document() -> Value {
    json!({
        "title": "Employee onboarding",
        "description": "First days",
        "icon": "🚀", "icon_type": "emoji",
        "sections": [
            {"title": "Before day one", "color": "#EC4899", "tasks": [
                {"title": "Collect documents", "is_essential": true, "assignee": "runner",
                 "webhook_enabled": true,
                 "due_date": {"type": "relative", "from": "run_start", "offset": "P3D"},
                 "custom_elements": [
                    {"type": "shortText", "label": "Full name", "required": true},
                    {"type": "dropdown", "label": "Department", "options": ["Eng", "Sales"]},
                    {"type": "text", "label": "Welcome", "value": "<p>Hello</p>"}]},
                {"title": "Manager approval", "type": "approval"}]},
            {"title": "Day one", "tasks": [
                {"title": "Say hello", "custom_elements": [
                    {"type": "checkbox", "label": "Done"},
                    {"type": "multichoice", "label": "Tools", "options": ["Git", "Jira"]}]}]}
        ]
    })
}

/// A document of `tasks` tasks with `elements` short-text elements each.
pub fn sized_document(tasks: usize, elements: usize) -> Value {
    let tasks: Vec<Value> = (0..tasks)
        .map(|t| {
            let elements: Vec<Value> = (0..elements)
                .map(|e| json!({"type": "shortText", "label": format!("Field {e}")}))
                .collect();
            json!({"title": format!("Task {t}"), "custom_elements": elements})
        })
        .collect();
    json!({"title": "Sized", "sections": [{"title": "All", "tasks": tasks}]})
}

pub async fn published(env: &Env, team: &Team, document: Value) -> Template {
    let document = TemplateDocument::from_json(document).expect("document");
    let template = env
        .procflow
        .create_template(team, document)
        .await
        .expect("create");
    env.procflow
        .publish_template(team, template.id, true)
        .await
        .expect("publish")
}

/// Ids as production makes them (UUIDv7), for runs built outside the service.
pub struct V7Ids;

impl IdGenerator for V7Ids {
    fn new_id(&self) -> Uuid {
        Uuid::now_v7()
    }

    fn share_token(&self) -> ShareToken {
        ShareToken::new(Uuid::new_v4().simple().to_string())
    }
}

/// A published fixture template ([`document`]), a run of it started through the service, and
/// the run's tasks in order.
/// Every task of `run`, as a listing reads them (elements unparsed).
pub async fn listed(env: &Env, run: RunId) -> Vec<ListedTask> {
    env.store
        .list_tasks(env.team.id, run, PageRequest::default())
        .await
        .expect("tasks")
        .items
}

/// Listed tasks with their elements parsed, as the other reads give them.
pub fn parsed(tasks: Vec<ListedTask>) -> Vec<RunTask> {
    tasks
        .into_iter()
        .map(|t| t.parsed().expect("stored elements"))
        .collect()
}

pub struct Started {
    pub template: Template,
    pub run: Run,
    pub tasks: Vec<RunTask>,
}

pub async fn started(env: &Env) -> Started {
    started_with(env, document()).await
}

/// A run of `document`, published; its first 100 tasks.
pub async fn started_with(env: &Env, document: Value) -> Started {
    let template = published(env, &env.team, document).await;
    let run = env
        .procflow
        .create_run(&env.team, start(&template))
        .await
        .expect("run");
    let page = PageRequest {
        limit: Limit::new(100).expect("a limit"),
        cursor: None,
    };
    let tasks = parsed(
        env.store
            .list_tasks(env.team.id, run.id, page)
            .await
            .expect("tasks")
            .items,
    );
    Started {
        template,
        run,
        tasks,
    }
}

pub fn start(template: &Template) -> CreateRun {
    CreateRun::of(template.id)
}

/// Shares `run` with a guest from outside the team (`guest@outside.example`), invited by email.
pub async fn invite_outsider(env: &Env, run: RunId) -> ShareChange {
    env.procflow
        .invite_guest(
            &env.team,
            run,
            Invitation {
                email: Some("guest@outside.example".parse().unwrap()),
                ..Invitation::default()
            },
        )
        .await
        .unwrap()
}

/// A schedule of `template` in the env's team, every day at 09:30 UTC, enabled, next due at
/// the first occurrence at or after `due_from`; not stored.
pub fn daily_schedule(
    env: &Env,
    template: TemplateId,
    id: ScheduleId,
    due_from: time::OffsetDateTime,
) -> Schedule {
    let recurrence =
        Recurrence::parse("DTSTART:20260301T093000\nRRULE:FREQ=DAILY", Timezone::UTC).unwrap();
    let next_run_at = recurrence.first_from(due_from);
    Schedule {
        next_run_at,
        ..Schedule::new(
            id,
            env.team.id,
            template,
            recurrence,
            ScheduledRun::default(),
            env.clock_now(),
        )
    }
}

/// The plan tests' EXPLAIN, shared with the store's own tests.
pub use procflow_postgres::testing::explained;
