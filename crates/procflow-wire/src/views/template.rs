//! Templates (spec 2.2) and their sections (spec 2.3): the list shape and the single shape.

use procflow_domain::ids::{SectionId, TemplateId};
use procflow_domain::template::{Section, Template, TemplateRule};
use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// A template section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = Section)]
pub struct SectionView<'a> {
    #[schema(value_type = String, format = "uuid")]
    pub id: SectionId,
    pub title: Cow<'a, str>,
    #[schema(required = true)]
    pub description: Option<Cow<'a, str>>,
    /// 0-based position.
    pub order: u32,
    /// `#RRGGBB`.
    #[schema(required = true, pattern = "^#[0-9A-Fa-f]{6}$")]
    pub color: Option<Cow<'a, str>>,
}

impl<'a> From<&'a Section> for SectionView<'a> {
    fn from(section: &'a Section) -> Self {
        Self {
            id: section.id,
            title: Cow::Borrowed(&section.title),
            description: section.description.as_deref().map(Cow::Borrowed),
            order: section.order,
            color: section.color.as_ref().map(|c| Cow::Borrowed(c.as_str())),
        }
    }
}

/// An item of List templates (spec 4.2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = TemplateListItem)]
pub struct TemplateListView<'a> {
    #[schema(value_type = String, format = "uuid")]
    pub id: TemplateId,
    pub title: Cow<'a, str>,
    #[schema(required = true)]
    pub description: Option<Cow<'a, str>>,
    #[schema(required = true, format = "uri")]
    pub cover_image: Option<Cow<'a, str>>,
    #[schema(required = true)]
    pub icon: Option<Cow<'a, str>>,
    #[schema(required = true)]
    pub icon_type: Option<Cow<'a, str>>,
    /// Always `team`.
    #[schema(pattern = "^team$")]
    pub visibility: Cow<'a, str>,
    /// Only a published template can start a run.
    pub is_published: bool,
    /// How many times it was published.
    pub version: u32,
    pub sections: Vec<SectionView<'a>>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

impl<'a> From<&'a Template> for TemplateListView<'a> {
    fn from(template: &'a Template) -> Self {
        Self {
            id: template.id,
            title: Cow::Borrowed(&template.title),
            description: template.description.as_deref().map(Cow::Borrowed),
            cover_image: template.cover_image.as_deref().map(Cow::Borrowed),
            icon: template.icon.as_deref().map(Cow::Borrowed),
            icon_type: template.icon_type.as_deref().map(Cow::Borrowed),
            visibility: Cow::Borrowed("team"),
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = Template)]
pub struct TemplateView<'a> {
    #[schema(value_type = String, format = "uuid")]
    pub id: TemplateId,
    pub title: Cow<'a, str>,
    #[schema(required = true)]
    pub description: Option<Cow<'a, str>>,
    /// Only a published template can start a run.
    pub is_published: bool,
    /// How many times it was published.
    pub version: u32,
    pub sections: Vec<SectionView<'a>>,
    /// The rules that show and hide tasks from form values (API contract 12.1), tasks and
    /// elements by id.
    #[schema(schema_with = procflow_domain::openapi::rules)]
    pub rules: Cow<'a, [TemplateRule]>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

impl<'a> From<&'a Template> for TemplateView<'a> {
    fn from(template: &'a Template) -> Self {
        Self {
            id: template.id,
            title: Cow::Borrowed(&template.title),
            description: template.description.as_deref().map(Cow::Borrowed),
            is_published: template.is_published,
            version: template.version,
            sections: template.sections.iter().map(SectionView::from).collect(),
            rules: Cow::Borrowed(&template.rules),
            created_at: template.created_at,
            updated_at: template.updated_at,
        }
    }
}
