use procflow_domain::actor::{Actor, Assignee};
use procflow_domain::element::StoredElements;
use procflow_domain::run::{Decision, InboxTask, ListedTask, RunTask, TaskState};
use procflow_domain::template::TaskType;
use serde_json::json;
use time::macros::datetime;

use super::{WriteJson, write_json};
use crate::views::fixtures::every_kind;
use crate::views::{InboxTaskView, RunTaskListView, RunTaskView, RunView};

/// A completed approval with texts that need escaping.
fn task() -> RunTask {
    RunTask {
        id: "01a21978-90dd-77a1-806a-675959282101".parse().unwrap(),
        run_id: "01a21978-90dd-77a1-806a-675959282102".parse().unwrap(),
        template_task_id: "01a21978-90dd-77a1-806a-675959282103".parse().unwrap(),
        reference: Some("check_id".parse().unwrap()),
        title: "Title \"quoted\" {\"custom_elements\":[]} \\ é 😀 \u{1} </script>".to_owned(),
        state: TaskState::Completed {
            at: datetime!(2026-11-27 10:00 UTC),
            by: Actor::Api,
        },
        order: 3,
        section_id: "01a21978-90dd-77a1-806a-675959282104".parse().unwrap(),
        assignee: None,
        is_essential: true,
        task_type: TaskType::Approval,
        due_date: Some(datetime!(2026-12-01 09:00 UTC)),
        webhook_enabled: true,
        decision: Some(Decision::Approved),
        comment: Some("a comment\nover \"two\" lines".to_owned()),
        custom_elements: every_kind(),
        depends_on: vec!["01a21978-90dd-77a1-806a-675959282105".parse().unwrap()],
        hidden: false,
        blocked: false,
        created_at: datetime!(2026-11-26 08:30 UTC),
    }
}

/// Tasks in every state a listing shows, each field in each of its forms: open, skipped and
/// completed by a member, the guest and the API; no ref; assigned to a member and to an email;
/// no, one and several dependencies; hidden and blocked; moments with and without a fraction
/// of a second, and in another offset; a rejected decision and none.
fn tasks() -> Vec<RunTask> {
    let member = "01a21978-90dd-77a1-806a-6759592821aa".parse().unwrap();
    let mut all = vec![task(); 6];
    all[1].state = TaskState::Open;
    all[1].reference = None;
    all[1].decision = None;
    all[1].comment = None;
    all[1].due_date = None;
    all[1].depends_on = Vec::new();
    all[1].task_type = TaskType::Task;
    all[1].assignee = Some(Assignee::User(member));
    all[1].created_at = datetime!(2026-11-26 08:30:01.123_456_789 UTC);
    all[2].state = TaskState::Skipped;
    all[2].is_essential = false;
    all[2].webhook_enabled = false;
    all[2].assignee = Some(Assignee::Email("ada@example.com".parse().unwrap()));
    all[3].state = TaskState::Completed {
        at: datetime!(2026-11-27 10:00:00.5 +02:00),
        by: Actor::User(member),
    };
    all[3].decision = Some(Decision::Rejected);
    all[3].hidden = true;
    all[4].state = TaskState::Completed {
        at: datetime!(2026-11-27 10:00:00.000_001 UTC),
        by: Actor::Guest,
    };
    all[4].blocked = true;
    all[4].depends_on = vec![
        "01a21978-90dd-77a1-806a-675959282106".parse().unwrap(),
        "01a21978-90dd-77a1-806a-675959282107".parse().unwrap(),
        "01a21978-90dd-77a1-806a-675959282108".parse().unwrap(),
    ];
    all[5].title = String::new();
    all[5].order = u32::MAX;
    all[5].custom_elements = Vec::new();
    all
}

fn listed(task: &RunTask, stored: &str) -> ListedTask {
    task.clone()
        .with_elements(StoredElements::from_json(stored.to_owned()))
}

/// The writer's bytes after `prefix`, and serde's.
pub(super) fn both<V: WriteJson>(view: &V, prefix: &[u8]) -> (String, String) {
    let mut out = prefix.to_vec();
    write_json(view, &mut out).unwrap();
    let mut expected = prefix.to_vec();
    expected.extend(serde_json::to_vec(view).unwrap());
    (
        String::from_utf8(out).unwrap(),
        String::from_utf8(expected).unwrap(),
    )
}

/// Stored text in each form a store holds: serde_json's, PostgreSQL's `jsonb` (its own key
/// order and spacing), the earlier form, and none.
fn texts(task: &RunTask) -> Vec<String> {
    let api = serde_json::to_string(&task.custom_elements).unwrap();
    let pg = serde_json::to_string_pretty(&task.custom_elements)
        .unwrap()
        .replace('\n', "")
        .replace("  ", "");
    let earlier = serde_json::to_string(&json!([{
        "id": "01a21978-90dd-77a1-806a-675959282001", "type": "shortText", "label": "Name",
        "value": "Ada", "options": null, "file_url": null, "required": true,
    }]))
    .unwrap();
    vec![api, pg, earlier, "[]".to_owned()]
}

#[test]
fn a_listed_task_is_written_byte_for_byte_as_its_view_serialises_it() {
    for task in tasks() {
        for text in texts(&task) {
            let listed = listed(&task, &text);
            for prefix in [&b""[..], b"{\"data\":[", b"{\"data\":[{},"] {
                let (written, expected) = both(&RunTaskListView::from(&listed), prefix);
                assert_eq!(written, expected, "stored {text}");
            }
        }
    }
}

#[test]
fn an_inbox_item_and_a_single_task_are_written_as_they_serialise() {
    for task in tasks() {
        for text in texts(&task) {
            let item = InboxTask {
                task: listed(&task, &text),
                run_title: "Run \"of\" {\"custom_elements\":[]}\t".to_owned(),
            };
            let (written, expected) = both(&InboxTaskView::from(&item), b"[");
            assert_eq!(written, expected, "stored {text}");
            let (written, expected) = both(&RunTaskView::from(&item.task), b"");
            assert_eq!(written, expected, "stored {text}");
        }
    }
}

#[test]
fn parsed_elements_are_written_as_they_serialise() {
    for task in tasks() {
        let (written, expected) = both(&RunTaskListView::from(&task), b"");
        assert_eq!(written, expected);
        let value: serde_json::Value = serde_json::from_str(&written).unwrap();
        assert_eq!(
            value["custom_elements"].as_array().map(Vec::len),
            Some(task.custom_elements.len())
        );
    }
}

/// The fixtures reach every form of every field: a writer that wrote one field's form wrong
/// would be caught above only if some task has it.
#[test]
fn the_fixtures_hold_every_form_of_every_field() {
    let views: Vec<serde_json::Value> = tasks()
        .iter()
        .map(|task| serde_json::to_value(RunTaskView::from(task)).unwrap())
        .collect();
    let forms = |key: &str| -> Vec<String> {
        let mut forms: Vec<String> = views
            .iter()
            .map(|view| match &view[key] {
                serde_json::Value::Array(items) => format!("array of {}", items.len().min(2)),
                serde_json::Value::String(s) if s.parse::<uuid::Uuid>().is_ok() => {
                    "uuid".to_owned()
                }
                serde_json::Value::String(s) if s == "api" || s == "guest" => s.clone(),
                other => other.to_string().chars().next().unwrap().to_string(),
            })
            .collect();
        forms.sort();
        forms.dedup();
        forms
    };
    assert_eq!(forms("ref"), ["\"", "n"]);
    assert_eq!(
        forms("depends_on"),
        ["array of 0", "array of 1", "array of 2"]
    );
    assert_eq!(forms("hidden"), ["f", "t"]);
    assert_eq!(forms("blocked"), ["f", "t"]);
    assert_eq!(forms("completed"), ["f", "t"]);
    assert_eq!(forms("completed_at"), ["\"", "n"]);
    assert_eq!(forms("completed_by"), ["api", "guest", "n", "uuid"]);
    assert_eq!(forms("assignee"), ["\"", "n", "uuid"]);
    assert_eq!(forms("is_essential"), ["f", "t"]);
    assert_eq!(forms("skipped"), ["f", "t"]);
    assert_eq!(forms("type"), ["\""]);
    assert_eq!(forms("decision"), ["\"", "n"]);
    assert_eq!(forms("comment"), ["\"", "n"]);
    assert_eq!(forms("due_date"), ["\"", "n"]);
    assert_eq!(forms("webhook_enabled"), ["f", "t"]);
    assert_eq!(forms("custom_elements"), ["array of 0", "array of 2"]);
}

/// The price of the copy: text in the API form is not checked as JSON here (the store's
/// `jsonb` is), while the view's `Serialize` still refuses it.
#[test]
fn stored_text_in_the_api_form_is_copied_unchecked_and_serialize_still_checks_it() {
    let task = task();
    let broken = r#"[{"display_only": }]"#;
    let listed = listed(&task, broken);
    let mut out = Vec::new();
    write_json(&RunTaskListView::from(&listed), &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains(&format!("\"custom_elements\":{broken},")),
        "{out}"
    );
    let error = serde_json::to_vec(&RunTaskListView::from(&listed)).unwrap_err();
    assert!(error.to_string().starts_with("stored elements"), "{error}");
}

/// A moment RFC 3339 cannot write is refused as serde refuses it, and leaves nothing of
/// itself in the answer.
#[test]
fn a_moment_rfc_3339_cannot_write_is_an_error_as_in_serde() {
    let mut task = task();
    task.created_at = datetime!(2026-11-26 08:30 +01:30:15);
    let view = RunTaskListView::from(&task);
    assert!(serde_json::to_vec(&view).is_err());
    let mut out = b"[".to_vec();
    assert!(write_json(&view, &mut out).is_err());
    let mut moment = b"x".to_vec();
    assert!(super::write_moment(&mut moment, &task.created_at).is_err());
    assert_eq!(moment, b"x");
}

/// Runs as a client reads them, each field in each of its forms.
fn runs() -> Vec<RunView<'static>> {
    let rule = json!({
        "if": {"element": "01a21978-90dd-77a1-806a-675959282201", "is": "equal", "value": "Eng \"x\""},
        "show": ["01a21978-90dd-77a1-806a-675959282202"],
        "hide": [],
    });
    let section = |n: u8, color: Option<&str>| {
        json!({
            "id": format!("01a21978-90dd-77a1-806a-6759592823{n:02x}"),
            "title": format!("Section {n} \"quoted\" \\"),
            "order": n,
            "color": color,
        })
    };
    let run = json!({
        "id": "01a21978-90dd-77a1-806a-675959282301",
        "template_id": "01a21978-90dd-77a1-806a-675959282302",
        "title": "Onboarding \"Ada\" </script> \u{1} é",
        "status": "active",
        "started_by": "api",
        "team_id": "01a21978-90dd-77a1-806a-675959282303",
        "timezone": "Europe/Paris",
        "due_date": null,
        "is_shared": false,
        "sections": [],
        "rules": [],
        "created_at": "2026-11-26T08:30:01.123456789Z",
        "updated_at": null,
        "completed_at": null,
    });
    let mut all = vec![run.clone(); 3];
    all[1]["status"] = json!("completed");
    all[1]["started_by"] = json!("01a21978-90dd-77a1-806a-6759592821aa");
    all[1]["due_date"] = json!("2026-12-01T09:00:00+02:00");
    all[1]["is_shared"] = json!(true);
    all[1]["sections"] = json!([section(1, None)]);
    all[1]["rules"] = json!([rule]);
    all[1]["updated_at"] = json!("2026-11-27T10:00:00Z");
    all[1]["completed_at"] = json!("2026-11-27T10:00:00.5Z");
    all[2]["started_by"] = json!("guest");
    all[2]["sections"] = json!([section(1, Some("#A0b1C2")), section(2, None)]);
    all.into_iter()
        .map(|run| serde_json::from_value(run).unwrap())
        .collect()
}

#[test]
fn a_listed_run_is_written_byte_for_byte_as_its_view_serialises_it() {
    let runs = runs();
    for run in &runs {
        for prefix in [&b""[..], b"{\"data\":[{},"] {
            let (written, expected) = both(run, prefix);
            assert_eq!(written, expected);
        }
    }
    let forms: Vec<(usize, usize, bool)> = runs
        .iter()
        .map(|run| (run.sections.len(), run.rules.len(), run.due_date.is_some()))
        .collect();
    assert_eq!(forms, [(0, 0, false), (1, 1, true), (2, 0, false)]);
}

/// A text takes the copy only when serde_json would write it unchanged between quotes, and is
/// then written as serde_json writes it: every ASCII character, some beyond, texts long enough
/// for the check's vector instructions with the character to escape last.
#[test]
fn a_text_is_copied_exactly_when_serde_json_escapes_nothing_in_it() {
    let mut samples: Vec<String> = (0_u32..0x80)
        .chain([0xA0, 0xE9, 0x2028, 0x2029, 0xFEFF, 0x1_F600])
        .filter_map(char::from_u32)
        .map(|c| format!("a{c}b"))
        .collect();
    samples.extend([
        String::new(),
        "x".repeat(1000),
        "x".repeat(1000) + "\"",
        "x".repeat(999) + "\u{1f}",
        "x".repeat(64) + "\\" + &"y".repeat(64),
        "é".repeat(7),
        "é😀\u{7f}/€".repeat(3),
    ]);
    // Each character to escape at each place of texts shorter and longer than a vector.
    for len in 1..40 {
        for at in 0..len {
            for c in ['"', '\\', '\u{0}', '\u{1f}', ' ', '\u{80}'] {
                let mut sample: Vec<char> = vec!['k'; len];
                sample[at] = c;
                samples.push(sample.into_iter().collect());
            }
        }
    }
    for sample in samples {
        let by_serde = serde_json::to_string(&sample).unwrap();
        assert_eq!(
            super::needs_escaping(sample.as_bytes()),
            by_serde != format!("\"{sample}\""),
            "{sample:?}"
        );
        let mut out = b"[".to_vec();
        super::text(&mut out, &sample).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), format!("[{by_serde}"));
    }
}
