//! The guest share result (spec 2.8).

use procflow_domain::ids::{GuestId, RunId};
use procflow_domain::sharing::ShareChange;
use serde::Serialize;

/// The answer of the invite operation.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = ShareResult)]
pub struct ShareResultView<'a> {
    #[schema(value_type = String, format = "uuid")]
    run_id: RunId,
    /// Null when no email was given.
    #[schema(required = true, format = Email)]
    invited_email: Option<&'a str>,
    /// Always true.
    is_shared: bool,
    /// `{team base_url}/instance/<run_id>?token=<share token>`: anyone holding it can open
    /// the run.
    #[schema(format = "uri")]
    share_url: &'a str,
    /// The id of the guest record; null when no email was given.
    #[schema(value_type = Option<String>, format = "uuid", required = true)]
    sent_process_run_id: Option<GuestId>,
}

impl<'a> From<&'a ShareChange> for ShareResultView<'a> {
    fn from(change: &'a ShareChange) -> Self {
        Self {
            run_id: change.run.id,
            invited_email: change.invited.as_ref().map(|g| g.email.as_str()),
            is_shared: true,
            share_url: &change.share_url,
            sent_process_run_id: change.invited.as_ref().map(|g| g.id),
        }
    }
}
