//! A guest's comment post (API contract 14.1): the comment form of a task sends one field,
//! `text`, and nothing else; read as strictly as the task's form (`super::form`).

use procflow_domain::error::ValidationError;

use super::fields;
use super::form::{Unreadable, decode};

/// What a comment form sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PostedComment {
    /// The text, as sent (a textarea's CRLF line breaks included).
    pub(crate) text: String,
    /// What the form cannot have sent: a missing or repeated `text`, another field; the
    /// refusal shown beside the textarea.
    pub(crate) refusal: Option<&'static str>,
}

/// Reads a comment form's body. `+` is a space.
///
/// # Errors
/// [`Unreadable`] when a name or value is not UTF-8 once decoded.
pub(crate) fn read_comment(body: &[u8]) -> Result<PostedComment, Unreadable> {
    let mut texts = Vec::new();
    let mut unknown = false;
    for pair in body.split(|b| *b == b'&').filter(|pair| !pair.is_empty()) {
        let (name, value) = match pair.iter().position(|b| *b == b'=') {
            Some(at) => (&pair[..at], &pair[at + 1..]),
            None => (pair, &[][..]),
        };
        let (name, value) = (decode(name)?, decode(value)?);
        if name == "text" {
            texts.push(value);
        } else {
            unknown = true;
        }
    }
    let refusal = match (texts.len(), unknown) {
        (_, true) => Some("The comment form sent a field it does not have: please write it again."),
        (0, false) => Some("Write a comment before sending it."),
        (1, false) => None,
        (_, false) => Some("The comment form sent its text twice: please write it again."),
    };
    Ok(PostedComment {
        text: texts.into_iter().next().unwrap_or_default(),
        refusal,
    })
}

/// The message beside the comment form for the use case's refusal of the text.
pub(crate) fn comment_message(error: &ValidationError) -> String {
    match error {
        ValidationError::Field { message, .. } => format!("The comment {message}."),
        other => fields::message(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comment_form_sends_its_text_and_nothing_else() {
        let posted = read_comment(b"text=Fine%0D%0Aby+me+%3Cb%3E").unwrap();
        assert_eq!(posted.text, "Fine\r\nby me <b>");
        assert_eq!(posted.refusal, None);
        for odd in [
            &b""[..],
            b"text=a&text=b",
            b"text=a&action=save",
            b"comment=a",
        ] {
            assert!(read_comment(odd).unwrap().refusal.is_some(), "{odd:?}");
        }
        assert_eq!(read_comment(b"text=%FF"), Err(Unreadable));
    }
}
