#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod actor;
pub mod attachment;
pub mod comment;
pub mod duration;
pub mod element;
pub mod error;
pub mod etag;
pub mod event;
pub mod guest;
pub mod ids;
pub mod json;
pub mod limits;
pub mod mail;
pub mod names;
#[cfg(feature = "openapi")]
pub mod openapi;
pub mod ports;
pub mod queue;
pub mod quote;
pub mod reference;
pub mod run;
pub mod run_link;
pub mod schedule;
pub mod service;
pub mod sharing;
pub mod team;
pub mod template;
pub mod values;
pub mod webhook;
pub mod window;

pub use error::{DomainError, DomainResult, ErrorCode, StoreError, ValidationError};
pub use ports::{
    Clock, CommentStore, DeliveryQueue, EventFeed, HealthCheck, IdGenerator, IdempotencyStore,
    KeyChanges, LeasedQueue, MailQueue, Outbox, RateLimiter, RunStore, Sender, StoreStats,
    TeamStore, TemplateStore, WebhookStore, WindowLimiter, WorkSignal,
};
pub use service::{CreateRun, Ports, Procflow, UpdateTask, UpdateTasks};
