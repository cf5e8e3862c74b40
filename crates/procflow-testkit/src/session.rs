//! `Session`: one SQL connection a fault test holds open, to hold locks or transactions while the
//! app under test works around them, or to read what the app left in its tables.

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

    /// Runs one query and answers its rows, each column as text (`None` for null): for a test
    /// that reads what no API shows, such as who holds a job.
    ///
    /// # Panics
    /// When it fails.
    pub async fn rows(&self, sql: &str) -> Vec<Vec<Option<String>>> {
        let messages = match self.client.simple_query(sql).await {
            Ok(messages) => messages,
            Err(err) => fail(&format!("running `{sql}`: {err}")),
        };
        messages
            .into_iter()
            .filter_map(|message| match message {
                tokio_postgres::SimpleQueryMessage::Row(row) => Some(
                    (0..row.len())
                        .map(|i| row.get(i).map(str::to_owned))
                        .collect(),
                ),
                _ => None,
            })
            .collect()
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
