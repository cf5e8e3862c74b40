//! What each email says: its subject, and its plain-text and HTML parts rendered from the
//! askama templates under `templates/mail/` (the HTML escaped by askama, never assembled by
//! hand).

use askama::Template;
use procflow_domain::mail::{MailContent, MailKind};
use time::OffsetDateTime;
use time::macros::format_description;

/// A message's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    /// The `Subject` header.
    pub subject: String,
    /// The `text/plain` part.
    pub text: String,
    /// The `text/html` part.
    pub html: String,
}

#[derive(Template)]
#[template(path = "mail/message.txt")]
struct Text<'a> {
    lines: &'a [String],
    link: Option<&'a str>,
    team: &'a str,
}

#[derive(Template)]
#[template(path = "mail/message.html")]
struct Html<'a> {
    subject: &'a str,
    lines: &'a [String],
    link: Option<&'a str>,
    action: &'a str,
    team: &'a str,
}

/// Why a message could not be rendered (a template bug: the message fails for good).
#[derive(Debug, thiserror::Error)]
#[error("cannot render the email: {0}")]
pub struct RenderError(#[from] askama::Error);

/// Renders the message `kind` with `content`.
///
/// # Errors
/// When a template fails to render.
pub fn render(kind: MailKind, content: &MailContent) -> Result<Rendered, RenderError> {
    let team = one_line(&content.team_name);
    let run = one_line(&content.run_title);
    let task = content
        .task_title
        .as_deref()
        .map_or_else(String::new, one_line);
    let due = content.due_date.map(format_due);
    let link = content.share_url.as_deref();
    let (subject, mut lines, action) = match kind {
        MailKind::GuestInvitation => (
            format!("{team} invited you to “{run}”"),
            vec![
                format!("{team} has shared “{run}” with you."),
                "Open it to see its tasks and fill in what is asked of you:".to_owned(),
            ],
            "Open the run",
        ),
        MailKind::GuestReminder => (
            format!("Reminder: “{run}” is waiting for you"),
            vec![
                format!("{team} shared “{run}” with you, and it is still waiting for you."),
                "Open it here:".to_owned(),
            ],
            "Open the run",
        ),
        MailKind::TaskAssigned => (
            format!("You were assigned “{task}” in “{run}”"),
            vec![format!(
                "You have been assigned the task “{task}” in “{run}” of {team}."
            )],
            "Open the task",
        ),
        MailKind::TaskOverdue => (
            format!("Overdue: “{task}” in “{run}”"),
            vec![format!(
                "The task “{task}” in “{run}” of {team} is past its due date and still open."
            )],
            "Open the task",
        ),
        MailKind::TaskReady => (
            format!("Ready to start: “{task}” in “{run}”"),
            vec![format!(
                "The task “{task}” in “{run}” of {team} is ready to start: every task it \
                 waited for is done."
            )],
            "Open the task",
        ),
        MailKind::TaskComment => {
            let (author, excerpt, mentioned) = content.comment.as_ref().map_or_else(
                || ("Someone".to_owned(), String::new(), false),
                |c| (one_line(&c.author), c.excerpt.clone(), c.mentioned),
            );
            let why = if mentioned {
                "mentioned you in a comment on"
            } else {
                "commented on your task"
            };
            let mut lines = vec![format!("{author} {why} “{task}” in “{run}” of {team}:")];
            // The excerpt is plain text: each of its lines a line of the message, quoted.
            lines.extend(excerpt.lines().map(|line| format!("> {}", one_line(line))));
            if link.is_some() {
                lines.push("Open the task to reply:".to_owned());
            }
            (
                format!("New comment on “{task}” in “{run}”"),
                lines,
                "Open the task",
            )
        }
        MailKind::ScheduleFailed => {
            let problem = content
                .problem
                .as_deref()
                .map_or_else(|| "no reason was recorded".to_owned(), one_line);
            let when = due.as_deref().unwrap_or("its last occurrence");
            (
                format!("Schedule “{run}” started no run"),
                vec![
                    format!(
                        "The schedule “{run}” of {team} was due at {when} but started no run: {problem}."
                    ),
                    "It stays enabled and tries again at its next occurrence; publish the \
                     template or correct the schedule's pre-fill before then."
                        .to_owned(),
                ],
                "",
            )
        }
    };
    if matches!(
        kind,
        MailKind::TaskAssigned | MailKind::TaskOverdue | MailKind::TaskReady
    ) {
        if let Some(due) = &due {
            lines.push(format!("It is due on {due}."));
        }
        if link.is_some() {
            lines.push("Open it here:".to_owned());
        }
    }
    let text = Text {
        lines: &lines,
        link,
        team: &team,
    }
    .render()?;
    let html = Html {
        subject: &subject,
        lines: &lines,
        link,
        action,
        team: &team,
    }
    .render()?;
    Ok(Rendered {
        subject,
        text,
        html,
    })
}

/// Titles and names are single lines in a header and a sentence: control characters (CR and
/// LF among them) become spaces, so that nothing stored can add a header line.
pub(crate) fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// `2026-01-05 09:00 UTC`: due dates are instants, shown in UTC and saying so.
fn format_due(at: OffsetDateTime) -> String {
    let utc = at.to_offset(time::UtcOffset::UTC);
    utc.format(format_description!(
        "[year]-[month]-[day] [hour]:[minute] UTC"
    ))
    .unwrap_or_else(|_| utc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    fn content() -> MailContent {
        MailContent {
            team_name: "Acme <Ops>".into(),
            run_title: "Onboarding & \"Day 1\"".into(),
            task_title: Some("Sign\r\nthe <b>NDA</b>".into()),
            due_date: Some(datetime!(2026-01-05 9:00 UTC)),
            share_url: Some("https://acme.example/instance/r?token=a&b=<c>".into()),
            comment: None,
            problem: None,
        }
    }

    #[test]
    fn the_html_part_escapes_every_value_and_the_text_part_keeps_them_as_written() {
        let mail = render(MailKind::TaskAssigned, &content()).unwrap();
        assert!(mail.html.contains("Acme &#60;Ops&#62;") || mail.html.contains("Acme &lt;Ops&gt;"));
        assert!(!mail.html.contains("<b>NDA</b>"));
        assert!(!mail.html.contains("token=a&b=<c>"));
        assert!(mail.text.contains("“Sign  the <b>NDA</b>”"));
        assert!(
            mail.text
                .contains("https://acme.example/instance/r?token=a&b=<c>")
        );
        assert!(mail.text.contains("It is due on 2026-01-05 09:00 UTC."));
    }

    #[test]
    fn a_subject_is_one_line_whatever_the_titles_hold() {
        let mail = render(MailKind::TaskOverdue, &content()).unwrap();
        assert_eq!(
            mail.subject,
            "Overdue: “Sign  the <b>NDA</b>” in “Onboarding & \"Day 1\"”"
        );
    }

    #[test]
    fn a_ready_to_start_notice_names_the_task_its_due_date_and_the_link() {
        let mail = render(MailKind::TaskReady, &content()).unwrap();
        assert_eq!(
            mail.subject,
            "Ready to start: “Sign  the <b>NDA</b>” in “Onboarding & \"Day 1\"”"
        );
        assert!(
            mail.text
                .contains("is ready to start: every task it waited for is done.")
        );
        assert!(mail.text.contains("It is due on 2026-01-05 09:00 UTC."));
        assert!(mail.text.contains("Open it here:"));
        assert!(mail.html.contains("Open the task"));
    }

    #[test]
    fn a_schedules_failure_names_the_schedule_the_occurrence_and_the_problem() {
        let mut content = content();
        content.run_title = "Weekly\r\nBcc: x@evil.example check".into();
        content.share_url = None;
        content.problem = Some("the template is not <published> (template_not_published)".into());
        let mail = render(MailKind::ScheduleFailed, &content).unwrap();
        assert_eq!(
            mail.subject,
            "Schedule “Weekly  Bcc: x@evil.example check” started no run"
        );
        assert!(mail.text.contains("was due at 2026-01-05 09:00 UTC but started no run: the template is not <published> (template_not_published)."), "{}", mail.text);
        assert!(mail.text.contains("It stays enabled"));
        assert!(
            mail.html.contains("not &#60;published&#62;"),
            "{}",
            mail.html
        );
        assert!(!mail.html.contains("<published>"));
    }

    #[test]
    fn an_assignment_without_a_share_link_has_no_link_and_no_button() {
        let mut content = content();
        content.share_url = None;
        let mail = render(MailKind::TaskAssigned, &content).unwrap();
        assert!(!mail.text.contains("Open it here"));
        assert!(!mail.html.contains("<a "));
    }
}
