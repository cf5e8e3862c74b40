//! Runs (spec 2.5): the full shape (list and get) and the Create response's reduced shape.

use procflow_domain::actor::Actor;
use procflow_domain::ids::{RunId, SectionId, TeamId, TemplateId};
use procflow_domain::run::{Run, RunStatus};
use procflow_domain::template::Section;
use serde::Serialize;
use time::OffsetDateTime;

/// A run section: id, title, order, color.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = RunSection)]
pub struct RunSectionView<'a> {
    #[schema(value_type = String, format = "uuid")]
    id: SectionId,
    title: &'a str,
    /// 0-based position.
    order: u32,
    /// `#RRGGBB`.
    #[schema(required = true, pattern = "^#[0-9A-Fa-f]{6}$")]
    color: Option<&'a str>,
}

impl<'a> From<&'a Section> for RunSectionView<'a> {
    fn from(section: &'a Section) -> Self {
        Self {
            id: section.id,
            title: &section.title,
            order: section.order,
            color: section.color.as_ref().map(|c| c.as_str()),
        }
    }
}

/// A run in List runs and Get a run.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = Run)]
pub struct RunView<'a> {
    /// A UUIDv7.
    #[schema(value_type = String, format = "uuid")]
    id: RunId,
    #[schema(value_type = String, format = "uuid")]
    template_id: TemplateId,
    title: &'a str,
    status: RunStatus,
    /// A member's user id, or `api`.
    #[schema(value_type = String, pattern = "^(api|guest|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$")]
    started_by: Actor,
    #[schema(value_type = String, format = "uuid")]
    team_id: TeamId,
    /// The team's IANA time zone when the run started.
    timezone: &'a str,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(required = true)]
    due_date: Option<OffsetDateTime>,
    /// Whether link sharing is on.
    is_shared: bool,
    sections: Vec<RunSectionView<'a>>,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(required = true)]
    updated_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(required = true)]
    completed_at: Option<OffsetDateTime>,
}

impl<'a> From<&'a Run> for RunView<'a> {
    fn from(run: &'a Run) -> Self {
        Self {
            id: run.id,
            template_id: run.template_id,
            title: &run.title,
            status: run.status(),
            started_by: run.started_by,
            team_id: run.team_id,
            timezone: &run.timezone,
            due_date: run.due_date,
            is_shared: run.is_shared,
            sections: run.sections.iter().map(RunSectionView::from).collect(),
            created_at: run.created_at,
            updated_at: run.updated_at,
            completed_at: run.completed_at(),
        }
    }
}

/// The Create a run response: id, template_id, title, status, started_by, team_id, timezone,
/// created_at, completed_at.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = CreatedRun)]
pub struct CreatedRunView<'a> {
    /// A UUIDv7.
    #[schema(value_type = String, format = "uuid")]
    id: RunId,
    #[schema(value_type = String, format = "uuid")]
    template_id: TemplateId,
    title: &'a str,
    status: RunStatus,
    /// A member's user id, or `api`.
    #[schema(value_type = String, pattern = "^(api|guest|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$")]
    started_by: Actor,
    #[schema(value_type = String, format = "uuid")]
    team_id: TeamId,
    /// The team's IANA time zone.
    timezone: &'a str,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(required = true)]
    completed_at: Option<OffsetDateTime>,
}

impl<'a> From<&'a Run> for CreatedRunView<'a> {
    fn from(run: &'a Run) -> Self {
        Self {
            id: run.id,
            template_id: run.template_id,
            title: &run.title,
            status: run.status(),
            started_by: run.started_by,
            team_id: run.team_id,
            timezone: &run.timezone,
            created_at: run.created_at,
            completed_at: run.completed_at(),
        }
    }
}
