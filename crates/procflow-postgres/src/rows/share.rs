//! Rows of `run_shares`, `run_share_links` and `run_guests`.

use diesel::prelude::*;
use procflow_domain::error::DomainError;
use procflow_domain::ids::{GuestId, RunId, TeamId};
use procflow_domain::sharing::{Guest, Share};
use time::OffsetDateTime;
use uuid::Uuid;

use super::parse;
use crate::error::corrupt;
use crate::schema::{run_guests, run_share_links, run_shares};

#[derive(Queryable, Selectable, Insertable, Debug)]
#[diesel(table_name = run_shares, check_for_backend(diesel::pg::Pg))]
pub(crate) struct ShareRow {
    pub team_id: Uuid,
    pub run_id: Uuid,
    pub created_at: OffsetDateTime,
}

/// One link of a shared run: its token's digest, never the token.
#[derive(Queryable, Selectable, Insertable, Debug)]
#[diesel(table_name = run_share_links, check_for_backend(diesel::pg::Pg))]
pub(crate) struct ShareLinkRow {
    pub team_id: Uuid,
    pub run_id: Uuid,
    pub token_hash: String,
    pub created_at: OffsetDateTime,
}

#[derive(Queryable, Selectable, Insertable, Debug)]
#[diesel(table_name = run_guests, check_for_backend(diesel::pg::Pg))]
pub(crate) struct GuestRow {
    pub team_id: Uuid,
    pub run_id: Uuid,
    pub id: Uuid,
    pub email: String,
    pub enable_reminders: bool,
    pub reminder_days: i32,
    pub invited_at: OffsetDateTime,
    pub engaged_at: Option<OffsetDateTime>,
    pub reminded_at: Option<OffsetDateTime>,
}

impl ShareRow {
    pub(crate) fn into_domain(self, guest: Option<GuestRow>) -> Result<Share, DomainError> {
        Ok(Share {
            run_id: RunId::from_uuid(self.run_id),
            guest: guest.map(GuestRow::into_domain).transpose()?,
        })
    }
}

impl GuestRow {
    pub(crate) fn from_domain(team: TeamId, run: RunId, guest: &Guest) -> Self {
        Self {
            team_id: team.as_uuid(),
            run_id: run.as_uuid(),
            id: guest.id.as_uuid(),
            email: guest.email.as_str().to_owned(),
            enable_reminders: guest.enable_reminders,
            reminder_days: i32::from(guest.reminder_days),
            invited_at: guest.invited_at,
            engaged_at: guest.engaged_at,
            reminded_at: None,
        }
    }

    fn into_domain(self) -> Result<Guest, DomainError> {
        Ok(Guest {
            id: GuestId::from_uuid(self.id),
            email: parse("guest email", &self.email)?,
            enable_reminders: self.enable_reminders,
            reminder_days: u16::try_from(self.reminder_days)
                .map_err(|e| corrupt("reminder days", e))?,
            invited_at: self.invited_at,
            engaged_at: self.engaged_at,
        })
    }
}
