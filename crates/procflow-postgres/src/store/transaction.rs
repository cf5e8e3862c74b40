//! Transactions whose `BEGIN` travels with their first statement.
//!
//! diesel-async's `transaction` sends `BEGIN` and waits for its answer before the body's first
//! statement goes out: a round trip of its own, one in five of a task update's
//! (`docs/performance.md`, "BEGIN with the first statement"). Here the two are sent together,
//! as tokio-postgres pipelines requests issued before the first answers. The transaction
//! manager of diesel-async is told of the transaction before anything is sent, so that a
//! connection dropped half-way (a panic, a cancelled future) counts as broken and leaves the
//! pool, as with diesel-async's own transactions, and so that `COMMIT` and `ROLLBACK` are
//! diesel-async's own.
//!
//! The first statement must be a read: it goes out before `BEGIN`'s answer is known, and if
//! `BEGIN` failed it would have run on its own.

use diesel::connection::TransactionDepthChange;
use diesel::result::Error as DieselError;
use diesel_async::{
    AnsiTransactionManager, AsyncPgConnection, SimpleAsyncConnection, TransactionManager,
};
use futures_util::future::join;
use procflow_domain::error::DomainResult;

use crate::error::Failure;

/// An open transaction on a connection of the pool. End it with [`Transaction::end`]: a
/// transaction dropped without it leaves the connection marked as in a transaction, which the
/// pool then discards.
pub(super) struct Transaction<'c> {
    conn: &'c mut AsyncPgConnection,
}

impl<'c> Transaction<'c> {
    /// Opens a transaction on `conn` with `first`, a read, sent with its `BEGIN` in one round
    /// trip. When either fails the transaction is rolled back and the error returned.
    pub(super) async fn begin_with<T>(
        conn: &'c mut AsyncPgConnection,
        first: impl AsyncFnOnce(&AsyncPgConnection) -> DomainResult<T>,
    ) -> Result<(Self, T), Failure> {
        let state =
            AnsiTransactionManager::transaction_manager_status_mut(conn).transaction_state()?;
        if state.transaction_depth().is_some() {
            return Err(DieselError::AlreadyInTransaction.into());
        }
        state.change_transaction_depth(TransactionDepthChange::IncreaseDepth)?;
        let (begun, read) = {
            let shared: &AsyncPgConnection = conn;
            let mut begin = shared;
            join(begin.batch_execute("BEGIN"), first(shared)).await
        };
        let transaction = Self { conn };
        match (begun, read) {
            (Ok(()), Ok(read)) => Ok((transaction, read)),
            (Err(error), _) => transaction.end(Err(error.into())).await,
            (Ok(()), Err(error)) => transaction.end(Err(error.into())).await,
        }
    }

    /// The connection, for the transaction's other statements.
    pub(super) fn conn(&self) -> &AsyncPgConnection {
        self.conn
    }

    /// Commits the transaction when `outcome` is a success, rolls it back otherwise, as
    /// diesel-async's `transaction` does: a failed `COMMIT` is the answer then; a failed
    /// `ROLLBACK` is too, and leaves the connection broken for the pool.
    pub(super) async fn end<R>(self, outcome: Result<R, Failure>) -> Result<R, Failure> {
        match outcome {
            Ok(value) => {
                AnsiTransactionManager::commit_transaction(self.conn).await?;
                Ok(value)
            }
            Err(error) => match AnsiTransactionManager::rollback_transaction(self.conn).await {
                Ok(()) | Err(DieselError::BrokenTransactionManager) => Err(error),
                Err(rollback) => Err(rollback.into()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use diesel::sql_types::{BigInt, Integer};
    use diesel_async::{AsyncConnection, RunQueryDsl};
    use procflow_domain::error::DomainError;

    use super::*;
    use crate::error::db_error;
    use crate::testing::{TestDatabase, migrated_database};

    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = BigInt)]
        n: i64,
    }

    async fn connect(db: &TestDatabase) -> AsyncPgConnection {
        AsyncPgConnection::establish(db.url())
            .await
            .expect("connect")
    }

    async fn setup(db: &TestDatabase) -> AsyncPgConnection {
        let mut conn = connect(db).await;
        conn.batch_execute("CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1)")
            .await
            .expect("table");
        // Prepared on the connection before the transactions under test.
        lock_row(&conn).await.expect("prepared");
        conn
    }

    /// The rows of `t` another connection sees.
    async fn rows(other: &mut AsyncPgConnection) -> i64 {
        let counted: Count = diesel::sql_query("SELECT count(*) AS n FROM t")
            .get_result(other)
            .await
            .expect("count");
        counted.n
    }

    /// `SELECT id FROM t WHERE id = 1 FOR UPDATE`, kept prepared (a static query id) as the
    /// store's statements are: once prepared it goes out at its first poll, so a `BEGIN` sent
    /// after it would take effect after it too.
    struct LockRow;

    impl diesel::query_builder::QueryId for LockRow {
        type QueryId = Self;
        const HAS_STATIC_QUERY_ID: bool = true;
    }

    impl diesel::query_builder::QueryFragment<diesel::pg::Pg> for LockRow {
        fn walk_ast<'b>(
            &'b self,
            mut out: diesel::query_builder::AstPass<'_, 'b, diesel::pg::Pg>,
        ) -> diesel::QueryResult<()> {
            out.push_sql("SELECT id FROM t WHERE id = 1 FOR UPDATE");
            Ok(())
        }
    }

    impl diesel::query_builder::Query for LockRow {
        type SqlType = diesel::sql_types::Untyped;
    }

    /// Locks row 1 of `t`: the first statement of the transactions below.
    async fn lock_row(mut conn: &AsyncPgConnection) -> DomainResult<usize> {
        LockRow.execute(&mut conn).await.map_err(db_error)
    }

    async fn insert(mut conn: &AsyncPgConnection, id: i32) -> Result<usize, Failure> {
        Ok(diesel::sql_query("INSERT INTO t VALUES ($1)")
            .bind::<Integer, _>(id)
            .execute(&mut conn)
            .await?)
    }

    fn in_transaction(conn: &mut AsyncPgConnection) -> bool {
        AnsiTransactionManager::transaction_manager_status_mut(conn)
            .transaction_depth()
            .expect("a valid transaction manager")
            .is_some()
    }

    #[tokio::test]
    async fn the_first_statement_runs_inside_the_transaction_and_end_commits_the_rest() {
        let db = migrated_database().await;
        let mut conn = setup(&db).await;
        let mut other = connect(&db).await;
        let (transaction, locked) = Transaction::begin_with(&mut conn, lock_row)
            .await
            .map_err(DomainError::from)
            .expect("begun");
        assert_eq!(locked, 1);
        // Had the read run before BEGIN took effect, its lock would be gone already.
        let waited = other
            .batch_execute("SELECT id FROM t WHERE id = 1 FOR UPDATE NOWAIT")
            .await;
        assert!(waited.is_err(), "the first statement's lock is held");
        insert(transaction.conn(), 2).await.expect("insert");
        assert_eq!(
            rows(&mut other).await,
            1,
            "nothing is seen before the commit"
        );
        let outcome = transaction.end(Ok(())).await;
        assert!(outcome.is_ok());
        assert_eq!(rows(&mut other).await, 2);
        assert!(!in_transaction(&mut conn));
        assert!(!AnsiTransactionManager::is_broken_transaction_manager(
            &mut conn
        ));
    }

    #[tokio::test]
    async fn a_failed_outcome_rolls_the_transaction_back_and_answers_its_error() {
        let db = migrated_database().await;
        let mut conn = setup(&db).await;
        let (transaction, _) = Transaction::begin_with(&mut conn, lock_row)
            .await
            .map_err(DomainError::from)
            .expect("begun");
        insert(transaction.conn(), 2).await.expect("insert");
        let outcome: Result<(), Failure> = transaction
            .end(Err(DomainError::NotFound(
                procflow_domain::error::Resource::Task,
            )
            .into()))
            .await;
        assert!(matches!(
            outcome.map_err(DomainError::from),
            Err(DomainError::NotFound(_))
        ));
        assert_eq!(rows(&mut conn).await, 1, "the insert was rolled back");
        assert!(!in_transaction(&mut conn));
    }

    #[tokio::test]
    async fn a_failing_first_statement_leaves_no_transaction_open() {
        let db = migrated_database().await;
        let mut conn = setup(&db).await;
        let failed = Transaction::begin_with(&mut conn, async |mut conn: &AsyncPgConnection| {
            diesel::sql_query("SELECT * FROM no_such_table")
                .execute(&mut conn)
                .await
                .map_err(db_error)
        })
        .await;
        assert!(failed.is_err());
        assert!(!in_transaction(&mut conn));
        // The connection is usable, in autocommit again: a write is seen at once.
        insert(&conn, 2).await.expect("insert");
        assert_eq!(rows(&mut connect(&db).await).await, 2);
    }

    #[tokio::test]
    async fn a_transaction_dropped_without_its_end_marks_the_connection_broken() {
        let db = migrated_database().await;
        let mut conn = setup(&db).await;
        {
            // Neither committed nor rolled back, as a panic would leave it.
            let (_abandoned, ()) =
                Transaction::begin_with(&mut conn, async |conn: &AsyncPgConnection| {
                    lock_row(conn).await.map(|_| ())
                })
                .await
                .map_err(DomainError::from)
                .expect("begun");
        }
        // What the pool asks before it hands a connection out again.
        assert!(AnsiTransactionManager::is_broken_transaction_manager(
            &mut conn
        ));
    }

    #[tokio::test]
    async fn a_transaction_is_not_begun_inside_another() {
        let db = migrated_database().await;
        let mut conn = setup(&db).await;
        AnsiTransactionManager::begin_transaction(&mut conn)
            .await
            .expect("outer");
        let nested = Transaction::begin_with(&mut conn, lock_row).await;
        assert!(matches!(
            nested,
            Err(Failure::Db(DieselError::AlreadyInTransaction))
        ));
        AnsiTransactionManager::rollback_transaction(&mut conn)
            .await
            .expect("the outer transaction is intact");
    }
}
