//! The one validator for a written element value (spec 2.7 and 4.11).

use serde_json::Value;
use time::Date;
use time::macros::format_description;

use super::{CustomElement, ElementType};
use crate::error::ValidationError;
use crate::limits::MAX_TEXT_CHARS;
use crate::values::Email;

impl CustomElement {
    /// Checks a value written to this element and returns what is stored: `None` clears it.
    ///
    /// Display-only elements refuse every write. `null` clears an input element.
    ///
    /// # Errors
    /// [`ValidationError::DisplayOnly`] for a display-only element,
    /// [`ValidationError::InvalidOption`] for a dropdown or multichoice value outside the
    /// options (the message lists them), [`ValidationError::InvalidValue`] for a value of the
    /// wrong type or syntax.
    ///
    /// ```
    /// use procflow_domain::element::{CustomElement, ElementType};
    /// use procflow_domain::ids::ElementId;
    /// use serde_json::json;
    ///
    /// let dropdown = CustomElement {
    ///     id: ElementId::from_uuid(uuid::Uuid::nil()),
    ///     reference: None,
    ///     element_type: ElementType::Dropdown,
    ///     label: "Department".into(),
    ///     required: false,
    ///     value: None,
    ///     options: Some(vec!["Eng".into(), "Sales".into()]),
    ///     file_url: None,
    /// };
    /// assert_eq!(dropdown.validate_write(&json!("Eng")).unwrap(), Some(json!("Eng")));
    /// assert_eq!(dropdown.validate_write(&json!(null)).unwrap(), None);
    /// let refused = dropdown.validate_write(&json!("HR")).unwrap_err();
    /// assert!(refused.to_string().contains("\"Eng\", \"Sales\""));
    /// ```
    pub fn validate_write(&self, value: &Value) -> Result<Option<Value>, ValidationError> {
        if self.is_display_only() {
            return Err(ValidationError::DisplayOnly {
                element: self.name(),
            });
        }
        if value.is_null() {
            return Ok(None);
        }
        let accepted = match self.element_type {
            ElementType::ShortText | ElementType::LongText => self.text(value).map(|_| ()),
            ElementType::Number => value
                .is_number()
                .then_some(())
                .ok_or_else(|| self.invalid("a number")),
            ElementType::Checkbox => value
                .is_boolean()
                .then_some(())
                .ok_or_else(|| self.invalid("a boolean")),
            ElementType::Email => self.email(value),
            ElementType::Website => self.website(value),
            ElementType::Date => self.date(value),
            ElementType::Dropdown => self.option(value).map(|_| ()),
            ElementType::Multichoice => self.options(value),
            ElementType::Text
            | ElementType::Image
            | ElementType::Video
            | ElementType::File
            | ElementType::LineBreak => Err(ValidationError::DisplayOnly {
                element: self.name(),
            }),
        };
        accepted.map(|()| Some(value.clone()))
    }

    fn invalid(&self, expected: impl Into<String>) -> ValidationError {
        ValidationError::InvalidValue {
            element: self.name(),
            expected: expected.into(),
        }
    }

    /// A string PostgreSQL can store (no NUL) and of bounded length.
    fn text<'v>(&self, value: &'v Value) -> Result<&'v str, ValidationError> {
        let text = value.as_str().ok_or_else(|| self.invalid("a string"))?;
        if text.contains('\0') {
            return Err(self.invalid("a string without NUL characters"));
        }
        if text.chars().count() > MAX_TEXT_CHARS {
            return Err(self.invalid(format!("a string of at most {MAX_TEXT_CHARS} characters")));
        }
        Ok(text)
    }

    fn email(&self, value: &Value) -> Result<(), ValidationError> {
        let text = value
            .as_str()
            .ok_or_else(|| self.invalid("an email address"))?;
        // `Email` trims before checking, but the value is stored as written: surrounding
        // whitespace would be stored as part of the address.
        if text.trim() != text {
            return Err(self.invalid("an email address"));
        }
        text.parse::<Email>()
            .map(|_| ())
            .map_err(|_| self.invalid("an email address"))
    }

    fn website(&self, value: &Value) -> Result<(), ValidationError> {
        let expected = "an absolute http or https URL";
        let text = value.as_str().ok_or_else(|| self.invalid(expected))?;
        if is_web_url(text) {
            Ok(())
        } else {
            Err(self.invalid(expected))
        }
    }

    fn date(&self, value: &Value) -> Result<(), ValidationError> {
        let expected = "an ISO 8601 date (YYYY-MM-DD)";
        let text = value.as_str().ok_or_else(|| self.invalid(expected))?;
        // `[year]` also reads a sign (`+2026`, `-0001`); YYYY-MM-DD starts with a digit.
        if !text.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(self.invalid(expected));
        }
        Date::parse(text, format_description!("[year]-[month]-[day]"))
            .map(|_| ())
            .map_err(|_| self.invalid(expected))
    }

    fn allowed(&self) -> &[String] {
        self.options.as_deref().unwrap_or_default()
    }

    fn option<'v>(&self, value: &'v Value) -> Result<&'v str, ValidationError> {
        let refuse = |shown: String| ValidationError::InvalidOption {
            element: self.name(),
            value: shown,
            allowed: self.allowed().to_vec(),
        };
        let text = value.as_str().ok_or_else(|| refuse(value.to_string()))?;
        if self.allowed().iter().any(|option| option == text) {
            Ok(text)
        } else {
            Err(refuse(text.to_owned()))
        }
    }

    fn options(&self, value: &Value) -> Result<(), ValidationError> {
        let items = value
            .as_array()
            .ok_or_else(|| self.invalid("an array of the element's options"))?;
        let mut seen = Vec::with_capacity(items.len());
        for item in items {
            let chosen = self.option(item)?;
            if seen.contains(&chosen) {
                return Err(self.invalid("an array of distinct options"));
            }
            seen.push(chosen);
        }
        Ok(())
    }
}

/// An absolute `http`/`https` URL with a host; also the rule for `file_url` and media URLs.
#[must_use]
pub fn is_web_url(text: &str) -> bool {
    // The parser repairs `https:/host` and `http:host`; a browser reads those as paths on
    // our own host, so the written text itself must be absolute.
    let (scheme, rest) = text.split_once("://").unwrap_or_default();
    !text.contains('\0')
        && matches!(scheme, "http" | "https")
        && !rest.is_empty()
        && url::Url::parse(text)
            .is_ok_and(|url| matches!(url.scheme(), "http" | "https") && url.host().is_some())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::ids::ElementId;

    fn element(element_type: ElementType) -> CustomElement {
        let options = element_type
            .has_options()
            .then(|| vec!["Eng".to_owned(), "Sales".to_owned(), "R&D".to_owned()]);
        CustomElement {
            id: ElementId::from_uuid(uuid::Uuid::nil()),
            reference: None,
            element_type,
            label: "Field".into(),
            required: false,
            value: None,
            options,
            file_url: None,
        }
    }

    /// (type, values it accepts, values it refuses)
    fn table() -> Vec<(ElementType, Vec<Value>, Vec<Value>)> {
        use ElementType as T;
        let not_strings = || vec![json!(1), json!(true), json!([]), json!({})];
        let with = |mut base: Vec<Value>, more: Vec<Value>| {
            base.extend(more);
            base
        };
        vec![
            (
                T::ShortText,
                vec![json!(""), json!("Ada"), json!("ünïcødé ✓")],
                with(
                    not_strings(),
                    vec![json!("a\u{0}b"), json!("x".repeat(MAX_TEXT_CHARS + 1))],
                ),
            ),
            (
                T::LongText,
                vec![
                    json!("line one\nline two"),
                    json!("x".repeat(MAX_TEXT_CHARS)),
                ],
                with(not_strings(), vec![json!("\u{0}")]),
            ),
            (
                T::Number,
                vec![json!(0), json!(-12), json!(3.25), json!(1e300)],
                vec![json!("1"), json!(true), json!([1]), json!({})],
            ),
            (
                T::Email,
                vec![json!("ada@example.com"), json!("A.B+c@d.example.org")],
                with(
                    not_strings(),
                    vec![
                        json!("ada"),
                        json!("ada@"),
                        json!("@x.y"),
                        json!("a b@c.d"),
                        json!(" ada@example.com"),
                        json!("ada@example.com\n"),
                    ],
                ),
            ),
            (
                T::Website,
                vec![
                    json!("https://example.com"),
                    json!("http://localhost:8080/a?b=c#d"),
                ],
                with(
                    not_strings(),
                    vec![
                        json!("example.com"),
                        json!("ftp://example.com"),
                        json!("javascript:alert(1)"),
                        json!("https://"),
                        json!("https:/example.com"),
                        json!("http:example.com"),
                        json!("HTTPS//example.com"),
                    ],
                ),
            ),
            (
                T::Date,
                vec![json!("2026-11-21"), json!("2024-02-29")],
                with(
                    not_strings(),
                    vec![
                        json!("2023-02-29"),
                        json!("21/11/2026"),
                        json!("2026-11-21T10:00:00Z"),
                        json!("2026-13-01"),
                        json!("+2026-11-21"),
                        json!("-0001-01-01"),
                        json!(""),
                    ],
                ),
            ),
            (
                T::Checkbox,
                vec![json!(true), json!(false)],
                vec![json!("true"), json!(1), json!([]), json!({})],
            ),
            (
                T::Dropdown,
                vec![json!("Eng"), json!("R&D")],
                vec![
                    json!("eng"),
                    json!("HR"),
                    json!(""),
                    json!(["Eng"]),
                    json!(1),
                ],
            ),
            (
                T::Multichoice,
                vec![json!([]), json!(["Eng"]), json!(["Sales", "Eng"])],
                vec![
                    json!("Eng"),
                    json!(["HR"]),
                    json!(["Eng", "Eng"]),
                    json!([1]),
                    json!({}),
                ],
            ),
        ]
    }

    #[test]
    fn every_input_type_accepts_and_refuses_by_its_rule() {
        for (element_type, accepted, refused) in table() {
            let element = element(element_type);
            for value in accepted {
                assert_eq!(
                    element.validate_write(&value),
                    Ok(Some(value.clone())),
                    "{element_type} should accept {value}"
                );
            }
            for value in refused {
                assert!(
                    element.validate_write(&value).is_err(),
                    "{element_type} should refuse {value}"
                );
            }
        }
    }

    #[test]
    fn the_table_covers_every_input_type() {
        let covered: Vec<_> = table().into_iter().map(|(t, _, _)| t).collect();
        for element_type in ElementType::ALL {
            assert_eq!(
                covered.contains(&element_type),
                !element_type.is_display_only(),
                "{element_type}"
            );
        }
    }

    #[test]
    fn null_clears_every_input_type() {
        for element_type in ElementType::ALL
            .into_iter()
            .filter(|t| !t.is_display_only())
        {
            assert_eq!(element(element_type).validate_write(&Value::Null), Ok(None));
        }
    }

    #[test]
    fn display_only_elements_refuse_every_write_even_null() {
        for element_type in ElementType::ALL.into_iter().filter(|t| t.is_display_only()) {
            for value in [json!("x"), json!(null), json!(true)] {
                assert!(
                    matches!(
                        element(element_type).validate_write(&value),
                        Err(ValidationError::DisplayOnly { .. })
                    ),
                    "{element_type} {value}"
                );
            }
        }
    }

    #[test]
    fn an_option_refusal_names_the_element_and_lists_the_options() {
        for element_type in [ElementType::Dropdown, ElementType::Multichoice] {
            let element = element(element_type);
            let value = if element_type == ElementType::Dropdown {
                json!("HR")
            } else {
                json!(["Eng", "HR"])
            };
            let message = element.validate_write(&value).unwrap_err().to_string();
            assert!(message.contains("\"Field\""), "{message}");
            assert!(message.contains("\"HR\""), "{message}");
            assert!(message.contains("\"Eng\", \"Sales\", \"R&D\""), "{message}");
        }
    }

    #[test]
    fn type_names_are_the_spec_spelling() {
        let names: Vec<_> = ElementType::ALL.iter().map(|t| t.as_str()).collect();
        assert_eq!(
            names,
            [
                "shortText",
                "longText",
                "number",
                "email",
                "website",
                "date",
                "checkbox",
                "dropdown",
                "multichoice",
                "text",
                "image",
                "video",
                "file",
                "lineBreak"
            ]
        );
        for element_type in ElementType::ALL {
            let json = serde_json::to_value(element_type).unwrap();
            assert_eq!(json, json!(element_type.as_str()));
        }
    }
}
