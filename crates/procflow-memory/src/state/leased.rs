//! What every queued row has, whatever job it holds (where it stands, when it is due, under
//! which lease), and what each kind of job tells the one leased queue (`leased.rs`) about
//! itself: the queue works on rows and jobs through these two traits only.

use procflow_domain::ids::HolderId;
use procflow_domain::queue::{Job, Lease};
use time::OffsetDateTime;
use uuid::Uuid;

use super::State;

/// Where a queued row stands, as the claim rule sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Waiting for its next attempt.
    Pending,
    /// Held by a worker (its lease may have run out).
    Held,
    /// Sent or failed: the queue is done with it.
    Ended,
}

/// Who holds a row, under which claim's token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hold {
    pub(crate) holder: HolderId,
    pub(crate) token: Uuid,
}

/// A queued job as the leased queue reads and changes it.
pub(crate) trait LeasedRow {
    /// Its team and id: the key every statement names.
    fn key(&self) -> (Uuid, Uuid);
    /// Where it stands.
    fn stage(&self) -> Stage;
    /// When it is due (a held row: when its lease runs out).
    fn due_at(&self) -> OffsetDateTime;
    /// When it was created.
    fn created_at(&self) -> OffsetDateTime;
    /// Who holds it, under which token (a held row only).
    fn hold(&self) -> Option<Hold>;
    /// Takes it under `lease`, counting an attempt started `now`.
    fn take(&mut self, now: OffsetDateTime, lease: &Lease);
    /// Moves the end of its lease to `until`.
    fn renew(&mut self, until: OffsetDateTime);
    /// Gives it back, due `now`, its attempt uncounted.
    fn give_back(&mut self, now: OffsetDateTime);
}

/// A job the in-memory store keeps: where its rows are, and what is particular to it.
pub(crate) trait StoredJob: Job {
    /// Its row.
    type Row: LeasedRow;

    /// Its rows.
    fn rows(state: &mut State) -> &mut Vec<Self::Row>;

    /// The claimed job of the row at `index`, just taken under `lease`; `None` when it
    /// cannot be sent (PostgreSQL's claim finds no row to join).
    fn claimed(state: &State, index: usize, lease: Uuid) -> Option<Self::Claimed>;

    /// The team and id of a claimed job.
    fn key(claimed: &Self::Claimed) -> (Uuid, Uuid);

    /// Records `settlement` on the row at `index` (held under the claim's lease), with its
    /// effects beyond the row.
    fn apply(state: &mut State, index: usize, settlement: &Self::Settlement);
}
