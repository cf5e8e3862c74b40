#![doc = include_str!("../README.md")]

pub mod bodies;
pub mod envelope;
pub mod error;
pub mod events;
pub mod nullable;
pub mod params;
pub mod schemas;
pub mod views;

pub use envelope::{Data, List, Pagination};
pub use error::{ErrorBody, ErrorResponse};
