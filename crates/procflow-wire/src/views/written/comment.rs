//! A thread's comments written field by field: a page of 20 spent a fifth of its request's
//! instructions in serde_json's string writer, for keys, ids and moments that never need
//! escaping (`docs/performance.md`, "A thread's comments and the schedules written field by
//! field").

use super::{WriteJson, boolean, ids, optional, serialized, text, write_id, write_moment};
use crate::events::Person;
use crate::views::CommentView;

impl WriteJson for CommentView<'_> {
    fn write_fields(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        let Self {
            id,
            run_id,
            task_id,
            author,
            text: said,
            mentions,
            attachments,
            deleted,
            created_at,
            edited_at,
        } = self;
        out.extend_from_slice(b"\"id\":");
        write_id(out, id.as_uuid());
        out.extend_from_slice(b",\"run_id\":");
        write_id(out, run_id.as_uuid());
        out.extend_from_slice(b",\"task_id\":");
        write_id(out, task_id.as_uuid());
        out.extend_from_slice(b",\"author\":");
        person(out, author)?;
        out.extend_from_slice(b",\"text\":");
        text(out, said)?;
        out.extend_from_slice(b",\"mentions\":");
        ids(out, mentions.iter().map(|user| user.as_uuid()));
        out.extend_from_slice(b",\"attachments\":");
        serialized(out, attachments)?;
        out.extend_from_slice(b",\"deleted\":");
        boolean(out, *deleted);
        out.extend_from_slice(b",\"created_at\":");
        write_moment(out, created_at)?;
        out.extend_from_slice(b",\"edited_at\":");
        optional(out, edited_at.as_ref(), write_moment)
    }
}

/// An author or uploader, as in events.
pub(super) fn person(out: &mut Vec<u8>, person: &Person) -> Result<(), serde_json::Error> {
    let Person {
        user_id,
        email,
        is_guest,
    } = person;
    out.extend_from_slice(b"{\"user_id\":");
    optional(out, user_id.as_deref(), text)?;
    out.extend_from_slice(b",\"email\":");
    optional(out, email.as_deref(), text)?;
    out.extend_from_slice(b",\"is_guest\":");
    boolean(out, *is_guest);
    out.push(b'}');
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use procflow_domain::actor::Actor;
    use procflow_domain::attachment::Attachment;
    use time::macros::datetime;

    use crate::events::Person;
    use crate::views::written::tests::both;
    use crate::views::{AttachmentView, CommentView};

    /// Comments in each form a thread shows: by the API, a member and the guest; mentioning
    /// none, one and two members; with and without attachments; edited, deleted; texts that
    /// need escaping and moments with a fraction of a second.
    fn comments() -> Vec<CommentView<'static>> {
        let member = "01a21978-90dd-77a1-806a-6759592821aa";
        let attachment = Attachment {
            id: "01a21978-90dd-77a1-806a-675959282401".parse().unwrap(),
            team_id: "01a21978-90dd-77a1-806a-675959282400".parse().unwrap(),
            run_id: "01a21978-90dd-77a1-806a-675959282102".parse().unwrap(),
            task_id: "01a21978-90dd-77a1-806a-675959282101".parse().unwrap(),
            filename: "contract \"final\" <b>.pdf".to_owned(),
            content_type: "application/pdf".to_owned(),
            size: 1234,
            sha256: [7; 32],
            uploaded_by: Actor::Guest,
            uploader_email: Some("guest@example.com".parse().unwrap()),
            created_at: datetime!(2026-11-27 10:00:00.25 UTC),
        };
        let first = CommentView {
            id: "01a21978-90dd-77a1-806a-675959282301".parse().unwrap(),
            run_id: "01a21978-90dd-77a1-806a-675959282102".parse().unwrap(),
            task_id: "01a21978-90dd-77a1-806a-675959282101".parse().unwrap(),
            author: Person {
                user_id: None,
                email: None,
                is_guest: false,
            },
            text: Cow::Borrowed("Check clause \"4\" </script>\n\\ é 😀 \u{1}"),
            mentions: Vec::new(),
            attachments: Vec::new(),
            deleted: false,
            created_at: datetime!(2026-11-27 10:00 UTC),
            edited_at: None,
        };
        let mut all = vec![first; 4];
        all[1].author = Person {
            user_id: Some(member.to_owned()),
            email: Some("ada@example.com".to_owned()),
            is_guest: false,
        };
        all[1].mentions = vec![member.parse().unwrap()];
        all[1].attachments = vec![AttachmentView::from(&attachment)];
        all[1].edited_at = Some(datetime!(2026-11-27 11:00:00.123_456_789 UTC));
        all[2].author = Person {
            user_id: None,
            email: Some("guest@example.com".to_owned()),
            is_guest: true,
        };
        all[2].mentions = vec![
            member.parse().unwrap(),
            "01a21978-90dd-77a1-806a-6759592821ab".parse().unwrap(),
        ];
        all[3].text = Cow::Borrowed("");
        all[3].deleted = true;
        all[3].created_at = datetime!(2026-11-27 10:00 +02:00);
        all[3].edited_at = Some(datetime!(2026-11-28 09:00 UTC));
        all
    }

    #[test]
    fn a_comment_is_written_byte_for_byte_as_its_view_serialises_it() {
        for comment in comments() {
            for prefix in [&b""[..], b"{\"data\":[", b"{\"data\":[{},"] {
                let (written, expected) = both(&comment, prefix);
                assert_eq!(written, expected);
            }
        }
    }

    /// Every form of every field is among the fixtures: a writer that wrote one form wrong
    /// would be caught above only if some comment has it.
    #[test]
    fn the_comments_hold_every_form_of_every_field() {
        let views: Vec<serde_json::Value> = comments()
            .iter()
            .map(|comment| serde_json::to_value(comment).unwrap())
            .collect();
        let forms = |pick: &dyn Fn(&serde_json::Value) -> String| -> Vec<String> {
            let mut forms: Vec<String> = views.iter().map(pick).collect();
            forms.sort();
            forms.dedup();
            forms
        };
        let first = |key: &str| {
            let key = key.to_owned();
            move |view: &serde_json::Value| view[&key].to_string()[..1].to_owned()
        };
        let count = |key: &'static str| {
            move |view: &serde_json::Value| view[key].as_array().unwrap().len().to_string()
        };
        assert_eq!(forms(&count("mentions")), ["0", "1", "2"]);
        assert_eq!(forms(&count("attachments")), ["0", "1"]);
        assert_eq!(forms(&first("deleted")), ["f", "t"]);
        assert_eq!(forms(&first("edited_at")), ["\"", "n"]);
        let author = |key: &'static str| {
            move |view: &serde_json::Value| view["author"][key].to_string()[..1].to_owned()
        };
        assert_eq!(forms(&author("user_id")), ["\"", "n"]);
        assert_eq!(forms(&author("email")), ["\"", "n"]);
        assert_eq!(forms(&author("is_guest")), ["f", "t"]);
    }

    /// A moment RFC 3339 cannot write is refused as serde refuses it.
    #[test]
    fn a_comment_whose_moment_rfc_3339_cannot_write_is_an_error_as_in_serde() {
        let mut comment = comments().remove(0);
        comment.edited_at = Some(datetime!(2026-11-26 08:30 +01:30:15));
        assert!(serde_json::to_vec(&comment).is_err());
        let mut out = Vec::new();
        assert!(crate::views::write_json(&comment, &mut out).is_err());
    }
}
