//! The shared run as its page shows it: the run's title, status and progress, its sections in
//! order, each task with its state, due date, assignee and fields, and a form on each task the
//! guest may act on. Tasks hidden by a rule are not shown (nor counted); a blocked task says
//! what it waits for, as the run stored it with its last change.

mod attachments;
mod comments;
mod dates;
mod task;

use askama::Template;
use procflow_domain::guest::FieldError;
use procflow_domain::ids::{CommentId, RunId, TaskId};
use procflow_domain::service::{GuestFiles, GuestThreads, SharedRun};
use time::OffsetDateTime;

use self::attachments::AttachmentView;
pub(crate) use self::attachments::human_size;
use self::comments::CommentView;
use self::task::TaskView;
use super::fields::Kind;
use super::form::PostedForm;
use super::markup::Markup;
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

    /// Links from the answer to a comment posted on a task.
    pub(crate) fn from_comment(run: RunId, token: &str) -> Self {
        Self {
            root: "../../../",
            run,
            token: token.to_owned(),
        }
    }

    /// Links from the answer to a file uploaded to a task (its address is as deep as a
    /// comment's).
    pub(crate) fn from_upload(run: RunId, token: &str) -> Self {
        Self::from_comment(run, token)
    }

    /// The run's page.
    pub(crate) fn page(&self) -> String {
        format!("{}{}?token={}", self.root, self.run, self.token)
    }

    /// The run's page at a task.
    pub(crate) fn at_task(&self, task: TaskId) -> String {
        format!("{}#task-{task}", self.page())
    }

    /// The run's page at a comment.
    pub(crate) fn at_comment(&self, comment: CommentId) -> String {
        format!("{}#comment-{comment}", self.page())
    }
}

/// A post that was refused: what the guest sent, shown again beside the refusals.
pub(crate) struct Posted<'a> {
    pub(crate) task: TaskId,
    pub(crate) form: &'a PostedForm,
    pub(crate) errors: &'a [FieldError],
}

/// The page, borrowing from the run it shows.
#[derive(Template)]
#[template(path = "guest/page.html")]
pub(crate) struct PageView<'a> {
    css: &'static str,
    title: &'a str,
    status: &'static str,
    status_label: &'static str,
    done: usize,
    total: usize,
    completed: bool,
    problems: Vec<Problem>,
    sections: Vec<SectionView<'a>>,
    /// Where the forms post and the files are: `{base}/tasks/<task>{query}`, from the link's
    /// root and run (`{root}{run}`) and its token (`?token={token}`).
    base: Markup,
    query: Markup,
    /// Whether the page shows only the newest comments of the run.
    comments_truncated: bool,
    /// Whether the page lists only the newest attachments of the run.
    attachments_truncated: bool,
    /// The largest file an upload form takes, as a person reads it.
    upload_max: String,
}

/// One refusal in the summary at the top, linking to its field.
struct Problem {
    anchor: String,
    message: String,
}

struct SectionView<'a> {
    key: u32,
    title: &'a str,
    description: Option<&'a str>,
    color: Option<&'a str>,
    tasks: Vec<TaskView<'a>>,
}

impl<'a> PageView<'a> {
    /// The page of `shared` at `now`, with `posted` shown again when a post was refused.
    pub(crate) fn new(
        shared: &'a SharedRun,
        link: &'a Link,
        now: OffsetDateTime,
        posted: Option<&Posted<'a>>,
    ) -> Self {
        let run = &shared.run;
        // The run counts its open visible tasks: hidden ones are neither work left nor done.
        let total = shared.tasks.iter().filter(|task| !task.hidden).count();
        let done = total.saturating_sub(usize::try_from(run.open_tasks()).unwrap_or(total));
        let mut problems = Vec::new();
        let sections = run
            .sections
            .iter()
            .map(|section| SectionView {
                key: section.order,
                title: &section.title,
                description: section
                    .description
                    .as_deref()
                    .filter(|d| !d.trim().is_empty()),
                color: section.color.as_ref().map(|c| c.as_str()),
                tasks: shared
                    .tasks
                    .iter()
                    .filter(|task| task.section_id == section.id && !task.hidden)
                    .map(|task| {
                        let posted = posted.filter(|p| p.task == task.id);
                        let view = TaskView::new(shared, task, now, posted);
                        if posted.is_some() {
                            problems.extend(view.problems());
                        }
                        view
                    })
                    .collect(),
            })
            .collect();
        Self {
            css: CSS,
            title: &run.title,
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
            base: Markup::escaped(&format!("{}{}", link.root, link.run)),
            query: Markup::escaped(&format!("?token={}", link.token)),
            comments_truncated: false,
            attachments_truncated: false,
            upload_max: String::new(),
        }
    }

    /// The page with each visible task's files, and an upload form (files up to `max_bytes`)
    /// on each task the guest may act on.
    #[must_use]
    pub(crate) fn with_attachments(mut self, files: &'a GuestFiles, max_bytes: u64) -> Self {
        self.attachments_truncated = files.truncated;
        self.upload_max = human_size(max_bytes);
        for task in self.sections.iter_mut().flat_map(|s| s.tasks.iter_mut()) {
            task.attachments = files.of_task(task.id).map(AttachmentView::new).collect();
        }
        self
    }

    /// The page with each visible task's thread, and `draft` shown again beside its task's
    /// comment form when a comment was refused.
    #[must_use]
    pub(crate) fn with_comments(
        mut self,
        threads: &'a GuestThreads,
        draft: Option<&CommentDraft<'a>>,
    ) -> Self {
        self.comments_truncated = threads.truncated;
        for task in self.sections.iter_mut().flat_map(|s| s.tasks.iter_mut()) {
            task.comments = threads.of_task(task.id).map(CommentView::new).collect();
            if let Some(draft) = draft.filter(|d| d.task == task.id) {
                task.draft = draft.text;
                task.draft_error = Some(draft.error.clone());
                self.problems.push(Problem {
                    anchor: format!("n{}", task.key),
                    message: format!("Your comment on {}: {}", task.title, draft.error),
                });
            }
        }
        self
    }
}

/// A comment that was refused: what the guest wrote, shown again with why.
pub(crate) struct CommentDraft<'a> {
    pub(crate) task: TaskId,
    pub(crate) text: &'a str,
    pub(crate) error: String,
}

#[cfg(test)]
mod tests;
