//! The webhook deliveries the store keeps, with what only the queue sees.

use procflow_domain::queue::Lease;
use procflow_domain::webhook::{Delivery, DeliveryStatus};
use time::OffsetDateTime;
use uuid::Uuid;

use super::{Hold, LeasedRow, Stage};

/// A delivery with what only the queue sees: who holds it and when it is due.
#[derive(Debug)]
pub(crate) struct DeliveryRow {
    pub(crate) delivery: Delivery,
    pub(crate) lease: Option<Hold>,
    pub(crate) due_at: OffsetDateTime,
}

impl LeasedRow for DeliveryRow {
    fn key(&self) -> (Uuid, Uuid) {
        (self.delivery.team_id.as_uuid(), self.delivery.id.as_uuid())
    }

    fn stage(&self) -> Stage {
        match self.delivery.status {
            DeliveryStatus::Pending => Stage::Pending,
            DeliveryStatus::Delivering => Stage::Held,
            DeliveryStatus::Delivered | DeliveryStatus::Failed => Stage::Ended,
        }
    }

    fn due_at(&self) -> OffsetDateTime {
        self.due_at
    }

    fn created_at(&self) -> OffsetDateTime {
        self.delivery.created_at
    }

    fn hold(&self) -> Option<Hold> {
        self.lease
    }

    fn take(&mut self, now: OffsetDateTime, lease: &Lease) {
        self.lease = Some(Hold {
            holder: lease.holder,
            token: lease.token,
        });
        self.due_at = lease.until;
        let d = &mut self.delivery;
        d.status = DeliveryStatus::Delivering;
        d.attempts += 1;
        d.last_attempt_at = Some(now);
        d.next_attempt_at = None;
    }

    fn renew(&mut self, until: OffsetDateTime) {
        self.due_at = until;
    }

    fn give_back(&mut self, now: OffsetDateTime) {
        self.lease = None;
        self.due_at = now;
        let d = &mut self.delivery;
        d.status = DeliveryStatus::Pending;
        d.attempts = d.attempts.saturating_sub(1);
        d.next_attempt_at = Some(now);
    }
}
