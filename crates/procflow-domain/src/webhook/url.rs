//! A webhook endpoint's URL: the one grammar the API, its OpenAPI pattern and the store share.

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::ValidationError;
use crate::limits::MAX_URL_BYTES;

/// An absolute `http` or `https` URL of at most [`MAX_URL_BYTES`] characters, with a host that
/// is a domain name, a dotted-quad IPv4 address or a bracketed IPv6 address in hexadecimal
/// groups (`[::ffff:7f00:1]`, not `[::ffff:127.0.0.1]`), an optional port,
/// and an optional path and query of printable ASCII; no user information, no fragment.
///
/// The grammar is written twice, here and as [`WebhookUrl::PATTERN`] for the OpenAPI document,
/// and tests hold the two equal: what the schema accepts, the API accepts. Whether the address
/// may be reached is decided at each delivery attempt, not here
/// ([`refusal`](super::refusal)).
///
/// ```
/// use procflow_domain::webhook::WebhookUrl;
///
/// assert!("https://hooks.example.com/procflow?v=1".parse::<WebhookUrl>().is_ok());
/// assert!("http://[::1]:8080/in".parse::<WebhookUrl>().is_ok());
/// assert!("ftp://example.com/".parse::<WebhookUrl>().is_err());
/// assert!("https://user:pw@example.com/".parse::<WebhookUrl>().is_err());
/// assert!("http://127.1/".parse::<WebhookUrl>().is_err(), "not a dotted quad");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct WebhookUrl(String);

impl WebhookUrl {
    /// The grammar as an ECMA-262 regular expression (the OpenAPI `pattern`).
    pub const PATTERN: &'static str = concat!(
        "^https?://(",
        // A domain name whose last label starts with a letter (else it would read as IPv4).
        "([A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*",
        "|",
        "((25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\\.){3}(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])",
        "|",
        "\\[(",
        // IPv6 in hexadecimal groups, one `::` at most (an IPv4 tail is not taken: write it in hex).
        "([0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}",
        "|([0-9A-Fa-f]{1,4}:){1,7}:",
        "|([0-9A-Fa-f]{1,4}:){1,6}:[0-9A-Fa-f]{1,4}",
        "|([0-9A-Fa-f]{1,4}:){1,5}(:[0-9A-Fa-f]{1,4}){1,2}",
        "|([0-9A-Fa-f]{1,4}:){1,4}(:[0-9A-Fa-f]{1,4}){1,3}",
        "|([0-9A-Fa-f]{1,4}:){1,3}(:[0-9A-Fa-f]{1,4}){1,4}",
        "|([0-9A-Fa-f]{1,4}:){1,2}(:[0-9A-Fa-f]{1,4}){1,5}",
        "|[0-9A-Fa-f]{1,4}:(:[0-9A-Fa-f]{1,4}){1,6}",
        "|:((:[0-9A-Fa-f]{1,4}){1,7}|:)",
        ")\\]",
        ")(:(0|[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?",
        "([/?][!-\"$-~]*)?$"
    );

    /// The URL as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn refuse(message: &str) -> ValidationError {
    ValidationError::field("url", message)
}

impl FromStr for WebhookUrl {
    type Err = ValidationError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.chars().count() > MAX_URL_BYTES {
            return Err(refuse(&format!(
                "must be at most {MAX_URL_BYTES} characters"
            )));
        }
        let rest = text
            .strip_prefix("https://")
            .or_else(|| text.strip_prefix("http://"))
            .ok_or_else(|| refuse("must be an absolute http:// or https:// URL"))?;
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(end);
        if !tail.chars().all(|c| c.is_ascii_graphic() && c != '#') {
            return Err(refuse(
                "the path and query must be printable ASCII without spaces (percent-encode the rest) and without a fragment",
            ));
        }
        check_authority(authority)?;
        Ok(Self(text.to_owned()))
    }
}

fn check_authority(authority: &str) -> Result<(), ValidationError> {
    if authority.contains('@') {
        return Err(refuse("must not carry a user name or password"));
    }
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !port.contains(']') => (host, Some(port)),
        _ => (authority, None),
    };
    if let Some(port) = port {
        let valid = !port.is_empty()
            && port.bytes().all(|b| b.is_ascii_digit())
            && (port == "0" || !port.starts_with('0'))
            && port.parse::<u16>().is_ok();
        if !valid {
            return Err(refuse(
                "the port must be a number from 0 to 65535 without leading zeros",
            ));
        }
    }
    let valid_host = if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        inner.bytes().all(|b| b.is_ascii_hexdigit() || b == b':')
            && inner.parse::<Ipv6Addr>().is_ok()
    } else if host.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        is_dotted_quad(host)
    } else {
        is_domain(host)
    };
    if valid_host {
        Ok(())
    } else {
        Err(refuse(
            "the host must be a domain name, a dotted-quad IPv4 address or a bracketed IPv6 address",
        ))
    }
}

/// Four decimal octets without leading zeros.
fn is_dotted_quad(host: &str) -> bool {
    let parts: Vec<&str> = host.split('.').collect();
    parts.len() == 4
        && parts
            .iter()
            .all(|p| !p.is_empty() && (*p == "0" || !p.starts_with('0')) && p.len() <= 3)
        && host.parse::<Ipv4Addr>().is_ok()
}

/// Labels of letters, digits and hyphens; the last one starts with a letter.
fn is_domain(host: &str) -> bool {
    let labels: Vec<&str> = host.split('.').collect();
    labels
        .iter()
        .all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
        && labels
            .last()
            .and_then(|l| l.bytes().next())
            .is_some_and(|b| b.is_ascii_alphabetic())
}

impl fmt::Display for WebhookUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for WebhookUrl {
    type Error = ValidationError;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<WebhookUrl> for String {
    fn from(url: WebhookUrl) -> Self {
        url.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Accepted and refused alike by the Rust grammar and by [`WebhookUrl::PATTERN`].
    pub(crate) const ACCEPTED: &[&str] = &[
        "http://localhost",
        "https://hooks.example.com/procflow?team=a&x=%20y",
        "http://127.0.0.1:8080/in",
        "http://0.0.0.0/",
        "http://10.1.2.3",
        "http://[::1]/",
        "http://[::ffff:7f00:1]:9/x",
        "http://[1:2:3:4:5:6:7:8]",
        "http://[::]",
        "http://[fd00::1]",
        "https://a-b.c1.example:65535/",
        "http://x:0",
        "http://169.254.169.254/latest/meta-data",
    ];

    pub(crate) const REFUSED: &[&str] = &[
        "",
        "example.com",
        "ftp://example.com/",
        "HTTP://example.com/",
        "https://user:pw@example.com/",
        "http://127.1/",
        "http://1.2.3.256/",
        "http://01.2.3.4/",
        "http://example.com:65536/",
        "http://example.com:080/",
        "http://example.com:/",
        "http://exa mple.com/",
        "http://example.com/a b",
        "http://example.com/#frag",
        "http://example..com/",
        "http://example.com./",
        "http://example.123/",
        "http://[::g]/",
        "http://[1.2.3.4]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[1::2::3]/",
        "http://[12345::]/",
        "http:///path",
        "http://ex_ample.com/",
        "http://example.com/\u{e9}",
        "http://example.com/\n",
    ];

    #[test]
    fn the_grammar_accepts_and_refuses_as_documented() {
        for url in ACCEPTED {
            assert!(url.parse::<WebhookUrl>().is_ok(), "{url} refused");
        }
        for url in REFUSED {
            assert!(url.parse::<WebhookUrl>().is_err(), "{url:?} accepted");
        }
    }

    #[test]
    fn a_url_over_the_limit_is_refused() {
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_BYTES));
        let error = long.parse::<WebhookUrl>().unwrap_err();
        assert!(error.to_string().contains("at most 2048"), "{error}");
    }
}
