//! The run link API (API contract 13.2): turn a template's public start link on (the same
//! link again), read it, turn it off (a new link after); every refusal; team scoping; read keys
//! read only.

use procflow_tests::{TestApp, assert_keys, unknown_id};
use reqwest::Method;
use serde_json::json;

fn path(template: &str) -> String {
    format!("/api/v1/process-templates/{template}/run-link")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_link_is_turned_on_read_and_turned_off() {
    let app = TestApp::spawn().await;
    let path = path(&app.template.id);
    let off = app.get(&path).await.data(200);
    assert_eq!(
        off,
        json!({"url": null, "enabled": false, "created_at": null})
    );

    let on = app.post(&path, &json!({})).await.data(200);
    assert_keys(&on, &["url", "enabled", "created_at"]);
    assert_eq!(on["enabled"], true);
    let url = on["url"].as_str().unwrap();
    let token = url
        .strip_prefix(&format!("{}/start/", app.base()))
        .unwrap_or_else(|| panic!("{url} is not under the team's base_url"));
    assert!(token.len() >= 22, "at least 128 random bits: {token}");
    assert!(on["created_at"].is_string());

    assert_eq!(
        app.post(&path, &json!({})).await.data(200),
        on,
        "the same link"
    );
    assert_eq!(app.get(&path).await.data(200), on);

    app.delete(&path).await.assert_status(204);
    assert_eq!(app.get(&path).await.data(200), off);
    app.delete(&path).await.assert_status(204);
    let again = app.post(&path, &json!({})).await.data(200);
    assert_eq!(again["enabled"], true);
    assert_ne!(
        again["url"], on["url"],
        "a new token after it was turned off"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unpublished_template_may_have_a_link() {
    let app = TestApp::spawn().await;
    let template = app.create_template(&procflow_tests::demo_document()).await;
    let path = path(template["id"].as_str().unwrap());
    assert_eq!(app.post(&path, &json!({})).await.data(200)["enabled"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_archived_or_another_teams_template_is_not_found_and_read_keys_only_read() {
    let app = TestApp::spawn().await;
    let mine = path(&app.template.id);
    for missing in [path(&unknown_id()), path("not-an-id")] {
        app.get(&missing).await.error(404, "not_found");
        app.post(&missing, &json!({})).await.error(404, "not_found");
        app.delete(&missing).await.error(404, "not_found");
    }
    app.post(&mine, &json!({})).await.data(200);

    let other = |method, path: &str| app.call(method, path).key(&app.other_key);
    other(Method::GET, &mine)
        .send()
        .await
        .error(404, "not_found");
    other(Method::POST, &mine)
        .json(&json!({}))
        .send()
        .await
        .error(404, "not_found");
    other(Method::DELETE, &mine)
        .send()
        .await
        .error(404, "not_found");
    assert_eq!(app.get(&mine).await.data(200)["enabled"], true, "untouched");

    let read = app.read_key().await;
    let reader = |method, path: &str| app.call(method, path).key(&read);
    assert_eq!(
        reader(Method::GET, &mine).send().await.data(200)["enabled"],
        true
    );
    reader(Method::POST, &mine)
        .json(&json!({}))
        .send()
        .await
        .error(403, "forbidden");
    reader(Method::DELETE, &mine)
        .send()
        .await
        .error(403, "forbidden");
    assert_eq!(app.get(&mine).await.data(200)["enabled"], true, "still on");

    // Unknown query parameters are refused, as on every operation.
    app.get(&format!("{mine}?x=1"))
        .await
        .error(400, "validation_error");

    app.delete(&format!("/api/v1/process-templates/{}", &app.template.id))
        .await
        .assert_status(204);
    app.get(&mine).await.error(404, "not_found");
    app.post(&mine, &json!({})).await.error(404, "not_found");
    app.delete(&mine).await.error(404, "not_found");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_client_turns_a_link_on_reads_it_and_turns_it_off() {
    use procflow_client::{Client, WriteOptions};
    let app = TestApp::spawn().await;
    let client = Client::new(app.base(), app.key.clone()).expect("a client");
    let template = &app.template.id;
    let none = WriteOptions::default();
    let on = client.enable_run_link(template, &none).await.unwrap();
    assert!(on.enabled);
    assert!(on.url.as_deref().unwrap().contains("/start/"));
    assert_eq!(client.get_run_link(template).await.unwrap(), on);
    client.disable_run_link(template, &none).await.unwrap();
    assert!(!client.get_run_link(template).await.unwrap().enabled);
    let refused = client.get_run_link(&unknown_id()).await.unwrap_err();
    assert_eq!(refused.code(), Some("not_found"), "{refused}");
}
