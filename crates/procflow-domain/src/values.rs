//! Validated value types: once one exists, it is valid.

mod color;
mod email;
mod page;
mod share_token;

pub use color::Color;
pub use email::Email;
pub use page::{Cursor, Limit, MAX_PAGE_BYTES, Page, PageRequest};
pub use share_token::ShareToken;
