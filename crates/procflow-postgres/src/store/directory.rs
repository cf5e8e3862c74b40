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
///
/// A map per kind, keyed by the digest's text, so that a look-up borrows the text it is
/// given: the admission asks on every request, and building an owned key each time (with the
/// digest's hex) was about 1 % of a cheap read's instructions.
#[derive(Default)]
pub(super) struct KnownTokens {
    teams: Mutex<HashMap<TokenKind, HashMap<String, Uuid>>>,
}

impl KnownTokens {
    /// Past this many tokens the memory is cleared and filled again (bounds a process's
    /// memory whatever the number of tokens; a forgotten token costs one look-up more).
    const CAPACITY: usize = 100_000;

    /// Remembers that the token of `kind` with `digest` (hex) names `team` (after the
    /// transaction that entered it committed).
    pub(super) fn remember(&self, kind: TokenKind, digest: &str, team: Uuid) {
        let mut teams = self.lock();
        if teams.values().map(HashMap::len).sum::<usize>() >= Self::CAPACITY {
            teams.clear();
        }
        teams
            .entry(kind)
            .or_default()
            .insert(digest.to_owned(), team);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<TokenKind, HashMap<String, Uuid>>> {
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
        let known = self
            .lock()
            .get(&kind)
            .and_then(|teams| teams.get(digest))
            .copied();
        if let Some(team) = known {
            return Ok(Some(team));
        }
        let team = team_of(conn, kind, digest).await?;
        if let Some(team) = team {
            self.remember(kind, digest, team);
        }
        Ok(team)
    }

    /// The team of the API key whose hash is `key_hash`, as [`team_of`](Self::team_of) finds
    /// it; the hash's hex is written on the stack, not in a new string, on every admission.
    pub(super) async fn api_key_team(
        &self,
        conn: &AsyncPgConnection,
        key_hash: &[u8; 32],
    ) -> QueryResult<Option<Uuid>> {
        let mut hex = [0u8; 64];
        // The output is exactly twice the input's length, so this cannot fail; and hex
        // digits are ASCII, so neither can the text.
        hex::encode_to_slice(key_hash, &mut hex)
            .map_err(|e| diesel::result::Error::SerializationError(Box::new(e)))?;
        let digest = std::str::from_utf8(&hex)
            .map_err(|e| diesel::result::Error::SerializationError(Box::new(e)))?;
        self.team_of(conn, TokenKind::ApiKey, digest).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_token_is_found_under_its_kind_alone() {
        let known = KnownTokens::default();
        let team = Uuid::from_u128(1);
        known.remember(TokenKind::ShareLink, "ab12", team);
        let found = |kind| known.lock().get(&kind).and_then(|t| t.get("ab12")).copied();
        assert_eq!(found(TokenKind::ShareLink), Some(team));
        for kind in [TokenKind::ApiKey, TokenKind::RunLink] {
            assert_eq!(found(kind), None, "{kind:?}");
        }
    }

    #[test]
    fn the_memory_is_cleared_once_full_whatever_the_kinds() {
        let known = KnownTokens::default();
        let team = Uuid::from_u128(1);
        for n in 0..KnownTokens::CAPACITY {
            let kind = [TokenKind::ApiKey, TokenKind::ShareLink, TokenKind::RunLink][n % 3];
            known.remember(kind, &n.to_string(), team);
        }
        let count = || known.lock().values().map(HashMap::len).sum::<usize>();
        assert_eq!(count(), KnownTokens::CAPACITY);
        known.remember(TokenKind::RunLink, "one more", team);
        assert_eq!(count(), 1);
        assert_eq!(
            known.lock()[&TokenKind::RunLink].get("one more"),
            Some(&team)
        );
    }
}
