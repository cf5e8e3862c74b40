#![doc = include_str!("../README.md")]

mod api;
mod schema;
mod server;
mod tools;

pub use api::{Api, ApiFailure, Config, ConfigError, Request};
pub use server::{McpServer, StartError, serve_stdio};
pub use tools::{TOOLS, ToolSpec};
