//! The smaller findings of "Hard to break, round two" (issue 29, point 7), through HTTP: guest
//! addresses at IP literals, refusals that quote a short prefix of the input, `Cache-Control`
//! on authenticated answers and on those that carry a secret, and the guest page of a team
//! whose subscription is not active.

use procflow_domain::quote::MAX_QUOTED_CHARS;
use procflow_tests::TestApp;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_address_at_an_ip_literal_is_refused_at_invite() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    for email in ["a@[127.0.0.1]", "guest@[10.0.0.1]"] {
        let message = app
            .post(
                &format!("/api/v1/process-runs/{run}/invite"),
                &json!({"email": email}),
            )
            .await
            .error(400, "validation_error");
        assert!(
            message.starts_with(&format!("email: {email:?} is at an IP address")),
            "{message}"
        );
    }
    let shared = app.run(&run).await;
    assert_eq!(shared["is_shared"], false, "nothing was shared");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_quotes_a_short_prefix_of_a_long_input() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let long = "x".repeat(900_000);
    let tasks = app.run_tasks(&run).await;
    let (task, element) = tasks
        .iter()
        .find_map(|task| {
            let element = task["custom_elements"]
                .as_array()?
                .iter()
                .find(|e| e["type"] == "dropdown")?;
            Some((task["id"].as_str()?, element["id"].as_str()?))
        })
        .expect("the demo has a dropdown");
    let cases = [
        (
            format!("/api/v1/process-runs/{run}/invite"),
            json!({"email": long}),
            "email: ",
        ),
        (
            format!("/api/v1/process-runs/{run}/tasks/{task}"),
            json!({"completed": long}),
            "completed: invalid type: string",
        ),
        (
            format!("/api/v1/process-runs/{run}/tasks/{task}"),
            json!({"custom_elements": [{"id": element, "value": long}]}),
            "element ",
        ),
        (
            "/api/v1/process-runs".to_owned(),
            json!({"template_id": app.template.id, "due_date": long}),
            "due_date: ",
        ),
    ];
    for (path, body, start) in cases {
        let reply = if path.ends_with("/invite") || path == "/api/v1/process-runs" {
            app.post(&path, &body).await
        } else {
            app.patch(&path, &body).await
        };
        let message = reply.error(400, "validation_error");
        assert!(
            message.contains(start),
            "{start}: {}",
            &message[..200.min(message.len())]
        );
        assert!(
            reply.text.len() < 1_000,
            "{path}: an answer of {} bytes to a body of 900 kB: {}",
            reply.text.len(),
            &message[..300.min(message.len())]
        );
        assert!(
            message.contains(&"x".repeat(MAX_QUOTED_CHARS)),
            "the prefix is shown: {message}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authenticated_answers_are_private_and_those_with_a_secret_not_stored() {
    let app = TestApp::spawn().await;
    let cache = |reply: &procflow_tests::Reply| reply.header("cache-control").map(str::to_owned);
    let list = app.get("/api/v1/process-templates").await;
    assert_eq!(cache(&list).as_deref(), Some("private"));
    let unauthorized = app
        .call(reqwest::Method::GET, "/api/v1/process-runs")
        .no_key()
        .send()
        .await;
    unauthorized.assert_status(401);
    assert_eq!(cache(&unauthorized).as_deref(), Some("private"));

    let created = app
        .post(
            "/api/v1/webhooks",
            &json!({"url": "https://hooks.example.org/procflow"}),
        )
        .await;
    let webhook = created.data(201);
    assert!(webhook["secret"].is_string());
    assert_eq!(cache(&created).as_deref(), Some("no-store"));
    let id = webhook["id"].as_str().unwrap();
    let rotated = app
        .post(&format!("/api/v1/webhooks/{id}/rotate-secret"), &json!({}))
        .await;
    rotated.data(200);
    assert_eq!(cache(&rotated).as_deref(), Some("no-store"));
    let read = app.get(&format!("/api/v1/webhooks/{id}")).await;
    assert_eq!(cache(&read).as_deref(), Some("private"), "no secret in it");

    let run = app.start_demo_run().await;
    let invite = |key: &'static str| {
        app.call(
            reqwest::Method::POST,
            &format!("/api/v1/process-runs/{run}/invite"),
        )
        .header("Idempotency-Key", key)
        .json(&json!({}))
        .send()
    };
    let shared = invite("share-once").await;
    shared.data(200);
    assert_eq!(cache(&shared).as_deref(), Some("no-store"));
    let replayed = invite("share-once").await;
    assert_eq!(replayed.header("idempotency-replayed"), Some("true"));
    assert_eq!(
        cache(&replayed).as_deref(),
        Some("no-store"),
        "a replay too"
    );

    let document = app
        .call(reqwest::Method::GET, "/api/v1/openapi.json")
        .no_key()
        .send()
        .await;
    assert_eq!(
        cache(&document),
        None,
        "the public document is for any cache"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_share_link_opens_nothing_while_its_teams_subscription_is_inactive() {
    use procflow_domain::team::Subscription;
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let link = app.share(&run, None).await;
    let task = app.task_id(&run, "Say hello").await;
    app.open_page(&link.page()).await.assert_status(200);

    app.set_subscription(Subscription::Inactive).await;
    let page = app.open_page(&link.page()).await;
    page.assert_status(403);
    assert!(
        page.text.contains("This run is not available right now"),
        "{}",
        page.text
    );
    let post = app
        .post_form(&link.task(&task), &[("action", "complete")])
        .await;
    post.assert_status(403);
    assert!(
        post.text.contains("This run is not available right now"),
        "{}",
        post.text
    );
    // A wrong link says nothing of the team.
    let wrong = procflow_tests::GuestLink {
        token: "wrong".into(),
        ..link.clone()
    };
    app.open_page(&wrong.page()).await.assert_status(404);

    app.set_subscription(Subscription::Active).await;
    let tasks = app.run_tasks(&run).await;
    let said = tasks.iter().find(|t| t["id"] == task.as_str()).unwrap();
    assert_eq!(said["completed"], false, "nothing changed meanwhile");
    app.open_page(&link.page()).await.assert_status(200);
}
