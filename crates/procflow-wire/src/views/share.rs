//! The guest share result (spec 2.8).

use procflow_domain::ids::{GuestId, RunId};
use procflow_domain::sharing::ShareChange;
use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// The answer of the invite operation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = ShareResult)]
pub struct ShareResultView<'a> {
    #[schema(value_type = String, format = "uuid")]
    pub run_id: RunId,
    /// Null when no email was given.
    #[schema(required = true, format = Email)]
    pub invited_email: Option<Cow<'a, str>>,
    /// Always true.
    pub is_shared: bool,
    /// `{team base_url}/instance/<run_id>?token=<share token>`: anyone holding it can open
    /// the run.
    #[schema(format = "uri")]
    pub share_url: Cow<'a, str>,
    /// The id of the guest record; null when no email was given.
    #[schema(value_type = Option<String>, format = "uuid", required = true)]
    pub sent_process_run_id: Option<GuestId>,
}

impl<'a> From<&'a ShareChange> for ShareResultView<'a> {
    fn from(change: &'a ShareChange) -> Self {
        Self {
            run_id: change.run.id,
            invited_email: change
                .invited
                .as_ref()
                .map(|g| Cow::Borrowed(g.email.as_str())),
            is_shared: true,
            share_url: Cow::Borrowed(&change.share_url),
            sent_process_run_id: change.invited.as_ref().map(|g| g.id),
        }
    }
}
