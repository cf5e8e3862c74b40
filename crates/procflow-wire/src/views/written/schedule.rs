//! A page of schedules written field by field, as a thread's comments are (`comment.rs`): what
//! each run gets (`run`) and the latest error, rare and nested, still go through serde_json.

use super::{WriteJson, boolean, optional, serialized, text, write_id, write_moment};
use crate::views::ScheduleView;

impl WriteJson for ScheduleView {
    fn write_fields(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        let Self {
            id,
            template_id,
            name,
            recurrence,
            timezone,
            enabled,
            run,
            next_run_at,
            last_run_at,
            last_run_id,
            last_error,
            missed_count,
            created_at,
            updated_at,
        } = self;
        out.extend_from_slice(b"\"id\":");
        write_id(out, id.as_uuid());
        out.extend_from_slice(b",\"template_id\":");
        write_id(out, template_id.as_uuid());
        out.extend_from_slice(b",\"name\":");
        optional(out, name.as_deref(), text)?;
        out.extend_from_slice(b",\"recurrence\":");
        text(out, recurrence)?;
        out.extend_from_slice(b",\"timezone\":");
        text(out, timezone)?;
        out.extend_from_slice(b",\"enabled\":");
        boolean(out, *enabled);
        out.extend_from_slice(b",\"run\":");
        serialized(out, run)?;
        out.extend_from_slice(b",\"next_run_at\":");
        optional(out, next_run_at.as_ref(), write_moment)?;
        out.extend_from_slice(b",\"last_run_at\":");
        optional(out, last_run_at.as_ref(), write_moment)?;
        out.extend_from_slice(b",\"last_run_id\":");
        optional(out, last_run_id.as_ref(), |out, run| {
            write_id(out, run.as_uuid());
            Ok(())
        })?;
        out.extend_from_slice(b",\"last_error\":");
        serialized(out, last_error)?;
        out.extend_from_slice(b",\"missed_count\":");
        serialized(out, missed_count)?;
        out.extend_from_slice(b",\"created_at\":");
        write_moment(out, created_at)?;
        out.extend_from_slice(b",\"updated_at\":");
        write_moment(out, updated_at)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use time::macros::datetime;

    use crate::bodies::{PrefillBody, ScheduleInviteBody, ScheduleRunBody};
    use crate::views::written::tests::both;
    use crate::views::{ScheduleErrorView, ScheduleView};

    /// Schedules in each form a page shows: named and not, enabled and not, with nothing and
    /// with everything a run gets, never run, run, and failing; texts that need escaping.
    fn schedules() -> Vec<ScheduleView> {
        let first = ScheduleView {
            id: "01a21978-90dd-77a1-806a-675959282501".parse().unwrap(),
            template_id: "01a21978-90dd-77a1-806a-675959282502".parse().unwrap(),
            name: None,
            recurrence: "DTSTART:20261201T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO".to_owned(),
            timezone: "Europe/Berlin".to_owned(),
            enabled: true,
            run: ScheduleRunBody::default(),
            next_run_at: Some(datetime!(2026-12-07 08:00 UTC)),
            last_run_at: None,
            last_run_id: None,
            last_error: None,
            missed_count: 0,
            created_at: datetime!(2026-11-27 10:00:00.5 UTC),
            updated_at: datetime!(2026-11-27 10:00:00.5 UTC),
        };
        let mut all = vec![first; 3];
        all[1].name = Some("Weekly \"review\" </script> {date}".to_owned());
        all[1].enabled = false;
        all[1].run = ScheduleRunBody {
            name: Some("Review {date}".to_owned()),
            actor_email: Some("ada@example.com".to_owned()),
            due_in: Some("P2D".to_owned()),
            custom_elements: vec![PrefillBody {
                task_id: "01a21978-90dd-77a1-806a-675959282503".to_owned(),
                element_id: "01a21978-90dd-77a1-806a-675959282504".to_owned(),
                value: json!({"amount": 12.5, "note": "a \"b\""}),
            }],
            invite: Some(ScheduleInviteBody {
                email: "guest@example.com".to_owned(),
                enable_reminders: Some(true),
                reminder_days: Some(3),
            }),
        };
        all[1].next_run_at = None;
        all[1].last_run_at = Some(datetime!(2026-11-30 08:00 UTC));
        all[1].last_run_id = Some("01a21978-90dd-77a1-806a-675959282505".parse().unwrap());
        all[2].last_error = Some(ScheduleErrorView {
            code: "template_not_published".to_owned(),
            message: "The template \"x\" is not published.".to_owned(),
            at: datetime!(2026-11-30 08:00:00.000_001 UTC),
        });
        all[2].missed_count = i64::MAX;
        all[2].updated_at = datetime!(2026-11-30 09:00 -05:00);
        all
    }

    #[test]
    fn a_schedule_is_written_byte_for_byte_as_its_view_serialises_it() {
        for schedule in schedules() {
            for prefix in [&b""[..], b"{\"data\":[", b"{\"data\":[{},"] {
                let (written, expected) = both(&schedule, prefix);
                assert_eq!(written, expected);
            }
        }
    }

    /// Every optional field is null in one fixture and set in another.
    #[test]
    fn the_schedules_hold_every_form_of_every_field() {
        let views: Vec<serde_json::Value> = schedules()
            .iter()
            .map(|schedule| serde_json::to_value(schedule).unwrap())
            .collect();
        for key in [
            "name",
            "next_run_at",
            "last_run_at",
            "last_run_id",
            "last_error",
        ] {
            let nulls = views.iter().filter(|view| view[key].is_null()).count();
            assert!(nulls > 0 && nulls < views.len(), "{key}");
        }
        let enabled: Vec<bool> = views.iter().map(|v| v["enabled"] == true).collect();
        assert!(enabled.contains(&true) && enabled.contains(&false));
    }
}
