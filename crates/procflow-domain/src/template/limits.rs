//! The caps on what one template document may multiply: sections, options per element and in
//! all, and the size the template takes once built (every id and default filled in). A small
//! body must not become a large template, a large list page or a large guest page.
//!
//! ```
//! use procflow_domain::template::limits::{self, MAX_OPTIONS_PER_ELEMENT, MAX_SECTIONS};
//!
//! assert_eq!(limits::check_sections(MAX_SECTIONS), Ok(()));
//! assert_eq!(
//!     limits::check_sections(MAX_SECTIONS + 1),
//!     Err(format!("a template has at most {MAX_SECTIONS} sections"))
//! );
//! assert!(limits::check_options_of_element(MAX_OPTIONS_PER_ELEMENT + 1).is_err());
//! ```

use std::io;

use serde::Serialize;

use super::{DueDateRule, Section, TaskType, Template};
use crate::element::CustomElement;
use crate::ids::{SectionId, TemplateTaskId};

/// The most sections a template may have: `{"title":"x"}` (14 bytes) becomes a section of
/// about 90 bytes in every answer that shows the template, lists included.
pub const MAX_SECTIONS: usize = 200;

/// The most options a dropdown or multichoice element may have (the IANA time zones fit).
pub const MAX_OPTIONS_PER_ELEMENT: usize = 1_000;

/// The most options a template may have in all: each becomes a checkbox and its label on the
/// guest page (about 160 bytes for an option of 2 characters), so this bounds that page.
pub const MAX_OPTIONS: usize = 10_000;

/// The most bytes a template may take once built, as [`stored_bytes`] counts them: the
/// request body limit (1 MiB), so that what is stored is no larger than what one request may
/// carry, however much of it ids and defaults are.
pub const MAX_STORED_BYTES: usize = 1024 * 1024;

/// At most [`MAX_SECTIONS`] sections.
///
/// # Errors
/// The message for the `sections` field.
pub fn check_sections(count: usize) -> Result<(), String> {
    if count > MAX_SECTIONS {
        return Err(format!("a template has at most {MAX_SECTIONS} sections"));
    }
    Ok(())
}

/// At most [`MAX_OPTIONS_PER_ELEMENT`] options on one element.
///
/// # Errors
/// The message for the element's `options` field.
pub fn check_options_of_element(count: usize) -> Result<(), String> {
    if count > MAX_OPTIONS_PER_ELEMENT {
        return Err(format!(
            "an element has at most {MAX_OPTIONS_PER_ELEMENT} options"
        ));
    }
    Ok(())
}

/// At most [`MAX_OPTIONS`] options in the whole template, counting `more` on top of `so_far`.
///
/// # Errors
/// The message for the `options` field that goes over.
pub fn check_options_in_all(so_far: usize, more: usize) -> Result<usize, String> {
    let total = so_far.saturating_add(more);
    if total > MAX_OPTIONS {
        return Err(format!(
            "a template has at most {MAX_OPTIONS} options in all its elements"
        ));
    }
    Ok(total)
}

/// At most [`MAX_STORED_BYTES`] once built.
///
/// # Errors
/// The message for the whole document (`body`), with the size it would take.
pub fn check_stored(template: &Template) -> Result<(), String> {
    let bytes = stored_bytes(template);
    if bytes > MAX_STORED_BYTES {
        return Err(format!(
            "the template would take {bytes} bytes once built (ids and defaults included); \
             at most {MAX_STORED_BYTES}"
        ));
    }
    Ok(())
}

/// The size of `template` as JSON with every id and default filled in: its texts, sections,
/// and tasks with their elements, the shape it is stored and answered in (give or take the
/// timestamps).
#[must_use]
pub fn stored_bytes(template: &Template) -> usize {
    let stored = Stored {
        title: &template.title,
        description: template.description.as_deref(),
        cover_image: template.cover_image.as_deref(),
        icon: template.icon.as_deref(),
        icon_type: template.icon_type.as_deref(),
        sections: &template.sections,
        tasks: template
            .tasks
            .iter()
            .map(|task| StoredTask {
                id: task.id,
                section_id: task.section_id,
                title: &task.title,
                order: task.order,
                assignee: task.assignee.as_ref().map(ToString::to_string),
                is_essential: task.is_essential,
                task_type: task.task_type,
                due_date: task.due_date.as_ref(),
                webhook_enabled: task.webhook_enabled,
                custom_elements: &task.custom_elements,
            })
            .collect(),
    };
    let mut counter = Counter(0);
    // Writing to a counter cannot fail, and every part serialises.
    let _ = serde_json::to_writer(&mut counter, &stored);
    counter.0
}

#[derive(Serialize)]
struct Stored<'a> {
    title: &'a str,
    description: Option<&'a str>,
    cover_image: Option<&'a str>,
    icon: Option<&'a str>,
    icon_type: Option<&'a str>,
    sections: &'a [Section],
    tasks: Vec<StoredTask<'a>>,
}

#[derive(Serialize)]
struct StoredTask<'a> {
    id: TemplateTaskId,
    section_id: SectionId,
    title: &'a str,
    order: u32,
    assignee: Option<String>,
    is_essential: bool,
    task_type: TaskType,
    due_date: Option<&'a DueDateRule>,
    webhook_enabled: bool,
    custom_elements: &'a [CustomElement],
}

/// Counts the bytes written to it.
struct Counter(usize);

impl io::Write for Counter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
