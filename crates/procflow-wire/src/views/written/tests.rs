use procflow_domain::actor::Actor;
use procflow_domain::element::StoredElements;
use procflow_domain::run::{Decision, InboxTask, ListedTask, RunTask, TaskState};
use procflow_domain::template::TaskType;
use serde::Serialize;
use serde_json::json;
use time::macros::datetime;

use super::{HOLE, WithElements, write_json};
use crate::views::element_list::ElementList;
use crate::views::fixtures::every_kind;
use crate::views::{InboxTaskView, RunTaskListView, RunTaskView};

/// A task whose texts hold what the writer looks for, quotes and the elements' key.
fn task() -> RunTask {
    let hole = String::from_utf8(HOLE.to_vec()).unwrap();
    RunTask {
        id: "01a21978-90dd-77a1-806a-675959282101".parse().unwrap(),
        run_id: "01a21978-90dd-77a1-806a-675959282102".parse().unwrap(),
        template_task_id: "01a21978-90dd-77a1-806a-675959282103".parse().unwrap(),
        reference: Some("check_id".parse().unwrap()),
        title: format!("Title {hole} \"quoted\" {{\"custom_elements\":[]}}"),
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
        comment: Some(format!("a comment with {hole}")),
        custom_elements: every_kind(),
        depends_on: vec!["01a21978-90dd-77a1-806a-675959282105".parse().unwrap()],
        hidden: false,
        blocked: false,
        created_at: datetime!(2026-11-26 08:30 UTC),
    }
}

fn listed(task: &RunTask, stored: &str) -> ListedTask {
    task.clone()
        .with_elements(StoredElements::from_json(stored.to_owned()))
}

/// The writer's bytes after `prefix`, and serde's.
fn both<'a, V: WithElements<'a> + Clone>(view: &V, prefix: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut out = prefix.to_vec();
    write_json(view.clone(), &mut out).unwrap();
    let mut expected = prefix.to_vec();
    expected.extend(serde_json::to_vec(view).unwrap());
    (out, expected)
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
    let task = task();
    for text in texts(&task) {
        let listed = listed(&task, &text);
        for prefix in [&b""[..], b"{\"data\":[", HOLE] {
            let (written, expected) = both(&RunTaskListView::from(&listed), prefix);
            assert_eq!(
                String::from_utf8(written).unwrap(),
                String::from_utf8(expected).unwrap(),
                "stored {text}"
            );
        }
    }
}

#[test]
fn an_inbox_item_and_a_single_task_are_written_as_they_serialise() {
    let task = task();
    for text in texts(&task) {
        let item = InboxTask {
            task: listed(&task, &text),
            run_title: format!("Run {}", String::from_utf8(HOLE.to_vec()).unwrap()),
        };
        let (written, expected) = both(&InboxTaskView::from(&item), b"[");
        assert_eq!(written, expected, "stored {text}");
        let (written, expected) = both(&RunTaskView::from(&item.task), b"");
        assert_eq!(written, expected, "stored {text}");
    }
}

#[test]
fn parsed_elements_are_written_as_they_serialise() {
    let task = task();
    let (written, expected) = both(&RunTaskListView::from(&task), b"");
    assert_eq!(written, expected);
    let value: serde_json::Value = serde_json::from_slice(&written).unwrap();
    assert_eq!(value["custom_elements"].as_array().map(Vec::len), Some(17));
}

/// The price of the copy: text in the API form is not checked as JSON here (the store's
/// `jsonb` is), while the view's `Serialize` still refuses it.
#[test]
fn stored_text_in_the_api_form_is_copied_unchecked_and_serialize_still_checks_it() {
    let task = task();
    let broken = r#"[{"display_only": }]"#;
    let listed = listed(&task, broken);
    let mut out = Vec::new();
    write_json(RunTaskListView::from(&listed), &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains(&format!("\"custom_elements\":{broken},")),
        "{out}"
    );
    let error = serde_json::to_vec(&RunTaskListView::from(&listed)).unwrap_err();
    assert!(error.to_string().starts_with("stored elements"), "{error}");
}

/// A view that writes its elements under another key.
#[derive(Clone, Serialize)]
struct Renamed<'a> {
    title: &'static str,
    #[serde(rename = "fields")]
    custom_elements: ElementList<'a>,
}

impl<'a> WithElements<'a> for Renamed<'a> {
    fn elements(&mut self) -> &mut ElementList<'a> {
        &mut self.custom_elements
    }
}

#[test]
fn a_view_without_the_elements_key_is_written_as_it_serialises() {
    let stored = StoredElements::of(&every_kind()).unwrap();
    let view = Renamed {
        title: "\"custom_elements\": []",
        custom_elements: ElementList::Stored(&stored),
    };
    let (written, expected) = both(&view, b"x");
    assert_eq!(written, expected);
    assert!(
        String::from_utf8(written)
            .unwrap()
            .contains(&format!("\"fields\":{}", stored.as_json()))
    );
}
