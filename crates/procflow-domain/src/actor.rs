//! Who acts (`started_by`, `completed_by`) and who a task is assigned to.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::ValidationError;
use crate::ids::UserId;
use crate::values::Email;

/// Who performed a change: a team member, the API without a known member, or a guest.
///
/// Written as the member's user id, or the literals `api` and `guest`.
///
/// ```
/// use procflow_domain::actor::Actor;
///
/// assert_eq!(Actor::Api.to_string(), "api");
/// assert_eq!("guest".parse::<Actor>().unwrap(), Actor::Guest);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Actor {
    /// An active member of the team.
    User(UserId),
    /// A request through the API that names no active member.
    Api,
    /// The guest of a shared run, through the share link.
    Guest,
}

impl Actor {
    /// The member, when the actor is one.
    #[must_use]
    pub fn user(self) -> Option<UserId> {
        match self {
            Self::User(user) => Some(user),
            Self::Api | Self::Guest => None,
        }
    }
}

impl fmt::Display for Actor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::User(user) => user.fmt(f),
            Self::Api => f.write_str("api"),
            Self::Guest => f.write_str("guest"),
        }
    }
}

impl FromStr for Actor {
    type Err = ValidationError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "api" => Ok(Self::Api),
            "guest" => Ok(Self::Guest),
            other => other.parse().map(Self::User).map_err(|_| {
                ValidationError::field(
                    "actor",
                    format!(
                        "{} is not a user id, api or guest",
                        crate::quote::quote(other)
                    ),
                )
            }),
        }
    }
}

impl TryFrom<String> for Actor {
    type Error = ValidationError;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<Actor> for String {
    fn from(actor: Actor) -> Self {
        actor.to_string()
    }
}

/// Who a task is assigned to: a member (by user id) or anyone else by email.
///
/// ```
/// use procflow_domain::actor::Assignee;
///
/// let outside: Assignee = "guest@example.org".parse().unwrap();
/// assert!(matches!(outside, Assignee::Email(_)));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Assignee {
    /// A member of the team.
    User(UserId),
    /// Someone outside the team (an external assignee, such as the guest).
    Email(Email),
}

impl fmt::Display for Assignee {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::User(user) => user.fmt(f),
            Self::Email(email) => email.fmt(f),
        }
    }
}

impl FromStr for Assignee {
    type Err = ValidationError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if let Ok(user) = text.parse() {
            return Ok(Self::User(user));
        }
        text.parse().map(Self::Email).map_err(|_| {
            ValidationError::field(
                "assignee",
                format!(
                    "{} is neither a user id nor an email address",
                    crate::quote::quote(text)
                ),
            )
        })
    }
}

impl TryFrom<String> for Assignee {
    type Error = ValidationError;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<Assignee> for String {
    fn from(assignee: Assignee) -> Self {
        assignee.to_string()
    }
}

/// The assignee rule of a template task: a fixed assignee or whoever starts the run.
///
/// Written as a user id, an email, or the literal `runner`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum TemplateAssignee {
    /// The member a run is attributed to (`actor_email`); unassigned without one.
    Runner,
    /// Always this assignee.
    Fixed(Assignee),
}

impl fmt::Display for TemplateAssignee {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Runner => f.write_str("runner"),
            Self::Fixed(assignee) => assignee.fmt(f),
        }
    }
}

impl FromStr for TemplateAssignee {
    type Err = ValidationError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text == "runner" {
            return Ok(Self::Runner);
        }
        text.parse().map(Self::Fixed).map_err(|_| {
            ValidationError::field(
                "assignee",
                format!(
                    "{} is not a user id, an email address or \"runner\"",
                    crate::quote::quote(text)
                ),
            )
        })
    }
}

impl TryFrom<String> for TemplateAssignee {
    type Error = ValidationError;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<TemplateAssignee> for String {
    fn from(assignee: TemplateAssignee) -> Self {
        assignee.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actors_round_trip_through_text() {
        let user = UserId::from_uuid(uuid::Uuid::now_v7());
        for actor in [Actor::Api, Actor::Guest, Actor::User(user)] {
            assert_eq!(actor.to_string().parse::<Actor>().unwrap(), actor);
        }
        assert!("robot".parse::<Actor>().is_err());
    }

    #[test]
    fn assignee_rules_read_runner_ids_and_emails() {
        assert_eq!(
            "runner".parse::<TemplateAssignee>().unwrap(),
            TemplateAssignee::Runner
        );
        assert!(matches!(
            "a@b.co".parse::<TemplateAssignee>().unwrap(),
            TemplateAssignee::Fixed(Assignee::Email(_))
        ));
        assert!("nobody".parse::<TemplateAssignee>().is_err());
        assert!("".parse::<Assignee>().is_err());
    }
}
