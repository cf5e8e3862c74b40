//! The first page of a team's schedules, unfiltered, as text written once, as a thread's first
//! page is (`thread_page.rs`, which says why). Pages after a cursor and filtered pages stay
//! queries of diesel's DSL. The test below builds diesel's query for the same page and
//! compares.

use diesel::QueryResult;
use diesel::dsl;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{BigInt, Uuid as SqlUuid};
use uuid::Uuid;

use super::columns::schedule_columns;
use crate::rows::schedule::ScheduleRow;

/// The text before the team, then after its bind.
const FIRST: (&str, &str) = (
    concat!(
        "SELECT ",
        schedule_columns!(),
        " FROM \"schedules\" WHERE (\"schedules\".\"team_id\" = "
    ),
    ") ORDER BY \"schedules\".\"id\" LIMIT ",
);

/// The SQL types of the columns selected: those of the same selection in diesel's DSL.
type Selected = dsl::SqlTypeOf<dsl::AsSelect<ScheduleRow, Pg>>;

/// The first `limit` schedules of `team`, oldest first. Load it as [`ScheduleRow`].
#[derive(Debug)]
pub(super) struct FirstSchedules {
    team: Uuid,
    limit: i64,
}

impl FirstSchedules {
    pub(super) fn new(team: Uuid, limit: i64) -> Self {
        Self { team, limit }
    }
}

impl QueryId for FirstSchedules {
    type QueryId = Self;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl Query for FirstSchedules {
    type SqlType = Selected;
}

impl QueryFragment<Pg> for FirstSchedules {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let (select, limit) = FIRST;
        out.push_sql(select);
        out.push_bind_param::<SqlUuid, _>(&self.team)?;
        out.push_sql(limit);
        out.push_bind_param::<BigInt, _>(&self.limit)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use diesel::prelude::*;

    use super::*;
    use crate::schema::schedules;
    use crate::store::shown::shown;

    #[test]
    fn the_first_page_is_the_text_diesel_writes_for_the_same_query() {
        let team = Uuid::now_v7();
        let dsl = schedules::table
            .filter(schedules::team_id.eq(team))
            .into_boxed()
            .order(schedules::id)
            .limit(21)
            .select(ScheduleRow::as_select());
        assert_eq!(shown(&FirstSchedules::new(team, 21)), shown(&dsl));
    }

    #[test]
    fn the_first_page_is_kept_prepared_under_an_id_of_its_own() {
        let first = FirstSchedules::new(Uuid::nil(), 1);
        assert!(first.is_safe_to_cache_prepared(&Pg).unwrap());
        assert!(FirstSchedules::query_id().is_some());
    }
}
