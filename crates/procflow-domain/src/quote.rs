//! How a message quotes what a client sent: a short prefix, never the whole input (a 900 kB
//! value refused must not come back as a 900 kB message).
//!
//! ```
//! use procflow_domain::quote::{MAX_QUOTED_CHARS, quote, shorten_quotes};
//!
//! assert_eq!(quote("HR"), "\"HR\"");
//! let long = "x".repeat(1_000);
//! assert_eq!(quote(&long), format!("\"{}…\" (1000 characters)", "x".repeat(MAX_QUOTED_CHARS)));
//! let message = format!("invalid type: string {long:?}, expected a boolean");
//! assert_eq!(
//!     shorten_quotes(&message),
//!     format!("invalid type: string \"{}…\", expected a boolean", "x".repeat(MAX_QUOTED_CHARS))
//! );
//! ```

/// The most characters of an input a message quotes.
pub const MAX_QUOTED_CHARS: usize = 64;

/// `text` quoted as Rust's `{:?}` quotes it, cut after [`MAX_QUOTED_CHARS`] characters with
/// `…` and its length when longer.
#[must_use]
pub fn quote(text: &str) -> String {
    let count = text.chars().count();
    if count <= MAX_QUOTED_CHARS {
        return format!("{text:?}");
    }
    let prefix: String = text.chars().take(MAX_QUOTED_CHARS).collect();
    let quoted = format!("{prefix:?}");
    format!("{}…\" ({count} characters)", &quoted[..quoted.len() - 1])
}

/// `message` with every run between `"…"` or `` `…` `` longer than [`MAX_QUOTED_CHARS`]
/// characters cut to that many and `…`: what a parser's or a rule's message quoted of the
/// input, whoever wrote it (serde's messages quote a refused string whole).
#[must_use]
pub fn shorten_quotes(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(1024));
    let mut chars = message.chars();
    while let Some(c) = chars.next() {
        out.push(c);
        if c != '"' && c != '`' {
            continue;
        }
        // Inside a quoted run: keep at most MAX_QUOTED_CHARS of it, escapes whole.
        let (mut kept, mut cut, mut closed) = (0, false, false);
        while let Some(inner) = chars.next() {
            if inner == c {
                closed = true;
                break;
            }
            let escaped = (c == '"' && inner == '\\').then(|| chars.next()).flatten();
            if kept < MAX_QUOTED_CHARS {
                out.push(inner);
                if let Some(next) = escaped {
                    out.push(next);
                }
                kept += 1;
            } else {
                cut = true;
            }
        }
        if cut {
            out.push('…');
        }
        if closed {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_runs_and_text_outside_quotes_are_kept() {
        let message =
            "element \"Department\" (x): \"HR\" is not an allowed option; `tasks` \\ \"a\\\"b\"";
        assert_eq!(shorten_quotes(message), message);
    }

    #[test]
    fn a_long_run_is_cut_without_splitting_an_escape_or_a_character() {
        let long = format!(
            "{}\\\"ü{}",
            "a".repeat(MAX_QUOTED_CHARS - 1),
            "b".repeat(500)
        );
        let message = format!("x \"{long}\" y `{}` z", "c".repeat(100));
        let short = shorten_quotes(&message);
        assert_eq!(
            short,
            format!(
                "x \"{}\\\"…\" y `{}…` z",
                "a".repeat(MAX_QUOTED_CHARS - 1),
                "c".repeat(MAX_QUOTED_CHARS)
            )
        );
        assert!(shorten_quotes(&"\"".repeat(3)).len() <= 3);
    }

    #[test]
    fn an_unclosed_run_is_cut_too() {
        let message = format!("bad \"{}", "z".repeat(10_000));
        assert!(shorten_quotes(&message).chars().count() < 100);
    }
}
