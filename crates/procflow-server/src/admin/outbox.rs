//! `outbox`: the events the worker set aside because they cannot be read, listed with when
//! and why, and re-queued one by one once their cause is fixed.

use serde_json::{Value, json};

use super::{Admin, rfc3339};
use crate::cli::OutboxCommand;
use procflow_domain::error::ErrorCode;

use crate::error::CommandError;

impl Admin {
    pub(super) async fn outbox(&self, args: OutboxCommand) -> Result<Value, CommandError> {
        if let Some(id) = args.retry {
            let now = self.procflow.ports().clock.now();
            if !self.outbox.requeue(id, now).await? {
                return Err(CommandError::api(
                    ErrorCode::NotFound,
                    format!("no outbox event {id} is set aside"),
                ));
            }
            tracing::info!(event.id = %id, "re-queued an outbox event set aside");
            return Ok(json!({"requeued": true, "event_id": id}));
        }
        let dead = self.outbox.dead_events(usize::from(args.limit)).await?;
        let listed = dead
            .into_iter()
            .map(|event| {
                Ok(json!({
                    "event_id": event.id,
                    "team_id": event.team_id,
                    "kind": event.kind,
                    "occurred_at": rfc3339(event.occurred_at)?,
                    "dead_at": rfc3339(event.dead_at)?,
                    "error": event.error,
                }))
            })
            .collect::<Result<Vec<Value>, CommandError>>()?;
        Ok(json!({"dead": listed}))
    }
}
