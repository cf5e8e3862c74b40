//! Pagination (spec 4.1, API contract 4): `limit` 1..=100 (default 20), `cursor` = the last
//! item's id, `has_more`, keyset pages stable under inserts, on all four lists.

use procflow_tests::{TestApp, sized_document, unknown_id};
use serde_json::{Value, json};

fn ids(items: &[Value]) -> Vec<String> {
    items
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Walks a list `limit` items at a time, checking each page's envelope; returns the pages.
async fn pages(app: &TestApp, path: &str, limit: usize) -> Vec<Vec<String>> {
    let separator = if path.contains('?') { '&' } else { '?' };
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..20 {
        let url = match &cursor {
            Some(c) => format!("{path}{separator}limit={limit}&cursor={c}"),
            None => format!("{path}{separator}limit={limit}"),
        };
        let (items, next, has_more) = app.get(&url).await.list();
        assert!(items.len() <= limit, "{url}: {} items", items.len());
        let page = ids(&items);
        assert_eq!(
            next.as_ref(),
            page.last(),
            "{url}: next_cursor is the last item's id"
        );
        pages.push(page);
        if !has_more {
            return pages;
        }
        assert_eq!(items.len(), limit, "{url}: a page before the last is full");
        cursor = next;
    }
    panic!("{path}: more than 20 pages");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_are_paged_newest_first() {
    let app = TestApp::spawn().await;
    let mut started = Vec::new();
    for _ in 0..5 {
        started.push(app.start_demo_run().await);
    }
    started.reverse();
    let pages = pages(&app, "/api/v1/process-runs", 2).await;
    assert_eq!(
        pages,
        [
            started[0..2].to_vec(),
            started[2..4].to_vec(),
            started[4..5].to_vec()
        ]
    );
    let exact = pages_of_exact_size(&app, "/api/v1/process-runs", 5).await;
    assert_eq!(exact, started);
}

/// A list read with a limit equal to its length: one page, `has_more` false.
async fn pages_of_exact_size(app: &TestApp, path: &str, limit: usize) -> Vec<String> {
    let (items, next, has_more) = app.get(&format!("{path}?limit={limit}")).await.list();
    assert_eq!(items.len(), limit);
    assert!(
        !has_more,
        "{path}: nothing follows a page holding the last item"
    );
    assert_eq!(next.as_ref(), ids(&items).last());
    ids(&items)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn templates_are_paged_in_creation_order() {
    let app = TestApp::spawn().await;
    let mut created = vec![app.template.id.clone()];
    for n in 0..4 {
        let template = app
            .create_template(&sized_document(&format!("T{n}"), 1))
            .await;
        created.push(template["id"].as_str().unwrap().to_owned());
    }
    let pages = pages(&app, "/api/v1/process-templates", 2).await;
    assert_eq!(
        pages,
        [
            created[0..2].to_vec(),
            created[2..4].to_vec(),
            created[4..5].to_vec()
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn template_tasks_and_run_tasks_are_paged_in_order() {
    let app = TestApp::spawn().await;
    let template = app.seed_published(&sized_document("Seven", 7)).await;
    let path = format!("/api/v1/process-templates/{}/tasks", template.id);
    let template_pages = pages(&app, &path, 3).await;
    assert_eq!(
        template_pages.iter().map(Vec::len).collect::<Vec<_>>(),
        [3, 3, 1]
    );
    assert_eq!(template_pages.concat(), ids(&template.tasks));

    let run = app.start_run(&json!({"template_id": template.id})).await;
    let run_id = run["id"].as_str().unwrap();
    let run_pages = pages(&app, &format!("/api/v1/process-runs/{run_id}/tasks"), 3).await;
    assert_eq!(
        run_pages.iter().map(Vec::len).collect::<Vec<_>>(),
        [3, 3, 1]
    );
    let tasks = app.run_tasks(run_id).await;
    assert_eq!(run_pages.concat(), ids(&tasks));
    let orders: Vec<_> = tasks.iter().map(|t| t["order"].as_u64().unwrap()).collect();
    assert_eq!(orders, [0, 1, 2, 3, 4, 5, 6]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_holds_20_items_by_default_and_100_at_most() {
    let app = TestApp::spawn().await;
    let template = app.seed_published(&sized_document("Many", 120)).await;
    let path = format!("/api/v1/process-templates/{}/tasks", template.id);
    let (items, _, has_more) = app.get(&path).await.list();
    assert_eq!(items.len(), 20);
    assert!(has_more);
    let (items, next, has_more) = app.get(&format!("{path}?limit=100")).await.list();
    assert_eq!(items.len(), 100);
    assert!(has_more);
    let (rest, _, has_more) = app
        .get(&format!("{path}?limit=100&cursor={}", next.unwrap()))
        .await
        .list();
    assert_eq!(rest.len(), 20);
    assert!(!has_more);
    let (one, _, has_more) = app.get(&format!("{path}?limit=1")).await.list();
    assert_eq!(one.len(), 1);
    assert!(has_more);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_list_has_a_null_cursor_and_no_more() {
    let app = TestApp::spawn().await;
    let reply = app.get("/api/v1/process-runs").await;
    let (items, next, has_more) = reply.list();
    assert!(items.is_empty());
    assert!(!has_more);
    assert_eq!(next, None);
    assert_eq!(reply.json()["pagination"]["next_cursor"], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_limit_outside_1_to_100_is_refused_on_every_list() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    for list in [
        "/api/v1/process-templates".to_owned(),
        format!("/api/v1/process-templates/{}/tasks", app.template.id),
        "/api/v1/process-runs".to_owned(),
        format!("/api/v1/process-runs/{run_id}/tasks"),
    ] {
        for limit in ["0", "101", "abc", "-1", "1.5", "", "1000000000000"] {
            let message = app
                .get(&format!("{list}?limit={limit}"))
                .await
                .error(400, "validation_error");
            assert!(message.contains("limit"), "{list}?limit={limit}: {message}");
        }
        app.get(&format!("{list}?limit=100")).await.list();
        app.get(&format!("{list}?limit=1")).await.list();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cursor_that_names_no_item_of_the_list_is_refused() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let other_run = app.start_demo_run().await;
    let other_task = app.task_id(&other_run, "Say hello").await;
    let cases = [
        ("/api/v1/process-templates".to_owned(), run_id.clone()),
        (
            format!("/api/v1/process-templates/{}/tasks", app.template.id),
            app.template.id.clone(),
        ),
        ("/api/v1/process-runs".to_owned(), app.template.id.clone()),
        (format!("/api/v1/process-runs/{run_id}/tasks"), other_task),
        (format!("/api/v1/process-runs/{run_id}/tasks"), unknown_id()),
        ("/api/v1/process-runs".to_owned(), "abc".to_owned()),
        ("/api/v1/process-runs".to_owned(), String::new()),
    ];
    for (list, cursor) in cases {
        let message = app
            .get(&format!("{list}?cursor={cursor}"))
            .await
            .error(400, "validation_error");
        assert!(
            message.contains("cursor"),
            "{list}?cursor={cursor}: {message}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cursor_outside_the_filtered_list_is_refused() {
    let app = TestApp::spawn().await;
    let active = app.start_demo_run().await;
    app.get(&format!(
        "/api/v1/process-runs?status=completed&cursor={active}"
    ))
    .await
    .error(400, "validation_error");
    app.get(&format!(
        "/api/v1/process-runs?status=active&cursor={active}"
    ))
    .await
    .list();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_stay_stable_while_runs_are_added() {
    let app = TestApp::spawn().await;
    let oldest = app.start_demo_run().await;
    let middle = app.start_demo_run().await;
    let newest = app.start_demo_run().await;
    let (first, next, has_more) = app.get("/api/v1/process-runs?limit=2").await.list();
    assert_eq!(ids(&first), [newest.clone(), middle.clone()]);
    assert!(has_more);
    app.start_demo_run().await;
    app.start_demo_run().await;
    let (second, _, has_more) = app
        .get(&format!(
            "/api/v1/process-runs?limit=2&cursor={}",
            next.unwrap()
        ))
        .await
        .list();
    assert_eq!(ids(&second), [oldest], "no item repeated or skipped");
    assert!(!has_more);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filtered_runs_are_paged_too() {
    let app = TestApp::spawn().await;
    let other = app.seed_published(&sized_document("Other", 1)).await;
    let mut demo = Vec::new();
    for _ in 0..3 {
        demo.push(app.start_demo_run().await);
        app.start_run(&json!({"template_id": other.id})).await;
    }
    demo.reverse();
    let path = format!("/api/v1/process-runs?template_id={}", app.template.id);
    let pages = pages(&app, &path, 2).await;
    assert_eq!(pages, [demo[0..2].to_vec(), demo[2..3].to_vec()]);
}
