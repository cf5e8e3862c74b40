//! API keys: how they are made, shown once, and hashed for storage and lookup.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

/// Every key starts with this; it tells a procflow key at a glance.
pub const KEY_PREFIX: &str = "pf_live_";
/// How many characters of a key are kept for display.
pub const DISPLAY_PREFIX_LEN: usize = KEY_PREFIX.len() + 4;

/// A freshly made key: the plain key is shown once and never stored.
pub struct NewApiKey {
    /// `pf_live_` followed by 256 random bits, base64url.
    pub plain: String,
    /// The first characters, for recognising the key in lists; not secret.
    pub prefix: String,
    /// SHA-256 of the plain key: what the store keeps.
    pub hash: [u8; 32],
}

impl std::fmt::Debug for NewApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewApiKey")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

/// Makes a key from the operating system's CSPRNG.
///
/// # Errors
/// When the operating system has no randomness to give.
pub fn generate() -> Result<NewApiKey, getrandom::Error> {
    let plain = format!("{KEY_PREFIX}{}", random_token(32)?);
    Ok(NewApiKey {
        prefix: plain.chars().take(DISPLAY_PREFIX_LEN).collect(),
        hash: hash(&plain),
        plain,
    })
}

/// `bytes` random bytes from the CSPRNG, base64url without padding.
///
/// # Errors
/// When the operating system has no randomness to give.
pub fn random_token(bytes: usize) -> Result<String, getrandom::Error> {
    let mut buffer = vec![0_u8; bytes];
    getrandom::fill(&mut buffer)?;
    Ok(URL_SAFE_NO_PAD.encode(buffer))
}

/// The SHA-256 of a key: a key has 256 bits of entropy, so a fast hash is enough.
#[must_use]
pub fn hash(plain: &str) -> [u8; 32] {
    Sha256::digest(plain.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_long_random_and_hashed() {
        let a = generate().unwrap();
        let b = generate().unwrap();
        assert_ne!(a.plain, b.plain);
        assert!(a.plain.starts_with(KEY_PREFIX));
        assert_eq!(a.plain.len(), KEY_PREFIX.len() + 43);
        assert!(a.plain.starts_with(&a.prefix));
        assert_eq!(a.hash, hash(&a.plain));
        assert_ne!(a.hash, b.hash);
        assert!(!format!("{a:?}").contains(&a.plain));
    }
}
