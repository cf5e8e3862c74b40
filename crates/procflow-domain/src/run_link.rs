//! A template's public start link (API contract 13.2): whoever opens it may start a run of the
//! template, as its guest.

use time::OffsetDateTime;

use crate::ids::{TeamId, TemplateId};
use crate::values::ShareToken;

/// A template's run link: at most one per template, until it is turned off.
///
/// Unlike a share link's, its token is kept as well as its digest: the link is meant to be
/// published, and turning it on again answers the same link. Look-ups go by the digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunLink {
    /// The template's team.
    pub team_id: TeamId,
    /// The template it starts.
    pub template_id: TemplateId,
    /// The capability in its URL.
    pub token: ShareToken,
    /// When it was turned on.
    pub created_at: OffsetDateTime,
}

impl RunLink {
    /// `{team base_url}/start/<token>`.
    ///
    /// ```
    /// use procflow_domain::ids::{TeamId, TemplateId};
    /// use procflow_domain::run_link::RunLink;
    /// use procflow_domain::values::ShareToken;
    ///
    /// let link = RunLink {
    ///     team_id: TeamId::from_uuid(uuid::Uuid::nil()),
    ///     template_id: TemplateId::from_uuid(uuid::Uuid::nil()),
    ///     token: ShareToken::new("t0k".into()),
    ///     created_at: time::OffsetDateTime::UNIX_EPOCH,
    /// };
    /// assert_eq!(link.url("https://acme.example/"), "https://acme.example/start/t0k");
    /// ```
    #[must_use]
    pub fn url(&self, base_url: &str) -> String {
        format!(
            "{}/start/{}",
            base_url.trim_end_matches('/'),
            self.token.expose()
        )
    }
}
