//! The routes of the API, by resource, and how they are mounted.

mod guest;
mod health;
mod runs;
mod tasks;
mod templates;

use actix_web::{Route, web};

use crate::error::wrong_method;

/// A resource whose other methods answer 405 in the envelope.
fn resource(path: &str, routes: Vec<Route>) -> actix_web::Resource {
    routes
        .into_iter()
        .fold(web::resource(path), actix_web::Resource::route)
        .default_service(web::to(wrong_method))
}

/// Mounts every route: the API under `/api/v1`, the guest page and the health checks.
pub fn configure(config: &mut web::ServiceConfig) {
    config
        .service(resource("/healthz", vec![web::get().to(health::live)]))
        .service(resource("/readyz", vec![web::get().to(health::ready)]))
        .service(resource(
            "/instance/{run_id}",
            vec![web::get().to(guest::page)],
        ))
        .service(
            web::scope("/api/v1")
                .service(resource(
                    "/process-templates",
                    vec![
                        web::get().to(templates::list),
                        web::post().to(templates::create),
                    ],
                ))
                .service(resource(
                    "/process-templates/{id}",
                    vec![
                        web::get().to(templates::get),
                        web::put().to(templates::replace),
                        web::delete().to(templates::archive),
                    ],
                ))
                .service(resource(
                    "/process-templates/{id}/tasks",
                    vec![web::get().to(templates::tasks)],
                ))
                .service(resource(
                    "/process-templates/{id}/publish",
                    vec![web::post().to(templates::publish)],
                ))
                .service(resource(
                    "/process-runs",
                    vec![web::get().to(runs::list), web::post().to(runs::create)],
                ))
                .service(resource(
                    "/process-runs/{id}",
                    vec![web::get().to(runs::get)],
                ))
                .service(resource(
                    "/process-runs/{id}/invite",
                    vec![
                        web::post().to(runs::invite),
                        web::delete().to(runs::stop_sharing),
                    ],
                ))
                .service(resource(
                    "/process-runs/{id}/tasks",
                    vec![web::get().to(tasks::list)],
                ))
                .service(resource(
                    "/process-runs/{id}/tasks/{task_id}",
                    vec![web::get().to(tasks::get), web::patch().to(tasks::update)],
                )),
        );
}
