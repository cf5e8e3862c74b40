//! The rate limit (spec 8, API contract 3): per key, 100 in any rolling minute, 429
//! `rate_limited` with `Retry-After`, `RateLimit-*` headers on every authenticated response,
//! exact across instances sharing the database.

use procflow_tests::{Options, Reply, TestApp};
use reqwest::Method;
use serde_json::json;

const LIMIT: u32 = 100;

async fn limited_app() -> TestApp {
    TestApp::with(Options {
        rate_limit_per_minute: LIMIT,
        ..Options::default()
    })
    .await
}

/// `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` as numbers.
#[track_caller]
fn quota(reply: &Reply) -> (u64, u64, u64) {
    let number = |name: &str| -> u64 {
        let value = reply
            .header(name)
            .unwrap_or_else(|| panic!("{}: no {name} header ({})", reply.request, reply.status));
        value
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{}: {name} is not a number: {value:?}", reply.request))
    };
    let quota = (
        number("ratelimit-limit"),
        number("ratelimit-remaining"),
        number("ratelimit-reset"),
    );
    assert!(
        quota.2 <= 60,
        "{}: RateLimit-Reset {} > 60 s",
        reply.request,
        quota.2
    );
    quota
}

#[track_caller]
fn assert_refused(reply: &Reply) {
    reply.error(429, "rate_limited");
    let retry_after = reply
        .header("retry-after")
        .unwrap_or_else(|| panic!("no Retry-After"));
    let seconds: u64 = retry_after
        .parse()
        .unwrap_or_else(|_| panic!("Retry-After is not whole seconds: {retry_after:?}"));
    assert!((1..=60).contains(&seconds), "Retry-After {seconds}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_101st_request_in_a_minute_is_refused_with_retry_after() {
    let app = limited_app().await;
    let (_, key) = app.new_key(&app.team, &app.admin).await;
    for n in 1..=LIMIT {
        let reply = app
            .call(Method::GET, "/api/v1/process-templates")
            .key(&key)
            .send()
            .await;
        reply.list();
        let (limit, remaining, _) = quota(&reply);
        assert_eq!(limit, u64::from(LIMIT));
        assert_eq!(
            remaining,
            u64::from(LIMIT - n),
            "RateLimit-Remaining after {n}"
        );
    }
    let refused = app
        .call(Method::GET, "/api/v1/process-templates")
        .key(&key)
        .send()
        .await;
    assert_refused(&refused);
    let (limit, remaining, _) = quota(&refused);
    assert_eq!((limit, remaining), (u64::from(LIMIT), 0));
    // Every route is limited, writes included, and refused requests do no work.
    let run = app
        .call(Method::POST, "/api/v1/process-runs")
        .key(&key)
        .json(&json!({"template_id": app.template.id}))
        .send()
        .await;
    assert_refused(&run);
    assert!(app.all("/api/v1/process-runs").await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_key_is_not_affected() {
    let app = limited_app().await;
    let (_, key) = app.new_key(&app.team, &app.admin).await;
    let (_, second) = app.new_key(&app.team, &app.admin).await;
    for _ in 0..LIMIT {
        app.call(Method::GET, "/api/v1/process-runs")
            .key(&key)
            .send()
            .await
            .list();
    }
    assert_refused(
        &app.call(Method::GET, "/api/v1/process-runs")
            .key(&key)
            .send()
            .await,
    );
    let reply = app
        .call(Method::GET, "/api/v1/process-runs")
        .key(&second)
        .send()
        .await;
    reply.list();
    assert_eq!(quota(&reply).1, u64::from(LIMIT - 1));
    app.call(Method::GET, "/api/v1/process-runs")
        .key(&app.other_key)
        .send()
        .await
        .list();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_limit_holds_across_two_instances_sharing_the_database() {
    let app = limited_app().await;
    let second = app.spawn_instance();
    let (_, key) = app.new_key(&app.team, &app.admin).await;
    for _ in 0..LIMIT / 2 {
        app.call(Method::GET, "/api/v1/process-templates")
            .key(&key)
            .send()
            .await
            .list();
        app.call(Method::GET, "/api/v1/process-templates")
            .at(second.base())
            .key(&key)
            .send()
            .await
            .list();
    }
    assert_refused(
        &app.call(Method::GET, "/api/v1/process-templates")
            .key(&key)
            .send()
            .await,
    );
    assert_refused(
        &app.call(Method::GET, "/api/v1/process-templates")
            .at(second.base())
            .key(&key)
            .send()
            .await,
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_authenticated_response_carries_the_rate_limit_headers() {
    let app = limited_app().await;
    let (_, key) = app.new_key(&app.team, &app.admin).await;
    let call = |method: Method, path: &str| app.call(method, path).key(&key);
    let run = call(Method::POST, "/api/v1/process-runs")
        .json(&json!({"template_id": app.template.id}))
        .send()
        .await;
    let run_id = run.data(201)["id"].as_str().unwrap().to_owned();
    let draft = call(Method::POST, "/api/v1/process-templates")
        .json(&json!({"title": "Draft"}))
        .send()
        .await;
    let draft_id = draft.data(201)["id"].as_str().unwrap().to_owned();
    let replies = vec![
        run,
        draft,
        call(Method::GET, "/api/v1/process-runs").send().await,
        call(Method::GET, &format!("/api/v1/process-runs/{run_id}"))
            .send()
            .await,
        call(
            Method::GET,
            "/api/v1/process-runs/00000000-0000-0000-0000-000000000000",
        )
        .send()
        .await,
        call(Method::GET, "/api/v1/process-runs?limit=0")
            .send()
            .await,
        call(
            Method::DELETE,
            &format!("/api/v1/process-templates/{draft_id}"),
        )
        .send()
        .await,
        call(
            Method::POST,
            &format!("/api/v1/process-runs/{run_id}/invite"),
        )
        .json(&json!({"email": "member@a.example"}))
        .send()
        .await,
    ];
    let statuses: Vec<_> = replies.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [201, 201, 200, 200, 404, 400, 204, 409]);
    let mut previous = u64::from(LIMIT);
    for reply in &replies {
        let (limit, remaining, _) = quota(reply);
        assert_eq!(limit, u64::from(LIMIT), "{}", reply.request);
        assert!(
            remaining < previous,
            "{}: remaining {remaining}",
            reply.request
        );
        previous = remaining;
    }
}

/// Requests with `key` until one answers other than 429, for at most `deadline`; that answer.
/// A refusal answered from the instance's memory turns into the key's real state once the
/// change reaches it (`LISTEN`): a few milliseconds, not the rest of the window.
async fn first_answer_other_than_429(
    app: &TestApp,
    key: &str,
    deadline: std::time::Duration,
) -> (Reply, std::time::Duration) {
    let started = std::time::Instant::now();
    loop {
        let reply = app
            .call(Method::GET, "/api/v1/process-runs")
            .key(key)
            .send()
            .await;
        if reply.status != 429 || started.elapsed() > deadline {
            return (reply, started.elapsed());
        }
        tokio::task::yield_now().await;
    }
}

/// An app whose keys may make 20 requests a minute (its set-up needs a few), and a new key
/// of its team that has used them all up: the instance now refuses it from memory.
async fn with_a_blocked_key() -> (TestApp, procflow_domain::ids::ApiKeyId, String) {
    let app = TestApp::with(Options {
        rate_limit_per_minute: 20,
        ..Options::default()
    })
    .await;
    let (key_id, key) = app.new_key(&app.team, &app.admin).await;
    for _ in 0..20 {
        app.call(Method::GET, "/api/v1/process-runs")
            .key(&key)
            .send()
            .await
            .assert_status(200);
    }
    for _ in 0..3 {
        app.call(Method::GET, "/api/v1/process-runs")
            .key(&key)
            .send()
            .await
            .error(429, "rate_limited");
    }
    (app, key_id, key)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_revoked_while_rate_limited_is_refused_401_at_once() {
    let (app, key_id, key) = with_a_blocked_key().await;

    app.revoke(key_id).await;
    let (reply, after) =
        first_answer_other_than_429(&app, &key, std::time::Duration::from_secs(5)).await;
    reply.error(401, "unauthorized");
    assert!(
        after.as_secs() < 5,
        "refused for what it is within {after:?}"
    );
    // The team's own key is untouched.
    app.get("/api/v1/process-runs").await.assert_status(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_made_inactive_while_rate_limited_is_refused_403_at_once() {
    let (app, _, key) = with_a_blocked_key().await;

    app.set_subscription(procflow_domain::team::Subscription::Inactive)
        .await;
    let (reply, after) =
        first_answer_other_than_429(&app, &key, std::time::Duration::from_secs(5)).await;
    reply.error(403, "forbidden");
    assert!(
        after.as_secs() < 5,
        "refused for what it is within {after:?}"
    );
}
