#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod actor;
pub mod element;
pub mod error;
pub mod event;
pub mod fakes;
pub mod guest;
pub mod ids;
pub mod ports;
pub mod run;
pub mod service;
pub mod team;
pub mod template;
pub mod values;
