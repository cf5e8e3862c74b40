//! The post of a run link's start page (API contract 13.2): the form read strictly, the
//! honeypot, and the limits per client address (10 a minute) and per link (100 an hour),
//! counted in the store's rolling windows (`rate_windows`) like the guest post limits, so that
//! they hold across server instances.

use std::net::IpAddr;

use procflow_domain::error::DomainResult;
use procflow_domain::ports::RateDecision;
use procflow_domain::values::ShareToken;
use procflow_domain::window::WindowLimit;
use time::Duration;

use super::form::decode;
use super::limit::{address_key, token_tag};
use crate::AppState;

/// Starts admitted per client address in any minute.
pub(crate) const PER_ADDRESS_PER_MINUTE: u32 = 10;
/// Starts admitted per link in any hour.
pub(crate) const PER_LINK_PER_HOUR: u32 = 100;

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

/// Counts one start with `token` from `client` against the link's hourly limit, then the
/// address's per-minute limit; admitted only when both have room. The link's count is kept by
/// a tag of its token's digest (the token never reaches the store); an IPv6 client is counted
/// by its /64.
///
/// # Errors
/// Only store failures.
pub(crate) async fn admit_start(
    state: &AppState,
    token: &ShareToken,
    client: Option<IpAddr>,
) -> DomainResult<RateDecision> {
    let tag = token_tag(token);
    let windows = &state.services.windows;
    let now = state.services.clock.now();
    let link = [WindowLimit {
        name: format!("run-link:link:{tag}"),
        limit: PER_LINK_PER_HOUR,
    }];
    let decided = windows.decide_all(&link, now, Duration::hours(1)).await?;
    if !decided.decision.allowed {
        return Ok(decided.decision);
    }
    let Some(client) = client else {
        return Ok(decided.decision);
    };
    let address = [WindowLimit {
        name: format!("run-link:address:{}", address_key(client)),
        limit: PER_ADDRESS_PER_MINUTE,
    }];
    Ok(windows
        .decide_all(&address, now, Duration::minutes(1))
        .await?
        .decision)
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
