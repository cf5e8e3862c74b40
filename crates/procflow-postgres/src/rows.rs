//! Table rows and their conversions to and from the domain's types.

pub(crate) mod attachment;
pub(crate) mod comment;
pub(crate) mod elements;
pub(crate) mod json;
pub(crate) mod logic;
pub(crate) mod outbox;
mod read;
pub(crate) mod run;
pub(crate) mod schedule;
pub(crate) mod share;
pub(crate) mod team;
pub(crate) mod template;
pub(crate) mod webhook;

use procflow_domain::error::DomainError;
use procflow_domain::ids::SectionId;
use procflow_domain::template::Section;
use procflow_domain::values::Color;
use uuid::Uuid;

use crate::error::corrupt;

/// Reads stored text back into a domain type; failure means the stored value is broken.
pub(crate) fn parse<T: std::str::FromStr>(what: &str, text: &str) -> Result<T, DomainError>
where
    T::Err: std::fmt::Display,
{
    text.parse().map_err(|e| corrupt(what, e))
}

/// Reads a stored integer position or count.
pub(crate) fn to_u32(what: &str, value: i32) -> Result<u32, DomainError> {
    u32::try_from(value).map_err(|e| corrupt(what, e))
}

/// Writes a position or count; they are bounded far below `i32::MAX` by the domain.
pub(crate) fn to_i32(value: u32) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

/// A section read back from `template_sections` or `run_sections` (the same columns).
pub(crate) fn section(
    id: Uuid,
    title: String,
    description: Option<String>,
    position: i32,
    color: Option<String>,
) -> Result<Section, DomainError> {
    Ok(Section {
        id: SectionId::from_uuid(id),
        title,
        description,
        order: to_u32("section position", position)?,
        color: color
            .map(|c| Color::try_from(c).map_err(|e| corrupt("section colour", e)))
            .transpose()?,
    })
}
