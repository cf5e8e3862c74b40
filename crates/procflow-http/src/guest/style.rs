//! The page's one stylesheet, inlined in every page, and the Content-Security-Policy that lets
//! that stylesheet, and nothing else, apply: no script runs, no frame embeds the page, forms
//! post only to us.

use std::sync::LazyLock;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

/// The stylesheet, as the `<style>` element holds it, byte for byte (its hash is in the CSP).
pub(super) const CSS: &str = include_str!("../../templates/guest/guest.css");

/// `default-src 'none'` and only what the page needs: our stylesheet by its hash, images of
/// `image` elements and rich text from any web address, forms posting to us.
pub(super) static CSP: LazyLock<String> = LazyLock::new(|| {
    let hash = STANDARD.encode(Sha256::digest(CSS.as_bytes()));
    format!(
        "default-src 'none'; style-src 'sha256-{hash}'; img-src https: http:; \
         form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    )
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_allows_the_stylesheet_by_its_hash_and_no_script() {
        assert!(CSP.starts_with("default-src 'none'; style-src 'sha256-"));
        assert!(!CSP.contains("script-src"));
        assert!(!CSP.contains("unsafe"));
        assert!(CSP.contains("frame-ancestors 'none'"));
        assert!(CSP.contains("form-action 'self'"));
    }
}
