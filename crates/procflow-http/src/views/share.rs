//! The guest share result (spec 2.8).

use procflow_domain::guest::ShareChange;
use procflow_domain::ids::{GuestId, RunId};
use serde::Serialize;

/// The answer of the invite operation.
#[derive(Serialize)]
pub struct ShareResultView<'a> {
    run_id: RunId,
    invited_email: Option<&'a str>,
    is_shared: bool,
    share_url: &'a str,
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
