//! Use cases on run links (API contract 13.2): the team's API turns a template's public start
//! link on and off; the public opens it by its token alone.

use std::sync::Arc;

use super::{CreateRun, Procflow};
use crate::actor::Actor;
use crate::error::{DomainError, DomainResult, Resource, ValidationError};
use crate::event::EventPayload;
use crate::ids::TemplateId;
use crate::ports::RunLinkStore;
use crate::run_link::RunLink;
use crate::sharing::{Invitation, ShareChange};
use crate::team::{Subscription, Team};
use crate::template::Template;
use crate::values::{Email, ShareToken};

/// The longest name a person may give on a start page, in characters.
pub const MAX_STARTER_NAME: usize = 200;

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

    /// Starts a run from a link for a person (API contract 13.2): the run of the link's
    /// template titled `"<template title>: <name>"`, started by the guest, through the same
    /// checks and events as Create a Run; then shared with `email` as its guest, who gets the
    /// invitation email. Answers the share (its `share_url` is the run's guest page).
    ///
    /// # Errors
    /// As [`open`](Self::open); a validation error naming `name` (empty or too long, the
    /// title too long); `GuestIsTeamMember` for a team member's email (nothing started).
    pub async fn start(
        &self,
        token: &ShareToken,
        name: &str,
        email: Email,
    ) -> DomainResult<ShareChange> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > MAX_STARTER_NAME {
            return Err(ValidationError::field(
                "name",
                format!("must be 1 to {MAX_STARTER_NAME} characters"),
            )
            .into());
        }
        let (_, team, template) = self.open(token).await?;
        let ports = &self.procflow.ports;
        if ports
            .teams
            .find_member_by_email(team.id, &email)
            .await?
            .is_some()
        {
            return Err(DomainError::GuestIsTeamMember);
        }
        let mut new_run = self
            .procflow
            .prepare_run(
                &team,
                CreateRun {
                    name: Some(format!("{}: {name}", template.title)),
                    ..CreateRun::of(template.id)
                },
            )
            .await?;
        new_run.run.started_by = Actor::Guest;
        for event in &mut new_run.events {
            if let EventPayload::RunCreated { run, .. } = &mut event.payload {
                *run = new_run.run.snapshot();
            }
        }
        ports.runs.create_run(&new_run).await?;
        self.procflow
            .invite_guest(
                &team,
                new_run.run.id,
                Invitation {
                    email: Some(email),
                    ..Invitation::default()
                },
            )
            .await
    }

    async fn template(&self, team: &Team, template: TemplateId) -> DomainResult<Template> {
        self.procflow
            .ports
            .templates
            .get_template(team.id, template)
            .await
    }
}
