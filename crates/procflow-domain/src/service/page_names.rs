//! How the guest page names the people behind what it shows (comments, attachments): a member
//! by name, else by the address they wrote or uploaded with; the run's guest as `Guest`; a key
//! that named no member as `API`. One place, so that a thread and a file list agree.

use std::collections::HashMap;

use crate::actor::Actor;
use crate::error::DomainResult;
use crate::ids::{TeamId, UserId};
use crate::ports::TeamStore;
use crate::values::Email;

/// The display names of the members among `actors`, each looked up once; a member without a
/// (non-blank) name maps to `None`.
pub(super) async fn member_names(
    teams: &dyn TeamStore,
    team: TeamId,
    actors: impl Iterator<Item = Actor>,
) -> DomainResult<HashMap<UserId, Option<String>>> {
    let mut names: HashMap<UserId, Option<String>> = HashMap::new();
    for user in actors.filter_map(Actor::user) {
        if let std::collections::hash_map::Entry::Vacant(slot) = names.entry(user) {
            let member = teams.find_member(team, user).await?;
            slot.insert(
                member
                    .and_then(|m| m.name)
                    .filter(|name| !name.trim().is_empty()),
            );
        }
    }
    Ok(names)
}

/// What the page calls `actor`, who acted with `email` (if known).
pub(super) fn shown_name(
    actor: Actor,
    email: Option<&Email>,
    names: &HashMap<UserId, Option<String>>,
) -> String {
    match actor {
        Actor::Guest => "Guest".to_owned(),
        Actor::Api => "API".to_owned(),
        Actor::User(user) => names
            .get(&user)
            .cloned()
            .flatten()
            .or_else(|| email.map(ToString::to_string))
            .unwrap_or_else(|| "A team member".to_owned()),
    }
}
