//! A guest's post, read strictly: an `application/x-www-form-urlencoded` body of at most the
//! body limit, UTF-8 after decoding; the fields the page's forms send (`action`, `comment`,
//! `el-<element id>`) and nothing else.

use percent_encoding::percent_decode;
use procflow_domain::error::ValidationError;
use procflow_domain::guest::{FieldError, FormField, GuestForm, GuestIntent};
use procflow_domain::ids::ElementId;

/// What a post sent, as the page's forms name it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PostedForm {
    /// The button pressed; `None` when absent or not a button of ours.
    pub(crate) intent: Option<GuestIntent>,
    /// The texts sent for each element, in the order sent.
    pub(crate) entries: Vec<(ElementId, Vec<String>)>,
    /// The comment of an approval.
    pub(crate) comment: Option<String>,
    /// Names that no form of ours sends.
    pub(crate) unknown: Vec<String>,
}

/// Why a body cannot be read at all.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Unreadable;

/// Reads a form body. Field order is kept; `+` is a space.
///
/// # Errors
/// [`Unreadable`] when a name or value is not UTF-8 once decoded.
pub(crate) fn read_form(body: &[u8]) -> Result<PostedForm, Unreadable> {
    let mut form = PostedForm::default();
    for pair in body.split(|b| *b == b'&').filter(|pair| !pair.is_empty()) {
        let (name, value) = match pair.iter().position(|b| *b == b'=') {
            Some(at) => (&pair[..at], &pair[at + 1..]),
            None => (pair, &[][..]),
        };
        let (name, value) = (decode(name)?, decode(value)?);
        if name == "action" {
            form.intent = value.parse().ok();
        } else if name == "comment" {
            form.comment = Some(value);
        } else if let Some(id) = name.strip_prefix("el-").and_then(|id| id.parse().ok()) {
            match form.entries.iter_mut().find(|(known, _)| *known == id) {
                Some((_, texts)) => texts.push(value),
                None => form.entries.push((id, vec![value])),
            }
        } else {
            form.unknown.push(name);
        }
    }
    Ok(form)
}

/// A form name or value: `+` as a space, percent-decoded, UTF-8.
pub(super) fn decode(raw: &[u8]) -> Result<String, Unreadable> {
    let spaced: Vec<u8> = raw
        .iter()
        .map(|b| if *b == b'+' { b' ' } else { *b })
        .collect();
    percent_decode(&spaced)
        .decode_utf8()
        .map(std::borrow::Cow::into_owned)
        .map_err(|_| Unreadable)
}

impl PostedForm {
    /// What the post sent for an element (nothing: an empty list).
    pub(crate) fn texts(&self, element: ElementId) -> &[String] {
        self.entries
            .iter()
            .find(|(id, _)| *id == element)
            .map_or(&[], |(_, texts)| texts.as_slice())
    }

    /// The form for the use case, or the refusals of what no form of ours sends.
    ///
    /// # Errors
    /// A form-level refusal for a missing or unknown button or an unknown field name.
    pub(crate) fn to_guest_form(&self) -> Result<GuestForm, Vec<FieldError>> {
        let refuse = |message: String| FieldError {
            field: FormField::Form,
            error: ValidationError::field("form", message),
        };
        let mut errors: Vec<FieldError> = self
            .unknown
            .iter()
            .map(|name| refuse(format!("the form has no field {name:?}")))
            .collect();
        let Some(intent) = self.intent else {
            errors.push(refuse(format!(
                "the form was sent without one of its buttons ({})",
                GuestIntent::NAMES.join(", ")
            )));
            return Err(errors);
        };
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(GuestForm {
            intent,
            entries: self.entries.clone(),
            comment: self.comment.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_browsers_form_is_read_field_by_field() {
        let id = "0190a0b2-0000-7000-8000-000000000001";
        let body = format!(
            "el-{id}=Ada+Lovelace&el-{id}=R%26D&comment=Fine%0D%0Aby+me&action=approve&el-x=1&empty"
        );
        let form = read_form(body.as_bytes()).unwrap();
        assert_eq!(form.intent, Some(GuestIntent::Approve));
        assert_eq!(form.comment.as_deref(), Some("Fine\r\nby me"));
        let element: ElementId = id.parse().unwrap();
        assert_eq!(form.texts(element), ["Ada Lovelace", "R&D"]);
        assert_eq!(form.unknown, ["el-x", "empty"]);
        assert_eq!(form.to_guest_form().unwrap_err().len(), 2);
    }

    #[test]
    fn bytes_that_are_no_utf8_make_the_body_unreadable() {
        assert_eq!(read_form(b"comment=%FF%FE"), Err(Unreadable));
        assert_eq!(read_form(b"%C3=x"), Err(Unreadable));
        assert!(
            read_form(b"comment=%00").is_ok(),
            "NUL is refused later, beside its field"
        );
    }

    #[test]
    fn a_form_without_a_known_button_is_refused() {
        let form = read_form(b"action=delete").unwrap();
        assert_eq!(form.intent, None);
        assert_eq!(form.to_guest_form().unwrap_err()[0].field, FormField::Form);
        let form = read_form(b"action=save").unwrap();
        assert_eq!(form.to_guest_form().unwrap().intent, GuestIntent::Save);
    }
}
