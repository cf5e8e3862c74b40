//! The authoring document: one nested JSON document that becomes a template (API contract 5).

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;

use super::logic::{self, LogicSources};
use super::{DueDateRule, Ref, RuleDocument, Section, TaskType, Template, TemplateTask, limits};
use crate::actor::TemplateAssignee;
use crate::element::{CustomElement, ElementType, is_web_url};
use crate::error::ValidationError;
use crate::ids::{ElementId, SectionId, TeamId, TemplateId, TemplateTaskId};
use crate::limits::{
    self as text_limits, MAX_ELEMENTS_PER_TASK, MAX_TASKS, MAX_TEXT_CHARS, MAX_TITLE_CHARS,
    MAX_URL_BYTES,
};
use crate::ports::IdGenerator;
use crate::values::Color;

/// The authoring document of a template (API contract 5): sections holding tasks holding form
/// fields. Omitted fields take their defaults; unknown fields are refused.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TemplateDocument {
    /// The title; not blank.
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::openapi::title))]
    pub title: String,
    /// Free text.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::openapi::optional_text))]
    pub description: Option<String>,
    /// A cover image: an absolute http or https URL.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::openapi::optional_url))]
    pub cover_image: Option<String>,
    /// An icon (an emoji, a URL, ...).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::openapi::optional_short))]
    pub icon: Option<String>,
    /// What kind of icon `icon` holds: free text, such as `emoji` or `image`.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::openapi::optional_short))]
    pub icon_type: Option<String>,
    /// The sections, in order; a template holds at most 1000 tasks in all.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::openapi::section_documents))]
    pub sections: Vec<SectionDocument>,
    /// The rules that show and hide tasks from form values (API contract 12.1); none when
    /// omitted.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::openapi::rule_documents))]
    pub rules: Vec<RuleDocument>,
}

/// A section of an authoring document.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SectionDocument {
    /// Kept when given, so that edits keep ids stable.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = "uuid"))]
    pub id: Option<SectionId>,
    /// The title; not blank.
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::openapi::title))]
    pub title: String,
    /// Free text.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::openapi::optional_text))]
    pub description: Option<String>,
    /// `#RRGGBB`.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(pattern = "^#[0-9A-Fa-f]{6}$"))]
    pub color: Option<String>,
    /// The tasks, in order.
    #[serde(default)]
    pub tasks: Vec<TaskDocument>,
}

/// A task of an authoring document.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TaskDocument {
    /// Kept when given, so that pre-fill ids stay stable across edits.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = "uuid"))]
    pub id: Option<TemplateTaskId>,
    /// A document-local name that rules and dependencies may use instead of the id; unique
    /// among the template's tasks, kept across edits.
    #[serde(rename = "ref", default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, pattern = "^[a-z0-9][a-z0-9_-]{0,63}$"))]
    pub reference: Option<Ref>,
    /// The tasks (by `ref` or id) that must be completed, skipped or hidden before this one can
    /// be completed or approved; none when omitted.
    #[serde(default)]
    pub depends_on: Vec<String>,
    /// The title; not blank.
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::openapi::title))]
    pub title: String,
    /// `task` (when omitted) or `approval`.
    #[serde(rename = "type", default)]
    pub task_type: TaskType,
    /// Essential tasks cannot be skipped; false when omitted.
    #[serde(default)]
    pub is_essential: bool,
    /// A member's user id, an email, or `runner` (whoever the run is attributed to).
    #[serde(default)]
    pub assignee: Option<String>,
    /// The due-date rule; none when omitted.
    #[serde(default)]
    pub due_date: Option<DueDateRule>,
    /// Whether completing the task sends a webhook; false when omitted.
    #[serde(default)]
    pub webhook_enabled: bool,
    /// The form fields, in order.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::openapi::element_documents))]
    pub custom_elements: Vec<ElementDocument>,
}

/// A form field of an authoring document. `options` is required on (and only allowed on)
/// dropdown and multichoice; `file_url` on file; display-only `text`, `image` and `video`
/// carry their content (HTML, a URL) in `value`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ElementDocument {
    /// Kept when given.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = "uuid"))]
    pub id: Option<ElementId>,
    /// A document-local name that rules may use instead of the id; unique among the
    /// template's elements, kept across edits.
    #[serde(rename = "ref", default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, pattern = "^[a-z0-9][a-z0-9_-]{0,63}$"))]
    pub reference: Option<Ref>,
    /// One of the 14 types.
    #[serde(rename = "type")]
    pub element_type: ElementType,
    /// The label; not blank on input elements.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::openapi::label))]
    pub label: String,
    /// Whether the field should be filled in; false when omitted.
    #[serde(default)]
    pub required: bool,
    /// A default value on input elements (the type's value, see spec 2.7); the content of
    /// `text`, `image` and `video`.
    #[serde(default)]
    pub value: Option<Value>,
    /// The choices of dropdown and multichoice elements: distinct, not blank.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::openapi::options))]
    pub options: Option<Vec<String>>,
    /// The attachment of a file element: an absolute http or https URL.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::openapi::optional_url))]
    pub file_url: Option<String>,
}

impl TemplateDocument {
    /// Reads a document, naming the path of the first field at fault.
    ///
    /// # Errors
    /// A [`ValidationError`] whose field is the path, such as `sections[0].tasks[1].type`.
    pub fn from_json(value: Value) -> Result<Self, ValidationError> {
        // serde would read a struct from an array of its fields in order: a document is an object.
        if !value.is_object() {
            return Err(ValidationError::field(
                "body",
                "a template document is a JSON object",
            ));
        }
        crate::json::read(&value)
    }

    /// Checks every rule and builds the template: a new draft, or the replacement of
    /// `previous`'s document (keeping its id, version and creation time).
    ///
    /// # Errors
    /// A [`ValidationError`] naming the path at fault, for example
    /// `sections[1].tasks[0].custom_elements[2].options`.
    pub fn build(
        self,
        team_id: TeamId,
        previous: Option<&Template>,
        ids: &dyn IdGenerator,
        now: OffsetDateTime,
    ) -> Result<Template, ValidationError> {
        limits::check_sections(self.sections.len()).map_err(|message| at("sections", message))?;
        let mut seen = SeenIds::default();
        let template_title = title("title", self.title)?;
        let description = optional_text("description", self.description)?;
        let cover_image = optional_url("cover_image", self.cover_image)?;
        let icon = optional_short("icon", self.icon)?;
        let icon_type = optional_short("icon_type", self.icon_type)?;
        let mut sections = Vec::with_capacity(self.sections.len());
        let mut tasks = Vec::new();
        let mut options = 0;
        let mut sources = LogicSources::default();
        for (s, section) in self.sections.into_iter().enumerate() {
            let path = format!("sections[{s}]");
            let id = seen.section(&path, section.id, ids)?;
            for (t, mut task) in section.tasks.into_iter().enumerate() {
                let task_path = format!("{path}.tasks[{t}]");
                sources.task(task_path.clone(), std::mem::take(&mut task.depends_on));
                let order = u32::try_from(tasks.len()).unwrap_or(u32::MAX);
                let created_at = task
                    .id
                    .and_then(|task_id| previous.and_then(|p| p.task(task_id)))
                    .map_or(now, |existing| existing.created_at);
                tasks.push(build_task(
                    &task_path, task, id, order, created_at, &mut seen, ids,
                )?);
                options = count_options(&task_path, options, tasks.last())?;
                if tasks.len() > MAX_TASKS {
                    return Err(at(
                        &task_path,
                        format!("a template has at most {MAX_TASKS} tasks"),
                    ));
                }
            }
            sections.push(Section {
                id,
                title: title(&format!("{path}.title"), section.title)?,
                description: optional_text(&format!("{path}.description"), section.description)?,
                order: u32::try_from(s).unwrap_or(u32::MAX),
                color: section
                    .color
                    .map(|c| c.parse::<Color>())
                    .transpose()
                    .map_err(|_| {
                        at(
                            &format!("{path}.color"),
                            "must be a colour of the form #RRGGBB",
                        )
                    })?,
            });
        }
        let rules = logic::resolve(&mut tasks, sources, self.rules)?;
        let template = Template {
            id: previous.map_or_else(|| TemplateId::from_uuid(ids.new_id()), |p| p.id),
            team_id,
            title: template_title,
            description,
            cover_image,
            icon,
            icon_type,
            is_published: false,
            version: previous.map_or(0, |p| p.version),
            sections,
            tasks,
            rules,
            created_at: previous.map_or(now, |p| p.created_at),
            updated_at: now,
        };
        limits::check_stored(&template).map_err(|message| at("body", message))?;
        Ok(template)
    }
}

/// The options of the template so far, with those of the task just built; refused over
/// [`limits::MAX_OPTIONS`], naming the element that went over.
fn count_options(
    path: &str,
    so_far: usize,
    task: Option<&TemplateTask>,
) -> Result<usize, ValidationError> {
    let Some(task) = task else {
        return Ok(so_far);
    };
    let mut total = so_far;
    for (e, element) in task.custom_elements.iter().enumerate() {
        let more = element.options.as_ref().map_or(0, Vec::len);
        total = limits::check_options_in_all(total, more)
            .map_err(|message| at(&format!("{path}.custom_elements[{e}].options"), message))?;
    }
    Ok(total)
}

fn build_task(
    path: &str,
    task: TaskDocument,
    section_id: SectionId,
    order: u32,
    created_at: OffsetDateTime,
    seen: &mut SeenIds,
    ids: &dyn IdGenerator,
) -> Result<TemplateTask, ValidationError> {
    let id = seen.task(path, task.id, ids)?;
    if task.custom_elements.len() > MAX_ELEMENTS_PER_TASK {
        return Err(at(
            &format!("{path}.custom_elements"),
            format!("a task has at most {MAX_ELEMENTS_PER_TASK} elements"),
        ));
    }
    let assignee = task
        .assignee
        .map(|a| a.parse::<TemplateAssignee>())
        .transpose()
        .map_err(|e| at(&format!("{path}.assignee"), message_of(e)))?;
    let custom_elements = task
        .custom_elements
        .into_iter()
        .enumerate()
        .map(|(e, element)| {
            build_element(&format!("{path}.custom_elements[{e}]"), element, seen, ids)
        })
        .collect::<Result<_, _>>()?;
    Ok(TemplateTask {
        id,
        reference: task.reference,
        // Resolved once every task of the document is known.
        depends_on: Vec::new(),
        section_id,
        title: title(&format!("{path}.title"), task.title)?,
        order,
        assignee,
        is_essential: task.is_essential,
        task_type: task.task_type,
        due_date: task.due_date,
        webhook_enabled: task.webhook_enabled,
        custom_elements,
        created_at,
    })
}

fn build_element(
    path: &str,
    doc: ElementDocument,
    seen: &mut SeenIds,
    ids: &dyn IdGenerator,
) -> Result<CustomElement, ValidationError> {
    let id = seen.element(path, doc.id, ids)?;
    let kind = doc.element_type;
    let label = if kind.is_display_only() {
        short(&format!("{path}.label"), doc.label)?
    } else {
        title(&format!("{path}.label"), doc.label)?
    };
    let options = match (kind.has_options(), doc.options) {
        (true, Some(options)) => Some(check_options(&format!("{path}.options"), options)?),
        (true, None) => {
            return Err(at(
                &format!("{path}.options"),
                format!("a {kind} element needs options"),
            ));
        }
        (false, Some(_)) => {
            return Err(at(
                &format!("{path}.options"),
                format!("a {kind} element has no options"),
            ));
        }
        (false, None) => None,
    };
    let file_url = match (kind.has_file_url(), doc.file_url) {
        (true, Some(url)) => Some(url_text(&format!("{path}.file_url"), url)?),
        (true, None) => {
            return Err(at(
                &format!("{path}.file_url"),
                format!("a {kind} element needs a file_url"),
            ));
        }
        (false, Some(_)) => {
            return Err(at(
                &format!("{path}.file_url"),
                format!("a {kind} element has no file_url"),
            ));
        }
        (false, None) => None,
    };
    let mut element = CustomElement {
        id,
        reference: doc.reference,
        element_type: kind,
        label,
        required: doc.required,
        value: None,
        options,
        file_url,
    };
    element.value = display_or_default(&format!("{path}.value"), &element, doc.value)?;
    Ok(element)
}

/// The content of a display-only element, or the validated default of an input element.
fn display_or_default(
    path: &str,
    element: &CustomElement,
    value: Option<Value>,
) -> Result<Option<Value>, ValidationError> {
    let value = value.filter(|v| !v.is_null());
    match element.element_type {
        ElementType::Text => match value {
            Some(Value::String(html)) if !html.trim().is_empty() => {
                text(path, html.clone(), MAX_TEXT_CHARS)?;
                Ok(Some(Value::String(html)))
            }
            _ => Err(at(
                path,
                "a text element needs its HTML content as a non-empty string",
            )),
        },
        ElementType::Image | ElementType::Video => match value {
            Some(Value::String(url)) => Ok(Some(Value::String(url_text(path, url)?))),
            _ => Err(at(
                path,
                format!("a {} element needs its URL as value", element.element_type),
            )),
        },
        ElementType::File | ElementType::LineBreak => match value {
            None => Ok(None),
            Some(_) => Err(at(
                path,
                format!("a {} element has no value", element.element_type),
            )),
        },
        ElementType::ShortText
        | ElementType::LongText
        | ElementType::Number
        | ElementType::Email
        | ElementType::Website
        | ElementType::Date
        | ElementType::Checkbox
        | ElementType::Dropdown
        | ElementType::Multichoice => match value {
            None => Ok(None),
            Some(value) => element
                .validate_write(&value)
                .map_err(|e| at(path, message_of(e))),
        },
    }
}

fn check_options(path: &str, options: Vec<String>) -> Result<Vec<String>, ValidationError> {
    if options.is_empty() {
        return Err(at(path, "must hold at least one option"));
    }
    limits::check_options_of_element(options.len()).map_err(|message| at(path, message))?;
    let mut seen = HashSet::with_capacity(options.len());
    for (i, option) in options.iter().enumerate() {
        text(&format!("{path}[{i}]"), option.clone(), MAX_TITLE_CHARS)?;
        if option.trim().is_empty() {
            return Err(at(&format!("{path}[{i}]"), "an option cannot be empty"));
        }
        if !seen.insert(option.as_str()) {
            return Err(at(
                &format!("{path}[{i}]"),
                format!("duplicate option {option:?}"),
            ));
        }
    }
    Ok(options)
}

#[derive(Default)]
struct SeenIds {
    sections: HashSet<SectionId>,
    tasks: HashSet<TemplateTaskId>,
    elements: HashSet<ElementId>,
}

impl SeenIds {
    fn section(
        &mut self,
        path: &str,
        id: Option<SectionId>,
        ids: &dyn IdGenerator,
    ) -> Result<SectionId, ValidationError> {
        let id = id.unwrap_or_else(|| SectionId::from_uuid(ids.new_id()));
        unique(&mut self.sections, id, path)
    }

    fn task(
        &mut self,
        path: &str,
        id: Option<TemplateTaskId>,
        ids: &dyn IdGenerator,
    ) -> Result<TemplateTaskId, ValidationError> {
        let id = id.unwrap_or_else(|| TemplateTaskId::from_uuid(ids.new_id()));
        unique(&mut self.tasks, id, path)
    }

    fn element(
        &mut self,
        path: &str,
        id: Option<ElementId>,
        ids: &dyn IdGenerator,
    ) -> Result<ElementId, ValidationError> {
        let id = id.unwrap_or_else(|| ElementId::from_uuid(ids.new_id()));
        unique(&mut self.elements, id, path)
    }
}

fn unique<T: std::hash::Hash + Eq + std::fmt::Display + Copy>(
    seen: &mut HashSet<T>,
    id: T,
    path: &str,
) -> Result<T, ValidationError> {
    if seen.insert(id) {
        Ok(id)
    } else {
        Err(at(
            &format!("{path}.id"),
            format!("id {id} is used twice in the document"),
        ))
    }
}

fn at(path: &str, message: impl Into<String>) -> ValidationError {
    ValidationError::field(path, message)
}

fn message_of(error: ValidationError) -> String {
    match error {
        ValidationError::Field { message, .. } => message,
        other => other.to_string(),
    }
}

fn text(path: &str, value: String, max_chars: usize) -> Result<String, ValidationError> {
    text_limits::check_text(&value, max_chars)
        .map(|()| value)
        .map_err(|message| at(path, message))
}

fn title(path: &str, value: String) -> Result<String, ValidationError> {
    text_limits::check_title(&value)
        .map(|()| value)
        .map_err(|message| at(path, message))
}

fn short(path: &str, value: String) -> Result<String, ValidationError> {
    text(path, value, MAX_TITLE_CHARS)
}

fn url_text(path: &str, value: String) -> Result<String, ValidationError> {
    if is_web_url(&value) && value.len() <= MAX_URL_BYTES {
        Ok(value)
    } else {
        Err(at(
            path,
            format!("must be an absolute http or https URL of at most {MAX_URL_BYTES} bytes"),
        ))
    }
}

fn optional_text(path: &str, value: Option<String>) -> Result<Option<String>, ValidationError> {
    value.map(|v| text(path, v, MAX_TEXT_CHARS)).transpose()
}

fn optional_short(path: &str, value: Option<String>) -> Result<Option<String>, ValidationError> {
    value.map(|v| short(path, v)).transpose()
}

fn optional_url(path: &str, value: Option<String>) -> Result<Option<String>, ValidationError> {
    value.map(|v| url_text(path, v)).transpose()
}
