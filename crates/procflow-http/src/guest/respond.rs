//! Every guest answer is HTML with the same headers (API contract 7.1): not cached, not
//! framed, not sniffed, no referrer, and a CSP that lets only our stylesheet apply.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::http::header::{self, ContentType};
use askama::Template;
use procflow_domain::ids::RunId;
use procflow_domain::values::ShareToken;

use super::style::CSP;

/// Rendered when a template fails to render (it should not: they are checked when compiled).
const FALLBACK: &str = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
    <title>Something went wrong</title></head><body><h1>Something went wrong on our side</h1>\
    </body></html>";

/// `page` as an HTML answer with `status` and the guest page's headers.
pub(crate) fn html(status: StatusCode, page: &impl Template) -> HttpResponse {
    let (status, body) = match page.render() {
        Ok(body) => (status, body),
        Err(error) => {
            tracing::error!(%error, "a guest page failed to render");
            (StatusCode::INTERNAL_SERVER_ERROR, FALLBACK.to_owned())
        }
    };
    HttpResponse::build(status)
        .content_type(ContentType::html())
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::CONTENT_SECURITY_POLICY, CSP.as_str()))
        .body(body)
}

/// A guest address `/instance/{run_id}/.../{id}?token=...`: the link's token, the run and the
/// second id, or `None` when any of them cannot be one (the caller answers the 404 page).
pub(crate) fn address<T: std::str::FromStr>(
    query: &str,
    (run, id): &(String, String),
) -> Option<(ShareToken, RunId, T)> {
    Some((query_token(query)?, run.parse().ok()?, id.parse().ok()?))
}

/// The token of a link's query string: exactly one `token` parameter that can be a token
/// ([`ShareToken::from_link`]); other parameters (a mail client's tracking, say) are ignored.
/// `None` for anything else, which the caller answers with the 404 page.
pub(crate) fn query_token(query: &str) -> Option<ShareToken> {
    let mut token = None;
    for pair in query.split('&') {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        if name == "token" {
            if token.is_some() {
                return None;
            }
            token = Some(value);
        }
    }
    // A token is URL-safe as it is: an escaped character is no token's.
    ShareToken::from_link(token?)
}

#[cfg(test)]
mod tests {
    use super::query_token;

    #[test]
    fn only_one_well_formed_token_opens_anything() {
        assert_eq!(
            query_token("token=abc_DEF-123").map(|t| t.expose().to_owned()),
            Some("abc_DEF-123".to_owned())
        );
        assert!(query_token("utm_source=mail&token=abc").is_some());
        for odd in [
            "",
            "token",
            "token=",
            "token=a&token=a",
            "token=a%00",
            "token=%61bc",
            "token=a b",
            "tok=abc",
            "token=<script>",
            "token=a\0",
        ] {
            assert!(query_token(odd).is_none(), "{odd:?}");
        }
    }
}
