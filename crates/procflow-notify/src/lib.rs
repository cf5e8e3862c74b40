#![doc = include_str!("../README.md")]

pub mod mail;
pub mod metrics;
pub mod resolver;
pub mod sender;
pub mod signing;
pub mod worker;

pub use mail::{MailChannel, MailConfig, MailSender};
pub use sender::{HttpSender, SenderConfig, SenderError, install_tls};
pub use worker::{Channel, WebhookChannel, Worker, WorkerConfig, WorkerTask};
