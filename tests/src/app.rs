//! The app under test: its database, its running instances, its seeded teams and keys, and the
//! HTTP client the tests speak through.

use std::net::TcpListener;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use procflow_domain::event::Event;
use procflow_domain::ids::{ApiKeyId, TeamId, UserId};
use procflow_domain::ports::{Clock, Outbox, TeamStore};
use procflow_domain::team::{ApiKey, KeyScope, Member, Role, Subscription, Team};
use procflow_postgres::testing::{TestDatabase, migrated_database};
use procflow_postgres::{PgStore, PoolConfig};
use procflow_server::ServeConfig;
use procflow_server::ServerHandle;
use procflow_server::system::SystemClock;
use reqwest::Method;
use serde_json::{Value, json};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::reply::Reply;
use crate::seed::{Seeded, demo_document};

/// How long a test waits for one HTTP answer, or for a server to stop, at most.
const TIMEOUT: Duration = Duration::from_secs(30);

/// How a test's app is configured.
#[derive(Clone, Debug)]
pub struct Options {
    /// Requests accepted per API key in any rolling minute. High by default, so that only the
    /// rate-limit tests meet it.
    pub rate_limit_per_minute: u32,
    /// HTTP worker threads per instance.
    pub workers: usize,
    /// Connections to PostgreSQL per instance at most.
    pub pool_size: usize,
    /// Guest posts accepted per run, and per client address, in any rolling minute. High by
    /// default, so that only the guest rate-limit tests meet them.
    pub guest_posts_per_minute: (u32, u32),
    /// Runs started per run link in any rolling hour, and per client address in any rolling
    /// minute: the product's defaults (100, 10) unless a test sets them.
    pub run_link_starts: (u32, u32),
    /// The delivery worker of each instance; none by default, so that tests that read the
    /// outbox ([`TestApp::events`]) find every event there.
    pub worker: Option<procflow_server::config::WorkerSettings>,
    /// The largest attachment accepted; the server's default (25 MiB) when `None`.
    pub upload_max_bytes: Option<u64>,
    /// Where attachments' bytes go; a temporary directory of the app's own when `None`
    /// (shared by its instances).
    pub files_dir: Option<std::path::PathBuf>,
    /// Another store for attachments' bytes (a bucket), in place of `files_dir`.
    pub storage_url: Option<procflow_server::storage::StorageUrl>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            rate_limit_per_minute: 100_000,
            workers: 2,
            pool_size: 8,
            guest_posts_per_minute: (100_000, 100_000),
            run_link_starts: (
                procflow_http::HttpConfig::DEFAULT_RUN_LINK_STARTS_PER_HOUR_PER_LINK,
                procflow_http::HttpConfig::DEFAULT_RUN_LINK_STARTS_PER_MINUTE_PER_ADDRESS,
            ),
            worker: None,
            upload_max_bytes: None,
            files_dir: None,
            storage_url: None,
        }
    }
}

/// One running server of the app, on its own loopback port; stopped when dropped.
pub struct Instance {
    base: String,
    handle: ServerHandle,
    done: mpsc::Receiver<()>,
    thread: Option<JoinHandle<()>>,
}

impl Instance {
    /// Starts the app on `listener` over the database at `db_url` with the function
    /// `procflow serve` uses, [`procflow_server::start`].
    fn start(listener: TcpListener, db_url: &str, options: &Options) -> Self {
        let address = listener.local_addr().expect("local address");
        let base = format!("http://{address}");
        let mut config = ServeConfig::new(db_url.parse().expect("database URL"), address);
        config.http.rate_limit_per_minute = options.rate_limit_per_minute;
        config.db_pool_size = options.pool_size;
        (
            config.http.guest_posts_per_minute_per_run,
            config.http.guest_posts_per_minute_per_address,
        ) = options.guest_posts_per_minute;
        (
            config.http.run_link_starts_per_hour_per_link,
            config.http.run_link_starts_per_minute_per_address,
        ) = options.run_link_starts;
        config.http.workers = Some(options.workers);
        config.worker.clone_from(&options.worker);
        if let Some(max) = options.upload_max_bytes {
            config.http.upload_max_bytes = max;
        }
        if let Some(url) = &options.storage_url {
            config.storage_url.clone_from(url);
        } else if let Some(dir) = &options.files_dir {
            config.storage_url = procflow_server::storage::local(dir);
        }
        let (handle_tx, handle_rx) = mpsc::channel();
        let (done_tx, done) = mpsc::channel();
        // The server runs on a thread and runtime of its own, so that it can be stopped and
        // waited for from `Drop`, whatever state the test's runtime is in.
        let thread = std::thread::Builder::new()
            .name("procflow-test-server".into())
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("server runtime");
                runtime.block_on(async move {
                    match procflow_server::start(config, listener).await {
                        Ok(server) => {
                            let _ = handle_tx.send(Ok(server.handle()));
                            let _ = server.await;
                        }
                        Err(error) => {
                            let _ = handle_tx.send(Err(error));
                        }
                    }
                });
                let _ = done_tx.send(());
            })
            .expect("server thread");
        let handle = handle_rx
            .recv_timeout(TIMEOUT)
            .expect("the server started in time")
            .expect("the server started");
        Self {
            base,
            handle,
            done,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:<port>`
    #[must_use]
    pub fn base(&self) -> &str {
        &self.base
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // Sends the stop command now; the returned future only waits for its completion.
        drop(self.handle.stop(false));
        if self.done.recv_timeout(TIMEOUT).is_ok()
            && let Some(thread) = self.thread.take()
        {
            let _ = thread.join();
        }
    }
}

/// A test's world: the app running on its own database, two teams with a key each, the demo
/// template published, and an HTTP client.
///
/// Fields drop in order: `main` stops the server before `db` drops the database.
pub struct TestApp {
    main: Instance,
    options: Options,
    /// The HTTP client.
    pub client: reqwest::Client,
    /// The team the tests act for (time zone `Europe/Paris`, base URL the app's address).
    pub team: Team,
    /// Its admin, `admin@a.example`.
    pub admin: Member,
    /// An active member, `member@a.example`.
    pub member: Member,
    /// An inactive member, `former@a.example`.
    pub former: Member,
    /// The team's API key.
    pub key: String,
    /// Its id.
    pub key_id: ApiKeyId,
    /// Another team, for isolation checks (admin `admin@b.example`, time zone `UTC`).
    pub other: Team,
    /// The other team's API key.
    pub other_key: String,
    /// The demo template, created and published through the API.
    pub template: Seeded,
    /// A store on the test database, for seeding and for reading the outbox.
    pub store: PgStore,
    db: TestDatabase,
    /// The attachments' directory when the app made its own: held so that it is removed
    /// last.
    _files: Option<tempfile::TempDir>,
}

fn member(team: &Team, email: &str, role: Role, active: bool) -> Member {
    Member {
        id: UserId::from_uuid(Uuid::now_v7()),
        team_id: team.id,
        email: email.parse().expect("email"),
        name: Some(email.to_owned()),
        role,
        active,
        created_at: team.created_at,
    }
}

fn now() -> OffsetDateTime {
    SystemClock.now()
}

impl TestApp {
    /// The app with the default options.
    pub async fn spawn() -> Self {
        Self::with(Options::default()).await
    }

    /// The app with these options.
    pub async fn with(mut options: Options) -> Self {
        let files = if options.files_dir.is_none() {
            let dir = tempfile::tempdir().expect("attachments directory");
            options.files_dir = Some(dir.path().to_path_buf());
            Some(dir)
        } else {
            None
        };
        let db = migrated_database().await;
        let store = PgStore::new(&PoolConfig {
            max_size: 4,
            ..PoolConfig::new(db.url())
        })
        .expect("pool");
        let listener = TcpListener::bind("127.0.0.1:0").expect("loopback port");
        let base = format!("http://{}", listener.local_addr().expect("local address"));

        let team = Team {
            id: TeamId::from_uuid(Uuid::now_v7()),
            name: "Team A".into(),
            base_url: base.clone(),
            timezone: "Europe/Paris".into(),
            subscription: Subscription::Active,
            created_at: now(),
        };
        let admin = member(&team, "admin@a.example", Role::Admin, true);
        store.create_team(&team, &admin).await.expect("team a");
        let member_a = member(&team, "member@a.example", Role::Member, true);
        store.add_member(&member_a).await.expect("member");
        let former = member(&team, "former@a.example", Role::Member, false);
        store.add_member(&former).await.expect("former member");

        let other = Team {
            id: TeamId::from_uuid(Uuid::now_v7()),
            name: "Team B".into(),
            base_url: "http://b.example".into(),
            timezone: "UTC".into(),
            subscription: Subscription::Active,
            created_at: now(),
        };
        let other_admin = member(&other, "admin@b.example", Role::Admin, true);
        store
            .create_team(&other, &other_admin)
            .await
            .expect("team b");

        let (key_id, key) = insert_key(&store, &team, &admin, KeyScope::Write).await;
        let (_, other_key) = insert_key(&store, &other, &other_admin, KeyScope::Write).await;

        let main = Instance::start(listener, db.url(), &options);
        // Redirects are answers to check, not to follow (the guest page's 303s).
        let client = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(TIMEOUT)
            .build()
            .expect("HTTP client");
        let mut app = Self {
            main,
            options,
            client,
            team,
            admin,
            member: member_a,
            former,
            key,
            key_id,
            other,
            other_key,
            template: Seeded::default(),
            store,
            db,
            _files: files,
        };
        app.template = app.seed_published(&demo_document()).await;
        app
    }

    /// `http://127.0.0.1:<port>` of the main instance.
    #[must_use]
    pub fn base(&self) -> &str {
        self.main.base()
    }

    /// Where the app stores attachments' bytes.
    #[must_use]
    pub fn files_dir(&self) -> Option<&std::path::Path> {
        self.options.files_dir.as_deref()
    }

    /// The test database's URL.
    #[must_use]
    pub fn db_url(&self) -> &str {
        self.db.url()
    }

    /// Another instance of the app on the same database, with the same options.
    #[must_use]
    pub fn spawn_instance(&self) -> Instance {
        let listener = TcpListener::bind("127.0.0.1:0").expect("loopback port");
        Instance::start(listener, self.db.url(), &self.options)
    }

    /// An instance of the app over another database (one that does not answer, say).
    #[must_use]
    pub fn spawn_instance_on(&self, db_url: &str) -> Instance {
        let listener = TcpListener::bind("127.0.0.1:0").expect("loopback port");
        Instance::start(listener, db_url, &self.options)
    }

    /// A request to the main instance with the team's key; see [`Call`].
    #[must_use]
    pub fn call(&self, method: Method, path: &str) -> Call<'_> {
        Call {
            app: self,
            base: self.base().to_owned(),
            method,
            path: path.to_owned(),
            key: Some(self.key.clone()),
            headers: Vec::new(),
            body: None,
        }
    }

    /// `GET path` with the team's key.
    pub async fn get(&self, path: &str) -> Reply {
        self.call(Method::GET, path).send().await
    }

    /// `POST path` with a JSON body and the team's key.
    pub async fn post(&self, path: &str, body: &Value) -> Reply {
        self.call(Method::POST, path).json(body).send().await
    }

    /// `PATCH path` with a JSON body and the team's key.
    pub async fn patch(&self, path: &str, body: &Value) -> Reply {
        self.call(Method::PATCH, path).json(body).send().await
    }

    /// `PUT path` with a JSON body and the team's key.
    pub async fn put(&self, path: &str, body: &Value) -> Reply {
        self.call(Method::PUT, path).json(body).send().await
    }

    /// `DELETE path` with the team's key.
    pub async fn delete(&self, path: &str) -> Reply {
        self.call(Method::DELETE, path).send().await
    }

    /// Creates a template through the API (201) and returns it.
    pub async fn create_template(&self, document: &Value) -> Value {
        self.post("/api/v1/process-templates", document)
            .await
            .data(201)
    }

    /// Publishes a template through the API and returns it.
    pub async fn publish(&self, template_id: &str) -> Value {
        self.post(
            &format!("/api/v1/process-templates/{template_id}/publish"),
            &json!({"published": true}),
        )
        .await
        .data(200)
    }

    /// Creates and publishes a template through the API, and reads its tasks back.
    pub async fn seed_published(&self, document: &Value) -> Seeded {
        let created = self.create_template(document).await;
        let id = created["id"].as_str().expect("template id").to_owned();
        let template = self.publish(&id).await;
        let tasks = self
            .all(&format!("/api/v1/process-templates/{id}/tasks"))
            .await;
        Seeded {
            id,
            template,
            tasks,
        }
    }

    /// Every item of a list, page by page (100 per page, at most 50 pages).
    pub async fn all(&self, path: &str) -> Vec<Value> {
        let separator = if path.contains('?') { '&' } else { '?' };
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..50 {
            let url = match &cursor {
                Some(cursor) => format!("{path}{separator}limit=100&cursor={cursor}"),
                None => format!("{path}{separator}limit=100"),
            };
            let (page, next, has_more) = self.get(&url).await.list();
            items.extend(page);
            if !has_more {
                return items;
            }
            cursor = Some(next.expect("next_cursor when has_more"));
        }
        panic!("{path}: more than 50 pages");
    }

    /// Starts a run (201) with this body and returns the Create response's data.
    pub async fn start_run(&self, body: &Value) -> Value {
        self.post("/api/v1/process-runs", body).await.data(201)
    }

    /// Starts a run of the demo template and returns its id.
    pub async fn start_demo_run(&self) -> String {
        let run = self
            .start_run(&json!({"template_id": self.template.id}))
            .await;
        run["id"].as_str().expect("run id").to_owned()
    }

    /// The tasks of a run, in order.
    pub async fn run_tasks(&self, run_id: &str) -> Vec<Value> {
        self.all(&format!("/api/v1/process-runs/{run_id}/tasks"))
            .await
    }

    /// The id of the run's task with this title.
    pub async fn task_id(&self, run_id: &str, title: &str) -> String {
        self.run_tasks(run_id)
            .await
            .iter()
            .find(|t| t["title"] == title)
            .and_then(|t| t["id"].as_str())
            .unwrap_or_else(|| panic!("run {run_id} has no task {title:?}"))
            .to_owned()
    }

    /// `PATCH /api/v1/process-runs/{run}/tasks/{task}`.
    pub async fn patch_task(&self, run_id: &str, task_id: &str, body: &Value) -> Reply {
        self.patch(
            &format!("/api/v1/process-runs/{run_id}/tasks/{task_id}"),
            body,
        )
        .await
    }

    /// `GET /api/v1/process-runs/{run}`, asserted 200.
    pub async fn run(&self, run_id: &str) -> Value {
        self.get(&format!("/api/v1/process-runs/{run_id}"))
            .await
            .data(200)
    }

    /// A new key of `team`, made by its admin `admin`; returns its id and the plain key.
    pub async fn new_key(&self, team: &Team, admin: &Member) -> (ApiKeyId, String) {
        insert_key(&self.store, team, admin, KeyScope::Write).await
    }

    /// A new key of the main team with the `read` scope; returns the plain key.
    pub async fn read_key(&self) -> String {
        insert_key(&self.store, &self.team, &self.admin, KeyScope::Read)
            .await
            .1
    }

    /// Revokes a key of the main team.
    pub async fn revoke(&self, key: ApiKeyId) {
        self.store
            .revoke_api_key(self.team.id, key, now())
            .await
            .expect("revoke");
    }

    /// Sets the main team's subscription.
    pub async fn set_subscription(&self, status: Subscription) {
        self.store
            .set_subscription(self.team.id, status)
            .await
            .expect("subscription");
    }

    /// Every event appended to the outbox and not yet taken, leasing them far into the future
    /// (as the store's conformance suite reads them).
    pub async fn events(&self) -> Vec<Event> {
        let far = time::macros::datetime!(2099-01-01 0:00 UTC);
        self.store
            .claim(100_000, far, far + time::Duration::days(365))
            .await
            .expect("claim")
            .into_iter()
            .map(|entry| {
                entry
                    .event
                    .expect("every event the service writes reads back")
            })
            .collect()
    }
}

async fn insert_key(
    store: &PgStore,
    team: &Team,
    admin: &Member,
    scope: KeyScope,
) -> (ApiKeyId, String) {
    let generated = procflow_http::keys::generate().expect("randomness");
    let key = ApiKey {
        id: ApiKeyId::from_uuid(Uuid::now_v7()),
        team_id: team.id,
        name: Some("tests".into()),
        prefix: generated.prefix.clone(),
        created_by: admin.id,
        scope,
        created_at: now(),
        revoked_at: None,
    };
    store
        .insert_api_key(&key, &generated.hash)
        .await
        .expect("api key");
    (key.id, generated.plain)
}

/// One request being put together: the key (the team's by default), headers and body.
pub struct Call<'a> {
    app: &'a TestApp,
    base: String,
    method: Method,
    path: String,
    key: Option<String>,
    headers: Vec<(String, String)>,
    body: Option<(Vec<u8>, Option<String>)>,
}

impl Call<'_> {
    /// Sends it to another instance.
    #[must_use]
    pub fn at(mut self, base: &str) -> Self {
        base.clone_into(&mut self.base);
        self
    }

    /// With this key instead of the team's.
    #[must_use]
    pub fn key(mut self, key: &str) -> Self {
        self.key = Some(key.to_owned());
        self
    }

    /// Without an `Authorization` header.
    #[must_use]
    pub fn no_key(mut self) -> Self {
        self.key = None;
        self
    }

    /// With this header (an `Authorization` given here replaces the key's).
    #[must_use]
    pub fn header(mut self, name: &str, value: &str) -> Self {
        if name.eq_ignore_ascii_case("authorization") {
            self.key = None;
        }
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// With a JSON body.
    #[must_use]
    pub fn json(mut self, body: &Value) -> Self {
        self.body = Some((
            serde_json::to_vec(body).expect("JSON"),
            Some("application/json".into()),
        ));
        self
    }

    /// With a raw body and content type (`None`: no Content-Type header).
    #[must_use]
    pub fn raw(mut self, body: impl Into<Vec<u8>>, content_type: Option<&str>) -> Self {
        self.body = Some((body.into(), content_type.map(str::to_owned)));
        self
    }

    /// Sends it and reads the whole answer.
    pub async fn send(self) -> Reply {
        let request = format!("{} {}", self.method, self.path);
        let (method, path) = (self.method.to_string(), self.path.clone());
        let url = format!("{}{}", self.base, self.path);
        let mut builder = self.app.client.request(self.method, &url);
        if let Some(key) = &self.key {
            builder = builder.header("authorization", format!("Bearer {key}"));
        }
        for (name, value) in &self.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        if let Some((body, content_type)) = self.body {
            if let Some(content_type) = content_type {
                builder = builder.header("content-type", content_type);
            }
            builder = builder.body(body);
        }
        let response = builder
            .send()
            .await
            .unwrap_or_else(|e| panic!("{request}: no answer: {e}"));
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response
            .text()
            .await
            .unwrap_or_else(|e| panic!("{request}: unreadable body: {e}"));
        let reply = Reply {
            request,
            status,
            headers,
            text,
        };
        // Every answer of every black-box test must be one the OpenAPI document describes.
        crate::openapi::committed().check_any(&method, &path, &reply);
        reply
    }
}
