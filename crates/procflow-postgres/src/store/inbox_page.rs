//! The inbox's statements (API contract 15.1), written from fixed pieces of text.
//!
//! The page was a boxed diesel query built per request: writing and quoting its join, its
//! conditions and 24 columns, then hashing the text to find the statement kept prepared under
//! it, was about 6 % of the server's instructions for a page of 20 (`docs/performance.md`,
//! "Lists of runs and the inbox as text written from pieces"). The text here is the one
//! diesel's query builder writes for the same filters, which the tests below build and compare
//! for every combination of filters and cursor, so the rows load as they did and the bench's
//! floor still runs the service's statement. The texts are a small fixed set (one per
//! combination given: at most 96 for the page, 48 for the cursor's position), each kept
//! prepared under its text as [`super::by_text::ByText`] keeps its own; the values are binds.

use diesel::QueryResult;
use diesel::dsl;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{BigInt, Bool, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use procflow_domain::ids::TeamId;
use procflow_domain::run::InboxFilter;
use time::OffsetDateTime;
use uuid::Uuid;

use super::columns::run_task_columns;
use super::conditions::{and, open};
use super::fixed_text::ONE_ROW;
use crate::rows::run::ListedTaskRow;

/// The list's order, written as the indexes `run_tasks_inbox_by_assignee` and
/// `run_tasks_inbox` have it (the planner matches the expression).
macro_rules! key {
    () => {
        "COALESCE(run_tasks.due_date, 'infinity'::timestamptz)"
    };
}

/// The list's order key, as SQL: the tests' DSL writes it, and finds the statements by it.
#[cfg(test)]
pub(super) const KEY: &str = key!();

/// The join of every task to its run, up to the first condition.
const FROM: &str = " FROM (\"run_tasks\" INNER JOIN \"runs\" ON ((\"runs\".\"team_id\" = \
\"run_tasks\".\"team_id\") AND (\"runs\".\"id\" = \"run_tasks\".\"run_id\"))) WHERE ";

/// The page's columns: the task's, then its run's title.
const SELECT_PAGE: &str = concat!("SELECT ", run_task_columns!(), ", \"runs\".\"title\"");

/// The cursor's position: its task's due date and id.
const SELECT_POSITION: &str = "SELECT \"run_tasks\".\"due_date\", \"run_tasks\".\"id\"";

/// The SQL types of the page's columns: those of the same selection in diesel's DSL.
type PageColumns = (dsl::SqlTypeOf<dsl::AsSelect<ListedTaskRow, Pg>>, Text);

/// The team's tasks that a filter admits at a moment: the join and the conditions both
/// statements share, in diesel's order, each after the first closing the parenthesis the
/// `WHERE` opened for it.
#[derive(Debug)]
pub(super) struct Admitted {
    team: Uuid,
    status: &'static str,
    run_status: &'static str,
    assignee: Option<String>,
    template: Option<Uuid>,
    due_before: Option<OffsetDateTime>,
    due_after: Option<OffsetDateTime>,
    overdue: Option<(bool, OffsetDateTime)>,
}

impl Admitted {
    pub(super) fn new(team: TeamId, filter: &InboxFilter, now: OffsetDateTime) -> Self {
        Self {
            team: team.as_uuid(),
            status: filter.status.as_str(),
            run_status: filter.run_status.as_str(),
            assignee: filter.assignee.as_ref().map(ToString::to_string),
            template: filter.template_id.map(|t| t.as_uuid()),
            due_before: filter.due_before,
            due_after: filter.due_after,
            overdue: filter.overdue.map(|overdue| (overdue, now)),
        }
    }

    /// How many conditions [`Self::walk`] writes.
    fn conditions(&self) -> usize {
        5 + usize::from(self.assignee.is_some())
            + usize::from(self.template.is_some())
            + usize::from(self.due_before.is_some())
            + 2 * usize::from(self.due_after.is_some())
            + usize::from(self.overdue.is_some())
    }

    /// From `FROM` to the last of its conditions, leaving open the parentheses of `more`
    /// conditions the caller writes after them with [`and`]
    /// ([`super::conditions`]).
    fn walk<'b>(&'b self, out: &mut AstPass<'_, 'b, Pg>, more: usize) -> QueryResult<()> {
        out.push_sql(FROM);
        open(out, self.conditions() + more);
        out.push_sql("(\"run_tasks\".\"team_id\" = ");
        out.push_bind_param::<SqlUuid, _>(&self.team)?;
        out.push_sql(")");
        and::<SqlUuid, _>(out, "(\"runs\".\"team_id\" = ", &self.team)?;
        and::<Bool, _>(out, "(\"run_tasks\".\"hidden\" = ", &HIDDEN)?;
        and::<Text, _>(out, "(\"run_tasks\".\"state\" = ", self.status)?;
        and::<Text, _>(out, "(\"runs\".\"status\" = ", self.run_status)?;
        if let Some(assignee) = &self.assignee {
            and::<Text, _>(out, "(\"run_tasks\".\"assignee\" = ", assignee)?;
        }
        if let Some(template) = &self.template {
            and::<SqlUuid, _>(out, "(\"runs\".\"template_id\" = ", template)?;
        }
        // Bounds on the sort key keep the scan a range of the index; a task without a due date
        // (key +infinity) is never "due before" anything and never overdue.
        if let Some(before) = &self.due_before {
            and::<Timestamptz, _>(out, concat!("(", key!(), " < "), before)?;
        }
        if let Some(after) = &self.due_after {
            and::<Timestamptz, _>(out, concat!("(", key!(), " > "), after)?;
            out.push_sql(" AND (\"run_tasks\".\"due_date\" IS NOT NULL))");
        }
        match &self.overdue {
            Some((true, now)) => and::<Timestamptz, _>(out, concat!("(", key!(), " < "), now),
            Some((false, now)) => and::<Timestamptz, _>(out, concat!("(", key!(), " >= "), now),
            None => Ok(()),
        }
    }
}

/// Up to `limit` tasks of [`Admitted`], by due date then id, after a cursor's position (its
/// due date and id) when given. Load it as `(ListedTaskRow, String)`: each task and its run's
/// title.
#[derive(Debug)]
pub(super) struct InboxPage {
    admitted: Admitted,
    after: Option<(Option<OffsetDateTime>, Uuid)>,
    limit: i64,
}

impl InboxPage {
    pub(super) fn new(
        admitted: Admitted,
        after: Option<(Option<OffsetDateTime>, Uuid)>,
        limit: i64,
    ) -> Self {
        Self {
            admitted,
            after,
            limit,
        }
    }
}

/// The due date and id of the task `task` if [`Admitted`] lists it. Load it as
/// `(Option<OffsetDateTime>, Uuid)`.
#[derive(Debug)]
pub(super) struct InboxPosition<'a> {
    admitted: &'a Admitted,
    task: Uuid,
}

impl<'a> InboxPosition<'a> {
    pub(super) fn new(admitted: &'a Admitted, task: Uuid) -> Self {
        Self { admitted, task }
    }
}

/// The inbox never lists a hidden task (API contract 12): the condition binds this.
const HIDDEN: bool = false;

impl QueryFragment<Pg> for InboxPage {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(SELECT_PAGE);
        self.admitted
            .walk(&mut out, usize::from(self.after.is_some()))?;
        if let Some((due, id)) = &self.after {
            out.push_sql(concat!(" AND (", key!(), ", run_tasks.id) > (COALESCE("));
            out.push_bind_param::<Nullable<Timestamptz>, _>(due)?;
            out.push_sql(", 'infinity'::timestamptz), ");
            out.push_bind_param::<SqlUuid, _>(id)?;
            out.push_sql("))");
        }
        out.push_sql(concat!(
            " ORDER BY ",
            key!(),
            " ASC, \"run_tasks\".\"id\" ASC LIMIT "
        ));
        out.push_bind_param::<BigInt, _>(&self.limit)
    }

    fn is_safe_to_cache_prepared(&self, _backend: &Pg) -> QueryResult<bool> {
        Ok(true)
    }
}

impl QueryFragment<Pg> for InboxPosition<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(SELECT_POSITION);
        self.admitted.walk(&mut out, 1)?;
        and::<SqlUuid, _>(&mut out, "(\"run_tasks\".\"id\" = ", &self.task)?;
        out.push_sql(" LIMIT ");
        out.push_bind_param::<BigInt, _>(&ONE_ROW)
    }

    fn is_safe_to_cache_prepared(&self, _backend: &Pg) -> QueryResult<bool> {
        Ok(true)
    }
}

// No static id: diesel-async's statement cache keys each by its text, one per combination.
impl QueryId for InboxPage {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl QueryId for InboxPosition<'_> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl Query for InboxPage {
    type SqlType = PageColumns;
}

impl Query for InboxPosition<'_> {
    type SqlType = (Nullable<Timestamptz>, SqlUuid);
}

#[cfg(test)]
mod tests {
    use diesel::dsl::sql;
    use diesel::prelude::*;
    use procflow_domain::actor::Assignee;
    use procflow_domain::ids::{TemplateId, UserId};
    use procflow_domain::run::{RunStatus, TaskStatus};
    use time::Duration;

    use super::*;
    use crate::schema::{run_tasks, runs};
    use crate::store::shown::shown;

    /// The team's tasks that `filter` admits at `now`, joined to their runs, as the store
    /// built them in diesel's DSL.
    macro_rules! admitted {
        ($team:expr, $filter:expr, $now:expr) => {{
            let (team, filter, now): (TeamId, &InboxFilter, OffsetDateTime) =
                ($team, $filter, $now);
            let mut query = run_tasks::table
                .inner_join(
                    runs::table.on(runs::team_id
                        .eq(run_tasks::team_id)
                        .and(runs::id.eq(run_tasks::run_id))),
                )
                .filter(run_tasks::team_id.eq(team.as_uuid()))
                .filter(runs::team_id.eq(team.as_uuid()))
                .filter(run_tasks::hidden.eq(false))
                .filter(run_tasks::state.eq(filter.status.as_str()))
                .filter(runs::status.eq(filter.run_status.as_str()))
                .into_boxed();
            if let Some(assignee) = &filter.assignee {
                query = query.filter(run_tasks::assignee.eq(assignee.to_string()));
            }
            if let Some(template) = filter.template_id {
                query = query.filter(runs::template_id.eq(template.as_uuid()));
            }
            if let Some(before) = filter.due_before {
                query = query.filter(sql::<Timestamptz>(KEY).lt(before));
            }
            if let Some(after) = filter.due_after {
                query = query
                    .filter(sql::<Timestamptz>(KEY).gt(after))
                    .filter(run_tasks::due_date.is_not_null());
            }
            match filter.overdue {
                Some(true) => query = query.filter(sql::<Timestamptz>(KEY).lt(now)),
                Some(false) => query = query.filter(sql::<Timestamptz>(KEY).ge(now)),
                None => {}
            }
            query
        }};
    }

    /// Every combination of the filters (each given or not, each choice of its value).
    fn filters(now: OffsetDateTime) -> Vec<InboxFilter> {
        let assignees = [
            None,
            Some(Assignee::User(UserId::from_uuid(Uuid::now_v7()))),
            Some(Assignee::Email("ada@example.com".parse().expect("email"))),
        ];
        let templates = [None, Some(TemplateId::from_uuid(Uuid::now_v7()))];
        let befores = [None, Some(now + Duration::days(3))];
        let afters = [None, Some(now - Duration::days(2))];
        let overdues = [None, Some(true), Some(false)];
        let states = [
            (TaskStatus::Open, RunStatus::Active),
            (TaskStatus::Completed, RunStatus::Completed),
        ];
        let mut all = Vec::new();
        for assignee in &assignees {
            for template_id in templates {
                for due_before in befores {
                    for due_after in afters {
                        for overdue in overdues {
                            for (status, run_status) in states {
                                all.push(InboxFilter {
                                    assignee: assignee.clone(),
                                    status,
                                    due_before,
                                    due_after,
                                    overdue,
                                    template_id,
                                    run_status,
                                });
                            }
                        }
                    }
                }
            }
        }
        all
    }

    #[test]
    fn every_page_is_the_text_diesel_writes_for_the_same_query() {
        let (team, now) = (TeamId::from_uuid(Uuid::now_v7()), OffsetDateTime::now_utc());
        let positions = [
            None,
            Some((None, Uuid::now_v7())),
            Some((Some(now), Uuid::now_v7())),
        ];
        let mut compared = 0;
        for filter in filters(now) {
            for after in positions {
                let mut dsl = admitted!(team, &filter, now);
                if let Some((due, id)) = after {
                    dsl = dsl.filter(
                        sql::<Bool>(&format!("({KEY}, run_tasks.id) > (COALESCE("))
                            .bind::<Nullable<Timestamptz>, _>(due)
                            .sql(", 'infinity'::timestamptz), ")
                            .bind::<SqlUuid, _>(id)
                            .sql(")"),
                    );
                }
                let dsl = dsl
                    .order((sql::<Timestamptz>(KEY).asc(), run_tasks::id.asc()))
                    .limit(21)
                    .select((ListedTaskRow::as_select(), runs::title));
                let ours = InboxPage::new(Admitted::new(team, &filter, now), after, 21);
                assert_eq!(shown(&ours), shown(&dsl), "{filter:?} after {after:?}");
                compared += 1;
            }
        }
        assert_eq!(compared, 3 * 2 * 2 * 2 * 3 * 2 * 3);
    }

    #[test]
    fn every_position_is_the_text_diesel_writes_for_the_same_query() {
        let (team, now, task) = (
            TeamId::from_uuid(Uuid::now_v7()),
            OffsetDateTime::now_utc(),
            Uuid::now_v7(),
        );
        for filter in filters(now) {
            let dsl = admitted!(team, &filter, now)
                .filter(run_tasks::id.eq(task))
                .select((run_tasks::due_date, run_tasks::id))
                .limit(1);
            let admitted = Admitted::new(team, &filter, now);
            let ours = InboxPosition::new(&admitted, task);
            assert_eq!(shown(&ours), shown(&dsl), "{filter:?}");
        }
    }

    #[test]
    fn both_statements_are_kept_prepared_under_their_text() {
        let filter = InboxFilter::default();
        let admitted = Admitted::new(
            TeamId::from_uuid(Uuid::nil()),
            &filter,
            OffsetDateTime::UNIX_EPOCH,
        );
        let position = InboxPosition::new(&admitted, Uuid::nil());
        assert!(position.is_safe_to_cache_prepared(&Pg).unwrap());
        let page = InboxPage::new(
            Admitted::new(
                TeamId::from_uuid(Uuid::nil()),
                &filter,
                OffsetDateTime::UNIX_EPOCH,
            ),
            None,
            1,
        );
        assert!(page.is_safe_to_cache_prepared(&Pg).unwrap());
        // No id of their own: diesel-async's cache keys each text apart.
        assert!(InboxPage::query_id().is_none());
        assert!(InboxPosition::query_id().is_none());
    }
}
