//! `Session`: one SQL connection a fault test holds open, to hold locks or transactions while the
//! app under test works around them.

use crate::admin;

/// An open connection to a test database; closed when dropped (which ends its transaction and
/// releases its locks).
pub struct Session {
    client: tokio_postgres::Client,
}

impl Session {
    /// Connects to `url`. Call it inside a tokio runtime.
    ///
    /// # Panics
    /// When the server does not answer or refuses the connection.
    pub async fn open(url: &str) -> Session {
        match admin::connect(url).await {
            Ok(client) => Session { client },
            Err(err) => fail(&err),
        }
    }

    /// Runs statements that return no rows (several, separated by `;`).
    ///
    /// # Panics
    /// When one fails.
    pub async fn execute(&self, sql: &str) {
        if let Err(err) = admin::execute(&self.client, sql).await {
            fail(&err);
        }
    }
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").finish_non_exhaustive()
    }
}

#[expect(
    clippy::panic,
    reason = "a test kit fails loudly rather than skipping tests"
)]
fn fail(err: &impl std::fmt::Display) -> ! {
    panic!("procflow-testkit: a SQL session: {err}")
}
