//! Name resolution that drops refused addresses (API contract 8.3) before a connection is
//! made, so that the address checked is the address connected to.

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use futures_util::future::BoxFuture;
use procflow_domain::webhook::refusal;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Looks a host name up: the system's resolver in production, a table in tests.
pub trait Lookup: Send + Sync {
    /// The addresses of `host`.
    fn lookup(&self, host: String) -> BoxFuture<'static, std::io::Result<Vec<IpAddr>>>;
}

/// The operating system's resolver (`getaddrinfo`, through tokio).
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemLookup;

impl Lookup for SystemLookup {
    fn lookup(&self, host: String) -> BoxFuture<'static, std::io::Result<Vec<IpAddr>>> {
        Box::pin(async move {
            Ok(tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .map(|address| address.ip())
                .collect())
        })
    }
}

/// A destination the address policy refuses; the attempt's error says why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused(pub String);

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// Why `ip` of `host` may not be reached, as an attempt's error says it.
#[must_use]
pub fn refused(host: &str, ip: IpAddr) -> Option<Refused> {
    refusal(ip).map(|why| {
        Refused(format!(
            "destination refused: {host} is {why} address {ip}; set PROCFLOW_WEBHOOK_ALLOW_PRIVATE=true to allow it"
        ))
    })
}

/// The resolver reqwest uses: every address of the name that the policy refuses is dropped,
/// and a name left with none fails with [`Refused`] (no connection is attempted).
pub struct FilteringResolver {
    lookup: Arc<dyn Lookup>,
    allow_private: bool,
}

impl FilteringResolver {
    /// Filters what `lookup` answers, unless `allow_private`.
    #[must_use]
    pub fn new(lookup: Arc<dyn Lookup>, allow_private: bool) -> Self {
        Self {
            lookup,
            allow_private,
        }
    }
}

impl Resolve for FilteringResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        let lookup = self.lookup.lookup(host.clone());
        let allow_private = self.allow_private;
        Box::pin(async move {
            let found = lookup.await?;
            let mut first_refusal = None;
            let allowed: Vec<SocketAddr> = found
                .into_iter()
                .filter(|ip| {
                    if allow_private {
                        return true;
                    }
                    match refused(&host, *ip) {
                        Some(why) => {
                            first_refusal.get_or_insert(why);
                            false
                        }
                        None => true,
                    }
                })
                .map(|ip| SocketAddr::new(ip, 0))
                .collect();
            if allowed.is_empty() {
                let error: Box<dyn std::error::Error + Send + Sync> = match first_refusal {
                    Some(why) => Box::new(why),
                    None => format!("{host} has no address").into(),
                };
                return Err(error);
            }
            let addrs: Addrs = Box::new(allowed.into_iter());
            Ok(addrs)
        })
    }
}
