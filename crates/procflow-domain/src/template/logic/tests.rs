//! Tables of the operators, by operator and element type, and the shapes of a rule's `if`.

use serde_json::{Value, json};

use super::operators::check;
use super::*;
use crate::element::{CustomElement, ElementType};

fn element(element_type: ElementType) -> CustomElement {
    CustomElement {
        id: ElementId::from_uuid(uuid::Uuid::nil()),
        reference: None,
        element_type,
        label: "Field".into(),
        required: false,
        value: None,
        options: element_type
            .has_options()
            .then(|| vec!["Eng".to_owned(), "Sales".to_owned(), "R&D".to_owned()]),
        file_url: None,
    }
}

fn condition(is: Operator, value: Option<Value>) -> Condition<String> {
    Condition {
        element: "field".into(),
        is,
        value,
    }
}

/// (type, operator, compared with, current value, holds)
type HoldsCase = (ElementType, Operator, Option<Value>, Option<Value>, bool);

fn holds_table() -> Vec<HoldsCase> {
    use ElementType as T;
    use Operator as O;
    let s = |v: &str| Some(json!(v));
    vec![
        // equal / not_equal, every input type
        (T::ShortText, O::Equal, s("Ada"), s("Ada"), true),
        (T::ShortText, O::Equal, s("Ada"), s("ada"), false),
        (T::ShortText, O::Equal, s("Ada"), None, false),
        (T::ShortText, O::NotEqual, s("Ada"), None, true),
        (T::ShortText, O::NotEqual, s("Ada"), s("Bob"), true),
        (T::LongText, O::Equal, s("a\nb"), s("a\nb"), true),
        (
            T::Email,
            O::Equal,
            s("ada@example.org"),
            s("Ada@Example.org"),
            true,
        ),
        (
            T::Email,
            O::NotEqual,
            s("ada@example.org"),
            s("bob@example.org"),
            true,
        ),
        (
            T::Website,
            O::Equal,
            s("https://a.example"),
            s("https://a.example"),
            true,
        ),
        (T::Number, O::Equal, Some(json!(3)), Some(json!(3.0)), true),
        (T::Number, O::NotEqual, Some(json!(3)), Some(json!(4)), true),
        (T::Date, O::Equal, s("2026-11-27"), s("2026-11-27"), true),
        (
            T::Checkbox,
            O::Equal,
            Some(json!(true)),
            Some(json!(true)),
            true,
        ),
        (
            T::Checkbox,
            O::Equal,
            Some(json!(true)),
            Some(json!(false)),
            false,
        ),
        (T::Checkbox, O::Equal, Some(json!(true)), None, false),
        (T::Checkbox, O::NotEqual, Some(json!(true)), None, true),
        (T::Dropdown, O::Equal, s("Eng"), s("Eng"), true),
        (T::Dropdown, O::NotEqual, s("Eng"), s("Sales"), true),
        (
            T::Multichoice,
            O::Equal,
            Some(json!(["Eng", "R&D"])),
            Some(json!(["R&D", "Eng"])),
            true,
        ),
        (
            T::Multichoice,
            O::Equal,
            Some(json!(["Eng"])),
            Some(json!(["Eng", "Sales"])),
            false,
        ),
        (
            T::Multichoice,
            O::NotEqual,
            Some(json!(["Eng"])),
            Some(json!([])),
            true,
        ),
        // contains / not_contains: text ignoring case, multichoice by option
        (T::ShortText, O::Contains, s("LAP"), s("a laptop"), true),
        (T::ShortText, O::Contains, s("desk"), s("a laptop"), false),
        (T::ShortText, O::Contains, s("lap"), None, false),
        (T::ShortText, O::NotContains, s("lap"), None, true),
        (T::LongText, O::NotContains, s("desk"), s("a laptop"), true),
        (
            T::Email,
            O::Contains,
            s("@example.org"),
            s("ada@EXAMPLE.org"),
            true,
        ),
        (
            T::Website,
            O::Contains,
            s("example"),
            s("https://example.com"),
            true,
        ),
        (
            T::Multichoice,
            O::Contains,
            s("Eng"),
            Some(json!(["Sales", "Eng"])),
            true,
        ),
        (
            T::Multichoice,
            O::Contains,
            s("Eng"),
            Some(json!(["Sales"])),
            false,
        ),
        (
            T::Multichoice,
            O::NotContains,
            s("Eng"),
            Some(json!(["Sales"])),
            true,
        ),
        (T::Multichoice, O::NotContains, s("Eng"), None, true),
        // set / empty, every input type
        (T::ShortText, O::Set, None, s("x"), true),
        (T::ShortText, O::Set, None, s("  "), false),
        (T::ShortText, O::Empty, None, s(""), true),
        (T::ShortText, O::Empty, None, None, true),
        (T::Number, O::Set, None, Some(json!(0)), true),
        (T::Checkbox, O::Set, None, Some(json!(false)), true),
        (T::Checkbox, O::Empty, None, None, true),
        (T::Multichoice, O::Empty, None, Some(json!([])), true),
        (T::Multichoice, O::Set, None, Some(json!(["Eng"])), true),
        (T::Dropdown, O::Set, None, s("Eng"), true),
        (T::Date, O::Empty, None, s("2026-01-01"), false),
        (T::Email, O::Set, None, Some(Value::Null), false),
        (T::Number, O::Empty, None, None, true),
        (T::Date, O::Set, None, s("2026-01-01"), true),
        (T::Date, O::NotEqual, s("2026-11-27"), s("2026-11-28"), true),
        (T::Dropdown, O::Empty, None, s("Eng"), false),
        (T::Checkbox, O::Empty, None, Some(json!(true)), false),
        // greater_than / less_than: numbers and dates
        (
            T::Number,
            O::GreaterThan,
            Some(json!(10)),
            Some(json!(10.5)),
            true,
        ),
        (
            T::Number,
            O::GreaterThan,
            Some(json!(10)),
            Some(json!(10)),
            false,
        ),
        (
            T::Number,
            O::LessThan,
            Some(json!(10)),
            Some(json!(-3)),
            true,
        ),
        (T::Number, O::LessThan, Some(json!(10)), None, false),
        (T::Number, O::GreaterThan, Some(json!(10)), None, false),
        (
            T::Date,
            O::GreaterThan,
            s("2026-11-27"),
            s("2026-12-01"),
            true,
        ),
        (
            T::Date,
            O::GreaterThan,
            s("2026-11-27"),
            s("2026-11-27"),
            false,
        ),
        (T::Date, O::LessThan, s("2026-11-27"), s("2025-12-31"), true),
        (T::Date, O::LessThan, s("2026-11-27"), None, false),
    ]
}

#[test]
fn every_operator_holds_of_a_value_as_its_table_says() {
    for (element_type, is, wanted, current, expected) in holds_table() {
        let condition = condition(is, wanted.clone());
        assert_eq!(
            condition.holds(element_type, current.as_ref()),
            expected,
            "{element_type} {is} {wanted:?} of {current:?}"
        );
    }
}

#[test]
fn the_holds_table_covers_every_operator_on_every_type_it_fits() {
    let table = holds_table();
    for element_type in ElementType::ALL {
        for is in Operator::of(element_type) {
            // Display-only types have none; the rest appear with each operator, except where a
            // sibling type of the same shape stands for it.
            let covered = table.iter().any(|(t, o, ..)| *t == element_type && o == is);
            let sibling = match element_type {
                ElementType::LongText | ElementType::Email | ElementType::Website => table
                    .iter()
                    .any(|(t, o, ..)| *t == ElementType::ShortText && o == is),
                _ => false,
            };
            assert!(covered || sibling, "{element_type} {is} untested");
        }
    }
}

#[test]
fn negations_are_the_opposite_of_their_operator() {
    let pairs = [
        (Operator::Equal, Operator::NotEqual),
        (Operator::Contains, Operator::NotContains),
        (Operator::Set, Operator::Empty),
    ];
    for (element_type, is, wanted, current, _) in holds_table() {
        for (a, b) in pairs {
            if is == a || is == b {
                let one = condition(a, wanted.clone()).holds(element_type, current.as_ref());
                let other = condition(b, wanted.clone()).holds(element_type, current.as_ref());
                assert_ne!(one, other, "{element_type} {is} {wanted:?} of {current:?}");
            }
        }
    }
}

#[test]
fn the_documented_table_names_the_operators_of_every_type() {
    let rows: Vec<&str> = OPERATORS_BY_TYPE
        .lines()
        .filter(|line| line.starts_with("| `"))
        .collect();
    for (element_type, operators) in operator_table() {
        let name = format!("`{element_type}`");
        let row = rows
            .iter()
            .find(|row| {
                row.split('|')
                    .nth(1)
                    .is_some_and(|cell| cell.contains(&name))
            })
            .unwrap_or_else(|| panic!("{element_type} has no row"));
        let cell = row.split('|').nth(2).unwrap_or_default();
        let listed: Vec<&str> = cell.split('`').skip(1).step_by(2).collect();
        let expected: Vec<&str> = operators.iter().map(|o| o.as_str()).collect();
        if expected.is_empty() {
            assert!(cell.contains("none"), "{element_type}: {cell}");
        } else {
            assert_eq!(listed, expected, "{element_type}");
        }
    }
}

/// (type, operator, value, accepted)
#[test]
fn conditions_are_checked_against_their_element() {
    use ElementType as T;
    use Operator as O;
    type Case = (
        ElementType,
        Operator,
        Option<Value>,
        Result<(), &'static str>,
    );
    let cases: Vec<Case> = vec![
        (T::Dropdown, O::Equal, Some(json!("Eng")), Ok(())),
        (
            T::Dropdown,
            O::Equal,
            Some(json!("HR")),
            Err("\"HR\" is not an allowed option"),
        ),
        (
            T::Dropdown,
            O::Contains,
            Some(json!("Eng")),
            Err("contains does not apply"),
        ),
        (T::Dropdown, O::Equal, None, Err("equal needs a value")),
        (
            T::Dropdown,
            O::Set,
            Some(json!("Eng")),
            Err("set takes no value"),
        ),
        (T::Dropdown, O::Empty, None, Ok(())),
        (
            T::Number,
            O::GreaterThan,
            Some(json!("3")),
            Err("expected a number"),
        ),
        (T::Number, O::LessThan, Some(json!(3)), Ok(())),
        (
            T::Date,
            O::GreaterThan,
            Some(json!("27/11/2026")),
            Err("ISO 8601 date"),
        ),
        (T::Date, O::GreaterThan, Some(json!("2026-11-27")), Ok(())),
        (
            T::Checkbox,
            O::Equal,
            Some(json!("yes")),
            Err("expected a boolean"),
        ),
        (
            T::Checkbox,
            O::GreaterThan,
            Some(json!(true)),
            Err("greater_than does not apply"),
        ),
        (
            T::ShortText,
            O::Contains,
            Some(json!("")),
            Err("a non-empty string"),
        ),
        (
            T::ShortText,
            O::Contains,
            Some(json!(3)),
            Err("a non-empty string"),
        ),
        (T::Email, O::Contains, Some(json!("@example.org")), Ok(())),
        (
            T::Email,
            O::Equal,
            Some(json!("not an email")),
            Err("an email address"),
        ),
        (
            T::Multichoice,
            O::Contains,
            Some(json!("HR")),
            Err("takes one of its options"),
        ),
        (T::Multichoice, O::Contains, Some(json!("Sales")), Ok(())),
        (
            T::Multichoice,
            O::Equal,
            Some(json!(["Sales", "Eng"])),
            Ok(()),
        ),
        (
            T::Multichoice,
            O::Equal,
            Some(json!("Sales")),
            Err("an array"),
        ),
        (T::Text, O::Equal, Some(json!("x")), Err("display-only")),
        (T::LineBreak, O::Empty, None, Err("display-only")),
    ];
    for (element_type, is, value, expected) in cases {
        let outcome = check(&condition(is, value.clone()), &element(element_type));
        match (expected, outcome) {
            (Ok(()), Ok(())) => {}
            (Err(part), Err(message)) => {
                assert!(
                    message.contains(part),
                    "{element_type} {is} {value:?}: {message}"
                );
            }
            (expected, outcome) => {
                panic!("{element_type} {is} {value:?}: expected {expected:?}, got {outcome:?}")
            }
        }
    }
}

#[test]
fn an_if_is_one_condition_all_or_any_and_reads_back_as_written() {
    let shapes = [
        json!({"element": "a", "is": "set"}),
        json!({"element": "a", "is": "equal", "value": "Eng"}),
        json!({"all": [{"element": "a", "is": "set"}, {"element": "b", "is": "empty"}]}),
        json!({"any": [{"element": "a", "is": "equal", "value": 3}]}),
    ];
    for shape in shapes {
        let when: When<String> = serde_json::from_value(shape.clone()).unwrap();
        assert_eq!(serde_json::to_value(&when).unwrap(), shape);
    }
}

#[test]
fn a_malformed_if_says_what_an_if_is() {
    let too_many: Vec<Value> = (0..=MAX_CONDITIONS)
        .map(|_| json!({"element": "a", "is": "set"}))
        .collect();
    let cases = [
        (json!({}), "is one condition"),
        (json!({"element": "a"}), "needs `is`"),
        (json!({"is": "set"}), "needs `element`"),
        (json!({"all": []}), "holds 1 to 20 conditions, not 0"),
        (json!({"any": too_many}), "holds 1 to 20 conditions, not 21"),
        (
            json!({"all": [{"element": "a", "is": "set"}], "any": [{"element": "a", "is": "set"}]}),
            "is one condition",
        ),
        (
            json!({"element": "a", "is": "set", "all": []}),
            "is one condition",
        ),
        (
            json!({"element": "a", "is": "like"}),
            "unknown variant `like`",
        ),
        (
            json!({"element": "a", "is": "set", "extra": 1}),
            "unknown field `extra`",
        ),
        (
            json!({"all": [{"element": "a", "is": "set", "x": 1}]}),
            "unknown field `x`",
        ),
    ];
    for (shape, expected) in cases {
        let error = serde_json::from_value::<When<String>>(shape.clone()).unwrap_err();
        assert!(error.to_string().contains(expected), "{shape}: {error}");
    }
}

#[test]
fn the_api_reference_shows_the_same_table() {
    let reference = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/api.md");
    let text = std::fs::read_to_string(reference).unwrap();
    assert!(
        text.contains(OPERATORS_BY_TYPE),
        "docs/api.md does not show template/logic/operators.md as it is"
    );
}
