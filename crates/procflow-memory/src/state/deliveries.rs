//! The webhook deliveries the store keeps, with what only the queue sees.

use procflow_domain::webhook::Delivery;
use time::OffsetDateTime;
use uuid::Uuid;

/// A delivery with what only the queue sees: its lease and when it is due.
#[derive(Debug)]
pub(crate) struct DeliveryRow {
    pub(crate) delivery: Delivery,
    pub(crate) lease: Option<Uuid>,
    pub(crate) due_at: OffsetDateTime,
}
