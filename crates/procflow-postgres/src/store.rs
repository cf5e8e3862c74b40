//! `PgStore`: every store port of the domain on one PostgreSQL connection pool.

mod attachments;
mod batch;
mod by_text;
mod claims;
mod columns;
mod comment_insert;
mod comments;
mod conditions;
mod deliveries;
mod directory;
mod documents;
mod event_insert;
mod fixed_text;
mod flags;
mod health;
mod idempotency;
mod inbox;
mod inbox_page;
mod key_changes;
mod keyed_update;
mod locked_task;
mod mail;
mod notices;
mod one_task;
mod outbox;
mod page_rows;
mod plans;
mod queue;
mod rate_limits;
mod recurrences;
mod run_links;
mod run_page;
mod runs;
mod schedule_page;
mod schedules;
mod seconds;
mod shared;
mod sharing;
#[cfg(test)]
mod shown;
mod signal;
mod stats;
mod sweep;
mod task_page;
mod task_write;
mod teams;
mod templates;
mod thread;
mod thread_page;
mod transaction;
mod unnest;
mod webhooks;
mod windows;

pub use directory::TokenKind;
pub use key_changes::{KEYS_CHANNEL, PgKeyChanges};
pub use signal::{CHANNEL, NOTIFY_GAP};

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use procflow_domain::error::{DomainError, DomainResult, StoreError};
use procflow_domain::event::Event;
use procflow_domain::ids::{RunId, TeamId};
use procflow_domain::template::Section;
use uuid::Uuid;

use crate::checkout::{Checkout, checkout};
use crate::error::db_error;
use crate::pool::{self, PgPool, PoolConfig, PoolStatus, WeakPgPool};
use crate::rows::outbox::NewOutboxRow;
use crate::rows::run::RunSectionRow;

/// The PostgreSQL adapter of the store ports. Cheap to clone: clones share the pool.
#[derive(Clone)]
pub struct PgStore {
    pool: PgPool,
    /// The configuration `pool` was made from, for the pools of [`PgStore::for_worker`].
    config: std::sync::Arc<PoolConfig>,
    /// The pools split off for workers, counted in [`PgStore::status`].
    worker_pools: std::sync::Arc<std::sync::Mutex<Vec<WeakPgPool>>>,
    signal: std::sync::Arc<signal::Signal>,
    plans: std::sync::Arc<plans::Plans>,
    recurrences: std::sync::Arc<recurrences::Recurrences>,
    known_tokens: std::sync::Arc<directory::KnownTokens>,
    documents: std::sync::Arc<documents::Documents>,
    /// The pool's connection shared by statements that commit alone (`shared.rs`): each
    /// pool its own.
    shared: std::sync::Arc<shared::Shared>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("pool", &self.status())
            .finish()
    }
}

impl PgStore {
    /// A store over a new pool. Connects lazily: PostgreSQL need not be up yet.
    ///
    /// # Errors
    /// `Other` when the configuration cannot make a pool.
    pub fn new(config: &PoolConfig) -> Result<Self, StoreError> {
        let pool = pool::build(config)?;
        Ok(Self {
            shared: std::sync::Arc::new(shared::Shared::for_pool(
                pool.status().max_size,
                config.timeout,
            )),
            pool,
            config: std::sync::Arc::new(config.clone()),
            worker_pools: std::sync::Arc::default(),
            signal: std::sync::Arc::default(),
            plans: std::sync::Arc::default(),
            recurrences: std::sync::Arc::default(),
            known_tokens: std::sync::Arc::default(),
            documents: std::sync::Arc::default(),
        })
    }

    /// Another store on the same database with a pool of its own of `max_size` connections,
    /// sharing this one's wake-ups: the delivery worker's, so that its statements never queue
    /// behind the API's requests for a connection (nor theirs behind its).
    ///
    /// # Errors
    /// `Other` when the pool cannot be made.
    pub fn with_own_pool(&self, max_size: usize) -> Result<Self, StoreError> {
        let pool = pool::build(&self.config_of(max_size))?;
        Ok(self.on_pool(pool, std::sync::Arc::default()))
    }

    /// The store of one HTTP worker: a pool of its own of `max_size` connections, made with this
    /// store's configuration (its timeouts, its statement counter), sharing its caches and
    /// wake-ups, and counted in its [`status`](Self::status). The pool connects lazily, on the
    /// thread of the first request that needs a connection: a worker's own thread, where the
    /// connections are then driven, so that a request's round trips never wake another thread
    /// (docs/performance.md, "Workers with pools of their own").
    ///
    /// # Errors
    /// `Other` when the pool cannot be made.
    pub fn for_worker(&self, max_size: usize) -> Result<Self, StoreError> {
        let pool = pool::build(&self.config_of(max_size))?;
        self.worker_pools
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(pool.weak());
        Ok(self.on_pool(pool, self.worker_pools.clone()))
    }

    /// This store's pool configuration (its timeouts, its statement counter) for a pool of
    /// `max_size` connections.
    fn config_of(&self, max_size: usize) -> PoolConfig {
        PoolConfig {
            max_size,
            ..PoolConfig::clone(&self.config)
        }
    }

    /// This store on another pool: the same configuration, caches and wake-ups.
    fn on_pool(
        &self,
        pool: PgPool,
        worker_pools: std::sync::Arc<std::sync::Mutex<Vec<WeakPgPool>>>,
    ) -> Self {
        let shared = shared::Shared::for_pool(pool.status().max_size, self.config.timeout);
        Self {
            pool,
            config: self.config.clone(),
            worker_pools,
            signal: self.signal.clone(),
            plans: self.plans.clone(),
            recurrences: self.recurrences.clone(),
            known_tokens: self.known_tokens.clone(),
            documents: self.documents.clone(),
            shared: std::sync::Arc::new(shared),
        }
    }

    /// Checks that the database answers (`/readyz`).
    ///
    /// # Errors
    /// `Unavailable` when it does not.
    pub async fn ping(&self) -> DomainResult<()> {
        let mut conn = self.conn().await?;
        diesel::select(1_i32.into_sql::<diesel::sql_types::Integer>())
            .execute(&mut conn)
            .await
            .map(|_| ())
            .map_err(db_error)
    }

    /// The pool's occupancy; once pools were split off for workers, theirs summed (the one
    /// they were split from then serves no request).
    #[must_use]
    pub fn status(&self) -> PoolStatus {
        let mut live = Vec::new();
        // A worker that stopped dropped its pool: its entry goes.
        self.worker_pools
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .retain(|weak| {
                weak.upgrade()
                    .map(|pool| live.push(pool.status()))
                    .is_some()
            });
        if live.is_empty() {
            live.push(self.pool.status());
        }
        live.iter().fold(
            PoolStatus {
                max_size: 0,
                size: 0,
                available: 0,
                waiting: 0,
            },
            |sum, status| PoolStatus {
                max_size: sum.max_size + status.max_size,
                size: sum.size + status.size,
                available: sum.available + status.available,
                waiting: sum.waiting + status.waiting,
            },
        )
    }

    fn url(&self) -> &str {
        &self.config.url
    }

    async fn conn(&self) -> DomainResult<Checkout> {
        checkout(&self.pool, &self.config).await
    }
}

/// Appends events to the outbox, in the caller's transaction. Takes a shared connection so
/// that callers may pipeline it with their other writes.
async fn append_events(mut conn: &AsyncPgConnection, events: &[Event]) -> DomainResult<()> {
    if events.is_empty() {
        return Ok(());
    }
    let inserted = if let [event] = events {
        let row = NewOutboxRow::from_domain(event)?;
        event_insert::InsertEvent(&row).execute(&mut conn).await
    } else {
        let rows = events
            .iter()
            .map(NewOutboxRow::from_domain)
            .collect::<Result<Vec<_>, _>>()?;
        unnest::InsertOutbox::of(rows).execute(&mut conn).await
    };
    inserted.map(|_| ()).map_err(db_error)
}

/// The sections of several runs of a team, by run then position.
async fn sections_of_runs(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    runs: &[Uuid],
) -> DomainResult<Vec<(RunId, Section)>> {
    let rows: Vec<RunSectionRow> = run_page::SectionsOf::new(team, runs)
        .load(&mut conn)
        .await
        .map_err(db_error)?;
    rows.into_iter()
        .map(|row| {
            let run = RunId::from_uuid(row.run_id);
            row.into_domain().map(|section| (run, section))
        })
        .collect()
}

/// The not-found error when a lookup finds nothing.
fn not_found(resource: procflow_domain::error::Resource) -> DomainError {
    DomainError::NotFound(resource)
}
