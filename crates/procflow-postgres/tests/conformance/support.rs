//! Fixtures: a migrated database, a store over it, two teams, and template documents.
#![allow(clippy::expect_used, reason = "fixtures of a test fail loudly")]

use std::sync::Arc;

use procflow_domain::event::Event;
use procflow_domain::fakes::{FixedClock, SequentialIds};
use procflow_domain::ids::{TeamId, UserId};
use procflow_domain::ports::{IdGenerator, Outbox, RunStore, TeamStore};
use procflow_domain::run::{Run, RunTask};
use procflow_domain::service::{CreateRun, Ports, Procflow};
use procflow_domain::team::{Member, Role, Subscription, Team};
use procflow_domain::template::{Template, TemplateDocument};
use procflow_domain::values::PageRequest;
use procflow_domain::values::ShareToken;
use procflow_postgres::testing::{TestDatabase, migrated_database};
use procflow_postgres::{PgStore, PoolConfig, StatementCounter};
use serde_json::{Value, json};
use time::macros::datetime;
use uuid::Uuid;

/// A test's world: its database, the store, the service over it, and two teams.
pub struct Env {
    pub store: PgStore,
    pub procflow: Procflow,
    pub clock: Arc<FixedClock>,
    pub statements: StatementCounter,
    /// The team the tests act for; its admin is `admin@a.example`, member `member@a.example`.
    pub team: Team,
    /// Another team, for isolation checks.
    pub other: Team,
    pub db: TestDatabase,
}

impl Env {
    /// The service clock's current time.
    pub fn clock_now(&self) -> time::OffsetDateTime {
        use procflow_domain::ports::Clock;
        self.clock.now()
    }
}

pub async fn env() -> Env {
    let db = migrated_database().await;
    let statements = StatementCounter::default();
    let store = PgStore::new(&PoolConfig {
        max_size: 20,
        statement_counter: Some(statements.clone()),
        ..PoolConfig::new(db.url())
    })
    .expect("pool");
    let clock = Arc::new(FixedClock::at(datetime!(2026-03-01 9:00 UTC)));
    let shared = Arc::new(store.clone());
    let procflow = Procflow::new(Ports {
        templates: shared.clone(),
        runs: shared.clone(),
        teams: shared,
        clock: clock.clone(),
        ids: Arc::new(SequentialIds::default()),
    });
    let team = create_team(&store, 0xA, "a").await;
    let other = create_team(&store, 0xB, "b").await;
    Env {
        store,
        procflow,
        clock,
        statements,
        team,
        other,
        db,
    }
}

async fn create_team(store: &PgStore, n: u128, name: &str) -> Team {
    let team = Team {
        id: TeamId::from_uuid(Uuid::from_u128(n << 100)),
        name: format!("Team {name}"),
        base_url: format!("https://{name}.example"),
        timezone: "Europe/Paris".into(),
        subscription: Subscription::Active,
        created_at: datetime!(2026-01-01 0:00 UTC),
    };
    let admin = member(&team, 1, &format!("admin@{name}.example"), Role::Admin);
    store.create_team(&team, &admin).await.expect("team");
    store
        .add_member(&member(
            &team,
            2,
            &format!("member@{name}.example"),
            Role::Member,
        ))
        .await
        .expect("member");
    team
}

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
pub struct Started {
    pub template: Template,
    pub run: Run,
    pub tasks: Vec<RunTask>,
}

pub async fn started(env: &Env) -> Started {
    let template = published(env, &env.team, document()).await;
    let run = env
        .procflow
        .create_run(&env.team, start(&template))
        .await
        .expect("run");
    let tasks = env
        .store
        .list_tasks(env.team.id, run.id, PageRequest::default())
        .await
        .expect("tasks")
        .items;
    Started {
        template,
        run,
        tasks,
    }
}

pub fn start(template: &Template) -> CreateRun {
    CreateRun::of(template.id)
}

/// Every event appended since the last call, leasing them far into the future.
pub async fn events(store: &PgStore) -> Vec<Event> {
    store
        .claim(
            100_000,
            datetime!(2099-01-01 0:00 UTC),
            datetime!(2100-01-01 0:00 UTC),
        )
        .await
        .expect("claim")
        .into_iter()
        .map(|entry| entry.event)
        .collect()
}
