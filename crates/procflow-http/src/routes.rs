//! The routes of the API, by resource, and how they are mounted.

pub(crate) mod guest;
pub(crate) mod health;
pub(crate) mod runs;
pub(crate) mod tasks;
pub(crate) mod templates;

use actix_web::dev::HttpServiceFactory;
use actix_web::{Route, web};

use crate::error::wrong_method;
use crate::openapi;

/// A resource whose other methods answer 405 in the envelope.
fn resource(path: &str, routes: Vec<Route>) -> actix_web::Resource {
    routes
        .into_iter()
        .fold(web::resource(path), actix_web::Resource::route)
        .default_service(web::to(wrong_method))
}

/// An API resource: authenticated (key, subscription, rate limit) before any of its
/// extractors reads the request, so a bad body never answers before a 401, 403 or 429; then,
/// for a `POST` with an `Idempotency-Key`, the idempotency guard. Unknown routes stay 404
/// whoever asks.
fn api(path: &str, routes: Vec<Route>) -> impl HttpServiceFactory {
    // The last wrap is the outermost: authentication runs first.
    resource(path, routes)
        .wrap(actix_web::middleware::from_fn(crate::idempotency::guard))
        .wrap(actix_web::middleware::from_fn(crate::auth::require))
}

/// Mounts every route: the API under `/api/v1`, the guest page and the health checks.
pub fn configure(config: &mut web::ServiceConfig) {
    config
        .service(resource("/healthz", vec![web::get().to(health::live)]))
        .service(resource("/readyz", vec![web::get().to(health::ready)]))
        .service(resource(
            "/docs",
            vec![web::get().to(openapi::docs_redirect)],
        ))
        .service(openapi::swagger_ui())
        .service(resource(
            "/instance/{run_id}",
            vec![web::get().to(guest::page)],
        ))
        // Registered before the scope, which authenticates everything else under /api/v1.
        .service(resource(
            "/api/v1/openapi.json",
            vec![web::get().to(openapi::serve_document)],
        ))
        .service(
            web::scope("/api/v1")
                .service(api(
                    "/process-templates",
                    vec![
                        web::get().to(templates::list),
                        web::post().to(templates::create),
                    ],
                ))
                .service(api(
                    "/process-templates/{id}",
                    vec![
                        web::get().to(templates::get),
                        web::put().to(templates::replace),
                        web::delete().to(templates::archive),
                    ],
                ))
                .service(api(
                    "/process-templates/{id}/tasks",
                    vec![web::get().to(templates::tasks)],
                ))
                .service(api(
                    "/process-templates/{id}/publish",
                    vec![web::post().to(templates::publish)],
                ))
                .service(api(
                    "/process-runs",
                    vec![web::get().to(runs::list), web::post().to(runs::create)],
                ))
                .service(api("/process-runs/{id}", vec![web::get().to(runs::get)]))
                .service(api(
                    "/process-runs/{id}/invite",
                    vec![
                        web::post().to(runs::invite),
                        web::delete().to(runs::stop_sharing),
                    ],
                ))
                .service(api(
                    "/process-runs/{id}/tasks",
                    vec![web::get().to(tasks::list)],
                ))
                .service(api(
                    "/process-runs/{id}/tasks/{task_id}",
                    vec![web::get().to(tasks::get), web::patch().to(tasks::update)],
                )),
        );
}
