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

/// The most rows a page's vector is made for at once: the largest page, plus the row that says
/// whether another follows. A larger `rows` grows the vector as `load` would.
const MOST_RESERVED: usize = Limit::MAX as usize + 1;

/// Collects `stream` (a statement's rows, from `load_stream`) into a vector made for `rows`
/// of them.
///
/// # Errors
/// The statement's, or the first row's that cannot be read.
pub(super) async fn collect_page<U>(
    stream: impl Stream<Item = QueryResult<U>>,
    rows: i64,
) -> QueryResult<Vec<U>> {
    let capacity = usize::try_from(rows).map_or(0, |rows| rows.min(MOST_RESERVED));
    let mut stream = std::pin::pin!(stream);
    let mut page = Vec::with_capacity(capacity);
    while let Some(row) = stream.try_next().await? {
        page.push(row);
    }
    Ok(page)
}

#[cfg(test)]
mod tests {
    use diesel::result::Error;
    use futures_util::stream;

    use super::*;

    #[tokio::test]
    async fn the_rows_come_in_order_in_a_vector_made_for_the_page() {
        let page = collect_page(stream::iter((1..=3).map(Ok)), 51)
            .await
            .expect("rows");
        assert_eq!(page, vec![1, 2, 3]);
        assert_eq!(page.capacity(), 51);
    }

    #[tokio::test]
    async fn a_page_larger_than_any_limit_is_made_for_the_most_and_grows_past_it() {
        let few = collect_page(stream::iter((0..3).map(Ok)), 150)
            .await
            .expect("rows");
        assert_eq!(few.capacity(), MOST_RESERVED);
        assert_eq!(MOST_RESERVED, 101);
        let page = collect_page(stream::iter((0..150).map(Ok)), 150)
            .await
            .expect("rows");
        assert_eq!(page, (0..150).collect::<Vec<_>>());
        let nothing = collect_page(stream::iter(Vec::<QueryResult<u8>>::new()), -1)
            .await
            .expect("no rows");
        assert!(nothing.is_empty());
        assert_eq!(nothing.capacity(), 0);
    }

    #[tokio::test]
    async fn a_row_that_cannot_be_read_fails_the_page() {
        let rows = vec![Ok(1), Err(Error::NotFound), Ok(3)];
        let failed = collect_page(stream::iter(rows), 3).await;
        assert!(matches!(failed, Err(Error::NotFound)), "{failed:?}");
    }
}
