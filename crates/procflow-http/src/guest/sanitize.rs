//! The HTML of a display-only `text` element, cleaned by an allowlist (ammonia): text
//! formatting, lists, links and images on web addresses; no script, no style, no event
//! handler, no `javascript:` URL, no form.

use std::collections::HashSet;
use std::sync::LazyLock;

static CLEANER: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| {
    let mut builder = ammonia::Builder::empty();
    builder
        .tags(HashSet::from([
            "p",
            "br",
            "strong",
            "b",
            "em",
            "i",
            "u",
            "s",
            "small",
            "sub",
            "sup",
            "mark",
            "ul",
            "ol",
            "li",
            "blockquote",
            "code",
            "pre",
            "hr",
            "a",
            "img",
            "h4",
            "h5",
            "h6",
        ]))
        .tag_attributes(
            [
                ("a", HashSet::from(["href", "title"])),
                ("img", HashSet::from(["src", "alt", "width", "height"])),
                ("ol", HashSet::from(["start"])),
            ]
            .into_iter()
            .collect(),
        )
        .url_schemes(HashSet::from(["http", "https", "mailto"]))
        // Relative URLs would resolve against the page, whose address holds the token.
        .url_relative(ammonia::UrlRelative::Deny)
        .link_rel(Some("noopener noreferrer nofollow"))
        .clean_content_tags(HashSet::from([
            "script", "style", "template", "iframe", "object",
        ]));
    builder
});

/// `html` with only the allowed tags, attributes and URLs left; text is kept (escaped).
pub(super) fn clean(html: &str) -> String {
    CLEANER.clean(html).to_string()
}

#[cfg(test)]
mod tests {
    use super::clean;

    #[test]
    fn formatting_links_and_images_are_kept() {
        assert_eq!(
            clean("<p>Hi <strong>there</strong> <a href=\"https://a.example/x\">x</a></p>"),
            "<p>Hi <strong>there</strong> <a href=\"https://a.example/x\" rel=\"noopener noreferrer nofollow\">x</a></p>"
        );
        assert_eq!(
            clean("<img src=\"https://a.example/i.png\" alt=\"A\">"),
            "<img src=\"https://a.example/i.png\" alt=\"A\">"
        );
    }

    #[test]
    fn scripts_handlers_styles_and_dangerous_urls_are_removed() {
        for (hostile, kept) in [
            ("<script>alert(1)</script>ok", "ok"),
            ("<img src=x onerror=alert(1)>", "<img>"),
            (
                "<a href=\"javascript:alert(1)\">x</a>",
                "<a rel=\"noopener noreferrer nofollow\">x</a>",
            ),
            ("<p style=\"color:red\" onclick=\"x()\">p</p>", "<p>p</p>"),
            ("\"><svg onload=alert(1)>", "\"&gt;"),
            ("<iframe src=\"https://evil.example\"></iframe>", ""),
            (
                "<form action=\"https://evil.example\"><input name=a></form>",
                "",
            ),
            (
                "<a href=\"/instance/x\">rel</a>",
                "<a rel=\"noopener noreferrer nofollow\">rel</a>",
            ),
            ("<style>body{display:none}</style>", ""),
            ("<h1>Big</h1>", "Big"),
        ] {
            assert_eq!(clean(hostile), kept, "{hostile}");
        }
    }
}
