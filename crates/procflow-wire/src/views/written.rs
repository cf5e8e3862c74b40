//! A listing's views (run tasks, inbox items, runs, a thread's comments, schedules) written as JSON field by field, a task's
//! stored elements copied into place.
//!
//! serde's derived `Serialize` through serde_json writes each field's key as a string to
//! escape (a check of every byte against serde_json's escape table) and each id as a string
//! formatted and then checked the same way: for a page of 50 tasks that check was a fifth of
//! the request's instructions, with nothing in the keys or the ids that could need escaping.
//! These writers write keys as literals and ids straight into the answer; texts written by
//! people (titles, comments, refs, run titles) and enums still go through serde_json. The
//! views' `Serialize` stays what they mean: tests compare the two byte for byte for each kind
//! of task (`written/tests.rs`), and each writer destructures its view, so a field added to a
//! view does not compile until its writer writes it.

mod comment;
mod hex_id;
mod moment;
mod schedule;

use procflow_domain::actor::{Actor, Assignee};
use serde::Serialize;
use uuid::Uuid;

use self::hex_id::write_id;
use self::moment::write_moment;
use super::element_list::ElementList;
use super::inbox::{InboxRunView, InboxTaskView};
use super::run::{RunSectionView, RunView};
use super::task::{RunTaskListView, RunTaskView};

/// A view a listing writes with [`write_json`].
pub trait WriteJson: Serialize {
    /// Appends the view's fields to `out`, without the braces around them: what its
    /// `Serialize` writes between them.
    ///
    /// # Errors
    /// serde_json's, as `serde_json::to_writer`'s.
    fn write_fields(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error>;
}

/// Appends `view` to `out` as JSON: the bytes `serde_json::to_writer(out, view)` writes, but
/// written field by field, with elements stored in the API form copied into place as they are,
/// without serde_json's check of stored text (a scan of every byte). That text is PostgreSQL's
/// `jsonb` output or serde_json's own, JSON by construction; the view's `Serialize` keeps
/// checking it.
///
/// # Errors
/// serde_json's, as `to_writer`'s.
pub fn write_json<V: WriteJson>(view: &V, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
    out.push(b'{');
    view.write_fields(out)?;
    out.push(b'}');
    Ok(())
}

impl WriteJson for RunTaskListView<'_> {
    fn write_fields(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        let Self {
            id,
            instance_id,
            template_task_id,
            reference,
            depends_on,
            hidden,
            blocked,
            title,
            completed,
            completed_at,
            completed_by,
            order,
            section_id,
            assignee,
            is_essential,
            skipped,
            task_type,
            decision,
            comment,
            custom_elements,
            created_at,
        } = self;
        out.extend_from_slice(b"\"id\":");
        write_id(out, id.as_uuid());
        out.extend_from_slice(b",\"instance_id\":");
        write_id(out, instance_id.as_uuid());
        out.extend_from_slice(b",\"template_task_id\":");
        write_id(out, template_task_id.as_uuid());
        out.extend_from_slice(b",\"ref\":");
        optional(out, reference.as_deref(), text)?;
        out.extend_from_slice(b",\"depends_on\":");
        ids(out, depends_on.iter().map(|task| task.as_uuid()));
        out.extend_from_slice(b",\"hidden\":");
        boolean(out, *hidden);
        out.extend_from_slice(b",\"blocked\":");
        boolean(out, *blocked);
        out.extend_from_slice(b",\"title\":");
        text(out, title)?;
        out.extend_from_slice(b",\"completed\":");
        boolean(out, *completed);
        out.extend_from_slice(b",\"completed_at\":");
        optional(out, completed_at.as_ref(), write_moment)?;
        out.extend_from_slice(b",\"completed_by\":");
        optional(out, completed_by.as_ref(), actor)?;
        out.extend_from_slice(b",\"order\":");
        serialized(out, order)?;
        out.extend_from_slice(b",\"section_id\":");
        write_id(out, section_id.as_uuid());
        out.extend_from_slice(b",\"assignee\":");
        optional(out, assignee.as_deref(), assigned)?;
        out.extend_from_slice(b",\"is_essential\":");
        boolean(out, *is_essential);
        out.extend_from_slice(b",\"skipped\":");
        boolean(out, *skipped);
        out.extend_from_slice(b",\"type\":");
        serialized(out, task_type)?;
        out.extend_from_slice(b",\"decision\":");
        optional(out, decision.as_ref(), serialized)?;
        out.extend_from_slice(b",\"comment\":");
        optional(out, comment.as_deref(), text)?;
        out.extend_from_slice(b",\"custom_elements\":");
        elements(out, custom_elements)?;
        out.extend_from_slice(b",\"created_at\":");
        write_moment(out, created_at)
    }
}

impl WriteJson for RunTaskView<'_> {
    fn write_fields(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        let Self {
            base,
            due_date,
            webhook_enabled,
        } = self;
        base.write_fields(out)?;
        out.extend_from_slice(b",\"due_date\":");
        optional(out, due_date.as_ref(), write_moment)?;
        out.extend_from_slice(b",\"webhook_enabled\":");
        boolean(out, *webhook_enabled);
        Ok(())
    }
}

impl WriteJson for InboxTaskView<'_> {
    fn write_fields(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        let Self {
            task,
            run: InboxRunView { id, title },
        } = self;
        task.write_fields(out)?;
        out.extend_from_slice(b",\"run\":{\"id\":");
        write_id(out, id.as_uuid());
        out.extend_from_slice(b",\"title\":");
        text(out, title)?;
        out.push(b'}');
        Ok(())
    }
}

impl WriteJson for RunView<'_> {
    fn write_fields(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        let Self {
            id,
            template_id,
            title,
            status,
            started_by,
            team_id,
            timezone,
            due_date,
            is_shared,
            sections,
            rules,
            created_at,
            updated_at,
            completed_at,
        } = self;
        out.extend_from_slice(b"\"id\":");
        write_id(out, id.as_uuid());
        out.extend_from_slice(b",\"template_id\":");
        write_id(out, template_id.as_uuid());
        out.extend_from_slice(b",\"title\":");
        text(out, title)?;
        out.extend_from_slice(b",\"status\":");
        serialized(out, status)?;
        out.extend_from_slice(b",\"started_by\":");
        actor(out, started_by)?;
        out.extend_from_slice(b",\"team_id\":");
        write_id(out, team_id.as_uuid());
        out.extend_from_slice(b",\"timezone\":");
        text(out, timezone)?;
        out.extend_from_slice(b",\"due_date\":");
        optional(out, due_date.as_ref(), write_moment)?;
        out.extend_from_slice(b",\"is_shared\":");
        boolean(out, *is_shared);
        out.extend_from_slice(b",\"sections\":[");
        for (n, section) in sections.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            write_json(section, out)?;
        }
        out.extend_from_slice(b"],\"rules\":");
        serialized(out, rules)?;
        out.extend_from_slice(b",\"created_at\":");
        write_moment(out, created_at)?;
        out.extend_from_slice(b",\"updated_at\":");
        optional(out, updated_at.as_ref(), write_moment)?;
        out.extend_from_slice(b",\"completed_at\":");
        optional(out, completed_at.as_ref(), write_moment)
    }
}

impl WriteJson for RunSectionView<'_> {
    fn write_fields(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        let Self {
            id,
            title,
            order,
            color,
        } = self;
        out.extend_from_slice(b"\"id\":");
        write_id(out, id.as_uuid());
        out.extend_from_slice(b",\"title\":");
        text(out, title)?;
        out.extend_from_slice(b",\"order\":");
        serialized(out, order)?;
        out.extend_from_slice(b",\"color\":");
        optional(out, color.as_deref(), text)
    }
}

/// A list of ids, as `Vec<Uuid>`'s `Serialize` writes it.
fn ids(out: &mut Vec<u8>, ids: impl IntoIterator<Item = Uuid>) {
    out.push(b'[');
    for (n, id) in ids.into_iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        write_id(out, id);
    }
    out.push(b']');
}

fn boolean(out: &mut Vec<u8>, value: bool) {
    out.extend_from_slice(if value { b"true" } else { b"false" });
}

/// A text as serde_json writes it. One with nothing to escape (most: titles, names, comments)
/// is copied between its quotes at once; serde_json's writer checks it a byte at a time.
fn text(out: &mut Vec<u8>, value: &str) -> Result<(), serde_json::Error> {
    if needs_escaping(value.as_bytes()) {
        return serialized(out, value);
    }
    out.reserve(value.len() + 2);
    out.push(b'"');
    out.extend_from_slice(value.as_bytes());
    out.push(b'"');
    Ok(())
}

/// Whether serde_json escapes anything in `text`: a control character (below 0x20), a quote
/// or a backslash, as its escape table says; nothing else (not `/`, not DEL, not non-ASCII).
/// Every byte is read, without stopping early, so that a long text is checked with vector
/// instructions (a comment of 63 characters: 2 % of a thread's page).
fn needs_escaping(text: &[u8]) -> bool {
    text.iter().fold(false, |seen, &b| {
        seen | (b < 0x20) | (b == b'"') | (b == b'\\')
    })
}

fn actor(out: &mut Vec<u8>, by: &Actor) -> Result<(), serde_json::Error> {
    match by {
        Actor::User(user) => {
            write_id(out, user.as_uuid());
            Ok(())
        }
        Actor::Api | Actor::Guest => serialized(out, by),
    }
}

fn assigned(out: &mut Vec<u8>, assignee: &Assignee) -> Result<(), serde_json::Error> {
    match assignee {
        Assignee::User(user) => {
            write_id(out, user.as_uuid());
            Ok(())
        }
        Assignee::Email(_) => serialized(out, assignee),
    }
}

fn elements(out: &mut Vec<u8>, list: &ElementList<'_>) -> Result<(), serde_json::Error> {
    match list {
        ElementList::Stored(stored) if stored.in_api_form() => {
            out.extend_from_slice(stored.as_json().as_bytes());
            Ok(())
        }
        other => serialized(out, other),
    }
}

/// `value` as its `Serialize` writes it.
fn serialized<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
) -> Result<(), serde_json::Error> {
    serde_json::to_writer(&mut *out, value)
}

fn optional<T: ?Sized>(
    out: &mut Vec<u8>,
    value: Option<&T>,
    write: impl FnOnce(&mut Vec<u8>, &T) -> Result<(), serde_json::Error>,
) -> Result<(), serde_json::Error> {
    match value {
        Some(value) => write(out, value),
        None => {
            out.extend_from_slice(b"null");
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests;
