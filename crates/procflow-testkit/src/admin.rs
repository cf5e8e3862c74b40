//! Short-lived administrative connections (tokio-postgres) for creating and dropping databases.

use std::time::Duration;

use tokio_postgres::{Client, Config, NoTls};

use crate::error::Error;

/// How long connecting to the server may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Connects to `url`; the connection is driven by a task on the current tokio runtime and
/// closes when the returned client is dropped.
pub(crate) async fn connect(url: &str) -> Result<Client, Error> {
    let mut config: Config = url
        .parse()
        .map_err(Error::sql(format!("parsing the URL {}", redact(url))))?;
    config
        .application_name("procflow-testkit")
        .connect_timeout(CONNECT_TIMEOUT);
    let what = || format!("connecting to {}", redact(url));
    let (client, connection) =
        match tokio::time::timeout(CONNECT_TIMEOUT, config.connect(NoTls)).await {
            Ok(connected) => connected.map_err(Error::sql(what()))?,
            Err(_elapsed) => {
                return Err(Error::Setup(format!(
                    "{}: no answer within {CONNECT_TIMEOUT:?}",
                    what()
                )));
            }
        };
    tokio::spawn(async move {
        if let Err(err) = connection.await {
            tracing::debug!(error = %err, "an administrative connection ended with an error");
        }
    });
    Ok(client)
}

/// Runs one statement that returns no rows.
pub(crate) async fn execute(client: &Client, sql: &str) -> Result<(), Error> {
    client
        .batch_execute(sql)
        .await
        .map_err(Error::sql(format!("running `{sql}`")))
}

/// The server's version as a number, e.g. 150004.
pub(crate) async fn server_version(client: &Client) -> Result<i32, Error> {
    let sql = "SELECT current_setting('server_version_num')::int";
    let row = client
        .query_one(sql, &[])
        .await
        .map_err(Error::sql(format!("running `{sql}`")))?;
    row.try_get(0)
        .map_err(Error::sql("reading server_version_num"))
}

/// `url` without its password, for messages.
pub(crate) fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            redact("postgres://u:secret@h:5432/db"),
            "postgres://u:***@h:5432/db"
        );
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
    }
}
