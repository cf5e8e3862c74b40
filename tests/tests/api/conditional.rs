//! Conditional requests (API contract 11): the `ETag` of single resources, 304 on
//! `If-None-Match`, and `If-Match` writes that apply only to the state they were read from.

use futures_util::future::join_all;
use procflow_tests::{Options, Reply, TestApp, sized_document};
use reqwest::Method;
use serde_json::{Value, json};

const RUNS: &str = "/api/v1/process-runs";

fn etag(reply: &Reply) -> String {
    let tag = reply
        .header("etag")
        .unwrap_or_else(|| panic!("{}: no ETag ({})", reply.request, reply.status))
        .to_owned();
    assert!(
        tag.len() == 34 && tag.starts_with('"') && tag.ends_with('"'),
        "not a strong tag: {tag}"
    );
    tag
}

async fn tag_of(app: &TestApp, path: &str) -> String {
    let reply = app.get(path).await;
    reply.data(200);
    etag(&reply)
}

async fn get_if_none_match(app: &TestApp, path: &str, tags: &str) -> Reply {
    app.call(Method::GET, path)
        .header("If-None-Match", tags)
        .send()
        .await
}

async fn patch_if_match(app: &TestApp, path: &str, tags: &str, body: &Value) -> Reply {
    app.call(Method::PATCH, path)
        .header("If-Match", tags)
        .json(body)
        .send()
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_representation_is_answered_304_without_a_body() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let task = app.task_id(&run, "Say hello").await;
    for path in [
        format!("{RUNS}/{run}"),
        format!("{RUNS}/{run}/tasks/{task}"),
        format!("/api/v1/process-templates/{}", app.template.id),
    ] {
        let tag = tag_of(&app, &path).await;
        let weak = format!("W/{tag}");
        for held in [
            tag.as_str(),
            "*",
            weak.as_str(),
            &format!("\"other\", {tag}"),
        ] {
            let reply = get_if_none_match(&app, &path, held).await;
            reply.assert_status(304);
            assert_eq!(reply.text, "", "{path}: a 304 has no body");
            assert_eq!(reply.header("etag"), Some(tag.as_str()));
            assert!(reply.header("ratelimit-remaining").is_some());
            reply.assert_request_id();
        }
        let stale = get_if_none_match(&app, &path, "\"stale\"").await;
        stale.data(200);
        assert_eq!(etag(&stale), tag);
        get_if_none_match(&app, &path, "stale")
            .await
            .error(400, "validation_error");
    }
    // Lists carry no tag and ignore the header.
    let list = get_if_none_match(&app, &format!("{RUNS}/{run}/tasks"), "*").await;
    list.list();
    assert_eq!(list.header("etag"), None);
    // A missing resource is 404 whatever the precondition.
    get_if_none_match(
        &app,
        &format!("{RUNS}/{}", procflow_tests::unknown_id()),
        "*",
    )
    .await
    .error(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tag_changes_with_each_kind_of_change_and_only_then() {
    let app = TestApp::spawn().await;
    let template = app.seed_published(&sized_document("Two", 2)).await;
    let run = app.start_run(&json!({"template_id": template.id})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let demo = app.start_demo_run().await;
    let task = app.task_id(&demo, "Collect documents").await;
    let sibling = app.task_id(&demo, "Say hello").await;
    let name = app.template.element_id("Collect documents", "Full name");
    let path = format!("{RUNS}/{demo}/tasks/{task}");
    let sibling_path = format!("{RUNS}/{demo}/tasks/{sibling}");
    let sibling_tag = tag_of(&app, &sibling_path).await;
    let mut seen = vec![tag_of(&app, &path).await];
    for change in [
        json!({"custom_elements": [{"id": name, "value": "Ada"}]}),
        json!({"assignee": "member@a.example"}),
        json!({"completed": true}),
    ] {
        let reply = app.patch(&path, &change).await;
        reply.data(200);
        let answered = etag(&reply);
        assert_eq!(answered, tag_of(&app, &path).await, "{change}");
        assert!(!seen.contains(&answered), "{change} kept a tag");
        seen.push(answered);
    }
    // The same value again changes nothing, and so keeps the tag.
    app.patch(
        &path,
        &json!({"custom_elements": [{"id": name, "value": "Ada"}]}),
    )
    .await
    .data(200);
    assert_eq!(tag_of(&app, &path).await, *seen.last().unwrap());
    assert_eq!(
        tag_of(&app, &sibling_path).await,
        sibling_tag,
        "a sibling's tag stays"
    );

    // A sibling's completion that completes the run changes the run's tag.
    let tasks = app.run_tasks(&run).await;
    let first = tasks[0]["id"].as_str().unwrap();
    let last = tasks[1]["id"].as_str().unwrap();
    app.patch_task(&run, first, &json!({"completed": true}))
        .await
        .data(200);
    let run_path = format!("{RUNS}/{run}");
    let active = tag_of(&app, &run_path).await;
    let first_tag = tag_of(&app, &format!("{RUNS}/{run}/tasks/{first}")).await;
    app.patch_task(&run, last, &json!({"completed": true}))
        .await
        .data(200);
    assert_eq!(app.run(&run).await["status"], "completed");
    assert_ne!(tag_of(&app, &run_path).await, active);
    assert_eq!(
        tag_of(&app, &format!("{RUNS}/{run}/tasks/{first}")).await,
        first_tag,
        "the first task's own representation did not change"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn of_writers_racing_with_one_tag_one_wins_the_others_get_412_and_nothing_is_lost() {
    let app = TestApp::with(Options {
        workers: 4,
        pool_size: 16,
        ..Options::default()
    })
    .await;
    let run = app.start_demo_run().await;
    let task = app.task_id(&run, "Collect documents").await;
    let name = app.template.element_id("Collect documents", "Full name");
    let path = format!("{RUNS}/{run}/tasks/{task}");
    let tag = tag_of(&app, &path).await;
    let bodies: Vec<Value> = (0..8)
        .map(|n| json!({"custom_elements": [{"id": name, "value": format!("writer {n}")}]}))
        .collect();
    let replies = join_all(
        bodies
            .iter()
            .map(|body| patch_if_match(&app, &path, &tag, body)),
    )
    .await;
    let mut winners = Vec::new();
    for (n, reply) in replies.iter().enumerate() {
        match reply.status {
            200 => winners.push((n, reply.data(200), etag(reply))),
            _ => {
                reply.error(412, "precondition_failed");
            }
        }
    }
    assert_eq!(winners.len(), 1, "exactly one writer applies");
    let (n, written, answered) = winners.remove(0);
    let read = app.get(&path).await;
    assert_eq!(
        read.data(200),
        written,
        "the winner's write is what is stored"
    );
    assert_eq!(etag(&read), answered);
    assert_eq!(
        written["custom_elements"][0]["value"],
        format!("writer {n}")
    );

    // The loser reads again and retries with the current tag: its change lands too.
    let retry = patch_if_match(&app, &path, &answered, &json!({"completed": true})).await;
    assert_eq!(
        retry.data(200)["custom_elements"][0]["value"],
        format!("writer {n}")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_under_a_stale_or_weak_tag_is_412_and_changes_nothing() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let task = app.task_id(&run, "Say hello").await;
    let path = format!("{RUNS}/{run}/tasks/{task}");
    let read = tag_of(&app, &path).await;
    app.patch(&path, &json!({"assignee": "member@a.example"}))
        .await
        .data(200);
    let current = app.get(&path).await.data(200);
    let events = app.events().await.len();
    let weak = format!("W/{}", tag_of(&app, &path).await);
    for tags in [read.as_str(), weak.as_str()] {
        let reply = patch_if_match(&app, &path, tags, &json!({"completed": true})).await;
        let message = reply.error(412, "precondition_failed");
        assert!(message.contains("nothing was changed"), "{message}");
    }
    assert_eq!(app.get(&path).await.data(200), current);
    assert_eq!(
        app.events().await.len(),
        0,
        "no event after the {events} drained"
    );
    patch_if_match(&app, &path, "\"unterminated", &json!({"completed": true}))
        .await
        .error(400, "validation_error");
    let any = patch_if_match(&app, &path, "*", &json!({"completed": true})).await;
    assert_eq!(any.data(200)["completed"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_template_is_replaced_only_under_its_current_tag() {
    let app = TestApp::spawn().await;
    let draft = app.create_template(&sized_document("Draft", 1)).await;
    let path = format!(
        "/api/v1/process-templates/{}",
        draft["id"].as_str().unwrap()
    );
    let tag = tag_of(&app, &path).await;
    let replace = |tags: String, title: &str| {
        app.call(Method::PUT, &path)
            .header("If-Match", &tags)
            .json(&sized_document(title, 2))
            .send()
    };
    let replaced = replace(tag.clone(), "Second").await;
    assert_eq!(replaced.data(200)["title"], "Second");
    let new_tag = etag(&replaced);
    assert_eq!(new_tag, tag_of(&app, &path).await);
    replace(tag, "Third")
        .await
        .error(412, "precondition_failed");
    assert_eq!(app.get(&path).await.data(200)["title"], "Second");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_holds_only_if_match_star_as_a_list_has_no_tag() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let task = app.task_id(&run, "Say hello").await;
    let tag = tag_of(&app, &format!("{RUNS}/{run}/tasks/{task}")).await;
    let body = json!({"tasks": [{"id": task, "completed": true}]});
    let path = format!("{RUNS}/{run}/tasks");
    patch_if_match(&app, &path, &tag, &body)
        .await
        .error(412, "precondition_failed");
    assert_eq!(
        app.get(&format!("{RUNS}/{run}/tasks/{task}"))
            .await
            .data(200)["completed"],
        false
    );
    let reply = patch_if_match(&app, &path, "*", &body).await;
    assert_eq!(reply.items()[0]["completed"], true);
    assert_eq!(reply.header("etag"), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_update_is_idempotent_and_its_replay_is_the_kept_body_without_its_etag() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let task = app.task_id(&run, "Say hello").await;
    let path = format!("{RUNS}/{run}/tasks/{task}");
    let tag = tag_of(&app, &path).await;
    let send = || {
        app.call(Method::PATCH, &path)
            .header("Idempotency-Key", "once")
            .header("If-Match", &tag)
            .json(&json!({"completed": true}))
            .send()
    };
    let first = send().await;
    let written = first.data(200);
    let new_tag = etag(&first);
    // Replayed, not applied again: without the replay the stale tag would now be a 412.
    let again = send().await;
    assert_eq!(again.data(200), written);
    assert_eq!(again.header("idempotency-replayed"), Some("true"));
    assert_eq!(again.header("etag"), None);
    assert_eq!(tag_of(&app, &path).await, new_tag);
    // Another precondition with the same key is another request.
    app.call(Method::PATCH, &path)
        .header("Idempotency-Key", "once")
        .header("If-Match", "*")
        .json(&json!({"completed": true}))
        .send()
        .await
        .error(422, "idempotency_key_reused");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_documented_tag_list_is_what_the_server_accepts() {
    let app = TestApp::spawn().await;
    let api = procflow_tests::committed();
    let path = format!("{RUNS}/{}", app.start_demo_run().await);
    for value in [
        "*",
        " * ",
        "\"a\"",
        "W/\"a\"",
        "\"a\", W/\"b\"",
        "\"a\",,\"b\"",
        ", \"a\" ,",
        "\"\"",
        "",
        " , ",
        "a",
        "\"a",
        "\"a\" \"b\"",
        "*, \"a\"",
        "w/\"a\"",
        "\"a b\"",
        "**",
    ] {
        for (header, pointer) in [
            (
                "If-None-Match",
                "#/components/parameters/If-None-Match/schema",
            ),
            ("If-Match", "#/components/parameters/If-Match/schema"),
        ] {
            let documented = api.errors(pointer, &json!(value)).is_empty();
            let reply = if header == "If-Match" {
                patch_if_match(&app, &format!("{path}/tasks"), value, &json!({"tasks": []})).await
            } else {
                get_if_none_match(&app, &path, value).await
            };
            let accepted = !(reply.status == 400 && reply.text.contains(header));
            assert_eq!(documented, accepted, "{header}: {value:?} ({})", reply.text);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_endpoint_is_tagged_and_changed_only_under_its_current_tag() {
    let app = TestApp::spawn().await;
    let created = app
        .post(
            "/api/v1/webhooks",
            &json!({"url": "https://hooks.example.com/a", "events": ["process_run.created"]}),
        )
        .await;
    let path = format!(
        "/api/v1/webhooks/{}",
        created.data(201)["id"].as_str().unwrap()
    );
    let tag = tag_of(&app, &path).await;
    get_if_none_match(&app, &path, &tag)
        .await
        .assert_status(304);

    let patched = patch_if_match(&app, &path, &tag, &json!({"description": "first"})).await;
    assert_eq!(patched.data(200)["description"], "first");
    let new_tag = etag(&patched);
    assert_ne!(new_tag, tag);
    assert_eq!(new_tag, tag_of(&app, &path).await);

    patch_if_match(&app, &path, &tag, &json!({"description": "second"}))
        .await
        .error(412, "precondition_failed");
    let rotated = app.post(&format!("{path}/rotate-secret"), &json!({})).await;
    rotated.data(200);
    assert_ne!(
        tag_of(&app, &path).await,
        new_tag,
        "a rotation changes updated_at, so the tag"
    );
    assert_eq!(app.get(&path).await.data(200)["description"], "first");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_if_match_matches_nothing_and_an_empty_if_none_match_holds_nothing() {
    let app = TestApp::spawn().await;
    let run = app.start_demo_run().await;
    let task = app.task_id(&run, "Say hello").await;
    let path = format!("{RUNS}/{run}/tasks/{task}");
    // RFC 9110 writes both fields as lists that may be empty (`#entity-tag`).
    patch_if_match(&app, &path, "", &json!({"completed": true}))
        .await
        .error(412, "precondition_failed");
    assert_eq!(app.get(&path).await.data(200)["completed"], false);
    get_if_none_match(&app, &path, "").await.data(200);
}
