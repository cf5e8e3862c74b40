//! Keyset pages (spec 4.1): one page by [`PageRequest`], or every item of a list as a `Stream`
//! that asks for the next page when it needs it ([`items`]).

use std::future::Future;

use futures_util::Stream;
use futures_util::stream::{self, TryStreamExt};
use procflow_wire::List;

use crate::Error;

/// Which page: `limit` items (1 to 100; the server's default, 20, when `None`) after `cursor`
/// (the `next_cursor` of the page before; the first page when `None`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageRequest {
    /// Items per page.
    pub limit: Option<u32>,
    /// Where the page starts.
    pub cursor: Option<String>,
}

impl PageRequest {
    /// The first page of `limit` items.
    #[must_use]
    pub fn first(limit: u32) -> Self {
        Self {
            limit: Some(limit),
            cursor: None,
        }
    }

    /// The query pairs of this page.
    pub(crate) fn query(&self) -> Vec<(&'static str, String)> {
        let mut query = Vec::new();
        if let Some(limit) = self.limit {
            query.push(("limit", limit.to_string()));
        }
        if let Some(cursor) = &self.cursor {
            query.push(("cursor", cursor.clone()));
        }
        query
    }
}

/// Every item of a list, page after page from `first`, as a stream: `fetch` is one of the
/// client's `list_*` methods. The stream ends after the page whose `has_more` is false, and
/// after the first error.
///
/// ```no_run
/// # async fn example(client: procflow_client::Client) -> Result<(), procflow_client::Error> {
/// use futures_util::TryStreamExt;
/// use procflow_client::{PageRequest, items};
///
/// let runs: Vec<_> = items(PageRequest::first(100), |page| client.list_runs(None, None, page))
///     .try_collect()
///     .await?;
/// # Ok(()) }
/// ```
pub fn items<T, F, Fut>(first: PageRequest, fetch: F) -> impl Stream<Item = Result<T, Error>>
where
    F: FnMut(PageRequest) -> Fut,
    Fut: Future<Output = Result<List<T>, Error>>,
{
    stream::try_unfold((Some(first), fetch), |(next, mut fetch)| async move {
        let Some(page) = next else {
            return Ok::<_, Error>(None);
        };
        let limit = page.limit;
        let list = fetch(page).await?;
        let next = match (list.pagination.has_more, list.pagination.next_cursor) {
            (true, Some(cursor)) => Some(PageRequest {
                limit,
                cursor: Some(cursor),
            }),
            _ => None,
        };
        Ok(Some((
            stream::iter(list.data.into_iter().map(Ok)),
            (next, fetch),
        )))
    })
    .try_flatten()
}
