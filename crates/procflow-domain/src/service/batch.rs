//! The batch update of a run's tasks (API contract 11): several single-task updates applied
//! all or nothing, in one transaction under one lock of the run.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use super::runs::Resolved;
use super::{Procflow, UpdateTask};
use crate::actor::{Actor, Assignee};
use crate::error::{DomainError, DomainResult};
use crate::etag::IfMatch;
use crate::ids::{RunId, TaskId};
use crate::run::{BatchItem, TaskBatch, TasksChange, item_error};
use crate::team::Team;
use crate::values::Email;

/// Update several tasks of one run at once, all or nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UpdateTasks {
    /// Each task with its update, in order: 1 to
    /// [`MAX_BATCH_TASKS`](crate::limits::MAX_BATCH_TASKS), each task once. An item's
    /// `actor_email` wins over the batch's; its `if_match` is checked against its task.
    pub tasks: Vec<(TaskId, UpdateTask)>,
    /// Who acts, for the items that do not say; `api` unless it names an active member.
    pub actor_email: Option<Email>,
    /// `If-Match` on the run's task list, which has no tag: only `*` is satisfied.
    pub if_match: Option<IfMatch>,
}

impl Procflow {
    /// Applies every update of the batch as [`update_task`](Self::update_task) would, as one
    /// change: every task is validated as a single update is, nothing is written unless all
    /// pass, each task raises the events its single update would, and a batch that closes the
    /// run's last open task completes the run once. Members are looked up once each, however
    /// many items name them.
    ///
    /// # Errors
    /// A validation error for an empty, oversized or repeating batch, or naming the index and
    /// task of the item refused (a task not of the run included); `NotFound(Run)`,
    /// `RunCompleted`, `PreconditionFailed`.
    pub async fn update_tasks(
        &self,
        team: &Team,
        run: RunId,
        request: UpdateTasks,
    ) -> DomainResult<TasksChange> {
        let ids: Vec<TaskId> = request.tasks.iter().map(|(task, _)| *task).collect();
        TaskBatch::check(&ids)?;
        let mut actors: HashMap<Option<Email>, Actor> = HashMap::new();
        let mut assignees: HashMap<Assignee, Resolved> = HashMap::new();
        let mut items = Vec::with_capacity(ids.len());
        for (index, (task, mut update)) in request.tasks.into_iter().enumerate() {
            let email = update.actor_email.take().or(request.actor_email.clone());
            let actor = match actors.entry(email) {
                Entry::Occupied(known) => *known.get(),
                Entry::Vacant(slot) => {
                    let actor = self.actor(team.id, slot.key().as_ref()).await?;
                    *slot.insert(actor)
                }
            };
            let resolved = match update.assignee.take() {
                Some(Some(assignee)) => match assignees.entry(assignee) {
                    Entry::Occupied(known) => known.get().clone(),
                    Entry::Vacant(slot) => {
                        let requested = Some(Some(slot.key().clone()));
                        let resolved = self
                            .assignee(team, requested)
                            .await
                            .map_err(|error| in_item(index, task, error))?;
                        slot.insert(resolved).clone()
                    }
                },
                other => (other, None),
            };
            items.push(BatchItem {
                task,
                if_match: update.if_match.take(),
                patch: update.into_patch(resolved),
                actor,
            });
        }
        let batch = TaskBatch::new(items)?;
        let if_match = request.if_match;
        let (clock, ids) = (&*self.ports.clock, &*self.ports.ids);
        // As for one task: the time and the preconditions are read under the store's lock.
        self.ports
            .runs
            .update_tasks(team.id, run, &batch.task_ids(), &|run, tasks| {
                if let Some(condition) = &if_match {
                    condition.check_untagged()?;
                }
                batch.apply(run, tasks, ids, clock.now())
            })
            .await
    }
}

/// A validation error of one item, named by its index and task; other errors unchanged.
fn in_item(index: usize, task: TaskId, error: DomainError) -> DomainError {
    match error {
        DomainError::Validation(error) => item_error(index, task, error).into(),
        other => other,
    }
}
