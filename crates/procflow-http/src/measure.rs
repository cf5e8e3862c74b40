//! Entry points for the crate's measuring examples (`examples/guest_page_timings.rs`): steps
//! that are crate-private otherwise, reached without a server. Not an API: hidden from the
//! docs and free to change with the examples.

use askama::Template as _;
use procflow_domain::service::SharedRun;
use time::OffsetDateTime;

use crate::guest::{Link, PageView};

/// The guest page of `shared` as its guest opens it (no refused post shown), in HTML.
///
/// # Errors
/// When askama fails to render the page.
pub fn guest_page(shared: &SharedRun) -> askama::Result<String> {
    let link = Link::from_page(shared.run.id, "token");
    PageView::new(shared, &link, OffsetDateTime::UNIX_EPOCH, None).render()
}

/// Builds the guest page's view of `shared` without rendering it.
pub fn guest_page_view(shared: &SharedRun) {
    let link = Link::from_page(shared.run.id, "token");
    // Kept opaque to the optimiser, which could otherwise drop a view nobody reads.
    std::hint::black_box(PageView::new(
        shared,
        &link,
        OffsetDateTime::UNIX_EPOCH,
        None,
    ));
}
