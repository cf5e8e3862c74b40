//! The field values of `If-Match` and `If-None-Match` (RFC 9110 13.1.1, 13.1.2): `*`, or a
//! comma-separated list of entity tags (`"opaque"` or `W/"opaque"`).
//!
//! actix-web's typed headers drop list members they cannot read, silently: a typo would then
//! turn into a 412 that looks like a concurrent change. This reader refuses the whole field.

/// One entity tag as sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SentTag {
    /// `W/`: compares only weakly (never matches `If-Match`).
    pub(crate) weak: bool,
    /// The text between the quotes.
    pub(crate) opaque: String,
}

/// A field value: `*`, or its tags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TagList {
    /// `*`.
    Any,
    /// The tags, none for an empty field value: RFC 9110 writes both fields with `#`, a list
    /// that may be empty (5.6.1), so an empty `If-Match` is well formed and matches nothing
    /// (412), and an empty `If-None-Match` holds no representation (200).
    Tags(Vec<SentTag>),
}

/// Reads the values of every line of the field, as one list.
///
/// # Errors
/// What is wrong, for a message that names the header.
pub(crate) fn parse<'a>(lines: impl IntoIterator<Item = &'a [u8]>) -> Result<TagList, String> {
    let mut tags = Vec::new();
    let mut any = false;
    for line in lines {
        let text = std::str::from_utf8(line).map_err(|_| "not ASCII text".to_owned())?;
        if text.trim() == "*" {
            any = true;
            continue;
        }
        read_tags(text, &mut tags)?;
    }
    match (any, tags.is_empty()) {
        (true, true) => Ok(TagList::Any),
        (true, false) => Err("`*` cannot be combined with entity tags".to_owned()),
        (false, _) => Ok(TagList::Tags(tags)),
    }
}

fn read_tags(text: &str, tags: &mut Vec<SentTag>) -> Result<(), String> {
    let mut rest = text;
    loop {
        rest = rest.trim_start_matches([' ', '\t', ',']);
        if rest.is_empty() {
            return Ok(());
        }
        let (weak, quoted) = match rest.strip_prefix("W/") {
            Some(quoted) => (true, quoted),
            None => (false, rest),
        };
        let unquoted = quoted.strip_prefix('"').ok_or_else(|| malformed(rest))?;
        let end = unquoted.find('"').ok_or_else(|| malformed(rest))?;
        let opaque = &unquoted[..end];
        // etagc: %x21 / %x23-7E (obs-text is not accepted: the tags we send are ASCII).
        if !opaque
            .bytes()
            .all(|b| b == 0x21 || (0x23..=0x7e).contains(&b))
        {
            return Err(malformed(rest));
        }
        tags.push(SentTag {
            weak,
            opaque: opaque.to_owned(),
        });
        rest = unquoted[end + 1..].trim_start_matches([' ', '\t']);
        if !(rest.is_empty() || rest.starts_with(',')) {
            return Err(malformed(rest));
        }
    }
}

fn malformed(at: &str) -> String {
    let shown: String = at.chars().take(40).collect();
    format!("malformed entity tag at {shown:?}: expected \"abc\" or W/\"abc\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(value: &str) -> Result<TagList, String> {
        parse([value.as_bytes()])
    }

    fn strong(opaque: &str) -> SentTag {
        SentTag {
            weak: false,
            opaque: opaque.into(),
        }
    }

    #[test]
    fn a_star_or_a_list_of_tags_is_read() {
        assert_eq!(one(" * "), Ok(TagList::Any));
        assert_eq!(one("\"a\""), Ok(TagList::Tags(vec![strong("a")])));
        assert_eq!(
            one("\"a\" ,W/\"b\",,\"c,d\""),
            Ok(TagList::Tags(vec![
                strong("a"),
                SentTag {
                    weak: true,
                    opaque: "b".into()
                },
                strong("c,d"),
            ]))
        );
        assert_eq!(one("\"\""), Ok(TagList::Tags(vec![strong("")])));
        // An empty list (RFC 9110 `#entity-tag`): no tag at all.
        for empty in ["", " ", " , ,\t"] {
            assert_eq!(one(empty), Ok(TagList::Tags(vec![])), "{empty:?}");
        }
        assert_eq!(
            parse([&b"\"a\""[..], &b"\"b\""[..]]),
            Ok(TagList::Tags(vec![strong("a"), strong("b")]))
        );
    }

    #[test]
    fn anything_else_is_refused_whole() {
        for bad in [
            "abc",
            "\"a",
            "\"a\" \"b\"",
            "\"a\"x",
            "w/\"a\"",
            "\"a b\"",
            "*, \"a\"",
            "\"a\", *",
        ] {
            assert!(one(bad).is_err(), "{bad:?} was read");
        }
        assert!(parse([&b"*"[..], &b"\"a\""[..]]).is_err());
        assert!(parse([&[0xff_u8][..]]).is_err());
        assert!(one("\"caf\u{e9}\"").is_err());
    }
}
