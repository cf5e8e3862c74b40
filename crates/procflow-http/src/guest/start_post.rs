//! The post of a run link's start page (API contract 13.2): the form read strictly, the
//! honeypot, and the limits per link (100 an hour) and per client address (10 a minute; both
//! settings, `HttpConfig`), counted in the store's rolling windows (`rate_windows`) like the
//! guest post limits, so that they hold across server instances, and behind the same
//! in-process gate: a start that a limit would certainly refuse (a robot's flood, honeypot
//! or not, once it has used its quota) is refused from memory, without a connection or a row
//! lock.

use std::net::IpAddr;

use procflow_domain::error::DomainResult;
use procflow_domain::ports::RateDecision;
use procflow_domain::values::ShareToken;
use procflow_domain::window::WindowLimit;
use time::Duration;

use super::form::decode;
use super::limit::{address_key, decide_gated, refused, token_tag};
use crate::AppState;

/// What the start form sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct StartForm {
    pub(crate) name: String,
    pub(crate) email: String,
    /// The honeypot: only a robot fills it in.
    pub(crate) website: String,
}

/// Reads the start form: `name`, `email`, `website`; other names are ignored. `None` when a
/// name or value is not UTF-8 once decoded.
pub(crate) fn read_start_form(body: &[u8]) -> Option<StartForm> {
    let mut form = StartForm::default();
    for pair in body.split(|b| *b == b'&').filter(|pair| !pair.is_empty()) {
        let (name, value) = match pair.iter().position(|b| *b == b'=') {
            Some(at) => (&pair[..at], &pair[at + 1..]),
            None => (pair, &[][..]),
        };
        let value = decode(value).ok()?;
        match decode(name).ok()?.as_str() {
            "name" => form.name = value,
            "email" => form.email = value,
            "website" => form.website = value,
            _ => {}
        }
    }
    Some(form)
}

/// Counts one start with `token` from `client` against the address's per-minute limit, then
/// the link's hourly limit; admitted only when both have room. Either limit that this
/// instance knows would certainly refuse refuses first, from memory; then the address is
/// decided before the link, so that posts refused by their address never use up the link's
/// quota. The link's count is kept by a tag of its token's digest (the token never reaches
/// the store); an IPv6 client is counted by its /64.
///
/// # Errors
/// Only store failures.
pub(crate) async fn admit_start(
    state: &AppState,
    token: &ShareToken,
    client: Option<IpAddr>,
) -> DomainResult<RateDecision> {
    let gate = &state.run_link_gate;
    let link = (
        WindowLimit {
            name: format!("run-link:link:{}", token_tag(token)),
            limit: state.config.run_link_starts_per_hour_per_link,
        },
        Duration::hours(1),
    );
    let address = client.map(|client| {
        (
            WindowLimit {
                name: format!("run-link:address:{}", address_key(client)),
                limit: state.config.run_link_starts_per_minute_per_address,
            },
            Duration::minutes(1),
        )
    });
    let now = state.services.clock.now();
    if let Some(until) = address
        .iter()
        .chain([&link])
        .filter_map(|(limit, window)| {
            gate.slot(&limit.name, now, *window)
                .certain_refusal(now, limit.limit, *window)
        })
        .max()
    {
        return Ok(refused(until));
    }
    if let Some((limit, window)) = address {
        let decided = decide_gated(state, gate, vec![limit], window).await?;
        if !decided.allowed {
            return Ok(decided);
        }
    }
    let (limit, window) = link;
    decide_gated(state, gate, vec![limit], window).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_keeps_its_three_fields_and_ignores_others() {
        let form =
            read_start_form(b"name=Ada+L%C3%B6velace&email=a%40b.example&x=1&website=").unwrap();
        assert_eq!(form.name, "Ada Lövelace");
        assert_eq!(form.email, "a@b.example");
        assert_eq!(form.website, "");
        assert!(read_start_form(b"name=%FF").is_none());
    }
}
