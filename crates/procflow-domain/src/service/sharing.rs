//! Use cases on sharing a run with a guest.

use super::Procflow;
use crate::error::DomainResult;
use crate::ids::RunId;
use crate::run::{Run, RunTask};
use crate::sharing::{Invitation, ShareChange};
use crate::team::Team;
use crate::values::{Limit, PageRequest, ShareToken};

/// A shared run as its guest sees it: the run and every task, by order.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedRun {
    /// The run.
    pub run: Run,
    /// Its tasks, by order.
    pub tasks: Vec<RunTask>,
}

impl Procflow {
    /// Turns link sharing on for a run and, with an email, records and invites its guest.
    ///
    /// # Errors
    /// `NotFound(Run)`, `GuestIsTeamMember`, `GuestAlreadyInvited`, or a validation error.
    pub async fn invite_guest(
        &self,
        team: &Team,
        run: RunId,
        invitation: Invitation,
    ) -> DomainResult<ShareChange> {
        let email_is_member = match &invitation.email {
            Some(email) => self
                .ports
                .teams
                .find_member_by_email(team.id, email)
                .await?
                .is_some(),
            None => false,
        };
        let (clock, ids) = (&*self.ports.clock, &*self.ports.ids);
        self.ports
            .runs
            .share_run(team.id, run, &|run, share| {
                invitation.apply(
                    run,
                    share,
                    email_is_member,
                    &team.base_url,
                    ids,
                    clock.now(),
                )
            })
            .await
    }

    /// The run a share link opens, with every task, for whoever holds the link: the token is
    /// the capability, whichever the team.
    ///
    /// # Errors
    /// `NotFound(Run)` alike for an unknown run, a run not shared and a wrong token.
    pub async fn open_shared_run(&self, run: RunId, token: &ShareToken) -> DomainResult<SharedRun> {
        let run = self.ports.runs.find_shared_run(run, token).await?;
        let mut tasks = Vec::new();
        let mut page = PageRequest {
            limit: Limit::largest(),
            cursor: None,
        };
        loop {
            let fetched = self
                .ports
                .runs
                .list_tasks(run.team_id, run.id, page)
                .await?;
            tasks.extend(fetched.items);
            match fetched.next_cursor {
                Some(cursor) if fetched.has_more => page.cursor = Some(cursor),
                _ => break,
            }
        }
        Ok(SharedRun { run, tasks })
    }

    /// Turns sharing off: the link stops working and the guest record is removed.
    ///
    /// # Errors
    /// `NotFound(Run)`.
    pub async fn stop_sharing(&self, team: &Team, run: RunId) -> DomainResult<Run> {
        self.ports
            .runs
            .unshare_run(team.id, run, self.ports.clock.now())
            .await
    }
}
