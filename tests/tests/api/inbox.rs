//! `GET /api/v1/tasks`, the inbox (API contract 15.1), over HTTP: the shape of an item (a run
//! task with `due_date` and `run: {id, title}`), the filters' wiring, hidden tasks and another
//! team's tasks never listed, a read key's access, and every refusal of a parameter. The
//! filters' semantics (each alone and combined, overdue at the clock) are the conformance
//! suite's (`crates/procflow-postgres/tests/conformance/inbox.rs`), on both stores.

use procflow_tests::{TestApp, logic_document, unknown_id};
use serde_json::{Value, json};

fn titles(items: &[Value]) -> Vec<&str> {
    items.iter().map(|i| i["title"].as_str().unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inbox_lists_visible_open_tasks_across_runs_with_their_run() {
    let app = TestApp::spawn().await;
    let seeded = app.seed_published(&logic_document()).await;
    let mut runs = Vec::new();
    for name in ["First", "Second"] {
        let run = app
            .start_run(&json!({"template_id": seeded.id, "name": name}))
            .await;
        runs.push(run["id"].as_str().unwrap().to_owned());
    }
    let query = format!("/api/v1/tasks?template_id={}&limit=100", seeded.id);
    let (items, _, has_more) = app.get(&query).await.list();
    assert!(!has_more);
    // Without a remote profile or an Eng department, "Ship a laptop" and "Git access" are
    // hidden: four visible tasks in each run.
    assert_eq!(items.len(), 8, "{items:?}");
    assert!(!titles(&items).contains(&"Ship a laptop"));
    assert!(!titles(&items).contains(&"Git access"));
    for item in &items {
        assert_eq!(item["hidden"], false);
        assert!(item.get("due_date").is_some(), "{item}");
        let run = item["run"]["id"].as_str().unwrap();
        assert_eq!(item["instance_id"], run);
        let expected = if run == runs[0] { "First" } else { "Second" };
        assert_eq!(item["run"]["title"], expected);
    }
    // Completed tasks leave the default list and join `status=completed`.
    let profile = &items[0];
    let (run, task) = (
        profile["run"]["id"].as_str().unwrap(),
        profile["id"].as_str().unwrap(),
    );
    app.patch_task(run, task, &json!({"completed": true}))
        .await
        .data(200);
    let (open, _, _) = app.get(&query).await.list();
    assert_eq!(open.len(), 7);
    assert!(open.iter().all(|i| i["id"] != task));
    let (done, _, _) = app.get(&format!("{query}&status=completed")).await.list();
    assert_eq!(done.len(), 1);
    assert_eq!(done[0]["id"], task);
    assert_eq!(done[0]["completed"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn assignee_filters_by_member_id_or_email_and_a_read_key_may_list() {
    let app = TestApp::spawn().await;
    let document = json!({"title": "Mine", "sections": [{"title": "All", "tasks": [
        {"title": "For the member", "assignee": "member@a.example"},
        {"title": "For a guest", "assignee": "guest@x.example"},
        {"title": "For nobody"}]}]});
    let seeded = app.seed_published(&document).await;
    app.start_run(&json!({"template_id": seeded.id})).await;
    let member = app.member.id.to_string();
    for assignee in [member.as_str(), "member@a.example", "MEMBER@a.example"] {
        let (items, _, _) = app
            .get(&format!("/api/v1/tasks?assignee={assignee}"))
            .await
            .list();
        assert_eq!(titles(&items), ["For the member"], "{assignee}");
        assert_eq!(items[0]["assignee"], member.as_str());
    }
    let reader = app.read_key().await;
    let reply = app
        .call(
            reqwest::Method::GET,
            "/api/v1/tasks?assignee=guest@x.example",
        )
        .key(&reader)
        .send()
        .await;
    let (items, _, _) = reply.list();
    assert_eq!(titles(&items), ["For a guest"]);
    let (none, next, has_more) = app
        .get("/api/v1/tasks?assignee=nobody@x.example")
        .await
        .list();
    assert!(none.is_empty() && next.is_none() && !has_more);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_teams_tasks_are_never_listed_nor_a_cursor() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let (ours, _, _) = app.get("/api/v1/tasks?limit=100").await.list();
    assert!(!ours.is_empty());
    assert!(ours.iter().all(|i| i["run"]["id"] == run.as_str()));
    let theirs = app
        .call(reqwest::Method::GET, "/api/v1/tasks?limit=100")
        .key(&app.other_key)
        .send()
        .await;
    let (items, _, _) = theirs.list();
    assert!(items.is_empty(), "{items:?}");
    let cursor = ours[0]["id"].as_str().unwrap();
    app.call(
        reqwest::Method::GET,
        &format!("/api/v1/tasks?cursor={cursor}"),
    )
    .key(&app.other_key)
    .send()
    .await
    .error(400, "validation_error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_follow_the_cursor() {
    let app = TestApp::spawn().await;
    for _ in 0..3 {
        app.start_demo_run().await;
    }
    let (all, _, _) = app.get("/api/v1/tasks?limit=100").await.list();
    let mut walked: Vec<Value> = Vec::new();
    let mut url = "/api/v1/tasks?limit=2".to_owned();
    loop {
        let (items, next, has_more) = app.get(&url).await.list();
        walked.extend(items);
        if !has_more {
            break;
        }
        url = format!("/api/v1/tasks?limit=2&cursor={}", next.unwrap());
    }
    assert_eq!(walked, all);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_bad_parameter_is_a_400_naming_it() {
    let app = TestApp::spawn().await;
    app.start_demo_run().await;
    let unknown = unknown_id();
    for (query, field) in [
        ("cursor=nope".to_owned(), "cursor"),
        (format!("cursor={unknown}"), "cursor"),
        ("limit=0".to_owned(), "limit"),
        ("limit=101".to_owned(), "limit"),
        ("status=done".to_owned(), "status"),
        ("run_status=paused".to_owned(), "run_status"),
        ("due_before=tomorrow".to_owned(), "due_before"),
        ("due_after=2026-13-01T00:00:00Z".to_owned(), "due_after"),
        ("overdue=yes".to_owned(), "overdue"),
        ("overdue=true&status=completed".to_owned(), "overdue"),
        ("assignee=not%20an%20email".to_owned(), "assignee"),
        ("template_id=nope".to_owned(), "template_id"),
    ] {
        let message = app
            .get(&format!("/api/v1/tasks?{query}"))
            .await
            .error(400, "validation_error");
        assert!(message.contains(field), "{query}: {message}");
    }
    app.get("/api/v1/tasks?page=2")
        .await
        .error(400, "validation_error");
    // Valid values of each parameter, together, are accepted.
    let (items, _, _) = app
        .get(&format!(
            "/api/v1/tasks?status=open&run_status=active&overdue=false\
             &due_after=2000-01-01T00:00:00Z&due_before=2999-01-01T00:00:00%2B02:00\
             &template_id={}&assignee=admin@a.example&limit=5",
            app.template.id
        ))
        .await
        .list();
    assert!(items.len() <= 5);
}
