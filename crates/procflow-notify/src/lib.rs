#![doc = include_str!("../README.md")]

pub mod channel;
mod gather;
pub mod mail;
pub mod metrics;
pub mod resolver;
pub mod sender;
pub mod signing;
pub mod webhooks;
pub mod worker;

pub use channel::{Hooks, QueueChannel};
pub use mail::{MailChannel, MailConfig, MailHooks, MailSender};
pub use sender::{HttpSender, SenderConfig, SenderError, install_tls};
pub use webhooks::{WebhookChannel, WebhookHooks};
pub use worker::{Channel, Worker, WorkerConfig, WorkerTask};
