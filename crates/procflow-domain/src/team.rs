//! Teams, their members and API keys: who may call the API, and for which tenant.

use time::OffsetDateTime;

use crate::ids::{ApiKeyId, TeamId, UserId};
use crate::names::named;
use crate::values::Email;

/// A tenant: everything else belongs to exactly one team.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Team {
    /// Its id.
    pub id: TeamId,
    /// Its name.
    pub name: String,
    /// Its own address; share links are built on it. No trailing slash.
    pub base_url: String,
    /// IANA zone name; runs take it at creation.
    pub timezone: String,
    /// The API answers only while the subscription is active.
    pub subscription: Subscription,
    /// When it was created.
    pub created_at: OffsetDateTime,
}

named! {
    /// A team's subscription status.
    pub enum Subscription as "subscription status" {
        /// The API answers.
        Active = "active",
        /// Every API request is refused with 403.
        Inactive = "inactive",
    }
}

/// A person of the team.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// Its user id.
    pub id: UserId,
    /// Its team.
    pub team_id: TeamId,
    /// Unique within the team, ignoring case.
    pub email: Email,
    /// Display name.
    pub name: Option<String>,
    /// Admins may create API keys.
    pub role: Role,
    /// Inactive members are not attributed runs nor assigned tasks.
    pub active: bool,
    /// When it was added.
    pub created_at: OffsetDateTime,
}

named! {
    /// What a member may do.
    pub enum Role as "role" {
        /// May create API keys.
        Admin = "admin",
        /// An ordinary member.
        Member = "member",
    }
}

/// An API key's record; the secret itself is never stored, only its hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiKey {
    /// Its id.
    pub id: ApiKeyId,
    /// The team it acts for.
    pub team_id: TeamId,
    /// A label.
    pub name: Option<String>,
    /// The first characters of the key, for recognising it; not secret.
    pub prefix: String,
    /// The admin who created it.
    pub created_by: UserId,
    /// What it may do: read only, or everything.
    pub scope: KeyScope,
    /// When it was created.
    pub created_at: OffsetDateTime,
    /// When it was revoked; a revoked key authenticates nothing.
    pub revoked_at: Option<OffsetDateTime>,
}

named! {
    /// What an API key may do (API contract 11).
    #[derive(Default)]
    pub enum KeyScope as "key scope" {
        /// Only operations that change nothing (`GET`).
        Read = "read",
        /// Every operation; the default.
        #[default]
        Write = "write",
    }
}

impl KeyScope {
    /// Whether a key of this scope may call an operation that changes something.
    ///
    /// ```
    /// use procflow_domain::team::KeyScope;
    ///
    /// assert!(KeyScope::Write.allows_changes());
    /// assert!(!KeyScope::Read.allows_changes());
    /// assert_eq!(KeyScope::default(), KeyScope::Write);
    /// ```
    #[must_use]
    pub fn allows_changes(self) -> bool {
        self == Self::Write
    }
}

/// The most characters of a team, member or API key name.
pub const MAX_NAME_CHARS: usize = 200;

/// A team, member or key name as given: trimmed, not blank, at most [`MAX_NAME_CHARS`], and
/// without control characters. A team's name is the sender's name of its emails, a header: a
/// line break in it would end that header (and start another), so it is refused where the
/// name is set rather than found where it is sent.
///
/// ```
/// use procflow_domain::team::check_name;
///
/// assert_eq!(check_name("  Acme Ops "), Ok("Acme Ops".to_owned()));
/// assert!(check_name(" ").is_err());
/// assert!(check_name("Acme\r\nBcc: evil@example.org").is_err());
/// assert!(check_name("Tab\there").is_err());
/// ```
///
/// # Errors
/// What is wrong with it, to follow the option's or field's name in a message.
pub fn check_name(text: &str) -> Result<String, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("must not be blank".to_owned());
    }
    if trimmed.chars().count() > MAX_NAME_CHARS {
        return Err(format!("must be at most {MAX_NAME_CHARS} characters"));
    }
    if trimmed.chars().any(char::is_control) {
        return Err("must not contain control characters (line breaks, tabs, NUL, ...)".to_owned());
    }
    Ok(trimmed.to_owned())
}

impl Team {
    /// Whether the API answers for this team.
    #[must_use]
    pub fn is_active(&self) -> bool {
        self.subscription == Subscription::Active
    }
}
