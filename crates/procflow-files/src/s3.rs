//! The S3-compatible bucket adapter: the same [`ObjectFiles`] over `object_store`'s S3 client,
//! so that several server instances share the bytes. Writes go through S3 multipart uploads,
//! which the store aborts when the source fails: nothing of a failed upload stays.

use std::fmt;
use std::sync::Arc;

use object_store::aws::AmazonS3Builder;
use procflow_domain::error::StoreError;

use crate::ObjectFiles;

/// Where a bucket is: its name, and for a server other than AWS its endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct S3Settings {
    /// The bucket's name.
    pub bucket: String,
    /// The server's base URL (`http://127.0.0.1:9000`); `None` for AWS itself. Plain HTTP is
    /// allowed only when this URL says `http`.
    pub endpoint: Option<String>,
    /// The bucket's region; `None` takes `AWS_REGION` (with environment credentials) or
    /// `us-east-1`.
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
            None => AmazonS3Builder::from_env(),
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
            .build()
            .map_err(|e| StoreError::Other(format!("cannot use the bucket: {e}")))?;
        Ok(Self {
            store: Arc::new(store),
        })
    }
}
