//! Ports for test servers, chosen outside the kernel's ephemeral range.
//!
//! A disposable server is stopped and started again on the same port (its URL must stay
//! valid). A port the OS hands out for `bind(0)` lies in the ephemeral range, the range it
//! also gives every outgoing connection as its local port: while the server was down, any
//! client on the machine (the suite makes thousands of connections) could take it, and the
//! restart then failed with "address already in use", about once in six runs on a busy
//! machine. A port below (or above) that range is never handed out implicitly: only another
//! test server choosing the same one at random could take it.

use std::hash::{BuildHasher, RandomState};
use std::net::{Ipv4Addr, TcpListener};
use std::ops::RangeInclusive;

use crate::error::Error;

/// Where the kernel keeps its ephemeral range.
const RANGE_FILE: &str = "/proc/sys/net/ipv4/ip_local_port_range";

/// The lowest port chosen: above the well-known and most registered services.
const LOWEST: u16 = 10_000;

/// Candidates drawn before giving up.
const ATTEMPTS: u32 = 200;

/// A port on 127.0.0.1 that nothing listens on right now, outside the ephemeral range when
/// the kernel says what it is (else any free port the OS gives).
pub(crate) fn free_port() -> Result<u16, Error> {
    let Some(candidates) = std::fs::read_to_string(RANGE_FILE)
        .ok()
        .and_then(|text| outside_ephemeral(&text))
    else {
        return any_free_port();
    };
    let random = RandomState::new();
    let span = u32::from(candidates.end() - candidates.start()) + 1;
    for attempt in 0..ATTEMPTS {
        let draw = random.hash_one((std::process::id(), attempt));
        let offset = u16::try_from(draw % u64::from(span)).unwrap_or(0);
        let port = candidates.start() + offset;
        if TcpListener::bind((Ipv4Addr::LOCALHOST, port)).is_ok() {
            return Ok(port);
        }
    }
    any_free_port()
}

/// The widest stretch of ports outside the ephemeral range `text` (`"32768\t60999"`) at or
/// above [`LOWEST`]; `None` when the text is no range or leaves too little room.
fn outside_ephemeral(text: &str) -> Option<RangeInclusive<u16>> {
    let mut bounds = text.split_whitespace().map(str::parse::<u16>);
    let (low, high) = (bounds.next()?.ok()?, bounds.next()?.ok()?);
    let below = (low > LOWEST).then(|| LOWEST..=low - 1);
    let above = (high < u16::MAX).then(|| high.max(LOWEST - 1) + 1..=u16::MAX);
    [below, above]
        .into_iter()
        .flatten()
        .filter(|range| range.end() - range.start() >= 1_000)
        .max_by_key(|range| range.end() - range.start())
}

fn any_free_port() -> Result<u16, Error> {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .map_err(Error::io("asking the OS for a free port on 127.0.0.1"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_chosen_in_the_widest_stretch_outside_the_ephemeral_range() {
        assert_eq!(outside_ephemeral("32768\t60999\n"), Some(10_000..=32_767));
        assert_eq!(outside_ephemeral("1024 40000"), Some(40_001..=65_535));
        assert_eq!(outside_ephemeral("10500 65000"), None);
        assert_eq!(outside_ephemeral("nonsense"), None);
    }

    #[test]
    fn a_chosen_port_is_free_and_outside_the_range() {
        let port = free_port().unwrap();
        let _listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).unwrap();
        if let Some(range) = std::fs::read_to_string(RANGE_FILE)
            .ok()
            .and_then(|text| outside_ephemeral(&text))
        {
            assert!(range.contains(&port), "{port} outside {range:?}");
        }
    }
}
