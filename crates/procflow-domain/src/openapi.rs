//! Schemas for the OpenAPI document (the `openapi` feature): the size limits of [`limits`](crate::limits)
//! as JSON Schema keywords, so that the document states the same limits the rules apply.
//! The types the API shows as they are derive `utoipa::ToSchema` under the same feature and
//! use these through `schema_with`.

use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, SchemaFormat, SchemaType, Type};
use utoipa::openapi::{Array, Object, Ref};

use crate::limits::{
    MAX_ELEMENTS_PER_TASK, MAX_TEXT_CHARS, MAX_TITLE_CHARS, MAX_URL_BYTES, TEXT_PATTERN,
    TITLE_PATTERN,
};
use crate::template::limits::{MAX_OPTIONS_PER_ELEMENT, MAX_SECTIONS};

fn string(nullable: bool) -> ObjectBuilder {
    let kind = if nullable {
        SchemaType::from_iter([Type::String, Type::Null])
    } else {
        SchemaType::Type(Type::String)
    };
    ObjectBuilder::new()
        .schema_type(kind)
        .pattern(Some(TEXT_PATTERN))
}

/// A title: not blank, at most [`MAX_TITLE_CHARS`] characters.
#[must_use]
pub fn title() -> Object {
    string(false)
        .min_length(Some(1))
        .max_length(Some(MAX_TITLE_CHARS))
        .pattern(Some(TITLE_PATTERN))
        .description(Some("The title; not blank."))
        .build()
}

/// An optional title: not blank, at most [`MAX_TITLE_CHARS`] characters, or null.
#[must_use]
pub fn optional_title() -> Object {
    string(true)
        .max_length(Some(MAX_TITLE_CHARS))
        .pattern(Some(TITLE_PATTERN))
        .description(Some("A title; not blank."))
        .build()
}

/// A label: at most [`MAX_TITLE_CHARS`] characters.
#[must_use]
pub fn label() -> Object {
    string(false)
        .max_length(Some(MAX_TITLE_CHARS))
        .description(Some("The label; not blank on input elements."))
        .build()
}

/// Short optional text (an icon, its kind): at most [`MAX_TITLE_CHARS`] characters, or null.
#[must_use]
pub fn optional_short() -> Object {
    string(true).max_length(Some(MAX_TITLE_CHARS)).build()
}

/// Optional free text: at most [`MAX_TEXT_CHARS`] characters, or null.
#[must_use]
pub fn optional_text() -> Object {
    string(true).max_length(Some(MAX_TEXT_CHARS)).build()
}

/// An optional absolute `http` or `https` URL of at most [`MAX_URL_BYTES`], or null.
#[must_use]
pub fn optional_url() -> Object {
    string(true)
        .format(Some(SchemaFormat::Custom("uri".to_owned())))
        .max_length(Some(MAX_URL_BYTES))
        .description(Some("An absolute http or https URL."))
        .build()
}

/// The form fields of a task in an authoring document: at most [`MAX_ELEMENTS_PER_TASK`].
#[must_use]
pub fn element_documents() -> Array {
    ArrayBuilder::new()
        .items(Ref::from_schema_name("ElementDocument"))
        .max_items(Some(MAX_ELEMENTS_PER_TASK))
        .description(Some(format!(
            "The form fields, in order; at most {MAX_ELEMENTS_PER_TASK}."
        )))
        .build()
}

/// The sections of an authoring document: at most [`MAX_SECTIONS`].
#[must_use]
pub fn section_documents() -> Array {
    ArrayBuilder::new()
        .items(Ref::from_schema_name("SectionDocument"))
        .max_items(Some(MAX_SECTIONS))
        .description(Some(format!(
            "The sections, in order; at most {MAX_SECTIONS}, holding at most {} tasks in all.",
            crate::limits::MAX_TASKS
        )))
        .build()
}

/// The rules of an authoring document: at most [`MAX_RULES`](crate::template::MAX_RULES)
/// [`RuleSchema`]s.
#[must_use]
pub fn rule_documents() -> Array {
    ArrayBuilder::new()
        .items(Ref::from_schema_name("Rule"))
        .max_items(Some(crate::template::MAX_RULES))
        .description(Some(format!(
            "The rules that show and hide tasks from form values; at most {}, none when omitted.",
            crate::template::MAX_RULES
        )))
        .build()
}

/// The options of a dropdown or multichoice element: 1 to [`MAX_OPTIONS_PER_ELEMENT`], or
/// null on other types.
#[must_use]
pub fn options() -> Array {
    ArrayBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
        .items(ObjectBuilder::new().schema_type(SchemaType::Type(Type::String)))
        .min_items(Some(1))
        .max_items(Some(MAX_OPTIONS_PER_ELEMENT))
        .description(Some(format!(
            "The choices of dropdown and multichoice elements: distinct, not blank; at most \
             {MAX_OPTIONS_PER_ELEMENT} (and {} in all the template's elements).",
            crate::template::limits::MAX_OPTIONS
        )))
        .build()
}

/// The rules of a template or a run as their answers show them: tasks and elements by id.
#[must_use]
pub fn rules() -> Array {
    ArrayBuilder::new()
        .items(Ref::from_schema_name("Rule"))
        .description(Some(
            "The rules that show and hide tasks from form values, tasks and elements named by id.",
        ))
        .build()
}

#[allow(dead_code, reason = "schemas only: described, never built")]
mod logic {
    use serde::Serialize;
    use serde_json::Value;
    use utoipa::ToSchema;

    use crate::template::Operator;

    /// A rule (API contract 12.1): when `if` holds, the tasks of `show` are shown and those of
    /// `hide` hidden. A task named in the `show` of some rule is hidden while none of those
    /// rules holds; a task named in the `hide` of a rule that holds is hidden. A rule names
    /// only tasks after (in template order) every task whose element it reads, and at least
    /// one task.
    #[derive(Serialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    #[schema(as = Rule)]
    pub struct RuleSchema {
        #[serde(rename = "if")]
        when: WhenSchema,
        /// Tasks (by `ref` or id in a document; by id in answers) shown while the rule holds.
        #[serde(default)]
        show: Vec<String>,
        /// Tasks hidden while the rule holds.
        #[serde(default)]
        hide: Vec<String>,
    }

    /// One condition, or `{"all": [...]}`, or `{"any": [...]}` (1 to 20 conditions).
    #[derive(Serialize, ToSchema)]
    #[serde(untagged)]
    #[schema(as = RuleIf)]
    pub enum WhenSchema {
        /// Holds when the condition does.
        One(ConditionSchema),
        /// Holds when every condition does.
        All(AllSchema),
        /// Holds when at least one condition does.
        Any(AnySchema),
    }

    /// Holds when every condition does.
    #[derive(Serialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    #[schema(as = RuleIfAll)]
    pub struct AllSchema {
        #[schema(min_items = 1, max_items = 20)]
        all: Vec<ConditionSchema>,
    }

    /// Holds when at least one condition does.
    #[derive(Serialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    #[schema(as = RuleIfAny)]
    pub struct AnySchema {
        #[schema(min_items = 1, max_items = 20)]
        any: Vec<ConditionSchema>,
    }

    /// A test of one element's current value; its description lists the operators that fit
    /// each element type, from the one table the rules check against.
    #[derive(Serialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    #[schema(
        as = Condition,
        description = concat!(
            "A test of one element's current value: `{\"element\", \"is\", \"value\"?}`. ",
            "The operators that fit each element type:\n\n",
            include_str!("template/logic/operators.md")
        )
    )]
    pub struct ConditionSchema {
        /// The element (by `ref` or id in a document; by id in answers); not display-only.
        element: String,
        is: Operator,
        /// What the value is compared with, of the element's type; absent for `set` and
        /// `empty`.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[schema(value_type = Value)]
        value: Option<Value>,
    }
}

pub use logic::{AllSchema, AnySchema, ConditionSchema, RuleSchema, WhenSchema};
