//! The sweep of stored bytes that no attachment row names: an upload whose row never
//! committed (the process died between the two, or the write failed and so did the removal),
//! or a deletion whose removal of the bytes failed; and what uploads killed midway left (a
//! staged file on disk). Bytes younger than [`SWEEP_GRACE`] are left alone: their row may be
//! about to commit, or their upload still be arriving (a request body has at most an hour,
//! `PROCFLOW_REQUEST_BODY_TIMEOUT`'s ceiling, and every part written renews the staged file).

use std::collections::HashMap;

use time::Duration;

use super::Attachments;
use crate::error::DomainResult;
use crate::ids::{AttachmentId, TeamId};
use crate::ports::files::StorageKey;

/// How old stored bytes must be before the sweep removes them for having no row.
pub const SWEEP_GRACE: Duration = Duration::hours(1);

/// What one sweep did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Swept {
    /// Objects looked at (every object under `teams/`).
    pub seen: usize,
    /// Objects removed: older than the grace, and no row names them.
    pub removed: Vec<StorageKey>,
    /// What uploads that never ended left, older than the grace, removed (as the store names
    /// it: a staged file's path under the store).
    pub abandoned: Vec<String>,
}

/// The team and attachment a key of [`StorageKey::of_file`] names, if it is one.
fn parse_key(key: &StorageKey) -> Option<(TeamId, AttachmentId)> {
    let mut parts = key.as_str().split('/');
    let (Some("teams"), Some(team), Some("files"), Some(id), None) = (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    ) else {
        return None;
    };
    let team = uuid::Uuid::parse_str(team).ok()?;
    let id = uuid::Uuid::parse_str(id).ok()?;
    Some((TeamId::from_uuid(team), AttachmentId::from_uuid(id)))
}

impl Attachments {
    /// Removes the attachment bytes older than [`SWEEP_GRACE`] (by the clock) that no row
    /// names, then what uploads that never ended left as old. Objects under `teams/` that are
    /// not attachment bytes are left alone.
    ///
    /// # Errors
    /// Store failures; what was removed before one stays removed.
    pub async fn sweep(&self) -> DomainResult<Swept> {
        let cutoff = self.ports.clock.now() - SWEEP_GRACE;
        let objects = self.ports.files.list("teams").await?;
        let mut swept = Swept {
            seen: objects.len(),
            ..Swept::default()
        };
        let mut by_team: HashMap<TeamId, Vec<(AttachmentId, StorageKey)>> = HashMap::new();
        for object in objects {
            if object.written_at > cutoff {
                continue;
            }
            if let Some((team, id)) = parse_key(&object.key) {
                by_team.entry(team).or_default().push((id, object.key));
            }
        }
        for (team, candidates) in by_team {
            for chunk in candidates.chunks(500) {
                let ids: Vec<AttachmentId> = chunk.iter().map(|(id, _)| *id).collect();
                let rows = self.ports.attachments.find_attachments(team, &ids).await?;
                for (id, key) in chunk {
                    if !rows.iter().any(|row| row.id == *id) {
                        self.ports.files.delete(key).await?;
                        swept.removed.push(key.clone());
                    }
                }
            }
        }
        swept.abandoned = self.ports.files.remove_abandoned_uploads(cutoff).await?;
        Ok(swept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_keys_of_attachment_bytes_are_parsed() {
        let team = TeamId::from_uuid(uuid::Uuid::from_u128(7));
        let id = uuid::Uuid::from_u128(9);
        let key = StorageKey::of_file(team, id);
        assert_eq!(parse_key(&key), Some((team, AttachmentId::from_uuid(id))));
        for other in ["teams/x/files/y", "teams/a/b", "other/1/files/2"] {
            assert_eq!(parse_key(&StorageKey::parse(other).unwrap()), None);
        }
        let nested = format!("{key}/extra");
        assert_eq!(parse_key(&StorageKey::parse(&nested).unwrap()), None);
    }
}
