//! `RunStore` on PostgreSQL: runs, their tasks, and (through `sharing`) their share links.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use futures_util::TryFutureExt;
use futures_util::future::{join4, try_join, try_join4};
use procflow_domain::actor::Assignee;
use procflow_domain::error::{DomainError, DomainResult, Resource};
use procflow_domain::ids::{RunId, TaskId, TeamId};
use procflow_domain::ports::{
    Clearance, Cleared, RunStore, ShareDecision, TaskDecision, TasksDecision,
};
use procflow_domain::run::{
    InboxFilter, InboxTask, ListedTask, NewRun, Run, RunFilter, RunTask, TaskChange, TasksChange,
};
use procflow_domain::sharing::{Share, ShareChange};
use procflow_domain::values::{Cursor, Page, PageRequest, ShareToken};
use time::OffsetDateTime;
use uuid::Uuid;

use super::directory::TokenKind;
use super::flags::write_flags;
use super::keyed_update::KeyedUpdate;
use super::locked_task::LockedRunAndTask;
use super::one_task::{AssigneeColumn, OneTask, Unlocked};
use super::page_rows::{collect_page, rows_to_fetch};
use super::plans::Plans;
use super::run_page::RunsPage;
use super::task_page::{FirstTasks, TasksAfter};
use super::task_write::WriteTask;
use super::transaction::Transaction;
use super::unnest::{InsertRunSections, InsertRunTasks};
use super::{PgStore, append_events, batch, not_found, sections_of_runs, sharing};
use crate::error::{Failure, corrupt, db_error};
use crate::rows::parse;
use crate::rows::run::{
    ListedTaskRow, RunChanges, RunHeaderRow, RunRow, RunSectionRow, RunTaskRow,
};
use crate::schema::runs;

fn of_team(team: TeamId) -> runs::BoxedQuery<'static, diesel::pg::Pg> {
    runs::table
        .filter(runs::team_id.eq(team.as_uuid()))
        .into_boxed()
}

/// The runs of `team` that `filter` admits (the tests of `run_page` build its page from it).
pub(super) fn filtered(
    team: TeamId,
    filter: RunFilter,
) -> runs::BoxedQuery<'static, diesel::pg::Pg> {
    let mut query = of_team(team);
    if let Some(template) = filter.template_id {
        query = query.filter(runs::template_id.eq(template.as_uuid()));
    }
    if let Some(status) = filter.status {
        query = query.filter(runs::status.eq(status.as_str()));
    }
    query
}

/// The run header, without its sections, optionally locked for the rest of the transaction.
pub(super) async fn run_header(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    id: RunId,
    lock: bool,
) -> DomainResult<RunRow> {
    let query = runs::table
        .filter(runs::team_id.eq(team.as_uuid()))
        .filter(runs::id.eq(id.as_uuid()))
        .select(RunRow::as_select());
    let found = if lock {
        query.for_update().first(&mut conn).await
    } else {
        query.first(&mut conn).await
    };
    found
        .optional()
        .map_err(db_error)?
        .ok_or(not_found(Resource::Run))
}

/// The run header without the plan of its logic, locked for the rest of the transaction.
pub(super) async fn locked_header(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    id: RunId,
) -> DomainResult<RunHeaderRow> {
    runs::table
        .filter(runs::team_id.eq(team.as_uuid()))
        .filter(runs::id.eq(id.as_uuid()))
        .select(RunHeaderRow::as_select())
        .for_update()
        .first(&mut conn)
        .await
        .optional()
        .map_err(db_error)?
        .ok_or(not_found(Resource::Run))
}

/// The run of a header read without its plan, the plan taken from `plans` (read once per
/// process and run).
pub(super) async fn with_plan(
    conn: &AsyncPgConnection,
    plans: &Plans,
    header: RunHeaderRow,
) -> DomainResult<Run> {
    let plan = if header.has_logic() {
        let (team, run) = (
            TeamId::from_uuid(header.team_id),
            RunId::from_uuid(header.id),
        );
        Some(plans.of(conn, team, run).await?)
    } else {
        None
    };
    header.into_domain(plan, Vec::new())
}

/// Writes a run header's changing columns; its logic's state only when it changed since
/// `before` (the header as the change read it).
pub(super) async fn write_run(
    mut conn: &AsyncPgConnection,
    run: &Run,
    before: Option<&Run>,
) -> DomainResult<()> {
    fn state(run: &Run) -> Option<&procflow_domain::run::LogicState> {
        run.logic.as_ref().map(|logic| &logic.state)
    }
    /// The header's columns, without its logic's state.
    struct Header;
    /// The header's columns and its logic's state.
    struct HeaderAndState;
    let with_state = before.is_none_or(|before| state(before) != state(run));
    let changes = RunChanges::from_domain(run, with_state);
    let writes_state = changes.logic_state.is_some();
    let key = [("team_id", run.team_id.as_uuid()), ("id", run.id.as_uuid())];
    let changes = changes.as_changeset();
    let written = if writes_state {
        KeyedUpdate::<_, HeaderAndState, 2>::new("runs", changes, key)
            .execute(&mut conn)
            .await
    } else {
        KeyedUpdate::<_, Header, 2>::new("runs", changes, key)
            .execute(&mut conn)
            .await
    };
    written.map(|_| ()).map_err(db_error)
}

/// Runs with their sections.
pub(super) async fn with_sections(
    conn: &AsyncPgConnection,
    team: TeamId,
    rows: Vec<RunRow>,
) -> DomainResult<Vec<Run>> {
    let ids: Vec<Uuid> = rows.iter().map(|r| r.header.id).collect();
    let mut sections = sections_of_runs(conn, team, &ids).await?;
    rows.into_iter()
        .map(|row| {
            let run = RunId::from_uuid(row.header.id);
            let own = sections
                .extract_if(.., |(of, _)| *of == run)
                .map(|(_, s)| s)
                .collect();
            row.into_domain(own)
        })
        .collect()
}

async fn task_row(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    run: RunId,
    task: TaskId,
) -> DomainResult<Option<RunTaskRow>> {
    OneTask::<Unlocked>::new(team.as_uuid(), run.as_uuid(), task.as_uuid())
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(db_error)
}

/// The run header (without its logic's plan) and one of its tasks, in one statement, both rows
/// locked for the rest of the transaction. Locking the task row too matters: when the statement waits for the run's
/// lock, PostgreSQL re-reads the newest version only of the rows it locks, so an unlocked
/// joined task row could be one a concurrent update has since replaced. `None` when either
/// is missing.
async fn locked_run_and_task(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    run: RunId,
    task: TaskId,
) -> DomainResult<Option<(RunHeaderRow, ListedTaskRow)>> {
    LockedRunAndTask::new(team.as_uuid(), run.as_uuid(), task.as_uuid())
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(db_error)
}

/// Writes `task` as a change left it, from `before` as the change read it (its elements
/// stored in the API's form or not).
async fn write_task(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    task: &RunTask,
    before: &RunTask,
    stored_in_api_form: bool,
) -> DomainResult<()> {
    WriteTask::new(team.as_uuid(), task, before, stored_in_api_form)
        .execute(&mut conn)
        .await
        .map(|_| ())
        .map_err(db_error)
}

/// The ids of a team's runs that pass `filter` and are `cursor`: one row when the cursor is
/// a run the listing can continue from.
pub(super) fn run_cursor(
    team: TeamId,
    filter: RunFilter,
    cursor: Cursor,
) -> runs::BoxedQuery<'static, diesel::pg::Pg, diesel::sql_types::Uuid> {
    filtered(team, filter)
        .filter(runs::id.eq(cursor.id()))
        .select(runs::id)
}

/// Writes a started run (header, sections, tasks, events) on a connection inside a
/// transaction: Create a Run's, or a schedule occurrence's beside the schedule's move.
pub(super) async fn insert_run(c: &AsyncPgConnection, new_run: &NewRun) -> Result<(), Failure> {
    let run = &new_run.run;
    let sections: Vec<_> = run
        .sections
        .iter()
        .map(|s| RunSectionRow::from_domain(run, s))
        .collect();
    let tasks: Vec<_> = new_run
        .tasks
        .iter()
        .map(|t| RunTaskRow::from_domain(run.team_id, t))
        .collect();
    // Sent together (pipelined): one round trip instead of four. PostgreSQL runs them in
    // order, so the sections and tasks find their run. All four answers are awaited and the
    // first error in statement order is the one reported: a failing insert of the run (its
    // template's foreign key) makes the others answer "transaction aborted", and whichever
    // future is polled to its error first must not decide which error the caller sees.
    let (mut to_runs, mut to_sections, mut to_tasks) = (c, c, c);
    let (run_row, section_rows, task_rows, events) = join4(
        diesel::insert_into(runs::table)
            .values(RunRow::from_domain(run))
            .execute(&mut to_runs)
            .map_err(Failure::from),
        async {
            if sections.is_empty() {
                return Ok(0);
            }
            InsertRunSections::of(sections)
                .execute(&mut to_sections)
                .await
                .map_err(Failure::from)
        },
        async {
            if tasks.is_empty() {
                return Ok(0);
            }
            InsertRunTasks::of(tasks)
                .execute(&mut to_tasks)
                .await
                .map_err(Failure::from)
        },
        append_events(c, &new_run.events).map_err(Failure::from),
    )
    .await;
    run_row?;
    section_rows?;
    task_rows?;
    events?;
    Ok(())
}

/// A page of a team's runs, newest first, with their sections.
async fn list_runs_on(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    filter: RunFilter,
    page: PageRequest,
) -> DomainResult<Page<Run>> {
    // An unknown cursor empties the page, and only an empty page asks about the cursor alone.
    let after = page.cursor.map(|c| c.id());
    let rows = RunsPage::new(team, filter, after, rows_to_fetch(page.limit))
        .load_stream(&mut conn)
        .await;
    let rows: Vec<RunRow> = collect_page(rows, page.limit).await.map_err(db_error)?;
    if rows.is_empty() {
        if let Some(cursor) = page.cursor {
            let known: Option<Uuid> = run_cursor(team, filter, cursor)
                .first(&mut conn)
                .await
                .optional()
                .map_err(db_error)?;
            known.ok_or_else(Cursor::unknown)?;
        }
        return Ok(Page::from_fetched(Vec::new(), page.limit, |r: &Run| {
            r.id.as_uuid()
        }));
    }
    let runs = with_sections(conn, team, rows).await?;
    Ok(Page::from_fetched(runs, page.limit, |r| r.id.as_uuid()))
}

/// A page of a run's tasks, by position.
async fn list_tasks_on(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    run: RunId,
    page: PageRequest,
) -> DomainResult<Page<ListedTask>> {
    let (team_id, run_id, limit) = (team.as_uuid(), run.as_uuid(), rows_to_fetch(page.limit));
    // An unknown cursor has no position, which empties the page; only an empty page asks
    // what is unknown.
    let rows: Vec<ListedTaskRow> = match page.cursor {
        None => {
            let rows = FirstTasks::new(team_id, run_id, limit)
                .load_stream(&mut conn)
                .await;
            collect_page(rows, page.limit).await
        }
        Some(cursor) => {
            let rows = TasksAfter::new(team_id, run_id, cursor.id(), limit)
                .load_stream(&mut conn)
                .await;
            collect_page(rows, page.limit).await
        }
    }
    .map_err(db_error)?;
    // Every run has tasks: an empty page is an unknown run (404), an unknown cursor (400),
    // or the end of the list after the last task.
    if rows.is_empty() {
        let cursor_known = match page.cursor {
            Some(cursor) => task_row(conn, team, run, TaskId::from_uuid(cursor.id()))
                .await?
                .is_some(),
            None => false,
        };
        if !cursor_known {
            run_header(conn, team, run, false).await?;
            if page.cursor.is_some() {
                return Err(Cursor::unknown().into());
            }
        }
    }
    let tasks = rows
        .into_iter()
        .map(ListedTaskRow::into_domain)
        .collect::<DomainResult<Vec<_>>>()?;
    Ok(Page::from_fetched(tasks, page.limit, |t| t.id.as_uuid()))
}

/// A task of a run: not found as the run when the run is unknown, else as the task.
async fn get_task_on(
    conn: &AsyncPgConnection,
    team: TeamId,
    run: RunId,
    task: TaskId,
) -> DomainResult<RunTask> {
    match task_row(conn, team, run, task).await? {
        Some(row) => row.into_domain(),
        None => {
            run_header(conn, team, run, false).await?;
            Err(not_found(Resource::Task))
        }
    }
}

/// The task's assignee column alone; a missing task is told apart from a missing run as
/// [`get_task_on`] tells them.
async fn task_assignee_on(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    run: RunId,
    task: TaskId,
) -> DomainResult<Option<Assignee>> {
    let found: Option<Option<String>> =
        OneTask::<Unlocked, AssigneeColumn>::new(team.as_uuid(), run.as_uuid(), task.as_uuid())
            .get_result(&mut conn)
            .await
            .optional()
            .map_err(db_error)?;
    match found {
        Some(assignee) => assignee.map(|a| parse("assignee", &a)).transpose(),
        None => {
            run_header(conn, team, run, false).await?;
            Err(not_found(Resource::Task))
        }
    }
}

#[async_trait]
impl RunStore for PgStore {
    async fn create_run(&self, new_run: &NewRun) -> DomainResult<()> {
        let run = &new_run.run;
        let mut conn = self.conn().await?;
        let written = conn
            .transaction::<_, Failure, _>(async |conn| insert_run(conn, new_run).await)
            .await;
        if written.is_ok() && !new_run.events.is_empty() {
            self.ring();
        }
        if let (Ok(()), Some(logic)) = (&written, &run.logic) {
            self.plans.keep(run.team_id, run.id, logic.plan.clone());
        }
        match written {
            // The template of another team (or none) fails the run's foreign key.
            Err(Failure::Db(diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::ForeignKeyViolation,
                _,
            ))) => Err(not_found(Resource::Template)),
            other => other.map_err(Into::into),
        }
    }

    async fn get_run(&self, team: TeamId, id: RunId) -> DomainResult<Run> {
        // Independent reads, pipelined: one round trip for both.
        let (row, sections) = super::shared::on_shared!(self, |conn| try_join(
            run_header(conn, team, id, false),
            sections_of_runs(conn, team, &[id.as_uuid()]),
        ))?;
        row.into_domain(sections.into_iter().map(|(_, s)| s).collect())
    }

    async fn list_runs(
        &self,
        team: TeamId,
        filter: RunFilter,
        page: PageRequest,
    ) -> DomainResult<Page<Run>> {
        super::shared::on_shared!(self, |conn| list_runs_on(conn, team, filter, page))
    }

    async fn list_tasks(
        &self,
        team: TeamId,
        run: RunId,
        page: PageRequest,
    ) -> DomainResult<Page<ListedTask>> {
        super::shared::on_shared!(self, |conn| list_tasks_on(conn, team, run, page))
    }

    async fn list_inbox(
        &self,
        team: TeamId,
        filter: &InboxFilter,
        now: OffsetDateTime,
        page: PageRequest,
    ) -> DomainResult<Page<InboxTask>> {
        super::inbox::list(self, team, filter, now, page).await
    }

    async fn get_task(&self, team: TeamId, run: RunId, task: TaskId) -> DomainResult<RunTask> {
        super::shared::on_shared!(self, |conn| get_task_on(conn, team, run, task))
    }

    async fn task_assignee(
        &self,
        team: TeamId,
        run: RunId,
        task: TaskId,
    ) -> DomainResult<Option<Assignee>> {
        super::shared::on_shared!(self, |conn| task_assignee_on(conn, team, run, task))
    }

    async fn update_task(
        &self,
        team: TeamId,
        run: RunId,
        task: TaskId,
        decide: &TaskDecision<'_>,
    ) -> DomainResult<TaskChange> {
        self.update_task_cleared(team, run, task, decide, &Cleared)
            .await
    }

    async fn update_task_cleared(
        &self,
        team: TeamId,
        run: RunId,
        task: TaskId,
        decide: &TaskDecision<'_>,
        clearance: &dyn Clearance,
    ) -> DomainResult<TaskChange> {
        let mut conn = self.conn().await?;
        // The run row's lock serialises every change to the run's tasks: no update is lost
        // and the run completes exactly once. Sections are not read: the decision never needs
        // them, and reading them would cost a query per update.
        let (transaction, found) = Transaction::begin_with(&mut conn, async |conn| {
            locked_run_and_task(conn, team, run, task).await
        })
        .await
        .map_err(DomainError::from)?;
        let outcome = async {
            let conn = transaction.conn();
            let Some((header, current)) = found else {
                run_header(conn, team, run, false).await?;
                return Err(DomainError::NotFound(Resource::Task).into());
            };
            let before = with_plan(conn, &self.plans, header).await?;
            // The task's elements as stored: in the earlier form (`docs/decisions.md`), they
            // are written again in the current one whether the change touched them or not.
            let current = current.into_domain()?;
            let stored_in_api_form = current.custom_elements.in_api_form();
            let current = current.parsed().map_err(|e| corrupt("run task", e))?;
            let change = decide(&before, &current)?;
            // The locked read went out beside the caller's admission, maybe: nothing is
            // written until it admits the caller (a refusal rolls back, the locks go).
            clearance.cleared().await?;
            if change.changed {
                // Independent writes under the locks taken above, pipelined: one round trip.
                // The other tasks' flags are written with them: under the run's lock, no one
                // else writes those rows.
                try_join4(
                    write_task(conn, team, &change.task, &current, stored_in_api_form),
                    write_run(conn, &change.run, Some(&before)),
                    write_flags(conn, team, run, &change.flags),
                    append_events(conn, &change.events),
                )
                .await?;
            } else {
                append_events(conn, &change.events).await?;
            }
            Ok::<_, Failure>(change)
        }
        .await;
        let change = transaction.end(outcome).await.map_err(DomainError::from)?;
        if !change.events.is_empty() {
            self.ring();
        }
        Ok(change)
    }

    async fn update_tasks(
        &self,
        team: TeamId,
        run: RunId,
        tasks: &[TaskId],
        decide: &TasksDecision<'_>,
    ) -> DomainResult<TasksChange> {
        let mut conn = self.conn().await?;
        batch::update_tasks(&mut conn, &self.plans, team, run, tasks, decide).await
    }

    async fn get_share(&self, team: TeamId, run: RunId) -> DomainResult<Option<Share>> {
        let mut conn = self.conn().await?;
        run_header(&conn, team, run, false).await?;
        sharing::load_share(&mut conn, team, run).await
    }

    async fn share_run(
        &self,
        team: TeamId,
        run: RunId,
        decide: &ShareDecision<'_>,
    ) -> DomainResult<ShareChange> {
        let mut conn = self.conn().await?;
        let change = sharing::share(&mut conn, team, run, decide).await?;
        self.known_tokens
            .remember(TokenKind::ShareLink, &change.token.digest(), team.as_uuid());
        if !change.events.is_empty() {
            self.ring();
        }
        Ok(change)
    }

    async fn add_share_link(
        &self,
        team: TeamId,
        run: RunId,
        token: &ShareToken,
        at: OffsetDateTime,
    ) -> DomainResult<bool> {
        let mut conn = self.conn().await?;
        let added = sharing::add_link(&mut conn, team, run, token, at).await?;
        if added {
            self.known_tokens
                .remember(TokenKind::ShareLink, &token.digest(), team.as_uuid());
        }
        Ok(added)
    }

    async fn unshare_run(
        &self,
        team: TeamId,
        run: RunId,
        now: OffsetDateTime,
    ) -> DomainResult<Run> {
        let mut conn = self.conn().await?;
        sharing::unshare(&mut conn, team, run, now).await
    }

    async fn find_shared_run(&self, run: RunId, token: &ShareToken) -> DomainResult<(Run, Share)> {
        let conn = self.conn().await?;
        sharing::find_shared(&conn, &self.known_tokens, run, token).await
    }

    async fn read_shared_run(
        &self,
        run: RunId,
        token: &ShareToken,
    ) -> DomainResult<(Run, Share, Vec<RunTask>)> {
        let conn = self.conn().await?;
        sharing::read_shared(&conn, &self.known_tokens, run, token).await
    }

    async fn record_guest_engagement(
        &self,
        team: TeamId,
        run: RunId,
        at: OffsetDateTime,
    ) -> DomainResult<bool> {
        let conn = self.conn().await?;
        sharing::record_engagement(&conn, team, run, at).await
    }
}
