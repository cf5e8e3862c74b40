//! The `procflow admin` commands: teams, members, API keys and templates, each answering one
//! JSON object (API contract 9).

mod keys;
mod outbox;
mod teams;
mod templates;

use std::sync::Arc;

use procflow_domain::error::ErrorCode;
use procflow_domain::ports::{Outbox, TeamStore};
use procflow_domain::service::Procflow;
use procflow_domain::team::Team;
use serde_json::Value;

use crate::cli::AdminCommand;
use crate::error::CommandError;

/// Runs admin commands over the use cases and their stores.
#[derive(Clone)]
pub struct Admin {
    procflow: Procflow,
    outbox: Arc<dyn Outbox>,
}

impl Admin {
    /// Admin commands over `procflow`'s adapters and the outbox.
    #[must_use]
    pub fn new(procflow: Procflow, outbox: Arc<dyn Outbox>) -> Self {
        Self { procflow, outbox }
    }

    /// Runs one command and returns the JSON object it prints.
    ///
    /// # Errors
    /// What the command refuses (see each command's help), or a store failure.
    pub async fn run(&self, command: AdminCommand) -> Result<Value, CommandError> {
        match command {
            AdminCommand::CreateTeam(args) => self.create_team(args).await,
            AdminCommand::AddMember(args) => self.add_member(args).await,
            AdminCommand::SetMember(args) => self.set_member(args).await,
            AdminCommand::CreateApiKey(args) => self.create_api_key(args).await,
            AdminCommand::ListApiKeys(args) => self.list_api_keys(args).await,
            AdminCommand::RevokeApiKey(args) => self.revoke_api_key(args).await,
            AdminCommand::SetSubscription(args) => self.set_subscription(args).await,
            AdminCommand::ImportTemplate(args) => self.import_template(args).await,
            AdminCommand::Outbox(args) => self.outbox(args).await,
        }
    }

    fn teams(&self) -> &dyn TeamStore {
        &*self.procflow.ports().teams
    }

    async fn team(&self, id: procflow_domain::ids::TeamId) -> Result<Team, CommandError> {
        Ok(self.teams().get_team(id).await?)
    }
}

/// A name given on the command line: trimmed, not blank, at most
/// [`MAX_NAME_CHARS`](procflow_domain::team::MAX_NAME_CHARS), no control characters (a team's
/// name becomes an email header: `procflow_domain::team::check_name`).
fn name(field: &str, text: String) -> Result<String, CommandError> {
    procflow_domain::team::check_name(&text)
        .map_err(|message| CommandError::validation(format!("{field}: {message}")))
}

/// A moment as the API writes it (RFC 3339).
fn rfc3339(at: time::OffsetDateTime) -> Result<String, CommandError> {
    at.format(&time::format_description::well_known::Rfc3339)
        .map_err(|e| CommandError::api(ErrorCode::InternalError, format!("a time: {e}")))
}

fn optional_name(field: &str, text: Option<String>) -> Result<Option<String>, CommandError> {
    text.map(|text| name(field, text)).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_and_bounded() {
        assert_eq!(name("--name", "  Acme ".into()).unwrap(), "Acme");
        assert_eq!(
            name("--name", " ".into()).unwrap_err().to_json()["error"]["message"],
            "--name: must not be blank"
        );
        assert!(
            name(
                "--name",
                "x".repeat(procflow_domain::team::MAX_NAME_CHARS + 1)
            )
            .is_err()
        );
        assert!(name("--name", "a\0b".into()).is_err());
        assert_eq!(
            name("--name", "Acme\r\nBcc: evil@example.org".into())
                .unwrap_err()
                .to_json()["error"]["message"],
            "--name: must not contain control characters (line breaks, tabs, NUL, ...)"
        );
        assert_eq!(optional_name("--admin-name", None).unwrap(), None);
    }
}
