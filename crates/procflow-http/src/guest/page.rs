//! The shared run as its page shows it: the run's title, status and progress, its sections in
//! order, each task with its state, due date, assignee and fields, and a form on each task the
//! guest may act on.

use askama::Template;
use procflow_domain::actor::{Actor, Assignee};
use procflow_domain::guest::{FieldError, FormField};
use procflow_domain::ids::{RunId, TaskId};
use procflow_domain::run::{Decision, RunTask, TaskState};
use procflow_domain::service::SharedRun;
use procflow_domain::template::TaskType;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;

use super::fields::{self, FieldView, Kind};
use super::form::PostedForm;
use super::style::CSS;

/// Where the page's links and forms point. Relative references, so that the page works under
/// whatever path the team's base URL has: the page itself is at `.../instance/<run>`, a
/// refused post is answered at `.../instance/<run>/tasks/<task>`.
#[derive(Clone, Debug)]
pub(crate) struct Link {
    root: &'static str,
    run: RunId,
    token: String,
}

impl Link {
    /// Links from the run's page.
    pub(crate) fn from_page(run: RunId, token: &str) -> Self {
        Self {
            root: "",
            run,
            token: token.to_owned(),
        }
    }

    /// Links from the answer to a post on a task.
    pub(crate) fn from_task(run: RunId, token: &str) -> Self {
        Self {
            root: "../../",
            run,
            token: token.to_owned(),
        }
    }

    /// The run's page.
    pub(crate) fn page(&self) -> String {
        format!("{}{}?token={}", self.root, self.run, self.token)
    }

    /// The run's page at a task.
    pub(crate) fn at_task(&self, task: TaskId) -> String {
        format!("{}#task-{task}", self.page())
    }

    /// Where a task's form posts.
    fn post(&self, task: TaskId) -> String {
        format!(
            "{}{}/tasks/{task}?token={}",
            self.root, self.run, self.token
        )
    }
}

/// A post that was refused: what the guest sent, shown again beside the refusals.
pub(crate) struct Posted<'a> {
    pub(crate) task: TaskId,
    pub(crate) form: &'a PostedForm,
    pub(crate) errors: &'a [FieldError],
}

/// The page.
#[derive(Template)]
#[template(path = "guest/page.html")]
pub(crate) struct PageView {
    css: &'static str,
    title: String,
    status: &'static str,
    status_label: &'static str,
    done: usize,
    total: usize,
    completed: bool,
    problems: Vec<Problem>,
    sections: Vec<SectionView>,
}

/// One refusal in the summary at the top, linking to its field.
struct Problem {
    anchor: String,
    message: String,
}

struct SectionView {
    key: u32,
    title: String,
    description: Option<String>,
    color: Option<String>,
    tasks: Vec<TaskView>,
}

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

struct TaskView {
    id: String,
    /// Short ids of the task's title and comment, by its position: `t<n>`, `c<n>`.
    key: u32,
    title: String,
    state: &'static str,
    state_label: &'static str,
    due: Option<Due>,
    assignee: &'static str,
    done_note: Option<String>,
    decision: Option<&'static str>,
    comment: Option<String>,
    mode: Mode,
    approval: bool,
    action: String,
    fields: Vec<FieldView>,
    comment_value: String,
    comment_error: Option<String>,
    form_errors: Vec<String>,
}

struct Due {
    iso: String,
    text: String,
    overdue: bool,
}

impl PageView {
    /// The page of `shared` at `now`, with `posted` shown again when a post was refused.
    pub(crate) fn new(
        shared: &SharedRun,
        link: &Link,
        now: OffsetDateTime,
        posted: Option<&Posted<'_>>,
    ) -> Self {
        let run = &shared.run;
        let total = shared.tasks.len();
        let done = total.saturating_sub(usize::try_from(run.open_tasks()).unwrap_or(total));
        let mut problems = Vec::new();
        let sections = run
            .sections
            .iter()
            .map(|section| SectionView {
                key: section.order,
                title: section.title.clone(),
                description: section.description.clone().filter(|d| !d.trim().is_empty()),
                color: section.color.as_ref().map(|c| c.as_str().to_owned()),
                tasks: shared
                    .tasks
                    .iter()
                    .filter(|task| task.section_id == section.id)
                    .map(|task| {
                        let posted = posted.filter(|p| p.task == task.id);
                        let view = task_view(shared, task, link, now, posted);
                        if posted.is_some() {
                            problems.extend(summary(&view));
                        }
                        view
                    })
                    .collect(),
            })
            .collect();
        Self {
            css: CSS,
            title: run.title.clone(),
            status: run.status().as_str(),
            status_label: if run.is_completed() {
                "Completed"
            } else {
                "In progress"
            },
            done,
            total,
            completed: run.is_completed(),
            problems,
            sections,
        }
    }
}

fn task_view(
    shared: &SharedRun,
    task: &RunTask,
    link: &Link,
    now: OffsetDateTime,
    posted: Option<&Posted<'_>>,
) -> TaskView {
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
            let dom = format!("f{}-{i}", task.order);
            fields::field(element, dom, sent, error_of(FormField::Element(element.id)))
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
    TaskView {
        id: task.id.to_string(),
        key: task.order,
        title: task.title.clone(),
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
        comment: task.comment.clone(),
        mode,
        approval: task.task_type == TaskType::Approval,
        action: link.post(task.id),
        fields,
        comment_value: posted
            .and_then(|p| p.form.comment.clone())
            .unwrap_or_default(),
        comment_error: error_of(FormField::Comment),
        form_errors: posted
            .into_iter()
            .flat_map(|p| p.errors)
            .filter(|e| e.field == FormField::Form)
            .map(|e| fields::message(&e.error))
            .collect(),
    }
}

/// The refusals of a task's post, for the summary at the top of the page.
fn summary(task: &TaskView) -> Vec<Problem> {
    let mut problems: Vec<Problem> = task
        .form_errors
        .iter()
        .map(|message| Problem {
            anchor: format!("task-{}", task.id),
            message: format!("{}: {message}", task.title),
        })
        .collect();
    problems.extend(task.fields.iter().filter_map(|field| {
        field.error.as_ref().map(|message| Problem {
            anchor: field.dom.clone(),
            message: format!("{}: {message}", field.label),
        })
    }));
    if let Some(message) = &task.comment_error {
        problems.push(Problem {
            anchor: format!("c{}", task.key),
            message: format!("Comment: {message}"),
        });
    }
    problems
}

fn date(at: OffsetDateTime) -> String {
    at.format(format_description!(
        "[day padding:none] [month repr:short] [year]"
    ))
    .unwrap_or_default()
}

fn date_time(at: OffsetDateTime) -> String {
    let at = at.to_offset(time::UtcOffset::UTC);
    at.format(format_description!(
        "[day padding:none] [month repr:short] [year], [hour]:[minute] UTC"
    ))
    .unwrap_or_default()
}

impl TaskView {
    fn editable(&self) -> bool {
        self.mode == Mode::Edit
    }

    fn reopenable(&self) -> bool {
        self.mode == Mode::Reopen
    }

    fn has_inputs(&self) -> bool {
        self.fields.iter().any(FieldView::is_input)
    }
}

#[cfg(test)]
mod tests;
