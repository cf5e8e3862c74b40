//! The use cases: what the API does, and what the worker does with outbound work (fan-out of
//! events, attempts of jobs), written against the ports.

mod attachments;
mod attempts;
mod batch;
mod comments;
mod dry_run;
mod guest;
mod mail;
mod page_names;
mod run_links;
mod runs;
mod schedules;
mod sharing;
mod templates;
mod webhooks;

pub use attachments::{
    AttachmentPorts, Attachments, GUEST_PAGE_ATTACHMENTS, GuestAttachment, GuestFiles, GuestUpload,
    SWEEP_GRACE, Swept, Upload,
};
pub use attempts::{AttemptPorts, Attempts};
pub use batch::UpdateTasks;
pub use comments::{
    AddComment, CommentPorts, Comments, GUEST_PAGE_COMMENTS, GuestComment, GuestThreads,
};
pub use guest::{GuestPost, SharedRun};
pub use mail::{MailPorts, Mailer};
pub use run_links::{MAX_STARTER_NAME, RunLinks};
pub use runs::{CreateRun, UpdateTask};
pub use schedules::{NewSchedule, SchedulePatch, Schedules, Tick};
pub use webhooks::{Dispatched, SetAside, WebhookPorts, Webhooks};

use std::sync::Arc;

use crate::actor::{Actor, Assignee};
use crate::error::{DomainResult, ValidationError};
use crate::ids::{TeamId, UserId};
use crate::ports::{Clock, IdGenerator, RunStore, TeamStore, TemplateStore};
use crate::team::Member;
use crate::values::Email;

/// The adapters a [`Procflow`] runs on.
#[derive(Clone)]
pub struct Ports {
    /// Templates.
    pub templates: Arc<dyn TemplateStore>,
    /// Runs, tasks and sharing.
    pub runs: Arc<dyn RunStore>,
    /// Teams, members and keys.
    pub teams: Arc<dyn TeamStore>,
    /// The time.
    pub clock: Arc<dyn Clock>,
    /// Ids and tokens.
    pub ids: Arc<dyn IdGenerator>,
}

/// The service: every use case of the API, for the team that calls it.
///
/// Cheap to clone; share one per process.
#[derive(Clone)]
pub struct Procflow {
    ports: Ports,
}

impl Procflow {
    /// A service over these adapters.
    #[must_use]
    pub fn new(ports: Ports) -> Self {
        Self { ports }
    }

    /// The adapters, for callers that need one directly (the admin commands).
    #[must_use]
    pub fn ports(&self) -> &Ports {
        &self.ports
    }

    /// The current time, by the service's clock.
    #[must_use]
    pub fn now(&self) -> time::OffsetDateTime {
        self.ports.clock.now()
    }

    /// The active member with this email; `None` for anything else (spec 4.6 rule 6: no error
    /// is stated).
    async fn active_member(
        &self,
        team: TeamId,
        email: Option<&Email>,
    ) -> DomainResult<Option<Member>> {
        let Some(email) = email else {
            return Ok(None);
        };
        Ok(self
            .ports
            .teams
            .find_member_by_email(team, email)
            .await?
            .filter(|member| member.active))
    }

    /// Who acts: the active member named by `actor_email`, else the API.
    async fn actor(&self, team: TeamId, actor_email: Option<&Email>) -> DomainResult<Actor> {
        Ok(self
            .active_member(team, actor_email)
            .await?
            .map_or(Actor::Api, |member| Actor::User(member.id)))
    }

    /// Resolves an assignee: a member's user id or email becomes that member's user id; any
    /// other email is an external assignee. Returns the address to notify, when known.
    async fn resolve_assignee(
        &self,
        team: TeamId,
        assignee: Assignee,
    ) -> DomainResult<(Assignee, Option<Email>)> {
        let refuse_inactive = |member: &Member| {
            ValidationError::field(
                "assignee",
                format!("team member {} is not active", member.id),
            )
        };
        match assignee {
            Assignee::User(user) => {
                let member = self.member(team, user).await?;
                if !member.active {
                    return Err(refuse_inactive(&member).into());
                }
                Ok((Assignee::User(member.id), Some(member.email)))
            }
            Assignee::Email(email) => {
                match self.ports.teams.find_member_by_email(team, &email).await? {
                    Some(member) if !member.active => Err(refuse_inactive(&member).into()),
                    Some(member) => Ok((Assignee::User(member.id), Some(member.email))),
                    None => Ok((Assignee::Email(email.clone()), Some(email))),
                }
            }
        }
    }

    async fn member(&self, team: TeamId, user: UserId) -> DomainResult<Member> {
        self.ports
            .teams
            .find_member(team, user)
            .await?
            .ok_or_else(|| {
                ValidationError::field("assignee", format!("no member of this team has id {user}"))
                    .into()
            })
    }
}
