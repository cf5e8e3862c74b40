//! The size limits of what procflow stores, each written once, with the checks that apply
//! them: every message names the limit from its constant.
//!
//! ```
//! use procflow_domain::limits::{self, MAX_TITLE_CHARS};
//!
//! assert_eq!(limits::check_title("Onboarding"), Ok(()));
//! assert_eq!(limits::check_title("  "), Err("must not be empty".to_owned()));
//! let long = "x".repeat(MAX_TITLE_CHARS + 1);
//! assert_eq!(limits::check_title(&long), Err("must be at most 500 characters".to_owned()));
//! ```

/// The longest title, label, name or option, in characters.
pub const MAX_TITLE_CHARS: usize = 500;

/// The longest free text (a description, a text value, HTML content), in characters; the
/// request body limit caps it anyway.
pub const MAX_TEXT_CHARS: usize = 100_000;

/// The longest approval comment, in characters.
pub const MAX_COMMENT_CHARS: usize = 10_000;

/// The longest URL (a cover image, a file, a media element), in bytes.
pub const MAX_URL_BYTES: usize = 2_048;

/// The most tasks a template may have.
pub const MAX_TASKS: usize = 1_000;

/// The most custom elements a task may have.
pub const MAX_ELEMENTS_PER_TASK: usize = 100;

/// The most tasks one batch update may change (API contract 11).
pub const MAX_BATCH_TASKS: usize = 100;

/// The shortest reminder delay, in days.
pub const MIN_REMINDER_DAYS: u16 = 1;

/// The longest reminder delay, in days.
pub const MAX_REMINDER_DAYS: u16 = 365;

/// The reminder delay when none is given, in days (spec 8).
pub const DEFAULT_REMINDER_DAYS: u16 = 7;

/// What [`check_text`] takes, as an ECMA-262 regular expression for the OpenAPI `pattern` of
/// every text input: no NUL (the length is the schema's `maxLength`).
pub const TEXT_PATTERN: &str = "^[^\\u0000]*$";

/// What [`check_title`] takes, as [`TEXT_PATTERN`]: no NUL, and one character at least that is
/// not white space as `str::trim` reads it (Unicode `White_Space`, spelled out: `\s` differs
/// between regular expression engines).
pub const TITLE_PATTERN: &str = "^[^\\u0000]*[^\\u0000\\t\\n\\u000B\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000][^\\u0000]*$";

/// Text PostgreSQL can store (no NUL) of at most `max_chars` characters.
///
/// # Errors
/// What is wrong with it, to follow the field's name in a message.
pub fn check_text(text: &str, max_chars: usize) -> Result<(), String> {
    if text.contains('\0') {
        return Err("must not contain NUL characters".to_owned());
    }
    if text.chars().count() > max_chars {
        return Err(format!("must be at most {max_chars} characters"));
    }
    Ok(())
}

/// A title: not blank, and text of at most [`MAX_TITLE_CHARS`].
///
/// # Errors
/// What is wrong with it, to follow the field's name in a message.
pub fn check_title(text: &str) -> Result<(), String> {
    if text.trim().is_empty() {
        return Err("must not be empty".to_owned());
    }
    check_text(text, MAX_TITLE_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_refused_with_nul_or_over_its_limit() {
        assert_eq!(check_text("", 3), Ok(()));
        assert_eq!(check_text("äöü", 3), Ok(()));
        assert_eq!(
            check_text("abcd", 3),
            Err("must be at most 3 characters".to_owned())
        );
        assert_eq!(
            check_text("a\0", 3),
            Err("must not contain NUL characters".to_owned())
        );
    }

    proptest::proptest! {
        /// The document's patterns take exactly what the checks take (lengths aside).
        #[test]
        fn the_patterns_agree_with_the_checks(text in "[a\\x00 \\t\\n\\x0B\\x1C\\u{85}\\u{A0}\\u{200B}\\u{2009}\\u{3000}\\u{FEFF}]{0,4}") {
            let text_pattern = regex::Regex::new(TEXT_PATTERN).unwrap();
            let title_pattern = regex::Regex::new(TITLE_PATTERN).unwrap();
            proptest::prop_assert_eq!(text_pattern.is_match(&text), check_text(&text, 10).is_ok(), "{:?}", text);
            proptest::prop_assert_eq!(title_pattern.is_match(&text), check_title(&text).is_ok(), "{:?}", text);
        }
    }

    #[test]
    fn a_title_must_not_be_blank() {
        assert!(check_title("\t \n").is_err());
        assert!(check_title(&"x".repeat(MAX_TITLE_CHARS)).is_ok());
    }
}
