//! The token directory (migration `2026-11-28-000100_citus_ready`): the team that each token
//! naming no team (an API key, a share link) belongs to, found by the token's digest. A global
//! table (a reference table on Citus), so the look-up never asks every shard; the token's row
//! is then read on its team's shard, which decides: an entry whose row is gone finds nothing.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use crate::schema::token_directory;

/// A kind of token the directory holds: one per way a request names its team by a token alone.
/// A new kind is a new variant (and its rows): the table does not change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TokenKind {
    /// An API key (`api_keys.key_hash`).
    ApiKey,
    /// A run's share link (`run_share_links.token_hash`).
    ShareLink,
    /// A template's run link (`run_links.token_hash`, API contract 13.2).
    RunLink,
}

impl TokenKind {
    /// The value of `token_directory.kind`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ApiKey => "api_key",
            Self::ShareLink => "share_link",
            Self::RunLink => "run_link",
        }
    }
}

/// The team the token of `kind` with `digest` (hex) names, if any.
async fn team_of(
    mut conn: &AsyncPgConnection,
    kind: TokenKind,
    digest: &str,
) -> QueryResult<Option<Uuid>> {
    token_directory::table
        .filter(token_directory::kind.eq(kind.as_str()))
        .filter(token_directory::digest.eq(digest))
        .select(token_directory::team_id)
        .first(&mut conn)
        .await
        .optional()
}

/// Enters a token of `team` (in the transaction that writes the token's own row). A digest
/// entered already (by any team) is a unique violation of `token_directory_pkey`.
pub(super) async fn enter(
    conn: &mut AsyncPgConnection,
    kind: TokenKind,
    digest: &str,
    team: Uuid,
) -> QueryResult<usize> {
    diesel::insert_into(token_directory::table)
        .values((
            token_directory::kind.eq(kind.as_str()),
            token_directory::digest.eq(digest),
            token_directory::team_id.eq(team),
        ))
        .execute(conn)
        .await
}

/// The teams of the tokens this process has entered or looked up: a token never changes team,
/// so what is remembered stays true (a key revoked, a link voided or a row gone is still told
/// by the token's own row, read on every request). It keeps an admission, or a guest page,
/// as few statements as before the directory once a process knows the token.
#[derive(Default)]
pub(super) struct KnownTokens {
    teams: Mutex<HashMap<(TokenKind, String), Uuid>>,
}

impl KnownTokens {
    /// Past this many tokens the memory is cleared and filled again (bounds a process's
    /// memory whatever the number of tokens; a forgotten token costs one look-up more).
    const CAPACITY: usize = 100_000;

    /// Remembers that the token of `kind` with `digest` (hex) names `team` (after the
    /// transaction that entered it committed).
    pub(super) fn remember(&self, kind: TokenKind, digest: &str, team: Uuid) {
        let mut teams = self.lock();
        if teams.len() >= Self::CAPACITY {
            teams.clear();
        }
        teams.insert((kind, digest.to_owned()), team);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(TokenKind, String), Uuid>> {
        self.teams.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The team of the token of `kind` with `digest` (hex): remembered, or read from the
    /// directory.
    pub(super) async fn team_of(
        &self,
        conn: &AsyncPgConnection,
        kind: TokenKind,
        digest: &str,
    ) -> QueryResult<Option<Uuid>> {
        if let Some(team) = self.lock().get(&(kind, digest.to_owned())).copied() {
            return Ok(Some(team));
        }
        let team = team_of(conn, kind, digest).await?;
        if let Some(team) = team {
            self.remember(kind, digest, team);
        }
        Ok(team)
    }
}
