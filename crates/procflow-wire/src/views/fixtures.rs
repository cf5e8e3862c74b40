//! Values the views' tests share.

use procflow_domain::element::{CustomElement, ElementType};
use procflow_domain::ids::ElementId;
use serde_json::{Value, json};

fn element(n: u8, element_type: ElementType, value: Option<Value>) -> CustomElement {
    CustomElement {
        id: format!("01a21978-90dd-77a1-806a-6759592820{n:02x}")
            .parse::<ElementId>()
            .unwrap(),
        reference: None,
        element_type,
        label: format!("Field {n}"),
        required: n.is_multiple_of(2),
        value,
        options: None,
        file_url: None,
    }
}

/// One element of every type, with refs, options where they belong and where they do not, a
/// file with and without its address, and values and labels that need escaping.
pub(crate) fn every_kind() -> Vec<CustomElement> {
    let mut all = vec![
        element(
            1,
            ElementType::ShortText,
            Some(json!("quote \" backslash \\ tab \t é 😀")),
        ),
        element(
            2,
            ElementType::LongText,
            Some(json!("line\nbreak </script>")),
        ),
        element(3, ElementType::Number, Some(json!(-12.5))),
        element(4, ElementType::Number, Some(json!(12))),
        element(5, ElementType::Email, None),
        element(
            6,
            ElementType::Website,
            Some(json!("https://example.com/?a=1&b=2")),
        ),
        element(7, ElementType::Date, Some(json!("2026-11-27"))),
        element(8, ElementType::Checkbox, Some(json!(true))),
        element(9, ElementType::Dropdown, Some(json!("B"))),
        element(10, ElementType::Multichoice, Some(json!(["A", "C"]))),
        element(
            11,
            ElementType::Text,
            Some(json!("<p>Read <b>this</b></p>")),
        ),
        element(
            12,
            ElementType::Image,
            Some(json!("https://example.com/a.png")),
        ),
        element(13, ElementType::Video, None),
        element(14, ElementType::File, None),
        element(15, ElementType::File, None),
        element(16, ElementType::LineBreak, None),
        element(17, ElementType::Dropdown, None),
    ];
    all[0].reference = Some("full_name".parse().unwrap());
    all[0].label = "Name \"as in\" passport\u{1}".to_owned();
    all[8].options = Some(vec!["A".into(), "B".into()]);
    all[9].options = Some(vec!["A".into(), "B \"quoted\"".into(), "C".into()]);
    // Options on a type without them are never shown, as ElementView does.
    all[1].options = Some(vec!["stray".into()]);
    all[13].file_url = Some("https://files.example.com/a%20b.pdf".into());
    all
}
