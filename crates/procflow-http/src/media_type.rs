//! What a request says its body is: the essence of its `Content-Type` (the type and subtype,
//! compared without case; parameters such as a multipart boundary left aside).

use actix_web::http::header::{self, HeaderMap};

/// Whether the request's `Content-Type` is `essence`, with any parameters.
///
/// A missing or unreadable header is no media type at all.
#[must_use]
pub fn declares(headers: &HeaderMap, essence: &str) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|declared| declared.trim().eq_ignore_ascii_case(essence))
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::HeaderValue;

    use super::*;

    fn with(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn the_essence_is_compared_without_case_or_parameters() {
        assert!(declares(
            &with("Multipart/Form-Data; boundary=x"),
            "multipart/form-data"
        ));
        assert!(declares(
            &with(" application/x-www-form-urlencoded "),
            "application/x-www-form-urlencoded"
        ));
        assert!(!declares(
            &with("multipart/mixed; boundary=x"),
            "multipart/form-data"
        ));
        assert!(!declares(&HeaderMap::new(), "multipart/form-data"));
    }
}
