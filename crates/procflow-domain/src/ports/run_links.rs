//! Run links (API contract 13.2): one per template, found by the team's API through the
//! template and by the public through the token alone.

use async_trait::async_trait;

use crate::error::DomainResult;
use crate::ids::{TeamId, TemplateId};
use crate::run_link::RunLink;
use crate::values::ShareToken;

/// Run links.
#[async_trait]
pub trait RunLinkStore: Send + Sync {
    /// Keeps `link` as its template's link unless the template has one already, and answers
    /// the link the template has now (the existing one wins, also between concurrent calls).
    ///
    /// # Errors
    /// `NotFound(Template)` when the template is not the link's team's.
    async fn put_run_link(&self, link: &RunLink) -> DomainResult<RunLink>;

    /// The template's link, if it has one.
    ///
    /// # Errors
    /// Only store failures.
    async fn get_run_link(
        &self,
        team: TeamId,
        template: TemplateId,
    ) -> DomainResult<Option<RunLink>>;

    /// Turns the template's link off: its token opens nothing any more. Answers whether there
    /// was one.
    ///
    /// # Errors
    /// Only store failures.
    async fn delete_run_link(&self, team: TeamId, template: TemplateId) -> DomainResult<bool>;

    /// The link with this token, whichever its team: the token is the capability. `None` for
    /// an unknown or void token.
    ///
    /// # Errors
    /// Only store failures.
    async fn find_run_link(&self, token: &ShareToken) -> DomainResult<Option<RunLink>>;
}
