//! The storage URL (`PROCFLOW_STORAGE_URL`, API contract 14.2) that picks the adapter:
//! `file:///absolute/path` or `s3://bucket?endpoint=...&region=...`. Read strictly: a typo is
//! refused at start-up with what to write instead, never taken for a different store.

use std::path::PathBuf;

use procflow_domain::error::StoreError;

use crate::ObjectFiles;
use crate::s3::S3Settings;

/// What to write, said with every refusal.
const FORMS: &str = "write file:///absolute/path or s3://bucket?endpoint=https://host&region=name";

/// A storage URL that makes no sense; the message says why and what to write.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the storage URL {0}")]
pub struct StorageUrlError(String);

fn refuse<T>(reason: impl Into<String>) -> Result<T, StorageUrlError> {
    Err(StorageUrlError(reason.into()))
}

/// Why [`open`] gave no store.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The URL is malformed.
    #[error(transparent)]
    Url(#[from] StorageUrlError),
    /// The URL is well formed but its store cannot be used.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A parsed storage URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StorageUrl {
    /// A local directory (`file:///absolute/path`).
    Local(PathBuf),
    /// An S3-compatible bucket (`s3://bucket?endpoint=...&region=...`); its `credentials` are
    /// left to the environment (a URL never carries secrets).
    S3(S3Settings),
}

impl StorageUrl {
    /// Reads a storage URL.
    ///
    /// # Errors
    /// A message naming what is wrong, for a URL that is not one of the two forms exactly:
    /// another scheme, a relative or remote file path, credentials, a port or a path in an S3
    /// URL, a malformed bucket name or endpoint, an unknown, repeated or empty parameter.
    pub fn parse(text: &str) -> Result<Self, StorageUrlError> {
        let Ok(url) = url::Url::parse(text) else {
            return refuse(format!("is not a URL: {FORMS}"));
        };
        match url.scheme() {
            "file" => local(text, &url),
            "s3" => bucket(&url),
            other => refuse(format!("has the scheme {other:?}: {FORMS}")),
        }
    }

    /// The store the URL names. A local directory is created when missing.
    ///
    /// # Errors
    /// When the store cannot be used (see [`ObjectFiles::local`] and [`ObjectFiles::s3`]).
    pub fn open(&self) -> Result<ObjectFiles, StoreError> {
        match self {
            Self::Local(root) => ObjectFiles::local(root),
            Self::S3(settings) => ObjectFiles::s3(settings),
        }
    }
}

/// The URL again, in its canonical form (parameters percent-encoded): what a start-up log may
/// show, since a storage URL carries no secret.
impl std::fmt::Display for StorageUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Local(root) => match url::Url::from_file_path(root) {
                Ok(url) => f.write_str(url.as_str()),
                Err(()) => write!(f, "file://{}", root.display()),
            },
            Self::S3(settings) => {
                write!(f, "s3://{}", settings.bucket)?;
                let mut query = url::form_urlencoded::Serializer::new(String::new());
                if let Some(endpoint) = &settings.endpoint {
                    query.append_pair("endpoint", endpoint);
                }
                if let Some(region) = &settings.region {
                    query.append_pair("region", region);
                }
                let query = query.finish();
                if query.is_empty() {
                    Ok(())
                } else {
                    write!(f, "?{query}")
                }
            }
        }
    }
}

impl std::str::FromStr for StorageUrl {
    type Err = StorageUrlError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text)
    }
}

/// The store a storage URL names, S3 credentials taken from AWS's usual environment variables
/// (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, ...).
///
/// # Errors
/// A malformed URL ([`StorageUrl::parse`]), or a store that cannot be used.
pub fn open(url: &str) -> Result<ObjectFiles, OpenError> {
    Ok(StorageUrl::parse(url)?.open()?)
}

fn local(text: &str, url: &url::Url) -> Result<StorageUrl, StorageUrlError> {
    // The URL parser would make `file:data` absolute (`/data`): insist on the written form.
    let written_absolute = text
        .get(..8)
        .is_some_and(|head| head.eq_ignore_ascii_case("file:///"));
    if !written_absolute || url.host().is_some() {
        return refuse(format!(
            "must name an absolute path on this machine: {FORMS}"
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return refuse("of a local directory takes no parameters (? or #)");
    }
    match url.to_file_path() {
        Ok(path) => Ok(StorageUrl::Local(path)),
        Err(()) => refuse(format!("does not name a local path: {FORMS}")),
    }
}

fn bucket(url: &url::Url) -> Result<StorageUrl, StorageUrlError> {
    if !url.username().is_empty() || url.password().is_some() {
        return refuse(
            "must not carry credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
        );
    }
    let name = url.host_str().unwrap_or_default();
    if name.is_empty() {
        return refuse(format!("names no bucket: {FORMS}"));
    }
    if !bucket_name(name) {
        return refuse(format!(
            "names the bucket {name:?}: a bucket name has 3 to 63 lower-case letters, digits, \
             dots and hyphens, and begins and ends with a letter or a digit"
        ));
    }
    if url.port().is_some() {
        return refuse(
            "puts a port after the bucket: give the server as endpoint=http://host:port",
        );
    }
    if !matches!(url.path(), "" | "/") {
        return refuse("has a path after the bucket: the store uses the whole bucket");
    }
    if url.fragment().is_some() {
        return refuse("has a fragment (#...)");
    }
    let mut settings = S3Settings {
        bucket: name.to_owned(),
        endpoint: None,
        region: None,
        credentials: None,
    };
    for (key, value) in url.query_pairs() {
        let slot = match &*key {
            "endpoint" => &mut settings.endpoint,
            "region" => &mut settings.region,
            other => {
                return refuse(format!(
                    "has the parameter {other:?}: only endpoint and region are read"
                ));
            }
        };
        if slot.is_some() {
            return refuse(format!("gives {key} twice"));
        }
        if value.is_empty() {
            return refuse(format!("gives an empty {key}"));
        }
        *slot = Some(value.into_owned());
    }
    if let Some(endpoint) = &mut settings.endpoint {
        *endpoint = base_url(endpoint)?;
    }
    if let Some(region) = &settings.region
        && !region
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return refuse(format!(
            "gives the region {region:?}: letters, digits and hyphens only"
        ));
    }
    Ok(StorageUrl::S3(settings))
}

/// S3's rules for bucket names (the ones a URL can break).
fn bucket_name(name: &str) -> bool {
    let edge = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    (3..=63).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-')
        && edge(name.as_bytes().first())
        && edge(name.as_bytes().last())
}

/// The endpoint as the client wants it: an http(s) base URL, no trailing slash.
fn base_url(endpoint: &str) -> Result<String, StorageUrlError> {
    let parsed = match url::Url::parse(endpoint) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => parsed,
        _ => return refuse("gives an endpoint that is not an http:// or https:// URL"),
    };
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return refuse(
            "gives an endpoint with credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
        );
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return refuse("gives an endpoint with a query or a fragment");
    }
    Ok(parsed.as_str().trim_end_matches('/').to_owned())
}

#[cfg(test)]
mod tests;
