//! Link sharing on PostgreSQL: the share row, its links (each a token's digest), the guest row,
//! and the run's `is_shared`.

use diesel::prelude::*;
use diesel::upsert::excluded;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use futures_util::TryFutureExt;
use futures_util::future::try_join;
use procflow_domain::error::{DomainError, DomainResult, Resource};
use procflow_domain::ids::{RunId, TeamId};
use procflow_domain::ports::ShareDecision;
use procflow_domain::run::{Run, RunTask};
use procflow_domain::sharing::{Share, ShareChange};
use procflow_domain::team::Subscription;
use procflow_domain::values::ShareToken;
use time::OffsetDateTime;

use super::directory::{self, KnownTokens, TokenKind};
use super::runs::{run_header, with_sections, write_run};
use super::{append_events, not_found};
use crate::error::{Failure, db_error};
use crate::rows::run::{RunRow, RunSectionRow, RunTaskRow};
use crate::rows::share::{GuestRow, ShareLinkRow, ShareRow};
use crate::schema::{
    run_guests, run_sections, run_share_links, run_shares, run_tasks, runs, teams,
};

pub(super) async fn load_share(
    conn: &mut AsyncPgConnection,
    team: TeamId,
    run: RunId,
) -> DomainResult<Option<Share>> {
    let found: Option<(ShareRow, Option<GuestRow>)> = run_shares::table
        .left_join(
            run_guests::table.on(run_guests::team_id
                .eq(run_shares::team_id)
                .and(run_guests::run_id.eq(run_shares::run_id))),
        )
        .filter(run_shares::team_id.eq(team.as_uuid()))
        .filter(run_shares::run_id.eq(run.as_uuid()))
        .select((ShareRow::as_select(), Option::<GuestRow>::as_select()))
        .first(conn)
        .await
        .optional()
        .map_err(db_error)?;
    found
        .map(|(share, guest)| share.into_domain(guest))
        .transpose()
}

pub(super) async fn share(
    conn: &mut AsyncPgConnection,
    team: TeamId,
    run: RunId,
    decide: &ShareDecision<'_>,
) -> DomainResult<ShareChange> {
    conn.transaction::<_, Failure, _>(async |conn| {
        let header = run_header(conn, team, run, true)
            .await?
            .into_domain(Vec::new())?;
        let current = load_share(conn, team, run).await?;
        let change = decide(&header, current.as_ref())?;
        // Turning sharing on stamps the run's updated_at with the decision's time: that is
        // when the share began (and when this invitation's link was made).
        let at = change.run.updated_at.unwrap_or(header.created_at);
        if current.is_none() {
            diesel::insert_into(run_shares::table)
                .values(ShareRow {
                    team_id: team.as_uuid(),
                    run_id: run.as_uuid(),
                    created_at: at,
                })
                .execute(conn)
                .await?;
        }
        let digest = change.token.digest();
        diesel::insert_into(run_share_links::table)
            .values(ShareLinkRow {
                team_id: team.as_uuid(),
                run_id: run.as_uuid(),
                token_hash: digest.clone(),
                created_at: at,
            })
            .execute(conn)
            .await?;
        directory::enter(conn, TokenKind::ShareLink, &digest, team.as_uuid()).await?;
        if let Some(guest) = &change.invited {
            diesel::insert_into(run_guests::table)
                .values(GuestRow::from_domain(team, run, guest))
                .on_conflict((run_guests::team_id, run_guests::run_id))
                .do_update()
                .set((
                    run_guests::enable_reminders.eq(excluded(run_guests::enable_reminders)),
                    run_guests::reminder_days.eq(excluded(run_guests::reminder_days)),
                    run_guests::invited_at.eq(excluded(run_guests::invited_at)),
                ))
                .execute(conn)
                .await?;
        }
        if change.run != header {
            write_run(conn, &change.run, Some(&header)).await?;
        }
        append_events(conn, &change.events).await?;
        Ok(change)
    })
    .await
    .map_err(Into::into)
}

pub(super) async fn add_link(
    conn: &mut AsyncPgConnection,
    team: TeamId,
    run: RunId,
    token: &ShareToken,
    at: OffsetDateTime,
) -> DomainResult<bool> {
    let digest = token.digest();
    conn.transaction::<_, Failure, _>(async |conn| {
        // Kept only while the run is shared: the share's row is the link's parent.
        let kept = diesel::insert_into(run_share_links::table)
            .values(
                run_shares::table
                    .filter(run_shares::team_id.eq(team.as_uuid()))
                    .filter(run_shares::run_id.eq(run.as_uuid()))
                    .select((
                        run_shares::team_id,
                        run_shares::run_id,
                        digest.as_str().into_sql::<diesel::sql_types::Text>(),
                        at.into_sql::<diesel::sql_types::Timestamptz>(),
                    )),
            )
            .into_columns((
                run_share_links::team_id,
                run_share_links::run_id,
                run_share_links::token_hash,
                run_share_links::created_at,
            ))
            .execute(conn)
            .await?;
        if kept == 1 {
            directory::enter(conn, TokenKind::ShareLink, &digest, team.as_uuid()).await?;
        }
        Ok(kept == 1)
    })
    .await
    .map_err(Into::into)
}

pub(super) async fn unshare(
    conn: &mut AsyncPgConnection,
    team: TeamId,
    run: RunId,
    now: OffsetDateTime,
) -> DomainResult<Run> {
    let row = conn
        .transaction::<_, Failure, _>(async |conn| {
            let mut row = run_header(conn, team, run, true).await?;
            let header = &mut row.header;
            diesel::delete(
                run_shares::table
                    .filter(run_shares::team_id.eq(team.as_uuid()))
                    .filter(run_shares::run_id.eq(run.as_uuid())),
            )
            .execute(conn)
            .await?;
            if header.is_shared {
                header.is_shared = false;
                header.updated_at = Some(now);
                diesel::update(
                    runs::table
                        .filter(runs::team_id.eq(team.as_uuid()))
                        .filter(runs::id.eq(run.as_uuid())),
                )
                .set((runs::is_shared.eq(false), runs::updated_at.eq(now)))
                .execute(conn)
                .await?;
            }
            Ok(row)
        })
        .await
        .map_err(procflow_domain::error::DomainError::from)?;
    let mut runs = with_sections(conn, team, vec![row]).await?;
    runs.pop().ok_or(not_found(Resource::Run))
}

/// The shared run, its share and its guest, and its sections, read in one round trip: both
/// statements find the run through its link (its token's digest), so neither waits for the
/// other.
pub(super) async fn find_shared(
    conn: &AsyncPgConnection,
    known: &KnownTokens,
    run: RunId,
    token: &ShareToken,
) -> DomainResult<(Run, Share)> {
    let digest = token.digest();
    let team = link_team(conn, known, &digest).await?;
    find_shared_of(conn, team, run, &digest).await
}

/// The team a share link's digest names (the directory), or the run is not found.
async fn link_team(
    conn: &AsyncPgConnection,
    known: &KnownTokens,
    digest: &str,
) -> DomainResult<uuid::Uuid> {
    known
        .team_of(conn, TokenKind::ShareLink, digest)
        .await
        .map_err(db_error)?
        .ok_or(not_found(Resource::Run))
}

/// [`find_shared`] once the directory named the team: every statement on its one shard.
async fn find_shared_of(
    conn: &AsyncPgConnection,
    team: uuid::Uuid,
    run: RunId,
    digest: &str,
) -> DomainResult<(Run, Share)> {
    let (mut to_header, mut to_sections) = (conn, conn);
    let header = runs::table
        .inner_join(
            run_shares::table.on(run_shares::team_id
                .eq(runs::team_id)
                .and(run_shares::run_id.eq(runs::id))),
        )
        .inner_join(
            run_share_links::table.on(run_share_links::team_id
                .eq(run_shares::team_id)
                .and(run_share_links::run_id.eq(run_shares::run_id))),
        )
        .left_join(
            run_guests::table.on(run_guests::team_id
                .eq(run_shares::team_id)
                .and(run_guests::run_id.eq(run_shares::run_id))),
        )
        .inner_join(teams::table.on(teams::id.eq(runs::team_id)))
        .filter(runs::team_id.eq(team))
        .filter(teams::id.eq(team))
        .filter(runs::id.eq(run.as_uuid()))
        .filter(run_share_links::token_hash.eq(digest))
        .select((
            RunRow::as_select(),
            ShareRow::as_select(),
            Option::<GuestRow>::as_select(),
            teams::subscription,
        ))
        .first::<(RunRow, ShareRow, Option<GuestRow>, String)>(&mut to_header);
    let sections = run_sections::table
        .inner_join(
            run_share_links::table.on(run_share_links::team_id
                .eq(run_sections::team_id)
                .and(run_share_links::run_id.eq(run_sections::run_id))),
        )
        .filter(run_sections::team_id.eq(team))
        .filter(run_sections::run_id.eq(run.as_uuid()))
        .filter(run_share_links::token_hash.eq(digest))
        .order(run_sections::position)
        .select(RunSectionRow::as_select())
        .load::<RunSectionRow>(&mut to_sections);
    let (header, sections) = try_join(async { header.await.optional() }, sections)
        .await
        .map_err(db_error)?;
    let (row, share, guest, subscription) = header.ok_or(not_found(Resource::Run))?;
    // Read with the link, in the same statement: the link is right, so its team may be named.
    if subscription != Subscription::Active.as_str() {
        return Err(DomainError::SubscriptionInactive);
    }
    let sections = sections
        .into_iter()
        .map(RunSectionRow::into_domain)
        .collect::<DomainResult<Vec<_>>>()?;
    Ok((row.into_domain(sections)?, share.into_domain(guest)?))
}

/// What a share link opens, in one round trip: the statements of [`find_shared`] and the
/// run's tasks, each finding the run through its link.
pub(super) async fn read_shared(
    conn: &AsyncPgConnection,
    known: &KnownTokens,
    run: RunId,
    token: &ShareToken,
) -> DomainResult<(Run, Share, Vec<RunTask>)> {
    let mut to_tasks = conn;
    let digest = token.digest();
    let team = link_team(conn, known, &digest).await?;
    let tasks = run_tasks::table
        .inner_join(
            run_share_links::table.on(run_share_links::team_id
                .eq(run_tasks::team_id)
                .and(run_share_links::run_id.eq(run_tasks::run_id))),
        )
        .filter(run_tasks::team_id.eq(team))
        .filter(run_tasks::run_id.eq(run.as_uuid()))
        .filter(run_share_links::token_hash.eq(&digest))
        .order(run_tasks::position)
        .select(RunTaskRow::as_select())
        .load::<RunTaskRow>(&mut to_tasks)
        .map_err(db_error);
    let ((run, share), tasks) = try_join(find_shared_of(conn, team, run, &digest), tasks).await?;
    let tasks = tasks
        .into_iter()
        .map(RunTaskRow::into_domain)
        .collect::<DomainResult<Vec<_>>>()?;
    Ok((run, share, tasks))
}

pub(super) async fn record_engagement(
    mut conn: &AsyncPgConnection,
    team: TeamId,
    run: RunId,
    at: OffsetDateTime,
) -> DomainResult<bool> {
    // Only a guest not yet engaged matches: of concurrent calls, one updates the row and the
    // others, re-reading it after its lock, find it engaged.
    let updated = diesel::update(
        run_guests::table
            .filter(run_guests::team_id.eq(team.as_uuid()))
            .filter(run_guests::run_id.eq(run.as_uuid()))
            .filter(run_guests::engaged_at.is_null()),
    )
    .set(run_guests::engaged_at.eq(at))
    .execute(&mut conn)
    .await
    .map_err(db_error)?;
    Ok(updated == 1)
}
