//! What the two outbound queues (webhook deliveries, emails) read alike: the ids an outcome
//! statement settled, and the backlog.

use diesel::QueryableByName;
use diesel::sql_types::{BigInt, Nullable, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use procflow_domain::error::DomainResult;
use procflow_domain::ports::Backlog;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::db_error;

/// A row an outcome statement settled (`RETURNING id`).
#[derive(QueryableByName)]
pub(super) struct Settled {
    #[diesel(sql_type = SqlUuid)]
    pub(super) id: Uuid,
}

#[derive(QueryableByName)]
struct Waiting {
    #[diesel(sql_type = BigInt)]
    count: i64,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    oldest: Option<OffsetDateTime>,
}

/// The backlog `query` reads (`count` and `oldest`).
pub(super) async fn backlog(
    conn: &mut AsyncPgConnection,
    query: &'static str,
) -> DomainResult<Backlog> {
    let waiting: Waiting = diesel::sql_query(query)
        .get_result(conn)
        .await
        .map_err(db_error)?;
    Ok(Backlog {
        pending: u64::try_from(waiting.count).unwrap_or(0),
        oldest: waiting.oldest,
    })
}
