//! The query string of an operation that declares no query parameter: any parameter is
//! unknown, and unknown query parameters are refused (400) as on the operations that take some
//! (their extractors deny unknown fields), so the rule in the document's description holds of
//! every JSON operation. The guest pages read their `token` themselves and ignore the rest:
//! a link in an email may carry a mail client's tracking parameters.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;

use crate::error::ApiError;

/// Refuses a request with a query string (400 `validation_error`, naming the first
/// parameter); passes any other on.
///
/// # Errors
/// Only the errors of the services inside it; its own refusal is a response.
pub async fn refuse(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    match first_parameter(request.query_string()) {
        None => next
            .call(request)
            .await
            .map(ServiceResponse::map_into_boxed_body),
        Some(name) => {
            let refusal = ApiError::validation(format!(
                "invalid query: unknown parameter `{name}`: {} {} takes no query parameters",
                request.method(),
                request
                    .match_pattern()
                    .unwrap_or_else(|| request.path().to_owned()),
            ));
            Ok(request.error_response(refusal))
        }
    }
}

/// The name of the first parameter of a query string, if it has one; `?` alone and `?&` name
/// none. The name is shown as sent (escaped), cut to 64 characters: it is the client's text.
fn first_parameter(query: &str) -> Option<String> {
    query
        .split('&')
        .find(|pair| !pair.is_empty())
        .map(|pair| pair.split_once('=').map_or(pair, |(name, _)| name))
        .map(|name| name.chars().take(64).collect())
}

#[cfg(test)]
mod tests {
    use super::first_parameter;

    #[test]
    fn any_parameter_is_found_and_an_empty_query_has_none() {
        assert_eq!(first_parameter(""), None);
        assert_eq!(first_parameter("&"), None);
        assert_eq!(first_parameter("x=1"), Some("x".to_owned()));
        assert_eq!(first_parameter("&y"), Some("y".to_owned()));
        assert_eq!(first_parameter("=1"), Some(String::new()));
        assert_eq!(first_parameter(&"a".repeat(100)).map(|n| n.len()), Some(64));
    }
}
