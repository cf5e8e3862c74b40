//! A team of a [`Served`](crate::Served) server as the fuzz and chaos drivers see it: created
//! with `procflow admin`, spoken to over HTTP with its API key.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::served::admin;

/// How long one request of the drivers may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// One team, its admin's API key and a client.
#[derive(Clone)]
pub struct Remote {
    /// `http://127.0.0.1:<port>`
    pub base: String,
    /// The team's id.
    pub team_id: String,
    /// A write-scoped API key of the team's admin.
    pub key: String,
    http: reqwest::Client,
}

impl Remote {
    /// Creates the team `name` (admin `admin@<name>.example`, base URL `base`) in the database
    /// at `db_url` and an API key for it.
    #[must_use]
    pub fn create_team(db_url: &str, base: &str, name: &str) -> Self {
        let admin_email = format!("admin@{name}.example");
        let team = admin(
            db_url,
            &[
                "create-team",
                "--name",
                name,
                "--base-url",
                base,
                "--admin-email",
                &admin_email,
            ],
        );
        let team_id = team["team_id"].as_str().expect("team_id").to_owned();
        let key = admin(
            db_url,
            &[
                "create-api-key",
                "--team",
                &team_id,
                "--admin-email",
                &admin_email,
            ],
        );
        procflow_notify::install_tls();
        Self {
            base: base.to_owned(),
            team_id,
            key: key["key"].as_str().expect("key").to_owned(),
            http: reqwest::Client::builder()
                .timeout(REQUEST_TIMEOUT)
                .build()
                .expect("an HTTP client"),
        }
    }

    /// Sends one request; the status and the JSON body (`Null` when none), or the transport
    /// error.
    pub async fn try_call(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(StatusCode, Value), reqwest::Error> {
        let mut request = self
            .http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.key);
        if let Some(body) = body {
            request = request.json(body);
        }
        let answer = request.send().await?;
        let status = answer.status();
        let bytes = answer.bytes().await?;
        Ok((
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        ))
    }

    /// Sends one request that must answer `expected`; its `data`.
    ///
    /// # Panics
    /// On any other answer.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        expected: u16,
    ) -> Value {
        let (status, value) = self
            .try_call(method.clone(), path, body)
            .await
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        assert_eq!(status.as_u16(), expected, "{method} {path}: {value}");
        value["data"].clone()
    }

    /// Uploads `bytes` as the file `filename` to the attachments `path` (a multipart body of
    /// one `file` part), which must answer 201; the attachment's id.
    ///
    /// # Panics
    /// On any other answer.
    pub async fn upload(&self, path: &str, filename: &str, bytes: &[u8]) -> String {
        let answer = self
            .http
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.key)
            .header("content-type", crate::MULTIPART)
            .body(crate::multipart_file(filename, "text/plain", bytes))
            .send()
            .await
            .unwrap_or_else(|e| panic!("POST {path}: {e}"));
        let status = answer.status().as_u16();
        let body: Value = answer.json().await.unwrap_or(Value::Null);
        assert_eq!(status, 201, "POST {path}: {body}");
        body["data"]["id"].as_str().expect("an id").to_owned()
    }

    /// Creates a template from `document` and publishes it; its id.
    pub async fn published_template(&self, document: &Value) -> String {
        let created = self
            .call(
                Method::POST,
                "/api/v1/process-templates",
                Some(document),
                201,
            )
            .await;
        let id = created["id"].as_str().expect("template id").to_owned();
        self.call(
            Method::POST,
            &format!("/api/v1/process-templates/{id}/publish"),
            Some(&json!({"published": true})),
            200,
        )
        .await;
        id
    }

    /// Starts a run of `template`; its id.
    pub async fn start_run(&self, template: &str) -> String {
        let run = self
            .call(
                Method::POST,
                "/api/v1/process-runs",
                Some(&json!({"template_id": template})),
                201,
            )
            .await;
        run["id"].as_str().expect("run id").to_owned()
    }

    /// The ids of a run's tasks, in order.
    pub async fn run_task_ids(&self, run: &str) -> Vec<String> {
        let (status, page) = self
            .try_call(
                Method::GET,
                &format!("/api/v1/process-runs/{run}/tasks?limit=100"),
                None,
            )
            .await
            .expect("listing a run's tasks");
        assert_eq!(status, StatusCode::OK, "{page}");
        page["data"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|t| t["id"].as_str().expect("task id").to_owned())
            .collect()
    }
}
