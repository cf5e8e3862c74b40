//! A page's rows collected into a vector made for the page at once.
//!
//! diesel-async's `load` collects rows into a vector that starts empty and doubles as it
//! fills, each time moving every row so far: six growths for a page of 51 rows of run tasks
//! (about 300 bytes each), 9,100 of the 680,800 instructions a list of 50 tasks cost the
//! server (callgrind, `docs/performance.md`, "A page's rows in a vector made for it"). A page
//! knows how many rows it can have, and the rows arrive one by one on the same stream.

use diesel::QueryResult;
use futures_util::{Stream, TryStreamExt};
use procflow_domain::values::Limit;

/// The rows to ask for a page of `limit` items: one more, which says whether another page
/// follows ([`procflow_domain::values::Page::from_fetched`]); SQL's `LIMIT` is a `bigint`.
pub(super) fn rows_to_fetch(limit: Limit) -> i64 {
    i64::try_from(limit.get() + 1).unwrap_or(i64::MAX)
}

/// Collects `rows` (a statement's, from `load_stream`) into a vector made for a page of
/// `limit` items and the row that says whether another page follows.
///
/// # Errors
/// The statement's, or the first row's that cannot be read.
pub(super) async fn collect_page<U>(
    rows: QueryResult<impl Stream<Item = QueryResult<U>>>,
    limit: Limit,
) -> QueryResult<Vec<U>> {
    let mut rows = std::pin::pin!(rows?);
    let mut page = Vec::with_capacity(limit.get() + 1);
    while let Some(row) = rows.try_next().await? {
        page.push(row);
    }
    Ok(page)
}

#[cfg(test)]
mod tests {
    use diesel::result::Error;
    use futures_util::stream;

    use super::*;

    fn limit(items: i64) -> Limit {
        Limit::new(items).expect("a limit")
    }

    #[test]
    fn a_page_asks_for_one_row_more_than_it_shows() {
        assert_eq!(rows_to_fetch(limit(1)), 2);
        assert_eq!(rows_to_fetch(Limit::default()), 21);
        assert_eq!(rows_to_fetch(Limit::largest()), 101);
    }

    #[tokio::test]
    async fn the_rows_come_in_order_in_a_vector_made_for_the_page() {
        let page = collect_page(Ok(stream::iter((1..=3).map(Ok))), limit(50))
            .await
            .expect("rows");
        assert_eq!(page, vec![1, 2, 3]);
        assert_eq!(page.capacity(), 51);
    }

    #[tokio::test]
    async fn more_rows_than_the_page_grow_past_it() {
        let page = collect_page(Ok(stream::iter((0..150).map(Ok))), limit(100))
            .await
            .expect("rows");
        assert_eq!(page, (0..150).collect::<Vec<_>>());
    }

    #[tokio::test]
    async fn a_row_that_cannot_be_read_fails_the_page() {
        let rows = vec![Ok(1), Err(Error::NotFound), Ok(3)];
        let failed = collect_page(Ok(stream::iter(rows)), limit(3)).await;
        assert!(matches!(failed, Err(Error::NotFound)), "{failed:?}");
    }

    #[tokio::test]
    async fn a_statement_that_failed_fails_the_page() {
        let failed: QueryResult<Vec<u8>> =
            collect_page(Err::<stream::Empty<_>, _>(Error::NotFound), limit(3)).await;
        assert!(matches!(failed, Err(Error::NotFound)), "{failed:?}");
    }
}
