//! Standard Webhooks signatures: `v1,<base64 of HMAC-SHA256(key, "id.timestamp.body")>`, one
//! per signing secret, space-separated.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{Hmac, KeyInit, Mac};
use procflow_domain::webhook::WebhookSecret;
use sha2::Sha256;

/// The signature of one message with one key: `v1,` + base64 of the HMAC-SHA256 of
/// `"{id}.{timestamp}.{body}"`.
#[must_use]
pub fn sign(key: &[u8], id: &str, timestamp: i64, body: &[u8]) -> String {
    // HMAC takes keys of any length: new_from_slice cannot fail for it.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key) else {
        return String::new();
    };
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    format!("v1,{}", BASE64.encode(mac.finalize().into_bytes()))
}

/// The `webhook-signature` header: a signature per secret, the current one first.
#[must_use]
pub fn signature_header(
    secrets: &[&WebhookSecret],
    id: &str,
    timestamp: i64,
    body: &[u8],
) -> String {
    secrets
        .iter()
        .map(|secret| sign(&secret.key(), id, timestamp, body))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test vector published with the Standard Webhooks specification.
    #[test]
    fn the_specifications_test_vector_signs_as_published() {
        let secret = WebhookSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let signature = sign(
            &secret.key(),
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1_614_265_330,
            br#"{"test": 2432232314}"#,
        );
        assert_eq!(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    fn headers(id: &str, timestamp: i64, signature: &str) -> http::HeaderMap {
        let mut headers = http::HeaderMap::new();
        headers.insert("webhook-id", id.parse().unwrap());
        headers.insert("webhook-timestamp", timestamp.to_string().parse().unwrap());
        headers.insert("webhook-signature", signature.parse().unwrap());
        headers
    }

    #[test]
    fn two_secrets_sign_side_by_side_and_each_verifies_independently() {
        let (a, b) = (
            WebhookSecret::from_key(&[1; 32]),
            WebhookSecret::from_key(&[2; 32]),
        );
        let body = br#"{"id":"x"}"#;
        // The reference verifier checks the timestamp against its clock: sign at now.
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        let header = signature_header(&[&a, &b], "evt_1", now, body);
        assert_eq!(header.split(' ').count(), 2);
        for secret in [&a, &b] {
            standardwebhooks::Webhook::new(secret.expose())
                .unwrap()
                .verify(body, &headers("evt_1", now, &header))
                .unwrap();
        }
        let stranger = WebhookSecret::from_key(&[3; 32]);
        let verifier = standardwebhooks::Webhook::new(stranger.expose()).unwrap();
        assert!(
            verifier
                .verify(body, &headers("evt_1", now, &header))
                .is_err()
        );
        let other_body = br#"{"id":"y"}"#;
        let verifier = standardwebhooks::Webhook::new(a.expose()).unwrap();
        assert!(
            verifier
                .verify(other_body, &headers("evt_1", now, &header))
                .is_err()
        );
    }
}
