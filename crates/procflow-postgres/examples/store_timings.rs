//! Times the store's two hot writes against a real PostgreSQL: creating a run of 50 and of 500
//! tasks, and updating a task on a run of 5 and of 500 tasks. `make store-timings` runs it in
//! release mode on a throwaway database (or on `DATABASE_URL`'s server).
#![allow(
    clippy::print_stdout,
    clippy::expect_used,
    reason = "a measuring tool prints its table and fails loudly"
)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use procflow_domain::ids::TeamId;
use procflow_domain::ports::{IdGenerator, RunStore, TeamStore};
use procflow_domain::run::{NewRun, Run, StartRun};
use procflow_domain::service::{Ports, Procflow, UpdateTask};
use procflow_domain::team::{Member, Role, Subscription, Team};
use procflow_domain::template::{Template, TemplateDocument};
use procflow_domain::values::ShareToken;
use procflow_memory::FixedClock;
use procflow_postgres::testing::migrated_database;
use procflow_postgres::{PgStore, PoolConfig};
use serde_json::{Value, json};
use uuid::Uuid;

const ROUNDS: usize = 200;

struct V7Ids;

impl IdGenerator for V7Ids {
    fn new_id(&self) -> Uuid {
        Uuid::now_v7()
    }

    fn share_token(&self) -> ShareToken {
        ShareToken::new(Uuid::new_v4().simple().to_string())
    }
}

fn document(tasks: usize, elements: usize) -> Value {
    let tasks: Vec<Value> = (0..tasks)
        .map(|t| {
            let elements: Vec<Value> = (0..elements)
                .map(|e| json!({"type": "shortText", "label": format!("Field {e}")}))
                .collect();
            json!({"title": format!("Task {t}"), "custom_elements": elements})
        })
        .collect();
    json!({"title": "Timed", "sections": [{"title": "All", "tasks": tasks}]})
}

fn summary(mut samples: Vec<Duration>) -> (f64, f64, f64) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1_000.0;
    let mean = samples.iter().map(|d| ms(*d)).sum::<f64>() / samples.len() as f64;
    (
        mean,
        ms(samples[samples.len() / 2]),
        ms(samples[samples.len() * 99 / 100]),
    )
}

fn new_run(template: &Template) -> NewRun {
    Run::start(
        StartRun {
            template,
            title: None,
            due_date: None,
            runner: None,
            members: &[],
            timezone: "UTC".into(),
            prefill: Vec::new(),
        },
        &V7Ids,
        time::OffsetDateTime::now_utc(),
    )
    .expect("start")
}

#[tokio::main]
async fn main() {
    let db = migrated_database().await;
    let store = PgStore::new(&PoolConfig::new(db.url())).expect("pool");
    let shared = Arc::new(store.clone());
    let procflow = Procflow::new(Ports {
        templates: shared.clone(),
        runs: shared.clone(),
        teams: shared,
        clock: Arc::new(FixedClock::default()),
        ids: Arc::new(V7Ids),
    });
    let team = Team {
        id: TeamId::from_uuid(Uuid::now_v7()),
        name: "Timings".into(),
        base_url: "http://localhost".into(),
        timezone: "UTC".into(),
        subscription: Subscription::Active,
        created_at: time::OffsetDateTime::now_utc(),
    };
    let admin = Member {
        id: procflow_domain::ids::UserId::from_uuid(Uuid::now_v7()),
        team_id: team.id,
        email: "admin@timings.example".parse().expect("email"),
        name: None,
        role: Role::Admin,
        active: true,
        created_at: team.created_at,
    };
    store.create_team(&team, &admin).await.expect("team");

    println!("| operation | rounds | mean ms | p50 ms | p99 ms |");
    println!("|---|---:|---:|---:|---:|");
    let mut templates = Vec::new();
    for tasks in [5, 50, 500] {
        let doc = TemplateDocument::from_json(document(tasks, 3)).expect("document");
        let template = procflow.create_template(&team, doc).await.expect("create");
        templates.push(
            procflow
                .publish_template(&team, template.id, true)
                .await
                .expect("publish"),
        );
    }
    for template in &templates[1..] {
        let mut samples = Vec::with_capacity(ROUNDS);
        for _ in 0..ROUNDS {
            let run = new_run(template);
            let started = Instant::now();
            store.create_run(&run).await.expect("create run");
            samples.push(started.elapsed());
        }
        let (mean, p50, p99) = summary(samples);
        let n = template.tasks.len();
        println!(
            "| create a run of {n} tasks × 3 fields | {ROUNDS} | {mean:.2} | {p50:.2} | {p99:.2} |"
        );
    }
    for template in [&templates[0], &templates[2]] {
        let n = template.tasks.len();
        let mut samples = Vec::with_capacity(ROUNDS);
        let mut run = new_run(template);
        store.create_run(&run).await.expect("create run");
        for round in 0..ROUNDS {
            // Alternate completing and reopening one task so the run never completes.
            let task = run.tasks[round % n.min(4)].id;
            let completed = Some(round % (2 * n.min(4)) < n.min(4));
            let started = Instant::now();
            procflow
                .update_task(
                    &team,
                    run.run.id,
                    task,
                    UpdateTask {
                        completed,
                        ..UpdateTask::default()
                    },
                )
                .await
                .expect("update");
            samples.push(started.elapsed());
            if round == 0 {
                run.run = store.get_run(team.id, run.run.id).await.expect("run");
            }
        }
        let (mean, p50, p99) = summary(samples);
        println!(
            "| update a task on a run of {n} tasks | {ROUNDS} | {mean:.2} | {p50:.2} | {p99:.2} |"
        );
    }
}
