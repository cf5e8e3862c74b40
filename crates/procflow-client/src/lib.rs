#![doc = include_str!("../README.md")]

mod client;
mod error;
mod operation;
mod operations;
mod options;
mod page;
mod tagged;

pub use client::Client;
pub use error::Error;
pub use operation::{OPERATIONS, Operation};
pub use operations::{
    Attachment, CreatedRun, Delivery, Event, InboxTask, Run, RunLink, RunTask, RunTaskListItem,
    Schedule, ShareResult, Template, TemplateListItem, TemplateTask, Webhook, WebhookWithSecret,
};
pub use options::WriteOptions;
pub use page::{PageRequest, items};
pub use tagged::Tagged;

/// The domain's value types the views carry (ids, statuses, task types, ...), re-exported.
pub use procflow_domain as domain;
/// The request bodies, views and envelopes the server uses, re-exported.
pub use procflow_wire as wire;
