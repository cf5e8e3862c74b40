//! The route table: every operation of the API once, as its handler. A handler's
//! `#[utoipa::path]` says its method and path; the table mounts it there and documents it in
//! the OpenAPI document from the same declaration, so a route and its documentation cannot
//! drift apart.

pub(crate) mod attachment_content;
pub(crate) mod attachments;
pub(crate) mod comments;
pub(crate) mod events;
pub(crate) mod guest;
pub(crate) mod guest_attachments;
pub(crate) mod health;
pub(crate) mod inbox;
mod operation;
pub(crate) mod run_links;
pub(crate) mod runs;
pub(crate) mod schedules;
pub(crate) mod start;
pub(crate) mod tasks;
pub(crate) mod templates;
pub(crate) mod webhooks;

use std::collections::BTreeMap;

use actix_web::dev::ServiceRequest;
use actix_web::http::Method;
use actix_web::{HttpRequest, ResponseError, Route, web};

pub use self::operation::Operation;
use crate::auth::Access;
use crate::error::ApiError;
use crate::{metrics, openapi};

/// Whether a path takes an API key: everything under `/api/v1/` but the OpenAPI document.
#[must_use]
pub fn authenticated(path: &str) -> bool {
    path.starts_with("/api/v1/") && path != openapi::DOCUMENT_PATH
}

/// The operations of handlers `module::handler`, each from its `#[utoipa::path]`.
macro_rules! operations {
    ($($module:ident :: $handler:ident),+ $(,)?) => {{
        let mut operations = Vec::new();
        $({
            // The handler's own document: utoipa's public way to read what a
            // `#[utoipa::path]` declares, tags and schemas included.
            #[derive(utoipa::OpenApi)]
            #[openapi(paths($module::$handler))]
            struct Described;
            operations.extend(Operation::of(
                <Described as utoipa::OpenApi>::openapi(),
                || web::route().to($module::$handler),
            ));
        })+
        operations
    }};
}

/// Every documented operation, in the order of the OpenAPI document.
#[must_use]
pub fn operations() -> Vec<Operation> {
    operations![
        templates::list,
        templates::create,
        templates::get,
        templates::replace,
        templates::archive,
        templates::tasks,
        templates::publish,
        run_links::get,
        run_links::enable,
        run_links::disable,
        runs::list,
        runs::create,
        runs::get,
        runs::invite,
        runs::stop_sharing,
        tasks::list,
        tasks::get,
        tasks::update,
        tasks::update_many,
        inbox::list,
        comments::list,
        comments::create,
        comments::update,
        comments::delete,
        attachments::list,
        attachments::upload,
        attachment_content::download,
        attachments::delete,
        webhooks::list,
        webhooks::create,
        webhooks::get,
        webhooks::update,
        webhooks::delete,
        webhooks::rotate_secret,
        webhooks::test,
        webhooks::deliveries,
        webhooks::redeliver,
        events::list,
        schedules::list,
        schedules::create,
        schedules::get,
        schedules::update,
        schedules::delete,
        openapi::serve_document,
        health::live,
        health::ready,
        guest::page,
        guest::post_task,
        guest::task_page,
        guest::post_comment,
        guest::comments_page,
        guest_attachments::upload,
        guest_attachments::upload_page,
        guest_attachments::download,
    ]
}

/// A resource serving `routes` (each guarded by its method) at `path`; any other method
/// answers 405 `method_not_allowed` with `Allow`. The 405 is the resource's own: no route's
/// middleware runs for it.
fn resource(path: &str, routes: Vec<(Method, Route)>) -> actix_web::Resource {
    let allowed = routes
        .iter()
        .map(|(method, _)| method.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    routes
        .into_iter()
        .fold(web::resource(path), |resource, (_, route)| {
            resource.route(route)
        })
        .default_service(web::to(move |request: HttpRequest| {
            let refusal =
                ApiError::method_not_allowed(request.method().as_str(), request.path(), &allowed);
            async move { refusal.error_response() }
        }))
}

/// The route of an `/api/v1` operation: authenticated by key, subscription and rate limit
/// before any of its extractors reads the request, then guarded by `Idempotency-Key`.
/// Wrapping the route rather than its resource is what keeps a method the path does not serve
/// out of both: it is answered 405 before a key is looked at, counted or claimed.
fn authenticated_route(path: &str, method: &Method, route: Route) -> Route {
    let access = access(path, method);
    // The last wrap is the outermost: authentication runs first.
    route
        .wrap(actix_web::middleware::from_fn(crate::idempotency::guard))
        .wrap(actix_web::middleware::from_fn(
            move |request: ServiceRequest, next| crate::auth::require(request, next, access),
        ))
}

/// The writes whose handlers pass their caller's clearance to their use case
/// ([`Access::ClearedWrite`]): the update of one task, the write integrations send most.
const CLEARED_WRITES: [(&str, Method); 1] =
    [("/api/v1/process-runs/{id}/tasks/{task_id}", Method::PATCH)];

/// The paths integrations call most, task updates first, then a task's thread: actix tries a
/// request's path against each resource in the order they were mounted, one regular expression
/// per pattern with a `{param}`, so these are mounted first. In alphabetical order a task
/// update's path was the eighth tried, its matching 4 % of the request's instructions; a
/// thread's was the thirteenth, 6 % of the server's time listing its comments. No two patterns
/// match a common path (a test checks it), so the order changes only how soon a path is found.
///
/// A task and the paths below it (its thread, its attachments) are mounted as one scope of
/// [`TASK_SCOPE`], first: one regular expression finds the task, then its sub-resources are
/// told apart by comparing text. A thread's path had been tried against three patterns with
/// parameters before its own, each run to the path's end: 6 % of a thread page's
/// instructions.
const LOOKED_UP_FIRST: [&str; 6] = [
    "/api/v1/process-runs/{id}/tasks/{task_id}",
    "/api/v1/process-runs/{id}/tasks",
    "/api/v1/process-runs/{id}",
    "/api/v1/process-runs",
    "/api/v1/tasks",
    "/api/v1/process-runs/{id}/tasks/{task_id}/comments",
];

/// The pattern of one task, under which its own paths are mounted as a scope.
const TASK_SCOPE: &str = "/api/v1/process-runs/{id}/tasks/{task_id}";

/// What of `path` its resource is mounted at within [`TASK_SCOPE`]: `""` for the task itself,
/// `"/comments"` for its thread; `None` for a path outside it.
fn in_task_scope(path: &str) -> Option<&str> {
    path.strip_prefix(TASK_SCOPE)
        .filter(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The resources in the order they are mounted: [`LOOKED_UP_FIRST`], then the others by path.
fn by_lookup_order<R>(by_path: BTreeMap<String, R>) -> Vec<(String, R)> {
    let rank = |path: &str| {
        LOOKED_UP_FIRST
            .iter()
            .position(|first| *first == path)
            .unwrap_or(LOOKED_UP_FIRST.len())
    };
    let mut ordered: Vec<(String, R)> = by_path.into_iter().collect();
    // Stable: the others keep their order by path.
    ordered.sort_by_key(|(path, _)| rank(path));
    ordered
}

/// How the admission treats `method` on `path`: a `read` key may call `GET` alone.
fn access(path: &str, method: &Method) -> Access {
    if *method == Method::GET {
        Access::Read
    } else if CLEARED_WRITES.contains(&(path, method.clone())) {
        Access::ClearedWrite
    } else {
        Access::Write
    }
}

/// Mounts every route: the operations of [`operations`] (each route under `/api/v1`
/// authenticated, then guarded by `Idempotency-Key`), the documentation page and `/metrics`.
/// Unknown routes stay 404, and methods a known path does not serve 405, whoever asks.
pub fn configure(config: &mut web::ServiceConfig) {
    let mut by_path: BTreeMap<String, Vec<(Method, Route)>> = BTreeMap::new();
    for operation in operations() {
        let routes = by_path.entry(operation.path.clone()).or_default();
        for method in &operation.methods {
            let route = (operation.route)().method(method.clone());
            // Innermost: refused like an extractor's refusal, after the key is admitted.
            let route = if operation.takes_query() {
                route
            } else {
                route.wrap(actix_web::middleware::from_fn(
                    crate::params::no_query::refuse,
                ))
            };
            let route = if authenticated(&operation.path) {
                authenticated_route(&operation.path, method, route)
            } else {
                route
            };
            routes.push((method.clone(), route));
        }
    }
    // Within the scope as without, in lookup order: the task first, then its thread.
    let (scoped, others): (Vec<_>, Vec<_>) = by_lookup_order(by_path)
        .into_iter()
        .partition(|(path, _)| in_task_scope(path).is_some());
    let task = scoped
        .into_iter()
        .fold(web::scope(TASK_SCOPE), |scope, (path, routes)| {
            scope.service(resource(in_task_scope(&path).unwrap_or_default(), routes))
        });
    config.service(task);
    for (path, routes) in others {
        config.service(resource(&path, routes));
    }
    config
        .service(resource(
            metrics::PATH,
            vec![(Method::GET, web::get().to(metrics::scrape))],
        ))
        .service(resource(
            start::PATH,
            vec![
                (Method::GET, web::get().to(start::page)),
                (Method::POST, web::post().to(start::post)),
            ],
        ))
        .service(resource(
            "/docs",
            vec![(Method::GET, web::get().to(openapi::docs_redirect))],
        ))
        .service(openapi::swagger_ui());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_has_a_method_and_a_distinct_route() {
        let mut seen = std::collections::HashSet::new();
        for operation in operations() {
            assert!(!operation.methods.is_empty(), "{}", operation.path);
            for method in &operation.methods {
                assert!(
                    seen.insert((method.clone(), operation.path.clone())),
                    "{method} {} twice",
                    operation.path
                );
            }
        }
    }

    #[test]
    fn only_the_api_but_its_document_is_authenticated() {
        let authenticated: Vec<String> = operations()
            .into_iter()
            .filter(Operation::is_authenticated)
            .map(|operation| operation.path)
            .collect();
        assert!(
            authenticated
                .iter()
                .all(|path| path.starts_with("/api/v1/"))
        );
        assert!(!authenticated.contains(&openapi::DOCUMENT_PATH.to_owned()));
        assert!(authenticated.len() >= 15, "{authenticated:?}");
    }

    /// Whether some path matches both patterns: each a path of literal segments and
    /// single-segment `{params}`, as every route here is.
    fn overlap(a: &str, b: &str) -> bool {
        let (a, b): (Vec<&str>, Vec<&str>) = (a.split('/').collect(), b.split('/').collect());
        a.len() == b.len()
            && a.iter()
                .zip(&b)
                .all(|(x, y)| x == y || x.starts_with('{') || y.starts_with('{'))
    }

    #[test]
    fn no_two_routes_match_one_path_so_their_order_does_not_matter() {
        let paths: Vec<String> = operations().into_iter().map(|o| o.path).collect();
        for (n, a) in paths.iter().enumerate() {
            for b in &paths[n + 1..] {
                assert!(a == b || !overlap(a, b), "{a} and {b} match a common path");
            }
        }
        // The check itself: patterns that do overlap are found.
        assert!(overlap("/a/{id}/b", "/a/x/{c}"));
        assert!(!overlap("/a/{id}/b", "/a/{id}/c"));
        assert!(!overlap("/a/{id}", "/a/{id}/b"));
    }

    #[test]
    fn the_paths_looked_up_first_are_mounted_first_and_the_rest_by_path() {
        let by_path: BTreeMap<String, ()> =
            operations().into_iter().map(|o| (o.path, ())).collect();
        let count = by_path.len();
        let ordered: Vec<String> = by_lookup_order(by_path)
            .into_iter()
            .map(|(p, ())| p)
            .collect();
        // A renamed path would quietly go back to its place by name.
        assert_eq!(ordered[..LOOKED_UP_FIRST.len()], LOOKED_UP_FIRST);
        assert_eq!(ordered.len(), count);
        let rest = &ordered[LOOKED_UP_FIRST.len()..];
        assert!(rest.windows(2).all(|w| w[0] < w[1]), "{rest:?}");
    }

    #[test]
    fn a_task_and_the_paths_below_it_are_in_its_scope_and_no_other_path_is() {
        assert_eq!(in_task_scope(TASK_SCOPE), Some(""));
        assert_eq!(
            in_task_scope("/api/v1/process-runs/{id}/tasks/{task_id}/comments"),
            Some("/comments")
        );
        for outside in [
            "/api/v1/process-runs/{id}/tasks",
            "/api/v1/process-runs/{id}/tasks/{task_id}s",
            "/api/v1/process-runs/{id}",
        ] {
            assert_eq!(in_task_scope(outside), None, "{outside}");
        }
        // The scope holds the task's own operations: a renamed pattern would empty it.
        let scoped: Vec<String> = operations()
            .into_iter()
            .map(|o| o.path)
            .filter(|p| in_task_scope(p).is_some())
            .collect();
        assert!(scoped.iter().any(|p| p == TASK_SCOPE), "{scoped:?}");
        assert!(
            scoped.len() >= 3,
            "the task, its thread, its attachments: {scoped:?}"
        );
    }

    #[test]
    fn each_cleared_write_is_an_authenticated_operation() {
        // A renamed path would quietly make the write wait for its admission again.
        for (path, method) in CLEARED_WRITES {
            assert!(
                operations().iter().any(|operation| operation.path == path
                    && operation.methods.contains(&method)
                    && operation.is_authenticated()),
                "{method} {path}"
            );
            assert_eq!(access(path, &method), Access::ClearedWrite);
        }
        assert_eq!(access("/api/v1/process-runs", &Method::POST), Access::Write);
        assert_eq!(access("/api/v1/process-runs", &Method::GET), Access::Read);
    }
}
