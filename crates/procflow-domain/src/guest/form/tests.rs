use serde_json::json;
use time::macros::datetime;
use uuid::Uuid;

use super::*;
use crate::ids::{RunId, SectionId, TaskId, TemplateTaskId};
use crate::run::TaskState;
use crate::template::TaskType;

fn id(n: u128) -> ElementId {
    ElementId::from_uuid(Uuid::from_u128(n))
}

fn element(n: u128, element_type: ElementType) -> CustomElement {
    CustomElement {
        id: id(n),
        reference: None,
        element_type,
        label: element_type.as_str().to_owned(),
        required: false,
        value: None,
        options: element_type
            .has_options()
            .then(|| vec!["Eng".to_owned(), "R&D".to_owned()]),
        file_url: None,
    }
}

/// A task with one element of every type; element `n` is the `n`th type of `ElementType::ALL`.
fn task() -> RunTask {
    RunTask {
        id: TaskId::from_uuid(Uuid::from_u128(100)),
        run_id: RunId::from_uuid(Uuid::from_u128(200)),
        template_task_id: TemplateTaskId::from_uuid(Uuid::from_u128(300)),
        reference: None,
        title: "Fill".into(),
        state: TaskState::Open,
        order: 0,
        section_id: SectionId::from_uuid(Uuid::from_u128(400)),
        assignee: None,
        is_essential: false,
        task_type: TaskType::Approval,
        due_date: None,
        webhook_enabled: false,
        decision: None,
        comment: None,
        custom_elements: ElementType::ALL
            .iter()
            .zip(0..)
            .map(|(t, n)| element(n, *t))
            .collect(),
        depends_on: Vec::new(),
        hidden: false,
        blocked: false,
        created_at: datetime!(2026-01-01 0:00 UTC),
    }
}

fn of(element_type: ElementType) -> ElementId {
    task()
        .custom_elements
        .iter()
        .find(|e| e.element_type == element_type)
        .unwrap()
        .id
}

fn form(intent: GuestIntent, entries: &[(ElementType, &[&str])]) -> GuestForm {
    GuestForm {
        intent,
        entries: entries
            .iter()
            .map(|(t, texts)| (of(*t), texts.iter().map(|s| (*s).to_owned()).collect()))
            .collect(),
        comment: None,
    }
}

fn value(patch: &TaskPatch, element_type: ElementType) -> Value {
    patch
        .custom_elements
        .iter()
        .find(|w| w.id == of(element_type))
        .unwrap()
        .value
        .clone()
}

#[test]
fn every_input_type_reads_its_text_as_its_value() {
    use ElementType as T;
    let posted = form(
        GuestIntent::Save,
        &[
            (T::ShortText, &["Ada Lovelace"]),
            (T::LongText, &["line one\r\nline two"]),
            (T::Number, &["12"]),
            (T::Email, &[" ada@example.org "]),
            (T::Website, &["https://example.org/a"]),
            (T::Date, &["2026-11-21"]),
            (T::Checkbox, &["true"]),
            (T::Dropdown, &["R&D"]),
            (T::Multichoice, &["Eng", "R&D"]),
        ],
    );
    let patch = posted.patch_for(&task()).unwrap();
    assert_eq!(patch.completed, None);
    assert_eq!(patch.decision, None);
    assert_eq!(value(&patch, T::ShortText), json!("Ada Lovelace"));
    assert_eq!(value(&patch, T::LongText), json!("line one\nline two"));
    assert_eq!(value(&patch, T::Number), json!(12));
    assert_eq!(value(&patch, T::Email), json!("ada@example.org"));
    assert_eq!(value(&patch, T::Website), json!("https://example.org/a"));
    assert_eq!(value(&patch, T::Date), json!("2026-11-21"));
    assert_eq!(value(&patch, T::Checkbox), json!(true));
    assert_eq!(value(&patch, T::Dropdown), json!("R&D"));
    assert_eq!(value(&patch, T::Multichoice), json!(["Eng", "R&D"]));
    assert_eq!(
        patch.custom_elements.len(),
        9,
        "display-only elements are never written"
    );
}

#[test]
fn an_empty_field_is_null_and_an_unchecked_checkbox_false() {
    use ElementType as T;
    let posted = form(
        GuestIntent::Save,
        &[
            (T::ShortText, &[""]),
            (T::Number, &["  "]),
            (T::Dropdown, &[""]),
        ],
    );
    let patch = posted.patch_for(&task()).unwrap();
    for element_type in ElementType::ALL
        .into_iter()
        .filter(|t| !t.is_display_only())
    {
        let expected = if element_type == T::Checkbox {
            json!(false)
        } else {
            Value::Null
        };
        assert_eq!(value(&patch, element_type), expected, "{element_type}");
    }
}

#[test]
fn numbers_are_read_as_a_number_input_writes_them() {
    for (text, expected) in [
        ("-3", json!(-3)),
        ("2.5", json!(2.5)),
        ("1e3", json!(1000)),
        (".5", json!(0.5)),
        ("4.0", json!(4)),
    ] {
        let patch = form(GuestIntent::Save, &[(ElementType::Number, &[text])])
            .patch_for(&task())
            .unwrap();
        assert_eq!(value(&patch, ElementType::Number), expected, "{text}");
    }
    for text in ["twelve", "inf", "NaN", "+1", "1e400", "0x10", "1,5"] {
        let errors = form(GuestIntent::Save, &[(ElementType::Number, &[text])])
            .patch_for(&task())
            .unwrap_err();
        assert_eq!(errors.len(), 1, "{text}");
        assert_eq!(errors[0].field, FormField::Element(of(ElementType::Number)));
        assert!(errors[0].error.to_string().contains("a number"), "{text}");
    }
}

#[test]
fn every_refused_entry_is_reported_beside_its_field() {
    use ElementType as T;
    let mut posted = form(
        GuestIntent::Reject,
        &[
            (T::Email, &["not an email"]),
            (T::Website, &["javascript:alert(1)"]),
            (T::Date, &["21/11/2026"]),
            (T::Dropdown, &["HR"]),
            (T::Multichoice, &["Eng", "Eng"]),
            (T::Checkbox, &["maybe"]),
            (T::ShortText, &["a", "b"]),
            (T::LongText, &["nul \0 byte"]),
        ],
    );
    posted.comment = Some("x".repeat(MAX_COMMENT_CHARS + 1));
    let errors = posted.patch_for(&task()).unwrap_err();
    let fields: Vec<FormField> = errors.iter().map(|e| e.field).collect();
    for element_type in [
        T::Email,
        T::Website,
        T::Date,
        T::Dropdown,
        T::Multichoice,
        T::Checkbox,
        T::ShortText,
        T::LongText,
    ] {
        assert!(
            fields.contains(&FormField::Element(of(element_type))),
            "{element_type}: {errors:?}"
        );
    }
    assert!(fields.contains(&FormField::Comment), "{errors:?}");
    assert_eq!(errors.len(), 9, "{errors:?}");
}

#[test]
fn a_field_the_task_does_not_have_refuses_the_form() {
    let mut posted = form(GuestIntent::Save, &[]);
    posted.entries.push((id(999), vec!["x".into()]));
    posted
        .entries
        .push((of(ElementType::Text), vec!["<script>".into()]));
    let errors = posted.patch_for(&task()).unwrap_err();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors.iter().all(|e| e.field == FormField::Form));
}

#[test]
fn each_button_stands_for_its_change() {
    let mut posted = form(GuestIntent::Complete, &[]);
    posted.comment = Some("ignored without a decision".into());
    let complete = posted.patch_for(&task()).unwrap();
    assert_eq!(complete.completed, Some(true));
    assert_eq!(complete.comment, None);

    posted.intent = GuestIntent::Reopen;
    let reopen = posted.patch_for(&task()).unwrap();
    assert_eq!(reopen.completed, Some(false));
    assert!(
        reopen.custom_elements.is_empty(),
        "reopening stores no values"
    );

    posted.intent = GuestIntent::Approve;
    posted.comment = Some("Fine\r\nby me".into());
    let approve = posted.patch_for(&task()).unwrap();
    assert_eq!(approve.decision, Some(Decision::Approved));
    assert_eq!(approve.comment.as_deref(), Some("Fine\nby me"));

    posted.intent = GuestIntent::Reject;
    posted.comment = Some("   ".into());
    let reject = posted.patch_for(&task()).unwrap();
    assert_eq!(reject.decision, Some(Decision::Rejected));
    assert_eq!(reject.comment, None, "a blank comment is no comment");
    assert_eq!(reject.completed, None);
}

#[test]
fn intents_are_named_as_the_buttons_send_them() {
    assert_eq!(
        GuestIntent::NAMES,
        ["save", "complete", "reopen", "approve", "reject"]
    );
    assert!("delete".parse::<GuestIntent>().is_err());
}

#[test]
fn a_nul_byte_is_refused_in_every_text_a_form_can_send() {
    use ElementType as T;
    for element_type in [
        T::ShortText,
        T::LongText,
        T::Number,
        T::Email,
        T::Website,
        T::Date,
        T::Checkbox,
        T::Dropdown,
        T::Multichoice,
    ] {
        for text in [
            "\0",
            "a\0b",
            "ada@example.org\0",
            "https://example.org/\0",
            "Eng\0",
        ] {
            let errors = form(GuestIntent::Save, &[(element_type, &[text])])
                .patch_for(&task())
                .unwrap_err();
            assert_eq!(
                errors[0].field,
                FormField::Element(of(element_type)),
                "{element_type} {text:?}"
            );
        }
    }
    let mut posted = form(GuestIntent::Approve, &[]);
    posted.comment = Some("fine\0".into());
    let errors = posted.patch_for(&task()).unwrap_err();
    assert_eq!(errors[0].field, FormField::Comment);
    // Stored with a decision only, but NUL is refused whatever the button.
    posted.intent = GuestIntent::Save;
    let errors = posted.patch_for(&task()).unwrap_err();
    assert_eq!(errors[0].field, FormField::Comment);
}
