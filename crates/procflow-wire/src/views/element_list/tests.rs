use procflow_domain::element::StoredElements;
use serde_json::{Value, json};

use super::ElementList;
use crate::views::elements;
use crate::views::fixtures::every_kind;

fn written(list: &ElementList<'_>) -> String {
    serde_json::to_string(list).unwrap()
}

#[test]
fn stored_elements_are_written_byte_for_byte_as_their_views() {
    let elements_ = every_kind();
    let stored = StoredElements::of(&elements_).unwrap();
    assert_eq!(
        written(&ElementList::Stored(&stored)),
        written(&ElementList::Views(elements(&elements_)))
    );
}

#[test]
fn stored_elements_as_postgresql_writes_them_back_are_the_same_json() {
    let elements_ = every_kind();
    // jsonb writes its keys by length, then bytes, with a space after `:` and `,`, and its own
    // escapes.
    let pg = r#"[{"id": "01a21978-90dd-77a1-806a-675959282001", "ref": "full_name", "type": "shortText", "label": "Name \"as in\" passport\u0001", "value": "quote \" backslash \\ tab \t é 😀", "required": false, "display_only": false}, {"id": "01a21978-90dd-77a1-806a-67595928200e", "ref": null, "type": "file", "label": "Field 14", "value": null, "file_url": "https://files.example.com/a%20b.pdf", "required": true, "display_only": true}, {"id": "01a21978-90dd-77a1-806a-675959282009", "ref": null, "type": "dropdown", "label": "Field 9", "value": "B", "options": ["A", "B"], "required": false, "display_only": false}]"#;
    let stored = StoredElements::from_json(pg.to_owned());
    let parsed = stored.parse().unwrap();
    assert_eq!(
        parsed,
        [
            elements_[0].clone(),
            elements_[13].clone(),
            elements_[8].clone()
        ]
    );
    let from_stored: Value = serde_json::from_str(&written(&ElementList::Stored(&stored))).unwrap();
    let from_views: Value =
        serde_json::from_str(&written(&ElementList::Views(elements(&parsed)))).unwrap();
    assert_eq!(from_stored, from_views);
}

#[test]
fn elements_stored_before_they_took_the_api_form_are_written_as_their_views() {
    let elements_ = every_kind();
    // The earlier form, as jsonb wrote it back: `ref` left out when none, `options` and
    // `file_url` on every element (the stray options of element 2 as stored), no
    // `display_only`.
    let old: Vec<Value> = elements_
        .iter()
        .map(|e| {
            let mut v = json!({
                "id": e.id, "type": e.element_type, "label": e.label, "value": e.value,
                "options": e.options, "file_url": e.file_url, "required": e.required,
            });
            if let Some(r) = &e.reference {
                v["ref"] = json!(r);
            }
            v
        })
        .collect();
    let stored = StoredElements::from_json(serde_json::to_string(&old).unwrap());
    assert!(!stored.in_api_form());
    assert_eq!(stored.parse().unwrap(), elements_);
    assert_eq!(
        written(&ElementList::Stored(&stored)),
        written(&ElementList::Views(elements(&elements_)))
    );
}

#[test]
fn elements_stored_in_the_api_form_are_copied_as_they_are() {
    let stored = StoredElements::of(&every_kind()).unwrap();
    assert!(stored.in_api_form());
    assert_eq!(written(&ElementList::Stored(&stored)), stored.as_json());
    let empty = StoredElements::from_json("[]".to_owned());
    assert_eq!(written(&ElementList::Stored(&empty)), "[]");
}

#[test]
fn stored_text_that_is_not_json_fails_the_answer_rather_than_writing_it() {
    for broken in [
        "",
        "[",
        "[{\"display_only\": }]",
        "[] []",
        "{}",
        "[{\"id\": \"x\", \"type\": \"nope\", \"label\": \"a\", \"required\": true}]",
    ] {
        let stored = StoredElements::from_json(broken.to_owned());
        let error = serde_json::to_string(&ElementList::Stored(&stored)).unwrap_err();
        assert!(
            error.to_string().starts_with("stored elements"),
            "{broken}: {error}"
        );
    }
}

#[test]
fn a_list_read_from_json_has_views() {
    let elements_ = every_kind();
    let json = written(&ElementList::Views(elements(&elements_)));
    let read: ElementList<'static> = serde_json::from_str(&json).unwrap();
    assert_eq!(read.views().map(<[_]>::len), Some(elements_.len()));
    assert_eq!(read, ElementList::Views(elements(&elements_)));
    let stored = StoredElements::of(&elements_).unwrap();
    assert_eq!(ElementList::Stored(&stored).views(), None);
}
