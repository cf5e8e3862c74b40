//! The authoring document: `TemplateDocument::from_json` + `build`, what they accept, what they
//! keep, and how every refusal names the path at fault.

#![expect(
    clippy::panic,
    reason = "test helpers: a document that does not fail as expected fails the test"
)]

use std::collections::HashSet;

use procflow_domain::actor::TemplateAssignee;
use procflow_domain::element::ElementType;
use procflow_domain::error::ValidationError;
use procflow_domain::ids::{ElementId, SectionId, TeamId, TemplateTaskId};
use procflow_domain::template::{DueDateRule, TaskType, Template, TemplateDocument};
use procflow_memory::SequentialIds;
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::macros::datetime;
use uuid::Uuid;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const T0: OffsetDateTime = datetime!(2026-03-01 9:00 UTC);
const T1: OffsetDateTime = datetime!(2026-03-02 9:00 UTC);

fn team() -> TeamId {
    TeamId::from_uuid(Uuid::from_u128(0x7EA))
}

/// A valid document using all 14 element types. The paths used by the refusal tests:
///
/// - `sections[0].tasks[0]`: every plain input type (shortText … checkbox), elements 0..=6
/// - `sections[0].tasks[1]`: an approval task with a fixed due date
/// - `sections[1].tasks[0]`: text, image, dropdown, multichoice, video, file, lineBreak (0..=6)
/// - `sections[2]`: an empty section
fn full_document() -> Value {
    json!({
        "title": "Employee onboarding",
        "description": "Everything for a new hire",
        "cover_image": "https://example.com/cover.png",
        "icon": "🎉",
        "icon_type": "emoji",
        "sections": [
            {"title": "First week", "description": "Start here", "color": "#EC4899", "tasks": [
                {"title": "Collect documents", "type": "task", "is_essential": true,
                 "assignee": "runner", "webhook_enabled": true,
                 "due_date": {"type": "relative", "from": "run_start", "offset": "P3D"},
                 "custom_elements": [
                    {"type": "shortText", "label": "Full name", "required": true},
                    {"type": "longText", "label": "Notes"},
                    {"type": "number", "label": "Desk", "value": 12},
                    {"type": "email", "label": "Private email"},
                    {"type": "website", "label": "Homepage"},
                    {"type": "date", "label": "Start date", "value": "2026-04-01"},
                    {"type": "checkbox", "label": "Signed", "value": false}
                 ]},
                {"title": "Approve contract", "type": "approval", "assignee": "hr@example.com",
                 "due_date": {"type": "fixed", "at": "2026-12-01T09:00:00Z"}}
            ]},
            {"title": "Paperwork", "tasks": [
                {"title": "Pick department", "custom_elements": [
                    {"type": "text", "label": "Welcome", "value": "<p>Hello</p>"},
                    {"type": "image", "label": "Map", "value": "https://example.com/map.png"},
                    {"type": "dropdown", "label": "Department", "options": ["Eng", "Sales"],
                     "value": "Eng"},
                    {"type": "multichoice", "label": "Tools", "options": ["Git", "Jira", "Slack"]},
                    {"type": "video", "label": "Tour", "value": "https://example.com/tour.mp4"},
                    {"type": "file", "label": "Handbook", "file_url": "https://example.com/h.pdf"},
                    {"type": "lineBreak"}
                ]}
            ]},
            {"title": "Later", "color": null}
        ]
    })
}

fn build(document: Value) -> Result<Template, ValidationError> {
    TemplateDocument::from_json(document)?.build(team(), None, &SequentialIds::default(), T0)
}

/// Builds `full_document()` changed by `edit`, and returns the path of the field it is refused at.
fn refused_path(edit: impl FnOnce(&mut Value)) -> (String, String) {
    let mut document = full_document();
    edit(&mut document);
    match build(document) {
        Err(ValidationError::Field { field, message }) => (field, message),
        other => panic!("expected a refusal naming a field, got {other:?}"),
    }
}

/// The JSON object at `pointer` (such as `/sections/1/tasks/0/custom_elements/2`) of `document`.
fn at<'d>(document: &'d mut Value, pointer: &str) -> &'d mut serde_json::Map<String, Value> {
    document
        .pointer_mut(pointer)
        .and_then(Value::as_object_mut)
        .unwrap_or_else(|| panic!("no object at {pointer}"))
}

fn assert_refused_at(path: &str, edit: impl FnOnce(&mut Value)) {
    let (field, message) = refused_path(edit);
    assert_eq!(field, path, "refused for: {message}");
    assert!(!message.is_empty());
}

const PAPERWORK: &str = "/sections/1/tasks/0/custom_elements";
const INPUTS: &str = "/sections/0/tasks/0/custom_elements";

// ---------------------------------------------------------------------------------------------
// A valid document
// ---------------------------------------------------------------------------------------------

#[test]
fn a_full_document_with_every_element_type_builds_a_draft() {
    let template = build(full_document()).unwrap();

    assert_eq!(template.team_id, team());
    assert_eq!(template.title, "Employee onboarding");
    assert_eq!(
        template.description.as_deref(),
        Some("Everything for a new hire")
    );
    assert_eq!(template.icon_type.as_deref(), Some("emoji"));
    assert!(!template.is_published);
    assert_eq!(template.version, 0);
    assert_eq!((template.created_at, template.updated_at), (T0, T0));

    let sections: Vec<_> = template
        .sections
        .iter()
        .map(|s| (s.title.as_str(), s.order))
        .collect();
    assert_eq!(
        sections,
        [("First week", 0), ("Paperwork", 1), ("Later", 2)]
    );
    assert_eq!(
        template.sections[0].color.as_ref().map(|c| c.as_str()),
        Some("#EC4899")
    );
    assert_eq!(template.sections[2].color, None);

    // Tasks are numbered across the whole template and point at their section.
    let tasks: Vec<_> = template
        .tasks
        .iter()
        .map(|t| (t.title.as_str(), t.order, t.section_id))
        .collect();
    assert_eq!(
        tasks,
        [
            ("Collect documents", 0, template.sections[0].id),
            ("Approve contract", 1, template.sections[0].id),
            ("Pick department", 2, template.sections[1].id),
        ]
    );
    let collect = &template.tasks[0];
    assert!(collect.is_essential && collect.webhook_enabled);
    assert_eq!(collect.assignee, Some(TemplateAssignee::Runner));
    assert!(matches!(
        collect.due_date,
        Some(DueDateRule::Relative { .. })
    ));
    let approve = &template.tasks[1];
    assert_eq!(approve.task_type, TaskType::Approval);
    assert!(!approve.is_essential && !approve.webhook_enabled);
    assert_eq!(
        approve.due_date,
        Some(DueDateRule::Fixed {
            at: datetime!(2026-12-01 9:00 UTC)
        })
    );
    assert_eq!(
        approve
            .assignee
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("hr@example.com")
    );

    // Every one of the 14 types, exactly once.
    let types: Vec<ElementType> = template
        .tasks
        .iter()
        .flat_map(|t| &t.custom_elements)
        .map(|e| e.element_type)
        .collect();
    assert_eq!(types.len(), ElementType::ALL.len());
    assert_eq!(
        types.iter().copied().collect::<HashSet<_>>(),
        ElementType::ALL.into_iter().collect::<HashSet<_>>()
    );

    // Defaults, display content, options and file_url are kept as written.
    let inputs = &collect.custom_elements;
    assert!(inputs[0].required && !inputs[1].required);
    assert_eq!(inputs[0].value, None);
    assert_eq!(inputs[2].value, Some(json!(12)));
    assert_eq!(inputs[5].value, Some(json!("2026-04-01")));
    assert_eq!(inputs[6].value, Some(json!(false)));
    let paperwork = &template.tasks[2].custom_elements;
    assert_eq!(paperwork[0].value, Some(json!("<p>Hello</p>")));
    assert_eq!(
        paperwork[1].value,
        Some(json!("https://example.com/map.png"))
    );
    assert_eq!(
        paperwork[2].options.as_deref(),
        Some(&["Eng".to_owned(), "Sales".to_owned()][..])
    );
    assert_eq!(paperwork[2].value, Some(json!("Eng")));
    assert_eq!(paperwork[3].options.as_ref().map(Vec::len), Some(3));
    assert_eq!(
        paperwork[5].file_url.as_deref(),
        Some("https://example.com/h.pdf")
    );
    assert_eq!(paperwork[6].label, "");
    assert!(paperwork.iter().filter(|e| e.is_display_only()).count() == 5);
}

#[test]
fn omitted_fields_take_their_defaults() {
    let template = build(json!({
        "title": "Minimal",
        "sections": [{"title": "Only", "tasks": [{"title": "Do it",
            "custom_elements": [{"type": "checkbox", "label": "Done?"}]}]}]
    }))
    .unwrap();
    assert_eq!(template.description, None);
    assert_eq!(template.cover_image, None);
    let task = &template.tasks[0];
    assert_eq!(task.task_type, TaskType::Task);
    assert!(!task.is_essential && !task.webhook_enabled);
    assert_eq!(task.assignee, None);
    assert_eq!(task.due_date, None);
    let element = &task.custom_elements[0];
    assert!(!element.required);
    assert_eq!(
        (element.value.clone(), element.options.clone()),
        (None, None)
    );
}

#[test]
fn a_document_without_sections_builds_a_template_without_tasks() {
    let template = build(json!({"title": "Empty"})).unwrap();
    assert!(template.sections.is_empty() && template.tasks.is_empty());
}

// ---------------------------------------------------------------------------------------------
// Refusals while reading (from_json)
// ---------------------------------------------------------------------------------------------

#[test]
fn an_unknown_element_type_is_refused_at_its_type() {
    assert_refused_at("sections[1].tasks[0].custom_elements[2].type", |d| {
        at(d, &format!("{PAPERWORK}/2")).insert("type".into(), json!("slider"));
    });
}

#[test]
fn an_unknown_task_type_is_refused_at_its_type() {
    assert_refused_at("sections[0].tasks[1].type", |d| {
        at(d, "/sections/0/tasks/1").insert("type".into(), json!("chore"));
    });
}

#[test]
fn an_unknown_field_is_refused_wherever_it_is() {
    let cases: [(&str, &str); 4] = [
        ("", "colour"),
        ("/sections/1", "colour"),
        ("/sections/0/tasks/1", "priority"),
        ("/sections/1/tasks/0/custom_elements/3", "placeholder"),
    ];
    let paths = [
        "colour",
        "sections[1].colour",
        "sections[0].tasks[1].priority",
        "sections[1].tasks[0].custom_elements[3].placeholder",
    ];
    for ((pointer, field), path) in cases.into_iter().zip(paths) {
        let (refused, message) = refused_path(|d| {
            at(d, pointer).insert(field.into(), json!(1));
        });
        assert_eq!(refused, path);
        assert!(message.contains("unknown field"), "{message}");
    }
}

#[test]
fn a_missing_title_is_refused_and_named() {
    let (field, message) = refused_path(|d| {
        at(d, "").remove("title");
    });
    assert_eq!(field, "body");
    assert!(message.contains("`title`"), "{message}");

    let (field, message) = refused_path(|d| {
        at(d, "/sections/0/tasks/1").remove("title");
    });
    assert_eq!(field, "sections[0].tasks[1]");
    assert!(message.contains("`title`"), "{message}");
}

#[test]
fn a_fixed_due_date_without_its_moment_is_refused() {
    let (field, message) = refused_path(|d| {
        at(d, "/sections/0/tasks/1").insert("due_date".into(), json!({"type": "fixed"}));
    });
    assert_eq!(field, "sections[0].tasks[1].due_date");
    assert!(message.contains("`at`"), "{message}");
}

#[test]
fn a_relative_due_date_counted_in_months_is_refused() {
    let (field, message) = refused_path(|d| {
        at(d, "/sections/0/tasks/0").insert(
            "due_date".into(),
            json!({"type": "relative", "from": "run_start", "offset": "P1M"}),
        );
    });
    assert_eq!(field, "sections[0].tasks[0].due_date.offset");
    assert!(message.contains("P1M"), "{message}");
}

#[test]
fn other_malformed_due_dates_are_refused() {
    for rule in [
        json!({"type": "fixed", "at": "next monday"}),
        json!({"type": "relative", "from": "run_end", "offset": "P1D"}),
        json!({"type": "relative", "from": "run_start"}),
        json!({"type": "weekly"}),
        json!("P3D"),
    ] {
        let (field, _) = refused_path(|d| {
            at(d, "/sections/0/tasks/0").insert("due_date".into(), rule.clone());
        });
        assert!(
            field.starts_with("sections[0].tasks[0].due_date"),
            "{rule} refused at {field}"
        );
    }
}

#[test]
fn a_malformed_id_is_refused_at_the_id() {
    assert_refused_at("sections[0].tasks[1].id", |d| {
        at(d, "/sections/0/tasks/1").insert("id".into(), json!("task-1"));
    });
}

// ---------------------------------------------------------------------------------------------
// Refusals while building
// ---------------------------------------------------------------------------------------------

#[test]
fn a_dropdown_or_multichoice_without_options_is_refused_at_its_options() {
    for index in [2, 3] {
        assert_refused_at(
            &format!("sections[1].tasks[0].custom_elements[{index}].options"),
            |d| {
                at(d, &format!("{PAPERWORK}/{index}")).remove("options");
            },
        );
    }
}

#[test]
fn empty_options_are_refused() {
    for index in [2, 3] {
        assert_refused_at(
            &format!("sections[1].tasks[0].custom_elements[{index}].options"),
            |d| {
                at(d, &format!("{PAPERWORK}/{index}")).insert("options".into(), json!([]));
            },
        );
    }
}

#[test]
fn a_duplicate_option_is_refused_at_its_position() {
    assert_refused_at("sections[1].tasks[0].custom_elements[2].options[2]", |d| {
        let dropdown = at(d, &format!("{PAPERWORK}/2"));
        dropdown.insert("options".into(), json!(["Eng", "Sales", "Eng"]));
    });
    assert_refused_at("sections[1].tasks[0].custom_elements[3].options[1]", |d| {
        at(d, &format!("{PAPERWORK}/3")).insert("options".into(), json!(["Git", "Git"]));
    });
}

#[test]
fn a_blank_option_is_refused_at_its_position() {
    assert_refused_at("sections[1].tasks[0].custom_elements[3].options[1]", |d| {
        at(d, &format!("{PAPERWORK}/3")).insert("options".into(), json!(["Git", "  "]));
    });
}

#[test]
fn options_on_other_types_are_refused() {
    for index in 0..7 {
        assert_refused_at(
            &format!("sections[0].tasks[0].custom_elements[{index}].options"),
            |d| {
                at(d, &format!("{INPUTS}/{index}")).insert("options".into(), json!(["a"]));
            },
        );
    }
    for index in [0, 1, 4, 5, 6] {
        assert_refused_at(
            &format!("sections[1].tasks[0].custom_elements[{index}].options"),
            |d| {
                at(d, &format!("{PAPERWORK}/{index}")).insert("options".into(), json!(["a"]));
            },
        );
    }
}

#[test]
fn a_default_value_outside_the_options_is_refused_at_its_value() {
    let (field, message) = refused_path(|d| {
        at(d, &format!("{PAPERWORK}/2")).insert("value".into(), json!("HR"));
    });
    assert_eq!(field, "sections[1].tasks[0].custom_elements[2].value");
    assert!(message.contains("\"Eng\", \"Sales\""), "{message}");
}

#[test]
fn a_default_value_of_the_wrong_type_is_refused_at_its_value() {
    for (index, value) in [
        (0, json!(1)),
        (2, json!("twelve")),
        (3, json!("nobody")),
        (4, json!("example.com")),
        (5, json!("01/04/2026")),
        (6, json!("yes")),
    ] {
        assert_refused_at(
            &format!("sections[0].tasks[0].custom_elements[{index}].value"),
            |d| {
                at(d, &format!("{INPUTS}/{index}")).insert("value".into(), value.clone());
            },
        );
    }
}

#[test]
fn a_bad_colour_is_refused_at_the_sections_colour() {
    for colour in ["pink", "#EC489", "EC4899", "#GG0000"] {
        assert_refused_at("sections[0].color", |d| {
            at(d, "/sections/0").insert("color".into(), json!(colour));
        });
    }
}

#[test]
fn a_text_element_without_html_is_refused_at_its_value() {
    for value in [None, Some(json!(null)), Some(json!("  ")), Some(json!(42))] {
        assert_refused_at("sections[1].tasks[0].custom_elements[0].value", |d| {
            let text = at(d, &format!("{PAPERWORK}/0"));
            match value.clone() {
                None => text.remove("value"),
                Some(value) => text.insert("value".into(), value),
            };
        });
    }
}

#[test]
fn an_image_or_video_without_a_url_is_refused_at_its_value() {
    for index in [1, 4] {
        for value in [
            None,
            Some(json!("map.png")),
            Some(json!("ftp://example.com/a")),
        ] {
            assert_refused_at(
                &format!("sections[1].tasks[0].custom_elements[{index}].value"),
                |d| {
                    let media = at(d, &format!("{PAPERWORK}/{index}"));
                    match value.clone() {
                        None => media.remove("value"),
                        Some(value) => media.insert("value".into(), value),
                    };
                },
            );
        }
    }
}

#[test]
fn a_file_element_without_a_file_url_is_refused_at_its_file_url() {
    assert_refused_at("sections[1].tasks[0].custom_elements[5].file_url", |d| {
        at(d, &format!("{PAPERWORK}/5")).remove("file_url");
    });
    assert_refused_at("sections[1].tasks[0].custom_elements[5].file_url", |d| {
        at(d, &format!("{PAPERWORK}/5")).insert("file_url".into(), json!("handbook.pdf"));
    });
}

#[test]
fn a_file_url_on_another_type_is_refused() {
    for index in [0, 1, 2, 3, 4, 6] {
        assert_refused_at(
            &format!("sections[1].tasks[0].custom_elements[{index}].file_url"),
            |d| {
                at(d, &format!("{PAPERWORK}/{index}"))
                    .insert("file_url".into(), json!("https://example.com/x.pdf"));
            },
        );
    }
    assert_refused_at("sections[0].tasks[0].custom_elements[0].file_url", |d| {
        at(d, &format!("{INPUTS}/0")).insert("file_url".into(), json!("https://example.com/x"));
    });
}

#[test]
fn a_file_or_line_break_with_a_value_is_refused() {
    for index in [5, 6] {
        assert_refused_at(
            &format!("sections[1].tasks[0].custom_elements[{index}].value"),
            |d| {
                at(d, &format!("{PAPERWORK}/{index}")).insert("value".into(), json!("x"));
            },
        );
    }
}

#[test]
fn blank_titles_and_labels_are_refused() {
    assert_refused_at("title", |d| {
        at(d, "").insert("title".into(), json!("   "));
    });
    assert_refused_at("sections[2].title", |d| {
        at(d, "/sections/2").insert("title".into(), json!(""));
    });
    assert_refused_at("sections[0].tasks[1].title", |d| {
        at(d, "/sections/0/tasks/1").insert("title".into(), json!("\t"));
    });
    assert_refused_at("sections[0].tasks[0].custom_elements[3].label", |d| {
        at(d, &format!("{INPUTS}/3")).insert("label".into(), json!(" "));
    });
    assert_refused_at("sections[1].tasks[0].custom_elements[2].label", |d| {
        at(d, &format!("{PAPERWORK}/2")).remove("label");
    });
}

#[test]
fn nul_characters_are_refused_wherever_text_is_stored() {
    let nul = json!("a\u{0}b");
    // (path refused at, object edited, key, value)
    let cases = [
        ("title", "", "title", nul.clone()),
        ("description", "", "description", nul.clone()),
        ("icon", "", "icon", nul.clone()),
        (
            "sections[0].description",
            "/sections/0",
            "description",
            nul.clone(),
        ),
        (
            "sections[0].tasks[1].title",
            "/sections/0/tasks/1",
            "title",
            nul.clone(),
        ),
        (
            "sections[0].tasks[0].custom_elements[1].label",
            "/sections/0/tasks/0/custom_elements/1",
            "label",
            nul.clone(),
        ),
        (
            "sections[0].tasks[0].custom_elements[1].value",
            "/sections/0/tasks/0/custom_elements/1",
            "value",
            nul.clone(),
        ),
        (
            "sections[1].tasks[0].custom_elements[0].value",
            "/sections/1/tasks/0/custom_elements/0",
            "value",
            nul.clone(),
        ),
        (
            "sections[1].tasks[0].custom_elements[3].options[0]",
            "/sections/1/tasks/0/custom_elements/3",
            "options",
            json!([nul]),
        ),
    ];
    for (path, pointer, key, value) in cases {
        assert_refused_at(path, |d| {
            at(d, pointer).insert(key.into(), value);
        });
    }
}

#[test]
fn a_runner_user_id_or_email_is_the_only_assignee_accepted() {
    assert_refused_at("sections[0].tasks[1].assignee", |d| {
        at(d, "/sections/0/tasks/1").insert("assignee".into(), json!("nobody"));
    });
    for good in ["runner", "0190d3c4-6f1e-7a4b-9c7d-2b1a3e4f5a6b", "a@b.co"] {
        let mut document = full_document();
        at(&mut document, "/sections/0/tasks/1").insert("assignee".into(), json!(good));
        assert!(build(document).is_ok(), "{good}");
    }
}

#[test]
fn a_task_with_too_many_elements_is_refused() {
    assert_refused_at("sections[0].tasks[1].custom_elements", |d| {
        let many: Vec<Value> = (0..101)
            .map(|i| json!({"type": "checkbox", "label": format!("Box {i}")}))
            .collect();
        at(d, "/sections/0/tasks/1").insert("custom_elements".into(), Value::Array(many));
    });
}

#[test]
fn an_id_used_twice_is_refused_at_its_second_use() {
    let id = "0190d3c4-6f1e-7a4b-9c7d-2b1a3e4f5a6b";
    assert_refused_at("sections[1].id", |d| {
        at(d, "/sections/0").insert("id".into(), json!(id));
        at(d, "/sections/1").insert("id".into(), json!(id));
    });
    assert_refused_at("sections[1].tasks[0].id", |d| {
        at(d, "/sections/0/tasks/0").insert("id".into(), json!(id));
        at(d, "/sections/1/tasks/0").insert("id".into(), json!(id));
    });
    assert_refused_at("sections[1].tasks[0].custom_elements[6].id", |d| {
        at(d, &format!("{INPUTS}/0")).insert("id".into(), json!(id));
        at(d, &format!("{PAPERWORK}/6")).insert("id".into(), json!(id));
    });
}

// ---------------------------------------------------------------------------------------------
// Ids and creation times across edits
// ---------------------------------------------------------------------------------------------

fn uuid(n: u128) -> Uuid {
    Uuid::from_u128(0xF000_0000 + n)
}

#[test]
fn ids_given_in_the_document_are_kept() {
    let template = build(json!({
        "title": "Kept",
        "sections": [{"id": uuid(1), "title": "S", "tasks": [
            {"id": uuid(2), "title": "T", "custom_elements": [
                {"id": uuid(3), "type": "shortText", "label": "Name"},
                {"type": "checkbox", "label": "No id given"}
            ]}
        ]}]
    }))
    .unwrap();
    assert_eq!(template.sections[0].id, SectionId::from_uuid(uuid(1)));
    assert_eq!(template.tasks[0].id, TemplateTaskId::from_uuid(uuid(2)));
    assert_eq!(template.tasks[0].section_id, SectionId::from_uuid(uuid(1)));
    assert_eq!(
        template.tasks[0].custom_elements[0].id,
        ElementId::from_uuid(uuid(3))
    );
    let generated = template.tasks[0].custom_elements[1].id.as_uuid();
    assert!(![uuid(1), uuid(2), uuid(3)].contains(&generated));
}

#[test]
fn replacing_a_document_keeps_the_template_and_the_creation_time_of_kept_tasks() {
    let ids = SequentialIds::default();
    let mut original = TemplateDocument::from_json(json!({
        "title": "Before",
        "sections": [{"title": "S", "tasks": [{"title": "First"}, {"title": "Second"}]}]
    }))
    .unwrap()
    .build(team(), None, &ids, T0)
    .unwrap();
    original.version = 3; // as if published three times and unpublished since
    let kept = original.tasks[1].id;

    let replaced = TemplateDocument::from_json(json!({
        "title": "After",
        "sections": [{"title": "S2", "tasks": [
            {"id": kept.to_string(), "title": "Second, renamed"},
            {"title": "Brand new"}
        ]}]
    }))
    .unwrap()
    .build(team(), Some(&original), &ids, T1)
    .unwrap();

    assert_eq!(replaced.id, original.id);
    assert_eq!(replaced.version, 3);
    assert_eq!(replaced.created_at, T0);
    assert_eq!(replaced.updated_at, T1);
    assert!(!replaced.is_published);
    assert_eq!(replaced.title, "After");

    assert_eq!(replaced.tasks[0].id, kept);
    assert_eq!(replaced.tasks[0].title, "Second, renamed");
    assert_eq!(replaced.tasks[0].order, 0);
    assert_eq!(
        replaced.tasks[0].created_at, T0,
        "a kept task keeps its creation time"
    );
    assert_eq!(
        replaced.tasks[1].created_at, T1,
        "a new task is created now"
    );
    assert!(original.task(replaced.tasks[1].id).is_none());
    assert!(
        replaced.task(original.tasks[0].id).is_none(),
        "dropped task is gone"
    );
}

#[test]
fn an_id_unknown_to_the_previous_template_counts_as_a_new_task() {
    let ids = SequentialIds::default();
    let original = build(full_document()).unwrap();
    let replaced = TemplateDocument::from_json(json!({
        "title": "After",
        "sections": [{"title": "S", "tasks": [{"id": uuid(9), "title": "Fresh"}]}]
    }))
    .unwrap()
    .build(team(), Some(&original), &ids, T1)
    .unwrap();
    assert_eq!(replaced.tasks[0].id, TemplateTaskId::from_uuid(uuid(9)));
    assert_eq!(replaced.tasks[0].created_at, T1);
}
