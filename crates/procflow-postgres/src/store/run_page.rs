//! A page of a team's runs (List runs) and the sections of the runs it holds (List runs, Get a
//! run), as text written from fixed pieces.
//!
//! Both were diesel queries built per request (the page boxed, its filters and cursor optional):
//! writing and quoting 16 and 7 columns and the conditions, then hashing the page's text to find
//! its prepared statement, was about 5 % of the server's instructions for a page of 20 runs
//! (`docs/performance.md`, "Lists of runs and the inbox as text written from pieces"). The texts
//! are the ones diesel's query builder writes for the same queries, which the tests below build
//! and compare (every combination of filters and cursor for the page), so the rows load as they
//! did and the bench's floor (`bench/sql/list_runs.sql`) still runs the service's statements.

use diesel::QueryResult;
use diesel::dsl;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{Array, BigInt, Text, Uuid as SqlUuid};
use procflow_domain::ids::TeamId;
use procflow_domain::run::RunFilter;
use uuid::Uuid;

use super::columns::{run_columns, run_section_columns};
use super::conditions::{and, open};
use crate::rows::run::{RunRow, RunSectionRow};

/// The page's columns, up to its first condition.
const SELECT_RUNS: &str = concat!("SELECT ", run_columns!(), " FROM \"runs\" WHERE ");

/// The cursor's check, inside the page: its run is one the filters admit.
const CURSOR_EXISTS: &str = " AND EXISTS (SELECT \"runs\".\"id\" FROM \"runs\" WHERE ";

/// The sections of some runs: the text before the team, then after each bind (the runs).
const SECTIONS: (&str, &str, &str) = (
    concat!(
        "SELECT ",
        run_section_columns!(),
        " FROM \"run_sections\" WHERE ((\"run_sections\".\"team_id\" = "
    ),
    ") AND (\"run_sections\".\"run_id\" = ANY(",
    "))) ORDER BY \"run_sections\".\"run_id\", \"run_sections\".\"position\"",
);

/// Up to `limit` runs of `team` that `filter` admits, newest first (run ids are UUIDv7:
/// descending id), after the run `after` when given; none when `after` is not a run the
/// filters admit. Load it as [`RunRow`].
#[derive(Debug)]
pub(super) struct RunsPage {
    team: Uuid,
    template: Option<Uuid>,
    status: Option<&'static str>,
    after: Option<Uuid>,
    limit: i64,
}

impl RunsPage {
    pub(super) fn new(team: TeamId, filter: RunFilter, after: Option<Uuid>, limit: i64) -> Self {
        Self {
            team: team.as_uuid(),
            template: filter.template_id.map(|t| t.as_uuid()),
            status: filter.status.map(|s| s.as_str()),
            after,
            limit,
        }
    }

    /// The filters' conditions, leaving open the parentheses of `more` conditions the caller
    /// writes after them.
    fn filters<'b>(&'b self, out: &mut AstPass<'_, 'b, Pg>, more: usize) -> QueryResult<()> {
        let given = usize::from(self.template.is_some()) + usize::from(self.status.is_some());
        open(out, 1 + given + more);
        out.push_sql("(\"runs\".\"team_id\" = ");
        out.push_bind_param::<SqlUuid, _>(&self.team)?;
        out.push_sql(")");
        if let Some(template) = &self.template {
            and::<SqlUuid, _>(out, "(\"runs\".\"template_id\" = ", template)?;
        }
        if let Some(status) = self.status {
            and::<Text, _>(out, "(\"runs\".\"status\" = ", status)?;
        }
        Ok(())
    }
}

impl QueryFragment<Pg> for RunsPage {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(SELECT_RUNS);
        match &self.after {
            None => self.filters(&mut out, 0)?,
            // The cursor's check rides in the page: an unknown cursor empties it.
            Some(after) => {
                self.filters(&mut out, 2)?;
                and::<SqlUuid, _>(&mut out, "(\"runs\".\"id\" < ", after)?;
                out.push_sql(CURSOR_EXISTS);
                self.filters(&mut out, 1)?;
                and::<SqlUuid, _>(&mut out, "(\"runs\".\"id\" = ", after)?;
                out.push_sql("))");
            }
        }
        out.push_sql(" ORDER BY \"runs\".\"id\" DESC LIMIT ");
        out.push_bind_param::<BigInt, _>(&self.limit)
    }

    fn is_safe_to_cache_prepared(&self, _backend: &Pg) -> QueryResult<bool> {
        Ok(true)
    }
}

// No static id: diesel-async's statement cache keys the page by its text, one per combination
// of filters and cursor (eight).
impl QueryId for RunsPage {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl Query for RunsPage {
    type SqlType = dsl::SqlTypeOf<dsl::AsSelect<RunRow, Pg>>;
}

/// The sections of the runs `runs` of `team`, by run then position. Load it as
/// [`RunSectionRow`].
#[derive(Debug)]
pub(super) struct SectionsOf<'a> {
    team: Uuid,
    runs: &'a [Uuid],
}

impl<'a> SectionsOf<'a> {
    pub(super) fn new(team: TeamId, runs: &'a [Uuid]) -> Self {
        Self {
            team: team.as_uuid(),
            runs,
        }
    }
}

impl QueryFragment<Pg> for SectionsOf<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let (select, runs, order) = SECTIONS;
        out.push_sql(select);
        out.push_bind_param::<SqlUuid, _>(&self.team)?;
        out.push_sql(runs);
        out.push_bind_param::<Array<SqlUuid>, _>(self.runs)?;
        out.push_sql(order);
        Ok(())
    }
}

/// The type the statement is known by, which has no lifetime.
#[derive(Debug)]
pub(super) struct SectionsOfRuns;

impl QueryId for SectionsOf<'_> {
    type QueryId = SectionsOfRuns;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl Query for SectionsOf<'_> {
    type SqlType = dsl::SqlTypeOf<dsl::AsSelect<RunSectionRow, Pg>>;
}

#[cfg(test)]
mod tests {
    use diesel::prelude::*;
    use procflow_domain::ids::TemplateId;
    use procflow_domain::run::RunStatus;
    use procflow_domain::values::Cursor;

    use super::*;
    use crate::schema::{run_sections, runs};
    use crate::store::runs::{filtered, run_cursor};
    use crate::store::shown::shown;

    #[test]
    fn every_page_is_the_text_diesel_writes_for_the_same_query() {
        let team = TeamId::from_uuid(Uuid::now_v7());
        let mut compared = 0;
        for template_id in [None, Some(TemplateId::from_uuid(Uuid::now_v7()))] {
            for status in [None, Some(RunStatus::Active), Some(RunStatus::Completed)] {
                for after in [None, Some(Uuid::now_v7())] {
                    let filter = RunFilter {
                        template_id,
                        status,
                    };
                    let mut dsl = filtered(team, filter);
                    if let Some(after) = after {
                        let cursor = run_cursor(team, filter, Cursor::after(after));
                        dsl = dsl
                            .filter(runs::id.lt(after))
                            .filter(diesel::dsl::exists(cursor));
                    }
                    let dsl = dsl
                        .order(runs::id.desc())
                        .limit(21)
                        .select(RunRow::as_select());
                    let ours = RunsPage::new(team, filter, after, 21);
                    assert_eq!(shown(&ours), shown(&dsl), "{filter:?} after {after:?}");
                    compared += 1;
                }
            }
        }
        assert_eq!(compared, 12);
    }

    #[test]
    fn the_sections_are_the_text_diesel_writes_for_the_same_query() {
        let team = TeamId::from_uuid(Uuid::now_v7());
        let ids = [Uuid::now_v7(), Uuid::now_v7()];
        let dsl = run_sections::table
            .filter(run_sections::team_id.eq(team.as_uuid()))
            .filter(run_sections::run_id.eq_any(&ids[..]))
            .order((run_sections::run_id, run_sections::position))
            .select(RunSectionRow::as_select());
        assert_eq!(shown(&SectionsOf::new(team, &ids)), shown(&dsl));
    }

    #[test]
    fn both_statements_are_kept_prepared() {
        let page = RunsPage::new(
            TeamId::from_uuid(Uuid::nil()),
            RunFilter::default(),
            None,
            1,
        );
        assert!(page.is_safe_to_cache_prepared(&Pg).unwrap());
        // The page's texts are keyed apart by their text; the sections' by their id alone.
        assert!(RunsPage::query_id().is_none());
        let sections = SectionsOf::new(TeamId::from_uuid(Uuid::nil()), &[]);
        assert!(sections.is_safe_to_cache_prepared(&Pg).unwrap());
        assert!(SectionsOf::query_id().is_some());
    }
}
