//! The inbox's items (API contract 15.1): a run task, as Get a task answers it, with its run.

use std::borrow::Cow;

use procflow_domain::ids::RunId;
use procflow_domain::run::InboxTask;
use serde::{Deserialize, Serialize};

use super::task::RunTaskView;

/// The run an inbox item belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = InboxRun)]
pub struct InboxRunView<'a> {
    /// The run's id.
    #[schema(value_type = String, format = "uuid")]
    pub id: RunId,
    /// The run's title.
    pub title: Cow<'a, str>,
}

/// A task of the inbox: the run task (with its `due_date`) and `run: {id, title}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = InboxTask)]
pub struct InboxTaskView<'a> {
    #[serde(flatten)]
    pub task: RunTaskView<'a>,
    /// Its run.
    pub run: InboxRunView<'a>,
}

impl<'a> From<&'a InboxTask> for InboxTaskView<'a> {
    fn from(item: &'a InboxTask) -> Self {
        Self {
            task: RunTaskView::from(&item.task),
            run: InboxRunView {
                id: item.task.run_id,
                title: Cow::Borrowed(&item.run_title),
            },
        }
    }
}
