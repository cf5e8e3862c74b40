//! One operation of the route table, as its handler's `#[utoipa::path]` declares it: read
//! through utoipa's public `OpenApi` derive, so that the table depends on nothing utoipa keeps
//! private.

use actix_web::Route;
use actix_web::http::Method;
use utoipa::openapi::path::{ParameterIn, PathItem};
use utoipa::openapi::schema::Schema;
use utoipa::openapi::{OpenApi, RefOr};

/// One documented operation: where it is served, its handler, and its documentation.
pub struct Operation {
    /// Its methods (one for every handler so far).
    pub methods: Vec<Method>,
    /// Its path, with `{name}` parameters, as in the OpenAPI document.
    pub path: String,
    /// Its handler, as a route without a method: the table adds the guard of each.
    pub(super) route: fn() -> Route,
    /// Its path item in the OpenAPI document: the operation under each of its methods.
    item: PathItem,
    /// The schemas its description refers to.
    schemas: Vec<(String, RefOr<Schema>)>,
}

impl Operation {
    /// The operations `document` describes, each served by `route`. `document` is derived from
    /// one handler's `#[utoipa::path]` alone (by utoipa's public `OpenApi` derive, which also
    /// gives the operation its tags and collects the schemas it refers to), so it lists one.
    pub(super) fn of(document: OpenApi, route: fn() -> Route) -> impl Iterator<Item = Self> {
        let schemas: Vec<(String, RefOr<Schema>)> = document
            .components
            .map(|components| components.schemas.into_iter().collect())
            .unwrap_or_default();
        document
            .paths
            .paths
            .into_iter()
            .map(move |(path, item)| Self {
                methods: methods(&item),
                path,
                route,
                item,
                schemas: schemas.clone(),
            })
    }

    /// Whether the operation takes an API key: everything under `/api/v1/` but the OpenAPI
    /// document.
    #[must_use]
    pub fn is_authenticated(&self) -> bool {
        super::authenticated(&self.path)
    }

    /// Whether the operation declares a query parameter (its extractor then refuses the
    /// parameters it does not declare); one that declares none refuses any
    /// ([`crate::params::no_query`]).
    #[must_use]
    pub fn takes_query(&self) -> bool {
        [
            &self.item.get,
            &self.item.put,
            &self.item.post,
            &self.item.delete,
            &self.item.patch,
        ]
        .into_iter()
        .flatten()
        .flat_map(|operation| operation.parameters.iter().flatten())
        .any(|parameter| {
            matches!(parameter, RefOr::T(parameter) if parameter.parameter_in == ParameterIn::Query)
        })
    }

    /// Whether the operation changes something (any method but `GET`).
    #[must_use]
    pub fn is_mutating(&self) -> bool {
        self.methods.iter().any(|method| method != Method::GET)
    }

    /// Adds its description, and the schemas it refers to, to `api`.
    pub fn describe_in(&self, api: &mut OpenApi) {
        match api.paths.paths.get_mut(&self.path) {
            Some(item) => item.merge_operations(self.item.clone()),
            None => {
                api.paths.paths.insert(self.path.clone(), self.item.clone());
            }
        }
        api.components
            .get_or_insert_with(Default::default)
            .schemas
            .extend(self.schemas.iter().cloned());
    }
}

/// The methods a path item has an operation for.
fn methods(item: &PathItem) -> Vec<Method> {
    [
        (Method::GET, &item.get),
        (Method::PUT, &item.put),
        (Method::POST, &item.post),
        (Method::DELETE, &item.delete),
        (Method::OPTIONS, &item.options),
        (Method::HEAD, &item.head),
        (Method::PATCH, &item.patch),
        (Method::TRACE, &item.trace),
    ]
    .into_iter()
    .filter_map(|(method, operation)| operation.is_some().then_some(method))
    .collect()
}

#[cfg(test)]
mod tests {
    use utoipa::OpenApi as _;

    use super::super::operations;
    use crate::openapi;

    #[test]
    fn every_operation_has_one_tag_the_document_declares() {
        let declared: Vec<String> = openapi::ApiDoc::openapi()
            .tags
            .unwrap_or_default()
            .into_iter()
            .map(|tag| tag.name)
            .collect();
        for operation in operations() {
            let described = [
                &operation.item.get,
                &operation.item.put,
                &operation.item.post,
                &operation.item.delete,
                &operation.item.patch,
            ];
            let described: Vec<_> = described.into_iter().flatten().collect();
            assert_eq!(
                described.len(),
                operation.methods.len(),
                "{}",
                operation.path
            );
            for described in described {
                // Without a `tag`, utoipa would name one after the handler's module.
                let tags = described.tags.clone().unwrap_or_default();
                assert_eq!(tags.len(), 1, "{}: {tags:?}", operation.path);
                assert!(declared.contains(&tags[0]), "{}: {tags:?}", operation.path);
            }
        }
    }
}
