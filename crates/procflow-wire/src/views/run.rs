//! Runs (spec 2.5): the full shape (list and get) and the Create response's reduced shape.

use procflow_domain::actor::Actor;
use procflow_domain::ids::{RunId, SectionId, TeamId, TemplateId};
use procflow_domain::run::{Run, RunRule, RunStatus};
use procflow_domain::template::Section;
use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// A run section: id, title, order, color.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = RunSection)]
pub struct RunSectionView<'a> {
    #[schema(value_type = String, format = "uuid")]
    pub id: SectionId,
    pub title: Cow<'a, str>,
    /// 0-based position.
    pub order: u32,
    /// `#RRGGBB`.
    #[schema(required = true, pattern = "^#[0-9A-Fa-f]{6}$")]
    pub color: Option<Cow<'a, str>>,
}

impl<'a> From<&'a Section> for RunSectionView<'a> {
    fn from(section: &'a Section) -> Self {
        Self {
            id: section.id,
            title: Cow::Borrowed(&section.title),
            order: section.order,
            color: section.color.as_ref().map(|c| Cow::Borrowed(c.as_str())),
        }
    }
}

/// A run in List runs and Get a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = Run)]
pub struct RunView<'a> {
    /// A UUIDv7.
    #[schema(value_type = String, format = "uuid")]
    pub id: RunId,
    #[schema(value_type = String, format = "uuid")]
    pub template_id: TemplateId,
    pub title: Cow<'a, str>,
    pub status: RunStatus,
    /// A member's user id, or `api`.
    #[schema(value_type = String, pattern = "^(api|guest|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$")]
    pub started_by: Actor,
    #[schema(value_type = String, format = "uuid")]
    pub team_id: TeamId,
    /// The team's IANA time zone when the run started.
    pub timezone: Cow<'a, str>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(required = true)]
    pub due_date: Option<OffsetDateTime>,
    /// Whether link sharing is on.
    pub is_shared: bool,
    pub sections: Vec<RunSectionView<'a>>,
    /// The rules copied from the template (API contract 12.2), tasks by run task id and
    /// elements by id.
    #[schema(schema_with = procflow_domain::openapi::rules)]
    pub rules: Cow<'a, [RunRule]>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(required = true)]
    pub updated_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(required = true)]
    pub completed_at: Option<OffsetDateTime>,
}

impl<'a> From<&'a Run> for RunView<'a> {
    fn from(run: &'a Run) -> Self {
        Self {
            id: run.id,
            template_id: run.template_id,
            title: Cow::Borrowed(&run.title),
            status: run.status(),
            started_by: run.started_by,
            team_id: run.team_id,
            timezone: Cow::Borrowed(&run.timezone),
            due_date: run.due_date,
            is_shared: run.is_shared,
            sections: run.sections.iter().map(RunSectionView::from).collect(),
            rules: Cow::Owned(run.rules()),
            created_at: run.created_at,
            updated_at: run.updated_at,
            completed_at: run.completed_at(),
        }
    }
}

/// The Create a run response: id, template_id, title, status, started_by, team_id, timezone,
/// created_at, completed_at.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = CreatedRun)]
pub struct CreatedRunView<'a> {
    /// A UUIDv7.
    #[schema(value_type = String, format = "uuid")]
    pub id: RunId,
    #[schema(value_type = String, format = "uuid")]
    pub template_id: TemplateId,
    pub title: Cow<'a, str>,
    pub status: RunStatus,
    /// A member's user id, or `api`.
    #[schema(value_type = String, pattern = "^(api|guest|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$")]
    pub started_by: Actor,
    #[schema(value_type = String, format = "uuid")]
    pub team_id: TeamId,
    /// The team's IANA time zone.
    pub timezone: Cow<'a, str>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(required = true)]
    pub completed_at: Option<OffsetDateTime>,
}

impl<'a> From<&'a Run> for CreatedRunView<'a> {
    fn from(run: &'a Run) -> Self {
        Self {
            id: run.id,
            template_id: run.template_id,
            title: Cow::Borrowed(&run.title),
            status: run.status(),
            started_by: run.started_by,
            team_id: run.team_id,
            timezone: Cow::Borrowed(&run.timezone),
            created_at: run.created_at,
            completed_at: run.completed_at(),
        }
    }
}
