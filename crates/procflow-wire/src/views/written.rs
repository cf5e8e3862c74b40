//! A listing's task views written with their stored elements copied into place.

use std::sync::LazyLock;

use memchr::memmem::Finder;
use serde::Serialize;

use super::element_list::ElementList;
use super::inbox::InboxTaskView;
use super::task::{RunTaskListView, RunTaskView};

/// A view holding a task's elements: what [`write_json`] needs of it.
pub trait WithElements<'a>: Serialize {
    /// The task's elements.
    fn elements(&mut self) -> &mut ElementList<'a>;
}

impl<'a> WithElements<'a> for RunTaskListView<'a> {
    fn elements(&mut self) -> &mut ElementList<'a> {
        &mut self.custom_elements
    }
}

impl<'a> WithElements<'a> for RunTaskView<'a> {
    fn elements(&mut self) -> &mut ElementList<'a> {
        &mut self.base.custom_elements
    }
}

impl<'a> WithElements<'a> for InboxTaskView<'a> {
    fn elements(&mut self) -> &mut ElementList<'a> {
        &mut self.task.base.custom_elements
    }
}

/// Where the elements go in a view written with an empty list in their place. Only a key can
/// hold these bytes: inside a JSON string every quote is escaped. A task view has one key of
/// that name, and nothing before it holds an object.
const HOLE: &[u8] = b"\"custom_elements\":[]";

/// The search for [`HOLE`], built once.
static FIND_HOLE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(HOLE));

/// Appends `view` to `out` as JSON: what `serde_json::to_writer(out, &view)` writes, but
/// elements stored in the API form are copied into place as they are, without serde_json's
/// check of stored text (a scan of every byte, a fifth of a list of 50 tasks' instructions).
/// That text is PostgreSQL's `jsonb` output or serde_json's own, JSON by construction; the
/// view's `Serialize` keeps checking it.
///
/// # Errors
/// serde_json's, as `to_writer`'s.
pub fn write_json<'a, V: WithElements<'a>>(
    mut view: V,
    out: &mut Vec<u8>,
) -> Result<(), serde_json::Error> {
    let stored = match view.elements() {
        ElementList::Stored(stored) if stored.in_api_form() => *stored,
        _ => return serde_json::to_writer(out, &view),
    };
    *view.elements() = ElementList::Views(Vec::new());
    let start = out.len();
    serde_json::to_writer(&mut *out, &view)?;
    if let Some(at) = FIND_HOLE.find(&out[start..]) {
        // Copied whole: `Vec::splice` moves an iterator's bytes one at a time.
        let list = start + at + HOLE.len() - 2;
        let tail = out.split_off(list + 2);
        out.truncate(list);
        out.extend_from_slice(stored.as_json().as_bytes());
        out.extend_from_slice(&tail);
        return Ok(());
    }
    // A view that does not write its elements under their key: written as it says.
    out.truncate(start);
    *view.elements() = ElementList::Stored(stored);
    serde_json::to_writer(out, &view)
}

#[cfg(test)]
mod tests;
