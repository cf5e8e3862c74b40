//! How database and pool failures reduce to the domain's few outcomes.

use diesel::result::{DatabaseErrorKind, Error as DieselError};
use procflow_domain::error::{DomainError, StoreError};

/// A failure inside a transaction: the database's, or the domain's refusal of a decision.
///
/// diesel-async's transactions need an error type that converts from diesel's; this is it.
#[derive(Debug)]
pub(crate) enum Failure {
    Db(DieselError),
    Domain(DomainError),
}

impl From<DieselError> for Failure {
    fn from(error: DieselError) -> Self {
        Self::Db(error)
    }
}

impl From<DomainError> for Failure {
    fn from(error: DomainError) -> Self {
        Self::Domain(error)
    }
}

impl From<Failure> for DomainError {
    fn from(failure: Failure) -> Self {
        match failure {
            Failure::Db(error) => db_error(error),
            Failure::Domain(error) => error,
        }
    }
}

/// A database error as a domain error: a unique violation is a conflict, a lost connection is
/// "unavailable", everything else opaque.
pub(crate) fn db_error(error: DieselError) -> DomainError {
    match &error {
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
            DomainError::Conflict(conflict_message(info.constraint_name()))
        }
        DieselError::DatabaseError(DatabaseErrorKind::ClosedConnection, _)
        | DieselError::BrokenTransactionManager => {
            StoreError::Unavailable(error.to_string()).into()
        }
        // diesel-async reports a connection lost mid-query (no SQLSTATE: the server crashed
        // or was killed, the socket reset) as `UnableToSendCommand`.
        DieselError::DatabaseError(
            DatabaseErrorKind::Unknown | DatabaseErrorKind::UnableToSendCommand,
            info,
        ) if is_unavailable_state(info.message()) => {
            StoreError::Unavailable(error.to_string()).into()
        }
        _ => StoreError::Other(error.to_string()).into(),
    }
}

/// PostgreSQL's message for a statement that waited for a lock past its `lock_timeout`.
pub(crate) const LOCK_TIMEOUT: &str = "canceling statement due to lock timeout";

/// Server shutdown, lost connections, exhausted resources and lock waits past the pool's
/// `lock_timeout`, by their message, since
/// diesel does not expose SQLSTATE classes. "error communicating with the server" is
/// tokio-postgres's I/O error; "channel closed", diesel-async's when the connection's task
/// ended.
fn is_unavailable_state(message: &str) -> bool {
    const SIGNS: [&str; 8] = [
        "terminating connection",
        "the database system is",
        "connection closed",
        "error communicating with the server",
        "channel closed",
        "too many clients",
        "remaining connection slots",
        // `lock_timeout` (PoolConfig): a lock held elsewhere for too long.
        LOCK_TIMEOUT,
    ];
    SIGNS.iter().any(|sign| message.contains(sign))
}

fn conflict_message(constraint: Option<&str>) -> String {
    match constraint {
        Some("members_team_email_key") => "the team has a member with this email".into(),
        Some("api_keys_key_hash_key" | "api_keys_team_key_hash_key") => {
            "an API key with this secret exists".into()
        }
        Some("token_directory_pkey") => "a token with this secret exists".into(),
        Some(name) if name.ends_with("_pkey") => "a record with this id exists already".into(),
        _ => "the record conflicts with an existing one".into(),
    }
}

/// A pool failure: no connection could be had in time, or the database refused one.
pub(crate) fn pool_error(
    error: &deadpool::managed::PoolError<diesel_async::pooled_connection::PoolError>,
) -> DomainError {
    StoreError::Unavailable(error.to_string()).into()
}

/// A stored value that no longer reads as the domain's type: a broken invariant.
pub(crate) fn corrupt(what: &str, detail: impl std::fmt::Display) -> DomainError {
    StoreError::Other(format!("stored {what} is invalid: {detail}")).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unsent(message: &str) -> DomainError {
        db_error(DieselError::DatabaseError(
            DatabaseErrorKind::UnableToSendCommand,
            Box::new(message.to_owned()),
        ))
    }

    #[test]
    fn a_connection_lost_mid_query_is_unavailable() {
        for message in [
            "connection closed",
            "error communicating with the server: Connection reset by peer (os error 104)",
            "channel closed",
        ] {
            assert!(
                matches!(
                    unsent(message),
                    DomainError::Store(StoreError::Unavailable(_))
                ),
                "{message}"
            );
        }
    }

    #[test]
    fn a_query_that_could_not_be_encoded_is_other() {
        assert!(matches!(
            unsent("error encoding message to server: too many parameters"),
            DomainError::Store(StoreError::Other(_))
        ));
    }
}
