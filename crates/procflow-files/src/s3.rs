//! The S3-compatible bucket adapter: the same [`ObjectFiles`] over `object_store`'s S3 client,
//! so that several server instances share the bytes. Writes go through S3 multipart uploads,
//! which the store aborts when the source fails: nothing of a failed upload stays.

use std::ffi::OsString;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::{BackoffConfig, ClientConfigKey, RetryConfig};
use procflow_domain::error::StoreError;

use crate::ObjectFiles;

/// S3's smallest part (but the last of an upload).
const S3_PART_BYTES: usize = 5 * 1024 * 1024;

/// How a failed call to the bucket is retried. Someone waits on every call (an upload or a
/// download is a request in flight), so a bucket that is down must fail within seconds, not
/// after object_store's default of ten retries with random waits growing up to 15 s each
/// (measured up to 13.5 s for one call, nearly a minute at worst). A refused connection fails
/// after at most 0.1 + 0.2 + 0.4 s of waits; a blackholed one after its connect timeouts, no
/// retry starting once 10 s have passed.
fn retry_policy() -> RetryConfig {
    RetryConfig {
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(1),
            base: 2.0,
        },
        max_retries: 3,
        retry_timeout: Duration::from_secs(10),
    }
}

/// Where a bucket is: its name, and for a server other than AWS its endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct S3Settings {
    /// The bucket's name.
    pub bucket: String,
    /// The server's base URL (`http://127.0.0.1:9000`); `None` for AWS itself (never
    /// `AWS_ENDPOINT`). Plain HTTP is allowed only when this URL says `http`.
    pub endpoint: Option<String>,
    /// The bucket's region; `None` takes `AWS_REGION` or `AWS_DEFAULT_REGION` (with
    /// environment credentials), else `us-east-1`.
    pub region: Option<String>,
    /// The keys to sign with; `None` takes AWS's usual environment variables
    /// (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, web identity, ...).
    pub credentials: Option<S3Credentials>,
}

/// An access key pair (and a session's token), given explicitly rather than by the environment.
#[derive(Clone, PartialEq, Eq)]
pub struct S3Credentials {
    /// The access key's id.
    pub access_key_id: String,
    /// The secret key.
    pub secret_access_key: String,
    /// A temporary session's token.
    pub session_token: Option<String>,
}

impl fmt::Debug for S3Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The id names the key; the secret and the token never reach a log.
        f.debug_struct("S3Credentials")
            .field("access_key_id", &self.access_key_id)
            .field("secret_access_key", &"<redacted>")
            .field(
                "session_token",
                &self.session_token.as_ref().map(|_| "<redacted>"),
            )
            .finish()
    }
}

impl ObjectFiles {
    /// A store in an S3-compatible bucket. Nothing is sent yet: a wrong bucket or key shows at
    /// the first call.
    ///
    /// # Errors
    /// When the settings cannot make a client (a malformed endpoint, ...).
    pub fn s3(settings: &S3Settings) -> Result<Self, StoreError> {
        // object_store's reqwest speaks TLS with rustls, whose provider the process must have.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = match &settings.credentials {
            Some(keys) => {
                let builder = AmazonS3Builder::new()
                    .with_access_key_id(&keys.access_key_id)
                    .with_secret_access_key(&keys.secret_access_key);
                match &keys.session_token {
                    Some(token) => builder.with_token(token),
                    None => builder,
                }
            }
            None => from_environment(),
        };
        builder = builder.with_bucket_name(&settings.bucket);
        if let Some(region) = &settings.region {
            builder = builder.with_region(region);
        }
        let http = match &settings.endpoint {
            Some(endpoint) => {
                builder = builder.with_endpoint(endpoint);
                endpoint.starts_with("http://")
            }
            None => false,
        };
        let store = builder
            .with_allow_http(http)
            .with_retry(retry_policy())
            .build()
            .map_err(|e| StoreError::Other(format!("cannot use the bucket: {e}")))?;
        Ok(Self {
            store: Arc::new(store),
            part_bytes: S3_PART_BYTES,
            local: None,
        })
    }
}

/// A builder with the `AWS_...` settings of the environment (credentials, region, proxy, ...),
/// but for where the bucket is and whether plain HTTP is allowed: the storage URL alone says
/// that, so a stray `AWS_ENDPOINT` cannot send the bytes elsewhere.
fn from_environment() -> AmazonS3Builder {
    from_variables(std::env::vars_os())
}

fn from_variables(variables: impl Iterator<Item = (OsString, OsString)>) -> AmazonS3Builder {
    let mut builder = AmazonS3Builder::new();
    for (name, value) in variables {
        let (Some(name), Some(value)) = (name.to_str(), value.to_str()) else {
            continue;
        };
        if !name.starts_with("AWS_") {
            continue;
        }
        let Ok(key) = name.to_ascii_lowercase().parse::<AmazonS3ConfigKey>() else {
            continue;
        };
        if !matches!(
            key,
            AmazonS3ConfigKey::Endpoint
                | AmazonS3ConfigKey::Bucket
                | AmazonS3ConfigKey::Client(ClientConfigKey::AllowHttp)
        ) {
            builder = builder.with_config(key, value);
        }
    }
    builder
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_gives_credentials_and_region_but_never_where_the_bytes_go() {
        let variables = [
            ("AWS_ACCESS_KEY_ID", "id"),
            ("AWS_SECRET_ACCESS_KEY", "secret"),
            ("AWS_REGION", "eu-west-3"),
            ("AWS_ENDPOINT", "http://elsewhere:9000"),
            ("AWS_ENDPOINT_URL", "http://elsewhere:9000"),
            ("AWS_BUCKET", "other"),
            ("AWS_ALLOW_HTTP", "true"),
            ("HOME", "/root"),
        ]
        .map(|(name, value)| (OsString::from(name), OsString::from(value)));
        let builder = from_variables(variables.into_iter());
        let value = |key| builder.get_config_value(&key);
        assert_eq!(value(AmazonS3ConfigKey::AccessKeyId).as_deref(), Some("id"));
        assert_eq!(
            value(AmazonS3ConfigKey::SecretAccessKey).as_deref(),
            Some("secret")
        );
        assert_eq!(
            value(AmazonS3ConfigKey::Region).as_deref(),
            Some("eu-west-3")
        );
        assert_eq!(value(AmazonS3ConfigKey::Endpoint), None);
        assert_eq!(value(AmazonS3ConfigKey::Bucket), None);
        assert_ne!(
            value(AmazonS3ConfigKey::Client(ClientConfigKey::AllowHttp)).as_deref(),
            Some("true")
        );
    }

    #[test]
    fn credentials_never_show_their_secret() {
        let keys = S3Credentials {
            access_key_id: "AKIDEXAMPLE".into(),
            secret_access_key: "wJalrXUtnFEMI".into(),
            session_token: Some("FwoGZXIvYXdzE".into()),
        };
        let shown = format!("{keys:?}");
        assert!(shown.contains("AKIDEXAMPLE"), "{shown}");
        assert!(
            !shown.contains("wJalr") && !shown.contains("FwoG"),
            "{shown}"
        );
    }
}
