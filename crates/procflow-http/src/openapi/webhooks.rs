//! Schemas of the webhook operations that the derives cannot state, and the event envelope:
//! both in `procflow-wire`, beside the types whose `schema_with` names them.

pub use procflow_wire::events::Envelope;
pub use procflow_wire::schemas::{description, envelope_ref, optional_events, optional_url, url};
