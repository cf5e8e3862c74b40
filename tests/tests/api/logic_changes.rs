//! Process logic over HTTP, change by change (API contract 12.2): 409 `task_hidden` and
//! `task_blocked`, batches in order, prerequisites reopened, and a run completed once when
//! racing writers hide its last open task.

use futures_util::future::join_all;
use procflow_domain::event::EventPayload;
use procflow_tests::{Options, TestApp};
use serde_json::{Value, json};

use super::logic::Onboarding;

impl Onboarding {
    /// The run's task with this ref, now.
    pub async fn task(&self, app: &TestApp, reference: &str) -> Value {
        self.tasks(app)
            .await
            .into_iter()
            .find(|t| t["ref"] == reference)
            .unwrap_or_else(|| panic!("no task {reference}"))
    }

    /// The id of the run's task with this ref.
    pub async fn id(&self, app: &TestApp, reference: &str) -> String {
        self.task(app, reference).await["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// `PATCH` of the run's task with this ref.
    pub async fn patch(
        &self,
        app: &TestApp,
        reference: &str,
        body: &Value,
    ) -> procflow_tests::Reply {
        let id = self.id(app, reference).await;
        app.patch_task(&self.run, &id, body).await
    }

    /// A `custom_elements` write of the Profile's element with this ref.
    pub fn write(&self, element: &str, value: Value) -> Value {
        let id = self.template_tasks[0]["custom_elements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["ref"] == element)
            .unwrap()["id"]
            .clone();
        json!({"custom_elements": [{"id": id, "value": value}]})
    }
}

fn complete() -> Value {
    json!({"completed": true})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_update_of_a_hidden_task_is_409_task_hidden_alone_or_in_a_batch() {
    let app = TestApp::spawn().await;
    let onboarding = Onboarding::start(&app, &[]).await;
    let laptop = onboarding.task(&app, "ship-laptop").await;
    assert_eq!(laptop["hidden"], true);
    for body in [
        json!({}),
        complete(),
        json!({"assignee": "member@a.example"}),
    ] {
        let message = onboarding
            .patch(&app, "ship-laptop", &body)
            .await
            .error(409, "task_hidden");
        assert!(message.contains("\"Ship a laptop\""), "{message}");
    }
    let training = onboarding.id(&app, "security-training").await;
    let reply = app
        .patch(
            &format!("/api/v1/process-runs/{}/tasks", onboarding.run),
            &json!({"tasks": [{"id": training, "completed": true},
                              {"id": laptop["id"], "completed": true}]}),
        )
        .await;
    let message = reply.error(409, "task_hidden");
    assert!(
        message.starts_with("tasks[1]: task \"Ship a laptop\""),
        "{message}"
    );
    assert_eq!(
        onboarding.task(&app, "security-training").await["completed"],
        false,
        "all or nothing"
    );
    assert_eq!(
        onboarding.task(&app, "ship-laptop").await,
        laptop,
        "unchanged"
    );

    // Shown again by a value, it takes updates as before.
    onboarding
        .patch(&app, "profile", &onboarding.write("remote", json!(true)))
        .await
        .data(200);
    let shown = onboarding
        .patch(&app, "ship-laptop", &complete())
        .await
        .data(200);
    assert_eq!(
        (&shown["hidden"], &shown["completed"]),
        (&json!(false), &json!(true))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completing_or_approving_a_blocked_task_is_409_naming_its_open_prerequisites() {
    let app = TestApp::spawn().await;
    let onboarding = Onboarding::start(&app, &[]).await;
    let message = onboarding
        .patch(&app, "grant-access", &complete())
        .await
        .error(409, "task_blocked");
    assert!(
        message.contains(
            "is blocked: it waits for \"Security training\", \"Manager approval\" to be \
             completed, skipped or hidden"
        ),
        "{message}"
    );
    onboarding
        .patch(&app, "security-training", &complete())
        .await
        .data(200);
    let message = onboarding
        .patch(
            &app,
            "grant-access",
            &json!({"completed": true, "assignee": "member@a.example"}),
        )
        .await
        .error(409, "task_blocked");
    assert!(
        message.contains("waits for \"Manager approval\" to be"),
        "{message}"
    );
    assert_eq!(
        onboarding.task(&app, "grant-access").await["assignee"],
        Value::Null,
        "a refused update changes nothing"
    );
    // The assignee and skipping remain allowed on a blocked task.
    let assigned = onboarding
        .patch(
            &app,
            "grant-access",
            &json!({"assignee": "member@a.example"}),
        )
        .await
        .data(200);
    assert_eq!(assigned["blocked"], true);
    let skipped = onboarding
        .patch(&app, "grant-access", &json!({"skipped": true}))
        .await
        .data(200);
    assert_eq!(
        (&skipped["skipped"], &skipped["blocked"]),
        (&json!(true), &json!(true))
    );
    onboarding
        .patch(&app, "grant-access", &json!({"skipped": false}))
        .await
        .data(200);

    // An approval whose prerequisite is open: approving is refused, rejecting is not.
    let mut document = super::logic::onboarding();
    document["sections"][0]["tasks"][3]["depends_on"] = json!(["security-training"]);
    let seeded = app.seed_published(&document).await;
    let run = app.start_run(&json!({"template_id": seeded.id})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let approval = app.task_id(&run, "Manager approval").await;
    app.patch_task(&run, &approval, &json!({"decision": "approved"}))
        .await
        .error(409, "task_blocked");
    let rejected = app
        .patch_task(
            &run,
            &approval,
            &json!({"decision": "rejected", "comment": "later"}),
        )
        .await
        .data(200);
    assert_eq!(
        (&rejected["decision"], &rejected["blocked"]),
        (&json!("rejected"), &json!(true))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_completes_the_prerequisites_then_their_dependent() {
    let app = TestApp::spawn().await;
    let onboarding = Onboarding::start(&app, &[]).await;
    let (training, approval, grant) = (
        onboarding.id(&app, "security-training").await,
        onboarding.id(&app, "manager-approval").await,
        onboarding.id(&app, "grant-access").await,
    );
    let path = format!("/api/v1/process-runs/{}/tasks", onboarding.run);
    let reversed = json!({"tasks": [{"id": grant, "completed": true},
                                    {"id": training, "completed": true},
                                    {"id": approval, "completed": true}]});
    let message = app.patch(&path, &reversed).await.error(409, "task_blocked");
    assert!(
        message.starts_with("tasks[0]: task \"Grant production access\""),
        "{message}"
    );
    let in_order = json!({"tasks": [{"id": training, "completed": true},
                                    {"id": approval, "completed": true},
                                    {"id": grant, "completed": true}]});
    let tasks = app.patch(&path, &in_order).await.items();
    assert!(
        tasks
            .iter()
            .all(|t| t["completed"] == true && t["blocked"] == false)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reopening_a_prerequisite_blocks_its_open_dependents_again() {
    let app = TestApp::spawn().await;
    let onboarding = Onboarding::start(&app, &[]).await;
    for task in ["security-training", "manager-approval"] {
        onboarding.patch(&app, task, &complete()).await.data(200);
    }
    assert_eq!(
        onboarding.task(&app, "grant-access").await["blocked"],
        false
    );
    onboarding
        .patch(&app, "security-training", &json!({"completed": false}))
        .await
        .data(200);
    assert_eq!(onboarding.task(&app, "grant-access").await["blocked"], true);
    onboarding
        .patch(&app, "grant-access", &complete())
        .await
        .error(409, "task_blocked");

    // A completed dependent stays completed when its prerequisite is reopened.
    onboarding
        .patch(&app, "security-training", &complete())
        .await
        .data(200);
    onboarding
        .patch(&app, "grant-access", &complete())
        .await
        .data(200);
    onboarding
        .patch(&app, "manager-approval", &json!({"completed": false}))
        .await
        .data(200);
    let grant = onboarding.task(&app, "grant-access").await;
    assert_eq!(
        (&grant["completed"], &grant["blocked"]),
        (&json!(true), &json!(false))
    );
}

const WRITERS: usize = 40;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn forty_racing_writers_complete_the_run_once_when_a_value_hides_its_last_open_task() {
    let app = TestApp::with(Options {
        workers: 4,
        pool_size: 16,
        ..Options::default()
    })
    .await;
    let onboarding = Onboarding::start(&app, &[("remote", json!(true))]).await;
    for task in [
        "profile",
        "security-training",
        "manager-approval",
        "grant-access",
    ] {
        onboarding.patch(&app, task, &complete()).await.data(200);
    }
    assert_eq!(
        app.run(&onboarding.run).await["status"],
        "active",
        "the laptop is left"
    );
    let _ = app.events().await;
    let profile = onboarding.id(&app, "profile").await;
    // Every other writer unticks "Remote?", which hides "Ship a laptop"; the others change
    // the department, which shows nothing new.
    let bodies: Vec<Value> = (0..WRITERS)
        .map(|n| match n % 4 {
            0 | 2 => onboarding.write("remote", json!(false)),
            1 => onboarding.write("department", json!("Sales")),
            _ => onboarding.write("department", Value::Null),
        })
        .collect();
    let replies = join_all(
        bodies
            .iter()
            .map(|body| app.patch_task(&onboarding.run, &profile, body)),
    )
    .await;
    for reply in &replies {
        match reply.status {
            200 => {
                reply.data(200);
            }
            _ => {
                reply.error(409, "run_completed");
            }
        }
    }
    let run = app.run(&onboarding.run).await;
    assert_eq!(run["status"], "completed");
    let laptop = onboarding.task(&app, "ship-laptop").await;
    assert_eq!(
        (&laptop["hidden"], &laptop["completed"]),
        (&json!(true), &json!(false))
    );
    let completed: Vec<_> = app
        .events()
        .await
        .into_iter()
        .filter(|e| matches!(e.payload, EventPayload::RunCompleted { .. }))
        .collect();
    assert_eq!(completed.len(), 1, "exactly one process_run.completed");
}
