//! Prometheus metrics: requests counted and timed by route pattern, method and status, and the
//! `/metrics` page, which adds the store's pool and outbox figures read at scrape time.
//!
//! The recorder is process-global (the `metrics` facade allows one): [`install`] sets it up
//! once, and every app of the process (tests start several) records into it. The store figures
//! are not recorded: each app reads them from its own [`StoreStats`] when scraped.
//!
//! `/metrics` is outside `/api/v1` and needs no key, as Prometheus scrapers expect: operators
//! must not expose it publicly (route only the API to the internet).

use std::sync::OnceLock;
use std::time::Duration;

use actix_web::http::{Method, header};
use actix_web::{HttpResponse, web};
use metrics::Unit;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use procflow_domain::ports::{PoolUsage, StoreStats};

use crate::AppState;

/// Where the scrape page is mounted.
pub const PATH: &str = "/metrics";

/// Counter: requests answered, by `method`, `route` (the pattern) and `status`.
pub const REQUESTS_TOTAL: &str = "procflow_http_requests_total";

/// Histogram: seconds from a request's arrival to its response head, same labels.
pub const REQUEST_DURATION: &str = "procflow_http_request_duration_seconds";

/// The `route` of a request no route matched (same text as the access log).
pub const UNMATCHED: &str = "(unmatched)";

/// The `route` of a request that ended in an error before a response was made (a panic).
pub const UNKNOWN: &str = "(unknown)";

/// The latency buckets, in seconds.
const LATENCY_BUCKETS: &[f64] = &[
    0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// How often histogram samples are folded into their buckets when nobody scrapes.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// The Prometheus text exposition format.
const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// Installs the process-wide Prometheus recorder, once; later calls return the same handle.
///
/// When another recorder was installed first (by an embedding program), it is kept, a warning
/// is logged, and `/metrics` shows only the store figures.
pub fn install() -> &'static PrometheusHandle {
    HANDLE.get_or_init(|| {
        let recorder = builder().build_recorder();
        let handle = recorder.handle();
        if metrics::set_global_recorder(recorder).is_err() {
            tracing::warn!(
                "another metrics recorder is installed: /metrics shows only the store figures"
            );
            return handle;
        }
        describe();
        let upkeep = handle.clone();
        let spawned = std::thread::Builder::new()
            .name("procflow-metrics-upkeep".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(UPKEEP_EVERY);
                    upkeep.run_upkeep();
                }
            });
        if let Err(error) = spawned {
            tracing::warn!(%error, "no metrics upkeep thread: latency samples fold in at scrape time only");
        }
        handle
    })
}

fn builder() -> PrometheusBuilder {
    // Every `*_duration_seconds` histogram of the process (the requests', the webhook
    // attempts') gets these buckets. They are a non-empty constant, so this cannot fail; fall
    // back to summaries if it did.
    PrometheusBuilder::new()
        .set_buckets_for_metric(
            Matcher::Suffix("_duration_seconds".to_owned()),
            LATENCY_BUCKETS,
        )
        .unwrap_or_else(|_| PrometheusBuilder::new())
}

fn describe() {
    metrics::describe_counter!(
        REQUESTS_TOTAL,
        "HTTP requests answered, by method, route pattern and status"
    );
    metrics::describe_histogram!(
        REQUEST_DURATION,
        Unit::Seconds,
        "Time from a request's arrival to its response head, by method, route pattern and status"
    );
}

/// Records one answered request into the installed recorder (a no-op without one).
pub fn observe(method: &'static str, route: String, status: u16, elapsed: Duration) {
    let labels = [
        ("method", method.to_owned()),
        ("route", route),
        ("status", status.to_string()),
    ];
    metrics::counter!(REQUESTS_TOTAL, &labels).increment(1);
    metrics::histogram!(REQUEST_DURATION, &labels).record(elapsed.as_secs_f64());
}

/// The method as a label: the standard ones by name, any other as `OTHER`, so that a client
/// cannot make up series.
#[must_use]
pub fn method_label(method: &Method) -> &'static str {
    match method.as_str() {
        "GET" => "GET",
        "HEAD" => "HEAD",
        "POST" => "POST",
        "PUT" => "PUT",
        "PATCH" => "PATCH",
        "DELETE" => "DELETE",
        "OPTIONS" => "OPTIONS",
        "TRACE" => "TRACE",
        "CONNECT" => "CONNECT",
        _ => "OTHER",
    }
}

/// `GET /metrics`: the recorded series and the store figures, in the Prometheus text format.
pub async fn scrape(state: web::Data<AppState>) -> HttpResponse {
    let text = render(install(), state.services.stats.as_ref()).await;
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, CONTENT_TYPE))
        .body(text)
}

/// The page: what `handle` recorded, then the pool gauges and the outbox backlog of `stats`.
/// A backlog that cannot be read (the database is down) is left out and logged.
pub async fn render(handle: &PrometheusHandle, stats: &dyn StoreStats) -> String {
    // Folds pending latency samples in and publishes the descriptions before rendering.
    handle.run_upkeep();
    let mut text = handle.render();
    let backlog = match stats.outbox_backlog().await {
        Ok(backlog) => Some(backlog),
        Err(error) => {
            tracing::warn!(%error, "cannot read the outbox backlog for /metrics");
            None
        }
    };
    store_gauges(&mut text, stats.pool(), backlog);
    text
}

/// Appends the store gauges to an exposition.
fn store_gauges(text: &mut String, pool: PoolUsage, backlog: Option<u64>) {
    let in_use = pool.size.saturating_sub(pool.available);
    let gauges = [
        (
            "procflow_db_pool_max_size",
            "The most connections the database pool may hold",
            Some(pool.max_size as u64),
        ),
        (
            "procflow_db_pool_size",
            "Database connections open now",
            Some(pool.size as u64),
        ),
        (
            "procflow_db_pool_available",
            "Open database connections not in use",
            Some(pool.available as u64),
        ),
        (
            "procflow_db_pool_in_use",
            "Database connections in use",
            Some(in_use as u64),
        ),
        (
            "procflow_db_pool_waiting",
            "Requests waiting for a database connection",
            Some(pool.waiting as u64),
        ),
        (
            "procflow_outbox_backlog",
            "Events in the outbox not dispatched yet (those set aside excluded)",
            backlog,
        ),
    ];
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    for (name, help, value) in gauges {
        if let Some(value) = value {
            text.push_str(&format!(
                "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {value}\n\n"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use std::sync::atomic::{AtomicBool, Ordering};

    use actix_web::test as actix_test;
    use actix_web::{App, HttpResponse};
    use async_trait::async_trait;
    use procflow_domain::error::{DomainResult, StoreError};

    use super::*;

    struct FakeStats {
        down: AtomicBool,
    }

    #[async_trait]
    impl StoreStats for FakeStats {
        fn pool(&self) -> PoolUsage {
            PoolUsage {
                max_size: 16,
                size: 5,
                available: 2,
                waiting: 1,
            }
        }

        async fn outbox_backlog(&self) -> DomainResult<u64> {
            if self.down.load(Ordering::SeqCst) {
                Err(StoreError::Unavailable("down".into()).into())
            } else {
                Ok(42)
            }
        }
    }

    fn local() -> (
        metrics_exporter_prometheus::PrometheusRecorder,
        PrometheusHandle,
    ) {
        let recorder = builder().build_recorder();
        let handle = recorder.handle();
        (recorder, handle)
    }

    #[test]
    fn a_request_is_counted_and_timed_under_its_route_method_and_status() {
        let (recorder, handle) = local();
        metrics::with_local_recorder(&recorder, || {
            for _ in 0..2 {
                observe(
                    "POST",
                    "/api/v1/process-runs".into(),
                    201,
                    Duration::from_millis(30),
                );
            }
            observe("GET", UNMATCHED.into(), 404, Duration::from_millis(1));
        });
        handle.run_upkeep();
        let text = handle.render();
        assert!(
            text.contains(
                r#"procflow_http_requests_total{method="POST",route="/api/v1/process-runs",status="201"} 2"#
            ),
            "{text}"
        );
        assert!(
            text.contains(
                r#"procflow_http_requests_total{method="GET",route="(unmatched)",status="404"} 1"#
            ),
            "{text}"
        );
        assert!(
            text.contains(
                r#"procflow_http_request_duration_seconds_bucket{method="POST",route="/api/v1/process-runs",status="201",le="0.05"} 2"#
            ),
            "a histogram with buckets, not a summary: {text}"
        );
        assert!(
            text.contains(
                r#"procflow_http_request_duration_seconds_bucket{method="POST",route="/api/v1/process-runs",status="201",le="0.025"} 0"#
            ),
            "{text}"
        );
        assert!(
            text.contains(
                r#"procflow_http_request_duration_seconds_count{method="POST",route="/api/v1/process-runs",status="201"} 2"#
            ),
            "{text}"
        );
    }

    #[test]
    fn made_up_methods_share_one_label() {
        assert_eq!(method_label(&Method::PATCH), "PATCH");
        assert_eq!(method_label(&Method::from_bytes(b"BREW").unwrap()), "OTHER");
    }

    #[actix_web::test]
    async fn the_page_adds_the_pool_gauges_and_the_backlog_read_at_scrape_time() {
        let stats = FakeStats {
            down: AtomicBool::new(false),
        };
        let (_recorder, handle) = local();
        let text = render(&handle, &stats).await;
        for line in [
            "# TYPE procflow_db_pool_max_size gauge",
            "procflow_db_pool_max_size 16",
            "procflow_db_pool_size 5",
            "procflow_db_pool_available 2",
            "procflow_db_pool_in_use 3",
            "procflow_db_pool_waiting 1",
            "# TYPE procflow_outbox_backlog gauge",
            "procflow_outbox_backlog 42",
        ] {
            assert!(text.lines().any(|l| l == line), "no {line:?} in {text}");
        }

        stats.down.store(true, Ordering::SeqCst);
        let text = render(&handle, &stats).await;
        assert!(text.contains("procflow_db_pool_size 5"), "{text}");
        assert!(
            !text.contains("procflow_outbox_backlog"),
            "an unknown backlog is left out, not reported as 0: {text}"
        );
    }

    #[actix_web::test]
    async fn the_middleware_records_the_route_pattern_not_the_path() {
        let handle = install();
        let app = actix_test::init_service(
            App::new()
                .wrap(actix_web::middleware::from_fn(crate::middleware::around))
                .route(
                    "/widgets/{id}",
                    web::post().to(|| async { HttpResponse::Created().finish() }),
                ),
        )
        .await;
        for id in ["a", "b", "c"] {
            let request = actix_test::TestRequest::post()
                .uri(&format!("/widgets/{id}"))
                .to_request();
            assert_eq!(actix_test::call_service(&app, request).await.status(), 201);
        }
        let request = actix_test::TestRequest::get()
            .uri("/nowhere/1")
            .to_request();
        assert_eq!(actix_test::call_service(&app, request).await.status(), 404);

        handle.run_upkeep();
        let text = handle.render();
        assert!(
            text.contains(
                r#"procflow_http_requests_total{method="POST",route="/widgets/{id}",status="201"} 3"#
            ),
            "{text}"
        );
        // The recorder is the process's: other tests may count unmatched requests too.
        assert!(
            text.contains(
                r#"procflow_http_requests_total{method="GET",route="(unmatched)",status="404"} "#
            ),
            "{text}"
        );
        assert!(!text.contains("/widgets/a"), "{text}");
        assert!(text.contains("# TYPE procflow_http_request_duration_seconds histogram"));
    }
}
