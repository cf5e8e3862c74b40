//! The ports: what the domain needs from the outside world, implemented by adapters, in three
//! groups by who uses them:
//!
//! - [`stores`] (with the outbound side's [`queue`], [`mail`] and [`webhooks`] ports): what the
//!   use cases read and change, behind [`Procflow`](crate::Procflow) and the webhook, mail and
//!   attempt services;
//! - [`edge`]: what the HTTP adapter asks before and around a use case (admission and rate
//!   limits, idempotency records, the store's health and figures), which only an adapter calls;
//! - [`time_and_ids`]: the clock and the id generator, which every use case takes.
//!
//! Every store method takes the team explicitly and MUST NOT read or change another team's
//! records: a record of another team is [`DomainError::NotFound`](crate::error::DomainError::NotFound), exactly like a missing one.
//! Every store method MAY fail with [`DomainError::Store`](crate::error::DomainError::Store): `Unavailable` when the database
//! cannot be reached or the pool is exhausted, `Other` for anything else.

pub mod attachments;
pub mod comments;
pub mod edge;
pub mod files;
pub mod mail;
pub mod queue;
pub mod run_links;
pub mod schedules;
pub mod stores;
pub mod time_and_ids;
pub mod webhooks;

pub use attachments::{AttachmentDecision, AttachmentStore, NewAttachment};
pub use comments::{CommentDecision, CommentEdit, CommentStore, NewComment};
pub use edge::{
    Admission, Clearance, Cleared, HealthCheck, IdempotencyBegin, IdempotencyStore, KeyChange,
    KeyChanges, KeyLifetimes, PoolUsage, RateDecision, RateLimiter, StoreStats, StoredResponse,
    WindowLimiter,
};
pub use files::{ByteSource, FileStore, StorageKey};
pub use mail::{MailQueue, NoticeDecision, NoticeStore};
pub use queue::{Backlog, LeasedQueue, Sender};
pub use run_links::RunLinkStore;
pub use schedules::{Occurrence, ScheduleFilter, ScheduleStore, Settlement};
pub use stores::{
    DeadEvent, Outbox, OutboxEntry, RunStore, ShareDecision, TaskDecision, TasksDecision,
    TeamStore, TemplateDecision, TemplateStore,
};
pub use time_and_ids::{Clock, IdGenerator};
pub use webhooks::{DeliveryQueue, EventFeed, WebhookDecision, WebhookStore, WorkSignal};
