//! `UPDATE`s of one row by its key whose SQL text is the same at every call, so that diesel
//! keeps them prepared on each connection.
//!
//! diesel marks every `UPDATE` unsafe to cache (a changeset may leave a column out when its
//! value is `None`), so completing a task parsed and planned two statements afresh on every
//! request, the task's row and the run's, where the bench's SQL floor runs them prepared
//! (`docs/performance.md`, issue "At the floor"). A [`KeyedUpdate`] writes the same `SET` as
//! diesel's own statement, from the same changeset, under a query id of its own (`Id`): each
//! shape of SQL a changeset can take needs an `Id` of its own, since diesel keys its cache by
//! that id alone.

use std::marker::PhantomData;

use diesel::QueryResult;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::Uuid as SqlUuid;
use uuid::Uuid;

/// `UPDATE table SET changes WHERE key`, the key's columns each equal to a value.
pub(super) struct KeyedUpdate<C, Id, const N: usize> {
    table: &'static str,
    changes: C,
    key: [(&'static str, Uuid); N],
    id: PhantomData<fn() -> Id>,
}

impl<C, Id, const N: usize> KeyedUpdate<C, Id, N> {
    /// The update of the row of `table` whose `key` columns hold the values given. `changes`
    /// must write the same columns at every call for one `Id`.
    pub(super) fn new(table: &'static str, changes: C, key: [(&'static str, Uuid); N]) -> Self {
        Self {
            table,
            changes,
            key,
            id: PhantomData,
        }
    }
}

impl<C, Id: 'static, const N: usize> QueryId for KeyedUpdate<C, Id, N> {
    type QueryId = Id;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<C: QueryFragment<Pg>, Id, const N: usize> QueryFragment<Pg> for KeyedUpdate<C, Id, N> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("UPDATE ");
        out.push_identifier(self.table)?;
        out.push_sql(" SET ");
        self.changes.walk_ast(out.reborrow())?;
        for (n, (column, value)) in self.key.iter().enumerate() {
            out.push_sql(if n == 0 { " WHERE " } else { " AND " });
            out.push_identifier(column)?;
            out.push_sql(" = ");
            out.push_bind_param::<SqlUuid, _>(value)?;
        }
        Ok(())
    }

    // The changesets given are fixed for their `Id` (see `new`), which is what diesel's own
    // `UPDATE` cannot know.
    fn is_safe_to_cache_prepared(&self, _backend: &Pg) -> QueryResult<bool> {
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use diesel::AsChangeset;

    use super::*;
    use crate::rows::elements::Elements;
    use crate::rows::run::{RunChanges, RunTaskChanges};
    use crate::store::shown::text as sql;

    struct Task;
    struct Run;

    fn task(completed: bool) -> RunTaskChanges {
        let now = time::OffsetDateTime::UNIX_EPOCH;
        RunTaskChanges {
            state: if completed { "completed" } else { "open" }.into(),
            completed_at: completed.then_some(now),
            completed_by: completed.then(|| "api".into()),
            assignee: None,
            decision: None,
            comment: completed.then(|| "done".into()),
            custom_elements: Elements(Vec::new()),
            hidden: false,
            blocked: false,
        }
    }

    fn key() -> [(&'static str, Uuid); 2] {
        [("team_id", Uuid::nil()), ("id", Uuid::nil())]
    }

    #[test]
    fn a_task_is_written_by_one_text_whatever_its_values_and_kept_prepared() {
        let update = |completed| {
            KeyedUpdate::<_, Task, 2>::new("run_tasks", task(completed).as_changeset(), key())
        };
        let (open, completed) = (update(false), update(true));
        assert_eq!(sql(&open), sql(&completed));
        assert_eq!(
            sql(&open),
            "UPDATE \"run_tasks\" SET \"state\" = $1, \"completed_at\" = $2, \
             \"completed_by\" = $3, \"assignee\" = $4, \"decision\" = $5, \"comment\" = $6, \
             \"custom_elements\" = $7, \"hidden\" = $8, \"blocked\" = $9 \
             WHERE \"team_id\" = $10 AND \"id\" = $11"
        );
        assert!(open.is_safe_to_cache_prepared(&Pg).unwrap());
    }

    #[test]
    fn a_run_whose_state_is_not_written_is_written_without_the_column() {
        // `write_run` picks its query id by whether the state is written: without it the text
        // must not name the column, whatever else the run holds.
        let run = RunChanges {
            status: "active".into(),
            is_shared: false,
            open_tasks: 3,
            updated_at: None,
            completed_at: None,
            logic_state: None,
        };
        let update = KeyedUpdate::<_, Run, 2>::new("runs", run.as_changeset(), key());
        assert_eq!(
            sql(&update),
            "UPDATE \"runs\" SET \"status\" = $1, \"is_shared\" = $2, \"open_tasks\" = $3, \
             \"updated_at\" = $4, \"completed_at\" = $5 WHERE \"team_id\" = $6 AND \"id\" = $7"
        );
    }
}
