//! What wraps every request: the request id, the panic catcher, the rate-limit headers and the
//! access log.

use std::time::Instant;

use actix_web::HttpMessage;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::middleware::Next;

use crate::error::ApiError;
use crate::metrics;
use crate::rate_limit::{Quota, headers};
use crate::request_id::RequestId;

/// Gives every response an `X-Request-Id`, turns a panic into a 500 in the envelope, adds the
/// `RateLimit-*` headers to admitted requests, and accounts for every request once: one log
/// line and its metrics (a panic or an error included).
pub async fn around(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let started = Instant::now();
    let id = uuid::Uuid::new_v4().simple().to_string();
    request.extensions_mut().insert(RequestId(id.clone()));
    let method = request.method().clone();
    // Nothing may hold a clone of the request across the call: the router needs it alone.
    // On a task of its own: actix polls a connection's whole dispatcher each time the
    // handler is woken (every database round trip), and each of those polls parses the
    // empty read buffer as a request head, zeroing a 3 KiB header table first (7 % of a
    // task update's instructions). The task is woken instead; the dispatcher once, at the end.
    let outcome = actix_web::rt::spawn(async move { next.call(request).await }).await;
    let mut response = match outcome {
        Ok(Ok(response)) => response.map_into_boxed_body(),
        Ok(Err(error)) => {
            let status = error.as_response_error().status_code().as_u16();
            finish(&id, &method, metrics::UNKNOWN, status, started);
            return Err(error);
        }
        // A task is cancelled only with its runtime, as the worker stops: counted as a panic.
        Err(_) => {
            tracing::error!(request.id = %id, http.method = %method, "a request handler panicked");
            finish(&id, &method, metrics::UNKNOWN, 500, started);
            return Err(ApiError::internal()
                .with_header(HeaderName::from_static("x-request-id"), id)
                .into());
        }
    };
    let route = response
        .request()
        .match_pattern()
        .unwrap_or_else(|| metrics::UNMATCHED.into());
    let quota = response.request().extensions().get::<Quota>().copied();
    let response_headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&id) {
        response_headers.insert(HeaderName::from_static("x-request-id"), value);
    }
    if let Some(quota) = quota {
        for (name, value) in headers::for_quota(&quota) {
            if let Ok(value) = HeaderValue::from_str(&value) {
                response_headers.insert(HeaderName::from_static(name), value);
            }
        }
    }
    if let Some(policy) = cache_policy(&method, response.request().path(), &route)
        && !response.headers().contains_key(header::CACHE_CONTROL)
    {
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static(policy));
    }
    finish(&id, &method, &route, response.status().as_u16(), started);
    Ok(response)
}

/// The operations whose answer carries a secret: a webhook's signing secret (created,
/// rotated) and a share link (invite). Their answers, replays of them included, are never
/// stored by a cache: `no-store`.
const SECRET_ANSWERS: &[(Method, &str)] = &[
    (Method::POST, "/api/v1/webhooks"),
    (Method::POST, "/api/v1/webhooks/{id}/rotate-secret"),
    (Method::POST, "/api/v1/process-runs/{id}/invite"),
];

/// The `Cache-Control` of an answer the handler did not give one: `no-store` where it carries
/// a secret, `private` on every other answer of the authenticated API (a team's data is for
/// its key's holder, never for a shared cache); none elsewhere.
fn cache_policy(method: &Method, path: &str, route: &str) -> Option<&'static str> {
    if !crate::routes::authenticated(path) {
        return None;
    }
    let secret = SECRET_ANSWERS
        .iter()
        .any(|(m, pattern)| m == method && *pattern == route);
    Some(if secret { "no-store" } else { "private" })
}

/// The one account of a request: its log line and its metrics, from one timer.
fn finish(id: &str, method: &Method, route: &str, status: u16, started: Instant) {
    let elapsed = started.elapsed();
    tracing::info!(
        request.id = %id,
        http.method = %method,
        http.route = %route,
        http.status = status,
        duration_ms = elapsed.as_secs_f64() * 1_000.0,
        "request"
    );
    metrics::observe(
        metrics::method_label(method),
        route.to_owned(),
        status,
        elapsed,
    );
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use actix_web::test as actix_test;
    use actix_web::{App, HttpResponse, web};
    use tokio::sync::{mpsc, oneshot};

    use super::*;

    #[actix_web::test]
    async fn a_handler_that_panics_is_answered_500_in_the_envelope_with_its_request_id() {
        let app = actix_test::init_service(
            App::new()
                .wrap(actix_web::middleware::from_fn(around))
                .route(
                    "/boom",
                    web::get().to(|| async {
                        panic!("a handler's bug");
                        #[expect(unreachable_code, reason = "the handler's type needs an answer")]
                        HttpResponse::Ok().finish()
                    }),
                ),
        )
        .await;
        let request = actix_test::TestRequest::get().uri("/boom").to_request();
        // The server answers an error with its response, as `serve` maps it.
        let response = match actix_test::try_call_service(&app, request).await {
            Ok(response) => panic!("a panic answered {}", response.status()),
            Err(error) => error.error_response(),
        };
        assert_eq!(response.status(), 500);
        let id = response
            .headers()
            .get("x-request-id")
            .expect("the answer names its request")
            .to_str()
            .unwrap()
            .to_owned();
        assert_eq!(id.len(), 32, "a simple UUID: {id}");
        let body = actix_web::body::to_bytes(response.into_body())
            .await
            .unwrap();
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["error"]["code"], "internal_error", "{body}");
    }

    /// The handler runs on a task of its own: a caller that stops waiting (a client hanging
    /// up) does not cut it off between two of its statements.
    #[actix_web::test]
    async fn a_request_whose_caller_stops_waiting_runs_to_its_end() {
        let (started_tx, mut started) = mpsc::unbounded_channel::<()>();
        let (finished_tx, mut finished) = oneshot::channel::<()>();
        let (release_tx, release) = oneshot::channel::<()>();
        // Only the handler holds them: dropped with it, they end the test's waits.
        let release = Rc::new(Cell::new(Some(release)));
        let finished_tx = Rc::new(Cell::new(Some(finished_tx)));
        let app = actix_test::init_service(
            App::new()
                .wrap(actix_web::middleware::from_fn(around))
                .route(
                    "/slow",
                    web::post().to(move || {
                        let started = started_tx.clone();
                        let (release, finished) = (release.take(), finished_tx.take());
                        async move {
                            started.send(()).unwrap();
                            release.unwrap().await.unwrap();
                            finished.unwrap().send(()).unwrap();
                            HttpResponse::Created().finish()
                        }
                    }),
                ),
        )
        .await;
        let request = actix_test::TestRequest::post().uri("/slow").to_request();
        let call = actix_test::call_service(&app, request);
        // Polled until the handler is under way, then dropped, as actix drops a request's
        // future when its connection fails.
        tokio::select! {
            _ = call => panic!("the handler cannot finish before it is released"),
            _ = started.recv() => {}
        }
        release_tx.send(()).unwrap();
        assert_eq!((&mut finished).await, Ok(()), "the handler ran to its end");
    }
}
