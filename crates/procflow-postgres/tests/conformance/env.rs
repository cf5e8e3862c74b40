//! The world of a contract test, on either backend: the store ports, the service over them, a
//! clock and two teams; and [`conformance_test!`], which runs one test on both backends.

use std::sync::Arc;

use procflow_domain::error::DomainResult;
use procflow_domain::event::Event;
use procflow_domain::ids::{EventId, HolderId, TeamId};
use procflow_domain::mail::Mails;
use procflow_domain::ports::{
    AttachmentStore, Clock, CommentStore, DeliveryQueue, EventFeed, IdempotencyStore, LeasedQueue,
    MailQueue, NoticeStore, Outbox, RateLimiter, RunLinkStore, RunStore, ScheduleStore, TeamStore,
    TemplateStore, WebhookStore, WindowLimiter,
};
use procflow_domain::queue::{Job, Lease};
use procflow_domain::service::{
    AttachmentPorts, Attachments, CommentPorts, Comments, Ports, Procflow, WebhookPorts, Webhooks,
};
use procflow_domain::team::{Role, Subscription, Team};
use procflow_domain::webhook::Deliveries;
use procflow_memory::{FixedClock, InMemoryFiles, InMemoryStore, SequentialIds};
use procflow_postgres::testing::{TestDatabase, migrated_database};
use procflow_postgres::{PgStore, PoolConfig, StatementCounter};
use serde_json::Value;
use time::OffsetDateTime;
use time::macros::datetime;
use uuid::Uuid;

use super::support::member;

/// Runs a contract test on both backends. Put it before an `async fn $name(env: Env)`; it
/// makes the module `$name` with two tests, `postgres` (on [`Env::postgres`]) and `memory` (on
/// [`Env::memory`]), so that a fake that parts from `PgStore` fails the test that says how.
/// `worker_threads` is 2 unless given, as in `conformance_test!(name, worker_threads = 4)`.
///
/// The body is a plain function rather than the macro's argument so that rustfmt, clippy and
/// the editor see it as any other code.
macro_rules! conformance_test {
    ($name:ident) => {
        conformance_test!($name, worker_threads = 2);
    };
    ($name:ident, worker_threads = $threads:literal) => {
        mod $name {
            use $crate::conformance::env::Env;

            #[tokio::test(flavor = "multi_thread", worker_threads = $threads)]
            async fn postgres() {
                super::$name(Env::postgres().await).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = $threads)]
            async fn memory() {
                super::$name(Env::memory().await).await;
            }
        }
    };
}
pub(crate) use conformance_test;

/// Every store port the suite checks, as one backend serves them all.
pub trait Store:
    TemplateStore
    + RunStore
    + TeamStore
    + Outbox
    + RateLimiter
    + IdempotencyStore
    + WindowLimiter
    + WebhookStore
    + DeliveryQueue
    + EventFeed
    + MailQueue
    + NoticeStore
    + ScheduleStore
    + CommentStore
    + AttachmentStore
    + RunLinkStore
{
}

impl<S> Store for S where
    S: TemplateStore
        + RunStore
        + TeamStore
        + Outbox
        + RateLimiter
        + IdempotencyStore
        + WindowLimiter
        + WebhookStore
        + DeliveryQueue
        + EventFeed
        + MailQueue
        + NoticeStore
        + ScheduleStore
        + CommentStore
        + AttachmentStore
        + RunLinkStore
{
}

/// A store's two leased queues, by job: the shared port is generic over the job, so a call
/// names which queue it means.
pub trait Queues {
    /// The webhook deliveries.
    fn deliveries(&self) -> &dyn LeasedQueue<Deliveries>;
    /// The emails.
    fn mails(&self) -> &dyn LeasedQueue<Mails>;
}

impl Queues for dyn Store {
    fn deliveries(&self) -> &dyn LeasedQueue<Deliveries> {
        self
    }

    fn mails(&self) -> &dyn LeasedQueue<Mails> {
        self
    }
}

/// Claims as a worker of its own would: a new holder, under `token`, until `until`; answers
/// the jobs (what a takeover reports is the business of `takeover.rs`).
pub trait ClaimJobs<J: Job> {
    fn claim_jobs(
        &self,
        limit: usize,
        now: OffsetDateTime,
        until: OffsetDateTime,
        token: Uuid,
    ) -> impl Future<Output = DomainResult<Vec<J::Claimed>>> + Send + '_;
}

impl<J: Job> ClaimJobs<J> for dyn LeasedQueue<J> + '_ {
    fn claim_jobs(
        &self,
        limit: usize,
        now: OffsetDateTime,
        until: OffsetDateTime,
        token: Uuid,
    ) -> impl Future<Output = DomainResult<Vec<J::Claimed>>> + Send + '_ {
        let lease = Lease {
            holder: HolderId::from_uuid(Uuid::now_v7()),
            token,
            until,
        };
        async move { Ok(self.claim_due(limit, now, &lease).await?.jobs) }
    }
}

/// The implementation under test, for the few checks that look inside it.
pub enum Backend {
    Postgres(Postgres),
    Memory(Arc<InMemoryStore>),
}

/// What only the PostgreSQL backend has: the store itself, its statement count, its database.
pub struct Postgres {
    pub store: PgStore,
    pub statements: StatementCounter,
    pub db: TestDatabase,
}

/// A test's world.
pub struct Env {
    /// The ports under test.
    pub store: Arc<dyn Store>,
    /// The service over `store`, with `clock` and sequential ids.
    pub procflow: Procflow,
    /// The webhook use cases over `store`, with the same clock and ids.
    pub webhooks: Webhooks,
    /// The comment use cases over `store`, with the same clock and ids.
    pub comments: Comments,
    /// The attachment use cases over `store` and `files`, with the same clock and ids.
    pub attachments: Attachments,
    /// The bytes of attachments (in memory on both backends: the file store's own contract
    /// is procflow-files' conformance test).
    pub files: Arc<InMemoryFiles>,
    pub clock: Arc<FixedClock>,
    /// The team the tests act for; its admin is `admin@a.example`, member `member@a.example`.
    pub team: Team,
    /// Another team, for isolation checks.
    pub other: Team,
    /// Last, so that the database outlives the pools on it.
    pub backend: Backend,
}

impl Env {
    /// A world on `PgStore`, over a database of its own.
    pub async fn postgres() -> Env {
        let db = migrated_database().await;
        let statements = StatementCounter::default();
        let store = PgStore::new(&PoolConfig {
            max_size: 20,
            statement_counter: Some(statements.clone()),
            ..PoolConfig::new(db.url())
        })
        .expect("pool");
        let backend = Backend::Postgres(Postgres {
            store: store.clone(),
            statements,
            db,
        });
        Self::over(Arc::new(store), backend).await
    }

    /// A world on the domain's `InMemoryStore`.
    pub async fn memory() -> Env {
        let store = Arc::new(InMemoryStore::default());
        Self::over(store.clone(), Backend::Memory(store)).await
    }

    async fn over<S: Store + 'static>(store: Arc<S>, backend: Backend) -> Env {
        let clock = Arc::new(FixedClock::at(datetime!(2026-03-01 9:00 UTC)));
        let ids = Arc::new(SequentialIds::default());
        let procflow = Procflow::new(Ports {
            templates: store.clone(),
            runs: store.clone(),
            teams: store.clone(),
            clock: clock.clone(),
            ids: ids.clone(),
        });
        let comments = Comments::new(CommentPorts {
            comments: store.clone(),
            runs: store.clone(),
            teams: store.clone(),
            attachments: store.clone(),
            clock: clock.clone(),
            ids: ids.clone(),
        });
        let files = Arc::new(InMemoryFiles::default());
        let attachments = Attachments::new(AttachmentPorts {
            attachments: store.clone(),
            files: files.clone(),
            runs: store.clone(),
            teams: store.clone(),
            clock: clock.clone(),
            ids: ids.clone(),
        });
        let webhooks = Webhooks::new(WebhookPorts {
            webhooks: store.clone(),
            deliveries: store.clone(),
            feed: store.clone(),
            outbox: store.clone(),
            teams: store.clone(),
            runs: store.clone(),
            clock: clock.clone(),
            ids,
        });
        let team = create_team(&*store, 0xA, "a").await;
        let other = create_team(&*store, 0xB, "b").await;
        Env {
            store,
            procflow,
            webhooks,
            comments,
            attachments,
            files,
            clock,
            team,
            other,
            backend,
        }
    }

    /// The PostgreSQL parts, for a test that is about PostgreSQL itself.
    pub fn pg(&self) -> &Postgres {
        match &self.backend {
            Backend::Postgres(pg) => pg,
            Backend::Memory(_) => panic!("a PostgreSQL-only test runs on Env::postgres()"),
        }
    }

    /// The ports as another server instance sees them, sharing this one's data: another pool
    /// of `max_size` connections on the same database, or the same store in memory.
    pub fn another_instance(&self, max_size: usize) -> Arc<dyn Store> {
        match &self.backend {
            Backend::Postgres(pg) => Arc::new(
                PgStore::new(&PoolConfig {
                    max_size,
                    ..PoolConfig::new(pg.db.url())
                })
                .expect("pool"),
            ),
            Backend::Memory(store) => store.clone(),
        }
    }

    /// The service clock's current time.
    pub fn clock_now(&self) -> OffsetDateTime {
        self.clock.now()
    }

    /// Appends an outbox row of `team` with this stored form, due now, as an older version or
    /// a hand may have written it; answers its id.
    pub async fn append_stored(&self, team: &Team, kind: &str, payload: Value) -> EventId {
        use diesel::sql_types::{Jsonb, Text, Timestamptz, Uuid as SqlUuid};
        use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};

        let id = EventId::from_uuid(Uuid::now_v7());
        let now = self.clock_now();
        match &self.backend {
            Backend::Postgres(pg) => {
                let mut conn = AsyncPgConnection::establish(pg.db.url()).await.unwrap();
                diesel::sql_query(
                    "INSERT INTO outbox (id, team_id, kind, payload, occurred_at, due_at) \
                     VALUES ($1, $2, $3, $4, $5, $5)",
                )
                .bind::<SqlUuid, _>(id.as_uuid())
                .bind::<SqlUuid, _>(team.id.as_uuid())
                .bind::<Text, _>(kind)
                .bind::<Jsonb, _>(payload)
                .bind::<Timestamptz, _>(now)
                .execute(&mut conn)
                .await
                .unwrap();
            }
            Backend::Memory(store) => store.append_stored(id, team.id, kind, payload, now),
        }
        id
    }

    /// The names of [`Env::events`], in order.
    pub async fn event_names(&self) -> Vec<&'static str> {
        self.events()
            .await
            .iter()
            .map(|e| e.payload.name())
            .collect()
    }

    /// Every event appended since the last call, leasing them far into the future.
    pub async fn events(&self) -> Vec<Event> {
        self.store
            .claim(
                100_000,
                datetime!(2099-01-01 0:00 UTC),
                datetime!(2100-01-01 0:00 UTC),
            )
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

async fn create_team(store: &dyn TeamStore, n: u128, name: &str) -> Team {
    let team = Team {
        id: TeamId::from_uuid(Uuid::from_u128(n << 100)),
        name: format!("Team {name}"),
        base_url: format!("https://{name}.example"),
        timezone: "Europe/Paris".into(),
        subscription: Subscription::Active,
        created_at: datetime!(2026-01-01 0:00 UTC),
    };
    let admin = member(&team, 1, &format!("admin@{name}.example"), Role::Admin);
    store.create_team(&team, &admin).await.expect("team");
    store
        .add_member(&member(
            &team,
            2,
            &format!("member@{name}.example"),
            Role::Member,
        ))
        .await
        .expect("member");
    team
}
