//! Use cases on sharing a run with a guest.

use super::Procflow;
use crate::error::DomainResult;
use crate::ids::RunId;
use crate::run::Run;
use crate::sharing::{Invitation, ShareChange};
use crate::team::Team;

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
