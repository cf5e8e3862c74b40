//! One task as the page shows it: its state, due date, assignee and decision, its fields, and
//! whether the guest may act on it (a form) or not (its values as text).

use procflow_domain::actor::{Actor, Assignee};
use procflow_domain::guest::FormField;
use procflow_domain::ids::TaskId;
use procflow_domain::run::{Decision, RunTask, TaskState};
use procflow_domain::service::SharedRun;
use procflow_domain::template::TaskType;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::attachments::AttachmentView;
use super::comments::CommentView;
use super::dates::{date, date_time};
use super::{Posted, Problem};
use crate::guest::fields::{self, Dom, FieldView};
use crate::guest::markup::Markup;

/// Whether and how the guest may act on a task.
#[derive(PartialEq, Eq)]
enum Mode {
    /// A form with its inputs and Save / Complete (or Approve / Reject).
    Edit,
    /// Completed: its values, and Reopen.
    Reopen,
    /// Someone else's, skipped, or of a completed run.
    ReadOnly,
}

pub(super) struct TaskView<'a> {
    pub(super) id: TaskId,
    /// Its id as the page writes it, in its anchor and its forms' actions.
    pub(super) html_id: Markup,
    /// Short ids of the task's title and comment, by its position: `t<n>`, `c<n>`.
    pub(super) key: u32,
    pub(super) title: &'a str,
    pub(super) state: &'static str,
    pub(super) state_label: &'static str,
    pub(super) due: Option<Due>,
    pub(super) assignee: &'static str,
    pub(super) done_note: Option<String>,
    pub(super) decision: Option<&'static str>,
    pub(super) comment: Option<&'a str>,
    /// The titles of the open, visible tasks it waits for; empty unless it is blocked.
    pub(super) waiting_for: Vec<&'a str>,
    mode: Mode,
    pub(super) approval: bool,
    pub(super) fields: Vec<FieldView<'a>>,
    pub(super) comment_value: &'a str,
    pub(super) comment_error: Option<String>,
    pub(super) form_errors: Vec<String>,
    /// Its thread, oldest first (filled by `PageView::with_comments`).
    pub(super) comments: Vec<CommentView<'a>>,
    /// A refused comment's text, shown again in the comment form, and why it was refused.
    pub(super) draft: &'a str,
    pub(super) draft_error: Option<String>,
    /// Its files, oldest first (filled by `PageView::with_attachments`).
    pub(super) attachments: Vec<AttachmentView<'a>>,
    /// Whether it takes the guest's upload: the rule of its form (`SharedRun::may_act`).
    pub(super) can_upload: bool,
}

pub(super) struct Due {
    pub(super) iso: String,
    pub(super) text: String,
    pub(super) overdue: bool,
}

impl<'a> TaskView<'a> {
    pub(super) fn new(
        shared: &'a SharedRun,
        task: &'a RunTask,
        now: OffsetDateTime,
        posted: Option<&Posted<'a>>,
    ) -> Self {
        let error_of = |field: FormField| {
            posted
                .into_iter()
                .flat_map(|p| p.errors)
                .find(|e| e.field == field)
                .map(|e| fields::message(&e.error))
        };
        let mode = match task.state {
            _ if !shared.may_act(task) => Mode::ReadOnly,
            TaskState::Open => Mode::Edit,
            TaskState::Completed { .. } => Mode::Reopen,
            TaskState::Skipped => Mode::ReadOnly,
        };
        let fields = task
            .custom_elements
            .iter()
            .enumerate()
            .map(|(i, element)| {
                let sent = posted.map(|p| p.form.texts(element.id));
                let error = error_of(FormField::Element(element.id));
                let dom = Dom::field(task.order, i);
                fields::field(element, dom, sent, error, mode != Mode::Edit)
            })
            .collect();
        let (state_label, done_note) = match task.state {
            TaskState::Open => ("Open", None),
            TaskState::Skipped => ("Skipped", None),
            TaskState::Completed { at, by } => (
                "Completed",
                Some(match by {
                    Actor::Guest => format!("Completed by you on {}", date(at)),
                    Actor::User(_) | Actor::Api => format!("Completed on {}", date(at)),
                }),
            ),
        };
        Self {
            id: task.id,
            html_id: Markup::id(task.id.as_uuid()),
            key: task.order,
            title: &task.title,
            state: task.state.status().as_str(),
            state_label,
            due: task.due_date.map(|due| Due {
                iso: due.format(&Rfc3339).unwrap_or_default(),
                text: date_time(due),
                overdue: task.is_open() && due < now,
            }),
            assignee: match &task.assignee {
                None => "Unassigned",
                Some(Assignee::Email(email)) if shared.guest_email() == Some(email) => {
                    "Assigned to you"
                }
                Some(Assignee::Email(_)) => "Assigned to someone else",
                Some(Assignee::User(_)) => "Assigned to the team",
            },
            done_note,
            decision: task.decision.map(|d| match d {
                Decision::Approved => "Approved",
                Decision::Rejected => "Rejected",
            }),
            comment: task.comment.as_deref(),
            waiting_for: if task.blocked {
                task.depends_on
                    .iter()
                    .filter_map(|p| shared.tasks.iter().find(|t| t.id == *p))
                    .filter(|p| p.is_open() && !p.hidden)
                    .map(|p| p.title.as_str())
                    .collect()
            } else {
                Vec::new()
            },
            mode,
            approval: task.task_type == TaskType::Approval,
            fields,
            comment_value: posted
                .and_then(|p| p.form.comment.as_deref())
                .unwrap_or_default(),
            comment_error: error_of(FormField::Comment),
            form_errors: posted
                .into_iter()
                .flat_map(|p| p.errors)
                .filter(|e| e.field == FormField::Form)
                .map(|e| fields::message(&e.error))
                .collect(),
            comments: Vec::new(),
            draft: "",
            draft_error: None,
            attachments: Vec::new(),
            can_upload: shared.may_act(task),
        }
    }

    pub(super) fn editable(&self) -> bool {
        self.mode == Mode::Edit
    }

    pub(super) fn reopenable(&self) -> bool {
        self.mode == Mode::Reopen
    }

    pub(super) fn has_inputs(&self) -> bool {
        self.fields.iter().any(FieldView::is_input)
    }

    /// Whether it may be completed or approved now: not while it waits for another task.
    pub(super) fn completable(&self) -> bool {
        self.waiting_for.is_empty()
    }

    /// Whether its form has a button at all: a blocked plain task without inputs has none.
    pub(super) fn has_actions(&self) -> bool {
        self.has_inputs() || self.approval || self.completable()
    }

    /// "Security training, Manager approval".
    pub(super) fn waiting_list(&self) -> String {
        self.waiting_for.join(", ")
    }

    /// The refusals of the task's post, for the summary at the top of the page.
    pub(super) fn problems(&self) -> Vec<Problem> {
        let mut problems: Vec<Problem> = self
            .form_errors
            .iter()
            .map(|message| Problem {
                anchor: format!("task-{}", self.id),
                message: format!("{}: {message}", self.title),
            })
            .collect();
        problems.extend(self.fields.iter().filter_map(|field| {
            field.error.as_ref().map(|message| Problem {
                anchor: field.dom.to_string(),
                message: format!("{}: {message}", field.label),
            })
        }));
        if let Some(message) = &self.comment_error {
            problems.push(Problem {
                anchor: format!("c{}", self.key),
                message: format!("Comment: {message}"),
            });
        }
        problems
    }
}
