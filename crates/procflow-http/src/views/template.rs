//! Templates (spec 2.2) and their sections (spec 2.3): the list shape and the single shape.

use procflow_domain::ids::{SectionId, TemplateId};
use procflow_domain::template::{Section, Template};
use serde::Serialize;
use time::OffsetDateTime;

/// A template section.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = Section)]
pub struct SectionView<'a> {
    #[schema(value_type = String, format = "uuid")]
    id: SectionId,
    title: &'a str,
    #[schema(required = true)]
    description: Option<&'a str>,
    /// 0-based position.
    order: u32,
    /// `#RRGGBB`.
    #[schema(required = true, pattern = "^#[0-9A-Fa-f]{6}$")]
    color: Option<&'a str>,
}

impl<'a> From<&'a Section> for SectionView<'a> {
    fn from(section: &'a Section) -> Self {
        Self {
            id: section.id,
            title: &section.title,
            description: section.description.as_deref(),
            order: section.order,
            color: section.color.as_ref().map(|c| c.as_str()),
        }
    }
}

/// An item of List templates (spec 4.2).
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = TemplateListItem)]
pub struct TemplateListView<'a> {
    #[schema(value_type = String, format = "uuid")]
    id: TemplateId,
    title: &'a str,
    #[schema(required = true)]
    description: Option<&'a str>,
    #[schema(required = true, format = "uri")]
    cover_image: Option<&'a str>,
    #[schema(required = true)]
    icon: Option<&'a str>,
    #[schema(required = true)]
    icon_type: Option<&'a str>,
    /// Always `team`.
    #[schema(pattern = "^team$")]
    visibility: &'static str,
    /// Only a published template can start a run.
    is_published: bool,
    /// How many times it was published.
    version: u32,
    sections: Vec<SectionView<'a>>,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    updated_at: OffsetDateTime,
}

impl<'a> From<&'a Template> for TemplateListView<'a> {
    fn from(template: &'a Template) -> Self {
        Self {
            id: template.id,
            title: &template.title,
            description: template.description.as_deref(),
            cover_image: template.cover_image.as_deref(),
            icon: template.icon.as_deref(),
            icon_type: template.icon_type.as_deref(),
            visibility: "team",
            is_published: template.is_published,
            version: template.version,
            sections: template.sections.iter().map(SectionView::from).collect(),
            created_at: template.created_at,
            updated_at: template.updated_at,
        }
    }
}

/// Get a template (spec 2.2: id, title, description, is_published, version, sections,
/// created_at, updated_at).
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = Template)]
pub struct TemplateView<'a> {
    #[schema(value_type = String, format = "uuid")]
    id: TemplateId,
    title: &'a str,
    #[schema(required = true)]
    description: Option<&'a str>,
    /// Only a published template can start a run.
    is_published: bool,
    /// How many times it was published.
    version: u32,
    sections: Vec<SectionView<'a>>,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    updated_at: OffsetDateTime,
}

impl<'a> From<&'a Template> for TemplateView<'a> {
    fn from(template: &'a Template) -> Self {
        Self {
            id: template.id,
            title: &template.title,
            description: template.description.as_deref(),
            is_published: template.is_published,
            version: template.version,
            sections: template.sections.iter().map(SectionView::from).collect(),
            created_at: template.created_at,
            updated_at: template.updated_at,
        }
    }
}
