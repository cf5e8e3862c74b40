//! Text the page writes as it is: escaped once when it is made, or made only of characters
//! HTML never treats specially (an id's hexadecimal digits and hyphens).
//!
//! A page of 50 tasks writes ids (the run's, its tasks', their elements') and the share token
//! hundreds of times, in anchors, names, links and form actions. Formatted through `Display`
//! and escaped by askama at every use, they took an eighth of the page's instructions
//! (callgrind; `docs/performance.md`, "The guest page", "The ids written once"); made once
//! here, each use is a copy.

use std::fmt;

use askama::filters::{Html, HtmlSafe, escape};
use askama::{FastWritable, Values};
use uuid::Uuid;

/// Text ready for the page: askama writes it without escaping it again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Markup(String);

impl Markup {
    /// `text` escaped as askama escapes what a template writes.
    pub(crate) fn escaped(text: &str) -> Self {
        let Ok(escaped) = escape(text, Html);
        Self(escaped.to_string())
    }

    /// `id` as hyphenated lower-case hexadecimal, as `Display` writes it: nothing to escape.
    pub(crate) fn id(id: Uuid) -> Self {
        Self(
            id.hyphenated()
                .encode_lower(&mut Uuid::encode_buffer())
                .to_owned(),
        )
    }
}

impl fmt::Display for Markup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Escaped when made, or an id: see the constructors.
impl HtmlSafe for Markup {}

impl FastWritable for Markup {
    fn write_into(&self, dest: &mut dyn fmt::Write, _: &dyn Values) -> askama::Result<()> {
        Ok(dest.write_str(&self.0)?)
    }
}

#[cfg(test)]
mod tests {
    use askama::Template;

    use super::*;

    #[derive(Template)]
    #[template(source = "<a href=\"{{ link }}\">{{ text }}</a>", ext = "html")]
    struct Anchor<'a> {
        link: &'a Markup,
        text: &'a str,
    }

    #[test]
    fn text_is_escaped_once_when_made_and_written_as_it_is() {
        let hostile = "\"><script>alert('x')</script>&amp;";
        let link = Markup::escaped(hostile);
        let page = Anchor {
            link: &link,
            text: hostile,
        }
        .render()
        .expect("rendered");
        let escaped = "&#34;&#62;&#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62;&#38;amp;";
        assert_eq!(page, format!("<a href=\"{escaped}\">{escaped}</a>"));
    }

    #[test]
    fn an_id_is_written_as_display_writes_it() {
        let id = Uuid::from_u128(0x0193_7a4e_5b1c_7d2e_8f30_4a5b_6c7d_8e9f);
        assert_eq!(Markup::id(id).to_string(), id.to_string());
    }
}
