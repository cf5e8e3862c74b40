//! The start page of a run link (API contract 13.2): the template's title, description and
//! cover image, a form of name and email (labelled, required) with a Start button and a
//! honeypot hidden from people; no JavaScript, everything escaped, the guest page's headers;
//! one 404 page for an unknown, void or malformed token and an unpublished or archived
//! template.

use procflow_tests::{Options, Page, Reply, TestApp, demo_document, text};
use reqwest::Method;
use serde_json::{Value, json};

#[track_caller]
fn assert_page_headers(reply: &Reply) {
    let content_type = reply.header("content-type").unwrap_or_default();
    assert!(content_type.starts_with("text/html"), "{content_type}");
    assert_eq!(reply.header("cache-control"), Some("no-store"));
    assert_eq!(reply.header("referrer-policy"), Some("no-referrer"));
    assert_eq!(reply.header("x-frame-options"), Some("DENY"));
    assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
    let csp = reply.header("content-security-policy").unwrap_or_default();
    for directive in [
        "default-src 'none'",
        "style-src 'sha256-",
        "img-src https: http:",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(csp.contains(directive), "{directive} in {csp:?}");
    }
    assert!(!csp.contains("script-src"), "{csp:?}");
    assert!(!reply.text.contains("<script"), "{}", reply.text);
}

/// The link's path (`/start/<token>`) of a template's link, turned on.
async fn link_path(app: &TestApp, template: &str) -> String {
    let on = app
        .post(
            &format!("/api/v1/process-templates/{template}/run-link"),
            &json!({}),
        )
        .await
        .data(200);
    let url = on["url"].as_str().unwrap();
    url.strip_prefix(app.base()).unwrap().to_owned()
}

async fn open(app: &TestApp, path: &str) -> Reply {
    app.call(Method::GET, path).no_key().send().await
}

#[track_caller]
fn assert_not_found(reply: &Reply) {
    reply.assert_status(404);
    assert_page_headers(reply);
    assert_eq!(
        text(Page::parse(reply).one("h1")),
        "This link does not work"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_start_page_shows_the_template_and_a_labelled_form() {
    let app = TestApp::spawn().await;
    let path = link_path(&app, &app.template.id).await;
    let reply = open(&app, &path).await;
    reply.assert_status(200);
    assert_page_headers(&reply);
    let page = Page::parse(&reply);
    assert_eq!(
        text(page.one("h1")),
        app.template.template["title"].as_str().unwrap()
    );
    assert!(page.all("script").is_empty());
    let form = page.one("form");
    assert_eq!(form.value().attr("method"), Some("post"));
    let token = path.strip_prefix("/start/").unwrap();
    assert_eq!(form.value().attr("action"), Some(token), "relative: itself");
    for (id, name, kind, label) in [
        ("start-name", "name", "text", "Your name (required)"),
        ("start-email", "email", "email", "Your email (required)"),
    ] {
        let input = page.one(&format!("input#{id}"));
        assert_eq!(input.value().attr("name"), Some(name));
        assert_eq!(input.value().attr("type"), Some(kind));
        assert!(input.value().attr("required").is_some(), "{name} required");
        assert_eq!(text(page.one(&format!("label[for={id}]"))), label);
    }
    let trap = page.one("input[name=website]");
    assert_eq!(trap.value().attr("tabindex"), Some("-1"));
    assert_eq!(
        page.one("div[aria-hidden=true]").value().attr("class"),
        Some("skip"),
        "the honeypot is off screen and hidden from assistive technology"
    );
    assert_eq!(text(page.one("button[type=submit]")), "Start");
    assert!(
        page.one("meta[name=viewport]")
            .value()
            .attr("content")
            .unwrap()
            .contains("width=device-width"),
        "readable on a phone"
    );
    // A campaign's query string does not break a published link.
    open(&app, &format!("{path}?utm_source=site"))
        .await
        .assert_status(200);
}

#[tokio::test(flavor = "multi_thread")]
async fn everything_from_the_template_is_escaped() {
    let app = TestApp::spawn().await;
    let hostile = "\"><svg onload=alert(1)><script>alert(2)</script>";
    let mut document: Value = demo_document();
    document["title"] = json!("<script>alert(1)</script>");
    document["description"] = json!(hostile);
    let cover = "https://e.example/c.png?a=\"onerror=\"alert(3)";
    document["cover_image"] = json!(cover);
    let seeded = app.seed_published(&document).await;
    let path = link_path(&app, &seeded.id).await;
    let reply = open(&app, &path).await;
    reply.assert_status(200);
    assert_page_headers(&reply);
    let page = Page::parse(&reply);
    assert_eq!(text(page.one("h1")), "<script>alert(1)</script>");
    assert!(page.all("svg").is_empty(), "{}", reply.text);
    let image = page.one("img");
    assert_eq!(
        image.value().attr("src"),
        Some(cover),
        "one attribute, escaped"
    );
    assert!(image.value().attr("onerror").is_none(), "{}", reply.text);
    assert!(page.body_text().contains(hostile), "shown as text");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_void_or_malformed_token_or_an_unpublished_or_archived_template_is_the_404_page() {
    let app = TestApp::spawn().await;
    let template = app.template.id.clone();
    let path = link_path(&app, &template).await;
    for wrong in [
        "/start/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA".to_owned(),
        "/start/%3Cscript%3E".to_owned(),
        format!("/start/{}", "x".repeat(129)),
    ] {
        assert_not_found(&open(&app, &wrong).await);
    }
    app.post(
        &format!("/api/v1/process-templates/{template}/publish"),
        &json!({"published": false}),
    )
    .await
    .data(200);
    assert_not_found(&open(&app, &path).await);
    app.post(
        &format!("/api/v1/process-templates/{template}/publish"),
        &json!({"published": true}),
    )
    .await
    .data(200);
    open(&app, &path).await.assert_status(200);

    // Turned off: void, and the new link opens instead.
    app.delete(&format!("/api/v1/process-templates/{template}/run-link"))
        .await
        .assert_status(204);
    assert_not_found(&open(&app, &path).await);
    let renewed = link_path(&app, &template).await;
    open(&app, &renewed).await.assert_status(200);

    // The team's subscription lapses: the guest page's page for it.
    app.set_subscription(procflow_domain::team::Subscription::Inactive)
        .await;
    let reply = open(&app, &renewed).await;
    reply.assert_status(403);
    assert_page_headers(&reply);
    app.set_subscription(procflow_domain::team::Subscription::Active)
        .await;

    app.delete(&format!("/api/v1/process-templates/{template}"))
        .await
        .assert_status(204);
    assert_not_found(&open(&app, &renewed).await);
}

async fn post_start(app: &TestApp, path: &str, fields: &[(&str, &str)]) -> Reply {
    app.call(Method::POST, path)
        .no_key()
        .raw(
            procflow_tests::form_body(fields),
            Some("application/x-www-form-urlencoded"),
        )
        .send()
        .await
}

async fn runs(app: &TestApp) -> Vec<Value> {
    app.all("/api/v1/process-runs").await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_start_makes_a_run_of_the_guest_and_sends_them_to_its_guest_page() {
    let app = TestApp::spawn().await;
    let path = link_path(&app, &app.template.id).await;
    let before = runs(&app).await.len();
    let reply = post_start(
        &app,
        &path,
        &[
            ("name", "Ada <b>L</b>"),
            ("email", "ada@outside.example"),
            ("website", ""),
        ],
    )
    .await;
    reply.assert_status(303);
    assert_eq!(reply.header("cache-control"), Some("no-store"));
    let location = reply.header("location").unwrap().to_owned();
    let guest_page = location
        .strip_prefix(app.base())
        .unwrap_or_else(|| panic!("{location}"));
    assert!(guest_page.starts_with("/instance/"), "{location}");
    let page = open(&app, guest_page).await;
    page.assert_status(200);
    let all = runs(&app).await;
    assert_eq!(all.len(), before + 1);
    let run = all
        .iter()
        .find(|run| guest_page.contains(run["id"].as_str().unwrap()))
        .expect("the run of the guest page");
    assert_eq!(run["started_by"], "guest");
    assert_eq!(
        run["title"],
        format!(
            "{}: Ada <b>L</b>",
            app.template.template["title"].as_str().unwrap()
        )
    );
    assert_eq!(run["is_shared"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_filled_honeypot_or_a_bad_form_starts_nothing() {
    let app = TestApp::spawn().await;
    let path = link_path(&app, &app.template.id).await;
    let before = runs(&app).await.len();
    let token = path.strip_prefix("/start/").unwrap();

    let robot = post_start(
        &app,
        &path,
        &[
            ("name", "Bot"),
            ("email", "bot@spam.example"),
            ("website", "http://spam.example"),
        ],
    )
    .await;
    robot.assert_status(303);
    assert_eq!(
        robot.header("location"),
        Some(token),
        "back to the page, as if started"
    );

    for (fields, field, kept) in [
        (
            vec![("name", ""), ("email", "ada@outside.example")],
            "start-name",
            ("", "ada@outside.example"),
        ),
        (
            vec![("name", "Ada"), ("email", "not an email")],
            "start-email",
            ("Ada", "not an email"),
        ),
        (
            vec![("name", "Member"), ("email", "member@a.example")],
            "start-email",
            ("Member", "member@a.example"),
        ),
    ] {
        let reply = post_start(&app, &path, &fields).await;
        reply.assert_status(400);
        assert_page_headers(&reply);
        let page = Page::parse(&reply);
        let input = page.one(&format!("input#{field}"));
        assert_eq!(
            input.value().attr("aria-invalid"),
            Some("true"),
            "{fields:?}"
        );
        assert!(!text(page.one(&format!("#{field}-error"))).is_empty());
        assert_eq!(
            page.one("input#start-name").value().attr("value"),
            Some(kept.0)
        );
        assert_eq!(
            page.one("input#start-email").value().attr("value"),
            Some(kept.1)
        );
    }
    let not_a_form = app
        .call(Method::POST, &path)
        .no_key()
        .json(&json!({"name": "Ada", "email": "ada@outside.example"}))
        .send()
        .await;
    not_a_form.assert_status(415);
    assert_page_headers(&not_a_form);

    let void = post_start(
        &app,
        "/start/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        &[("name", "Ada"), ("email", "ada@outside.example")],
    )
    .await;
    assert_not_found(&void);
    assert_eq!(runs(&app).await.len(), before, "no run started");
}

#[tokio::test(flavor = "multi_thread")]
async fn starts_are_limited_per_client_address() {
    let app = TestApp::spawn().await;
    let path = link_path(&app, &app.template.id).await;
    // Robots' posts count too: the limits come before anything else.
    let robot = [
        ("name", "Bot"),
        ("email", "bot@spam.example"),
        ("website", "x"),
    ];
    for _ in 0..10 {
        post_start(&app, &path, &robot).await.assert_status(303);
    }
    let refused = post_start(&app, &path, &robot).await;
    refused.assert_status(429);
    assert_page_headers(&refused);
    let wait: u64 = refused.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=61).contains(&wait), "{wait}");
    let before = runs(&app).await.len();
    post_start(
        &app,
        &path,
        &[("name", "Ada"), ("email", "ada@outside.example")],
    )
    .await
    .assert_status(429);
    assert_eq!(
        runs(&app).await.len(),
        before,
        "nothing started past the limit"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn starts_are_limited_per_link_over_an_hour() {
    let app = TestApp::with(Options {
        run_link_starts: (3, 100),
        ..Options::default()
    })
    .await;
    let path = link_path(&app, &app.template.id).await;
    let other_template = app.seed_published(&demo_document()).await;
    let other_path = link_path(&app, &other_template.id).await;
    let person = |n: usize| format!("person{n}@outside.example");
    for n in 0..3 {
        post_start(&app, &path, &[("name", "Ada"), ("email", &person(n))])
            .await
            .assert_status(303);
    }
    let before = runs(&app).await.len();
    let refused = post_start(&app, &path, &[("name", "Ada"), ("email", &person(3))]).await;
    refused.assert_status(429);
    assert_page_headers(&refused);
    let wait: u64 = refused.header("retry-after").unwrap().parse().unwrap();
    assert!(
        (61..=3_601).contains(&wait),
        "the link's quota frees up within the hour, not the minute: {wait}"
    );
    assert_eq!(
        runs(&app).await.len(),
        before,
        "nothing started past the limit"
    );
    // The limit is the link's: another template's link, from the same address, still starts.
    post_start(&app, &other_path, &[("name", "Ada"), ("email", &person(4))])
        .await
        .assert_status(303);
    assert_eq!(runs(&app).await.len(), before + 1);
}

/// Moves the store's rolling windows out of the service's reach (`away`) or back: a start that
/// has to be decided by the store then fails, one refused from the instance's memory does not.
async fn windows_reachable(app: &TestApp, reachable: bool) {
    let (from, to) = if reachable {
        ("rate_windows_away", "rate_windows")
    } else {
        ("rate_windows", "rate_windows_away")
    };
    procflow_postgres::testing::execute(
        app.db_url(),
        &format!("ALTER TABLE {from} RENAME TO {to}"),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn refused_starts_robots_included_are_answered_from_the_instances_memory() {
    let app = TestApp::with(Options {
        run_link_starts: (100, 2),
        ..Options::default()
    })
    .await;
    let path = link_path(&app, &app.template.id).await;
    let robot = [
        ("name", "Bot"),
        ("email", "bot@spam.example"),
        ("website", "x"),
    ];
    for _ in 0..2 {
        post_start(&app, &path, &robot).await.assert_status(303);
    }
    post_start(&app, &path, &robot).await.assert_status(429);
    let run_id = app.start_demo_run().await;
    let shared = app.share(&run_id, None).await;
    let task = app.task_id(&run_id, "Say hello").await;
    let before = runs(&app).await.len();

    windows_reachable(&app, false).await;
    // What the store must decide fails now (a guest post counts in the same windows)...
    let needs_the_store = app
        .post_form(&shared.task(&task), &[("action", "save")])
        .await;
    assert!(
        needs_the_store.status >= 500,
        "a post the store decides cannot be decided: {}",
        needs_the_store.status
    );
    // ...but a start past its address's limit, a robot's or a person's, is still refused,
    // from what the instance knows, and it costs the link nothing.
    for fields in [
        &robot[..],
        &[("name", "Ada"), ("email", "ada@outside.example")][..],
    ] {
        let refused = post_start(&app, &path, fields).await;
        refused.assert_status(429);
        assert_page_headers(&refused);
        let wait: u64 = refused.header("retry-after").unwrap().parse().unwrap();
        assert!((1..=61).contains(&wait), "{wait}");
    }
    windows_reachable(&app, true).await;
    app.post_form(&shared.task(&task), &[("action", "save")])
        .await
        .assert_status(303);
    assert_eq!(
        runs(&app).await.len(),
        before,
        "nothing started past the limit"
    );
}
