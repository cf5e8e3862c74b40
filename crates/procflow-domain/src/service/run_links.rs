//! Use cases on run links (API contract 13.2): the team's API turns a template's public start
//! link on and off; the public opens it by its token alone.

use std::sync::Arc;

use super::Procflow;
use crate::error::{DomainError, DomainResult, Resource};
use crate::ids::TemplateId;
use crate::ports::RunLinkStore;
use crate::run_link::RunLink;
use crate::team::{Subscription, Team};
use crate::template::Template;
use crate::values::ShareToken;

/// The run links service.
#[derive(Clone)]
pub struct RunLinks {
    procflow: Procflow,
    store: Arc<dyn RunLinkStore>,
}

impl RunLinks {
    /// A service over the run use cases and a run link store.
    #[must_use]
    pub fn new(procflow: Procflow, store: Arc<dyn RunLinkStore>) -> Self {
        Self { procflow, store }
    }

    /// Turns the template's link on; a template that has one keeps it (the same URL).
    /// A template that is not published may have a link: it starts nothing until it is.
    ///
    /// # Errors
    /// `NotFound(Template)` for a missing, archived or other team's template.
    pub async fn enable(&self, team: &Team, template: TemplateId) -> DomainResult<RunLink> {
        self.template(team, template).await?;
        let ports = &self.procflow.ports;
        let link = RunLink {
            team_id: team.id,
            template_id: template,
            token: ports.ids.share_token(),
            created_at: ports.clock.now(),
        };
        self.store.put_run_link(&link).await
    }

    /// The template's link, `None` while it is off.
    ///
    /// # Errors
    /// `NotFound(Template)` as for [`enable`](Self::enable).
    pub async fn get(&self, team: &Team, template: TemplateId) -> DomainResult<Option<RunLink>> {
        self.template(team, template).await?;
        self.store.get_run_link(team.id, template).await
    }

    /// Turns the template's link off and voids its token (a later [`enable`](Self::enable)
    /// makes a new one). Turning off a link that is off changes nothing.
    ///
    /// # Errors
    /// `NotFound(Template)` as for [`enable`](Self::enable).
    pub async fn disable(&self, team: &Team, template: TemplateId) -> DomainResult<()> {
        self.template(team, template).await?;
        self.store
            .delete_run_link(team.id, template)
            .await
            .map(drop)
    }

    /// What a link opens: its team and its template, only while the link is on, the template
    /// published and not archived, and the team's subscription active.
    ///
    /// # Errors
    /// `NotFound(Template)` alike for an unknown or void token and for a template that is
    /// unpublished, archived or gone; `SubscriptionInactive` for a right link of an inactive
    /// team.
    pub async fn open(&self, token: &ShareToken) -> DomainResult<(RunLink, Team, Template)> {
        let link = self
            .store
            .find_run_link(token)
            .await?
            .ok_or(DomainError::NotFound(Resource::Template))?;
        let ports = &self.procflow.ports;
        let team = ports.teams.get_team(link.team_id).await?;
        let template = ports
            .templates
            .get_template(team.id, link.template_id)
            .await?;
        if !template.is_published {
            return Err(DomainError::NotFound(Resource::Template));
        }
        if team.subscription != Subscription::Active {
            return Err(DomainError::SubscriptionInactive);
        }
        Ok((link, team, template))
    }

    async fn template(&self, team: &Team, template: TemplateId) -> DomainResult<Template> {
        self.procflow
            .ports
            .templates
            .get_template(team.id, template)
            .await
    }
}
