//! Several instances on one database, behind a round-robin client (docs/scaling.md): the rate
//! limit is exact across them, one `Idempotency-Key` makes one run however many requests race
//! on however many instances, and a run completes exactly once with one
//! `process_run.completed` event.

use futures_util::future::join_all;
use procflow_domain::event::EventPayload;
use procflow_tests::{Instance, Options, Reply, TestApp, sized_document};
use reqwest::Method;
use serde_json::{Value, json};

const INSTANCES: usize = 3;

/// The app and two more instances over its database.
struct Cluster {
    app: TestApp,
    others: Vec<Instance>,
}

impl Cluster {
    async fn start(options: Options) -> Self {
        let app = TestApp::with(options).await;
        let others = (1..INSTANCES).map(|_| app.spawn_instance()).collect();
        Self { app, others }
    }

    /// The base address of request `n`, round robin over the instances.
    fn base(&self, n: usize) -> &str {
        match n % INSTANCES {
            0 => self.app.base(),
            i => self.others[i - 1].base(),
        }
    }
}

fn options(rate_limit_per_minute: u32) -> Options {
    Options {
        rate_limit_per_minute,
        workers: 2,
        pool_size: 8,
        ..Options::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_rate_limit_is_exact_across_three_instances() {
    const LIMIT: u32 = 100;
    let cluster = Cluster::start(options(LIMIT)).await;
    let app = &cluster.app;
    let (_, key) = app.new_key(&app.team, &app.admin).await;

    let replies: Vec<Reply> = join_all((0..150).map(|n| {
        app.call(Method::GET, "/api/v1/process-templates")
            .at(cluster.base(n))
            .key(&key)
            .send()
    }))
    .await;

    let accepted = replies.iter().filter(|reply| reply.status == 200).count();
    for reply in replies.iter().filter(|reply| reply.status != 200) {
        reply.error(429, "rate_limited");
    }
    assert_eq!(accepted, LIMIT as usize, "exactly the limit is accepted");
    for n in 0..INSTANCES {
        app.call(Method::GET, "/api/v1/process-templates")
            .at(cluster.base(n))
            .key(&key)
            .send()
            .await
            .error(429, "rate_limited");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_racing_requests_with_one_idempotency_key_make_one_run() {
    let cluster = Cluster::start(options(100_000)).await;
    let app = &cluster.app;
    let body = json!({"template_id": app.template.id});

    let replies: Vec<Reply> = join_all((0..50).map(|n| {
        app.call(Method::POST, "/api/v1/process-runs")
            .at(cluster.base(n))
            .header("Idempotency-Key", "one-run")
            .json(&body)
            .send()
    }))
    .await;

    let ran: Vec<&Reply> = replies
        .iter()
        .filter(|reply| reply.status == 201 && reply.header("idempotency-replayed") != Some("true"))
        .collect();
    assert_eq!(ran.len(), 1, "exactly one request ran");
    for reply in &replies {
        if reply.status == 409 {
            reply.error(409, "idempotency_in_flight");
        } else {
            reply.assert_status(201);
            assert_eq!(reply.text, ran[0].text, "every 201 is the same answer");
        }
    }
    assert_eq!(app.all("/api/v1/process-runs").await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn forty_racing_completions_on_three_instances_complete_the_run_once() {
    let cluster = Cluster::start(options(100_000)).await;
    let app = &cluster.app;
    let template = app.seed_published(&sized_document("Forty", 40)).await;
    let run = app.start_run(&json!({"template_id": template.id})).await;
    let run_id = run["id"].as_str().unwrap_or_default().to_owned();
    let tasks = app.run_tasks(&run_id).await;
    assert_eq!(tasks.len(), 40);
    let _ = app.events().await; // the creation's events

    let complete = json!({"completed": true});
    let replies: Vec<Reply> = join_all(tasks.iter().enumerate().map(|(n, task)| {
        let task_id = task["id"].as_str().unwrap_or_default();
        app.call(
            Method::PATCH,
            &format!("/api/v1/process-runs/{run_id}/tasks/{task_id}"),
        )
        .at(cluster.base(n))
        .json(&complete)
        .send()
    }))
    .await;

    for reply in &replies {
        assert_eq!(reply.data(200)["completed"], true);
    }
    assert_eq!(app.run(&run_id).await["status"], "completed");
    let after: Vec<Value> = app.run_tasks(&run_id).await;
    assert!(after.iter().all(|task| task["completed"] == true));
    let completions = app
        .events()
        .await
        .into_iter()
        .filter(|event| matches!(event.payload, EventPayload::RunCompleted { .. }))
        .count();
    assert_eq!(completions, 1, "exactly one process_run.completed");
}
