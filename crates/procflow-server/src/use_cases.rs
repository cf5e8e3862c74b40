//! The use cases over the PostgreSQL store, with the system clock and random ids: what the
//! API ([`crate::app`]) and the delivery worker ([`crate::worker`]) each run on.

use std::sync::Arc;

use procflow_domain::ports::FileStore;
use procflow_domain::service::{
    AttachmentPorts, Attachments, CommentPorts, Comments, MailPorts, Mailer, Ports, Procflow,
    RunLinks, Schedules, WebhookPorts, Webhooks,
};
use procflow_http::Services;
use procflow_postgres::PgStore;

use crate::system::{RandomIds, SystemClock};

/// The use cases over `store`, with the system clock and random ids.
#[must_use]
pub fn procflow_on(store: &PgStore) -> Procflow {
    let shared = Arc::new(store.clone());
    Procflow::new(Ports {
        templates: shared.clone(),
        runs: shared.clone(),
        teams: shared,
        clock: Arc::new(SystemClock),
        ids: Arc::new(RandomIds),
    })
}

/// The webhook use cases over `store`, with the system clock and random ids.
#[must_use]
pub fn webhooks_on(store: &PgStore) -> Webhooks {
    let shared = Arc::new(store.clone());
    Webhooks::new(WebhookPorts {
        webhooks: shared.clone(),
        deliveries: shared.clone(),
        feed: shared.clone(),
        outbox: shared.clone(),
        teams: shared.clone(),
        runs: shared,
        clock: Arc::new(SystemClock),
        ids: Arc::new(RandomIds),
    })
}

/// The comment use cases over `store`, with the system clock and random ids.
#[must_use]
pub fn comments_on(store: &PgStore) -> Comments {
    let shared = Arc::new(store.clone());
    Comments::new(CommentPorts {
        comments: shared.clone(),
        runs: shared.clone(),
        attachments: shared.clone(),
        teams: shared,
        clock: Arc::new(SystemClock),
        ids: Arc::new(RandomIds),
    })
}

/// The attachment use cases over `store` and `files`, with the system clock and random ids.
#[must_use]
pub fn attachments_on(store: &PgStore, files: Arc<dyn FileStore>) -> Attachments {
    let shared = Arc::new(store.clone());
    Attachments::new(AttachmentPorts {
        attachments: shared.clone(),
        files,
        runs: shared.clone(),
        teams: shared,
        clock: Arc::new(SystemClock),
        ids: Arc::new(RandomIds),
    })
}

/// The email use cases over `store`, with the system clock and random ids.
#[must_use]
pub fn mailer_on(store: &PgStore) -> Mailer {
    let shared = Arc::new(store.clone());
    Mailer::new(MailPorts {
        queue: shared.clone(),
        notices: shared.clone(),
        teams: shared.clone(),
        runs: shared,
        clock: Arc::new(SystemClock),
        ids: Arc::new(RandomIds),
    })
}

/// The schedule use cases over `store`, with the system clock and random ids.
#[must_use]
pub fn schedules_on(store: &PgStore) -> Schedules {
    Schedules::new(procflow_on(store), Arc::new(store.clone()))
}

/// What the API runs on, all over one store (and the file store for attachments' bytes): the
/// rate limit is counted in PostgreSQL, so it holds across instances sharing the database.
#[must_use]
pub fn services_on(store: &PgStore, files: Arc<dyn FileStore>) -> Services {
    let shared = Arc::new(store.clone());
    Services {
        procflow: procflow_on(store),
        webhooks: webhooks_on(store),
        schedules: schedules_on(store),
        comments: comments_on(store),
        attachments: attachments_on(store, files),
        run_links: RunLinks::new(procflow_on(store), Arc::new(store.clone())),
        rate_limiter: shared.clone(),
        windows: shared.clone(),
        health: shared.clone(),
        stats: shared.clone(),
        idempotency: shared,
        key_changes: Arc::new(store.key_changes()),
        clock: Arc::new(SystemClock),
    }
}
