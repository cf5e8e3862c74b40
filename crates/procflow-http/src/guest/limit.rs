//! The limits on guest posts (API contract 7.1): per run and per client address in any rolling
//! minute, counted in the store so that they hold across server instances, behind the
//! instance's in-process gate (crate::admission): a post that a limit would certainly refuse
//! (the store refused that name until a moment not reached yet, or this instance alone had
//! that many posts admitted) is refused from memory, without a connection or a row lock, and
//! only a few posts of one name are with the store at once.

use std::net::IpAddr;

use procflow_domain::error::DomainResult;
use procflow_domain::ids::RunId;
use procflow_domain::ports::RateDecision;
use procflow_domain::values::ShareToken;
use procflow_domain::window::WindowLimit;
use sha2::{Digest, Sha256};
use time::Duration;

use crate::AppState;
use crate::admission::LocalGate;

/// The rolling window of the limits.
const WINDOW: Duration = Duration::minutes(1);

/// Counts one post to `run` with `token` from `client` against the run's limit and the
/// address's limit, and says whether it is admitted.
///
/// The run's count is kept per token: posts with a wrong token (run ids are no secret) then
/// never use up the quota of the run's guest. An IPv6 client is counted by its /64, which one
/// host can fill with addresses at will.
///
/// # Errors
/// Only store failures.
pub(crate) async fn admit_post(
    state: &AppState,
    run: RunId,
    token: &ShareToken,
    client: Option<IpAddr>,
) -> DomainResult<RateDecision> {
    let token_tag = token_tag(token);
    let mut limits = vec![WindowLimit {
        name: format!("guest-post:run:{run}:{token_tag}"),
        limit: state.config.guest_posts_per_minute_per_run,
    }];
    if let Some(client) = client {
        limits.push(WindowLimit {
            name: format!("guest-post:address:{}", address_key(client)),
            limit: state.config.guest_posts_per_minute_per_address,
        });
    }
    decide_gated(state, &state.guest_gate, limits, WINDOW).await
}

/// Decides `limits` (all over `window`) for one request: refused from what `gate` knows
/// when one of them would certainly refuse it (crate::admission), otherwise by the store, a
/// few requests of a name at a time; what the store answered is remembered in `gate`. A name
/// is always decided over the same window.
///
/// # Errors
/// Only store failures.
pub(super) async fn decide_gated(
    state: &AppState,
    gate: &LocalGate<String>,
    mut limits: Vec<WindowLimit>,
    window: Duration,
) -> DomainResult<RateDecision> {
    limits.sort();
    let clock = &state.services.clock;
    let slots: Vec<_> = limits
        .iter()
        .map(|limit| gate.slot(&limit.name, clock.now(), window))
        .collect();
    let certain = |now| {
        slots
            .iter()
            .zip(&limits)
            .filter_map(|(slot, limit)| slot.certain_refusal(now, limit.limit, window))
            .max()
    };
    let now = clock.now();
    if let Some(until) = certain(now) {
        return Ok(refused(until));
    }
    // Turns are taken in name order, so two posts sharing names never wait on each other.
    let mut turns = Vec::with_capacity(slots.len());
    for slot in &slots {
        turns.push(slot.turn().await);
    }
    let now = clock.now();
    if let Some(until) = certain(now) {
        return Ok(refused(until));
    }
    let decided = state
        .services
        .windows
        .decide_all(&limits, now, window)
        .await?;
    for (slot, full_until) in slots.iter().zip(&decided.full_until) {
        match full_until {
            _ if decided.decision.allowed => slot.admitted(now, window),
            Some(until) => slot.refused(*until),
            None => {}
        }
    }
    drop(turns);
    Ok(decided.decision)
}

/// A refusal answered from memory: nothing remains until `until`.
pub(super) fn refused(until: time::OffsetDateTime) -> RateDecision {
    RateDecision {
        allowed: false,
        remaining: 0,
        reset_at: until,
    }
}

/// What names a token in a window's name: the first 8 bytes of its digest in hex (the token
/// itself never reaches the store).
pub(super) fn token_tag(token: &ShareToken) -> String {
    let digest = Sha256::digest(token.expose().as_bytes());
    hex::encode(&digest[..8])
}

/// An IPv4 address as it is; an IPv6 address by its /64 network (IPv4-mapped ones as IPv4).
pub(super) fn address_key(address: IpAddr) -> String {
    match address {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::address_key;

    #[test]
    fn addresses_are_counted_by_host_or_by_ipv6_network() {
        assert_eq!(address_key("192.0.2.7".parse().unwrap()), "192.0.2.7");
        assert_eq!(
            address_key("2001:db8:1:2:aaaa::1".parse().unwrap()),
            address_key("2001:db8:1:2:bbbb::9".parse().unwrap())
        );
        assert_eq!(
            address_key("2001:db8:1:2::1".parse().unwrap()),
            "2001:db8:1:2::/64"
        );
        assert_eq!(
            address_key("::ffff:192.0.2.7".parse().unwrap()),
            "192.0.2.7"
        );
    }
}
