//! Process logic in a run (API contract 12.2): which tasks are hidden by a rule and which are
//! blocked by an open prerequisite, computed by one pure function, [`evaluate`], from the run's
//! snapshot.
//!
//! A run of a template with logic keeps a [`RunLogic`]: the frozen [`LogicPlan`] (its rules
//! and dependencies, over the only tasks and elements they involve) and the live
//! [`LogicState`] (those tasks' states and assignees, those elements' values). The state is
//! what a change reads under the run's lock besides the task it changes, so deciding a change
//! costs the same whatever the number of tasks of the run, and evaluating it is linear in the
//! plan (rules, conditions, named tasks, dependencies), never in pairs of tasks. The result
//! is stored with every task (`hidden`, `blocked`) in the same transaction as the change.

mod change;

pub(super) use change::LogicChange;

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;

use super::{RunTask, TaskStatus};
use crate::actor::Assignee;
use crate::element::ElementType;
use crate::ids::{ElementId, RunId, SectionId, TaskId, TemplateTaskId};
use crate::run::TaskSnapshot;
use crate::template::{Rule, Template};

/// A rule of a run: tasks named by run task id, elements by id (as `GET /process-runs/:id`
/// shows them).
pub type RunRule = Rule<TaskId, ElementId>;

/// Whether a task is hidden by a rule and whether it is blocked by an open prerequisite.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TaskFlags {
    /// Hidden: named in the `show` of some rule of which none holds, or in the `hide` of a rule
    /// that holds. A hidden task counts as done, and no PATCH may change it.
    pub hidden: bool,
    /// Blocked: not completed, and some task it depends on is open and not hidden. It cannot
    /// be completed or approved (a skipped task neither: completing it would).
    pub blocked: bool,
}

/// A task the logic involves (shown or hidden by a rule, or depending or depended on), with
/// what its events and messages need of it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PlannedTask {
    /// The run task.
    pub id: TaskId,
    /// The template task it was copied from.
    pub template_task_id: TemplateTaskId,
    /// Its section.
    pub section_id: SectionId,
    /// Its title.
    pub title: String,
    /// When it is due.
    #[serde(with = "time::serde::rfc3339::option")]
    pub due_date: Option<OffsetDateTime>,
    /// Whether completing it sends a webhook.
    pub webhook_enabled: bool,
    /// Its prerequisites, by position in [`LogicPlan::tasks`].
    pub depends_on: Vec<usize>,
}

/// An element a condition reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PlannedElement {
    /// The element.
    pub id: ElementId,
    /// The run task that holds it.
    pub task: TaskId,
    /// Its type, which says how its value compares.
    #[serde(rename = "type")]
    pub element_type: ElementType,
}

/// The frozen logic of a run: its rules and dependencies over the tasks and elements they
/// involve, named by position (so evaluating needs no lookup).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LogicPlan {
    /// The involved tasks, by order.
    pub tasks: Vec<PlannedTask>,
    /// The elements conditions read.
    pub elements: Vec<PlannedElement>,
    /// The rules: elements by position in `elements`, tasks by position in `tasks`.
    pub rules: Vec<Rule<usize, usize>>,
}

/// What an involved task is now.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LiveTask {
    /// Open, completed or skipped.
    pub status: TaskStatus,
    /// Its assignee (told when it is unblocked).
    pub assignee: Option<Assignee>,
}

/// The live side of a run's logic: each involved task's state and each read element's value,
/// by position in the plan. A change updates it from the task it changed.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LogicState {
    /// By position in [`LogicPlan::tasks`].
    pub tasks: Vec<LiveTask>,
    /// By position in [`LogicPlan::elements`]; `None` when unset.
    pub values: Vec<Option<Value>>,
}

/// A run's logic: the plan and its state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RunLogic {
    /// Frozen when the run started.
    pub plan: Arc<LogicPlan>,
    /// As the last change left it.
    pub state: LogicState,
}

/// Every involved task's flags (by position in `plan.tasks`; the run's other tasks are
/// neither hidden nor blocked), from the run's snapshot: the rules and dependencies of `plan`,
/// the values and task states of `state`.
///
/// Visibility reads values only (a condition reads its element whether or not the element's
/// task is hidden), and rules only name tasks after the ones they read, so nothing loops: one
/// pass over the rules, one over the dependencies. The cost is linear in the plan's rules,
/// conditions, named tasks and dependencies.
///
/// ```
/// use procflow_domain::run::{LiveTask, LogicState, TaskFlags, TaskStatus, evaluate};
/// # use procflow_domain::run::{LogicPlan, PlannedElement, PlannedTask};
/// # use procflow_domain::element::ElementType;
/// # use procflow_domain::template::{Condition, Operator, Rule, When};
/// # use procflow_domain::ids::*;
/// # use serde_json::json;
/// # let id = uuid::Uuid::nil();
/// # let task = |title: &str, depends_on: Vec<usize>| PlannedTask {
/// #     id: TaskId::from_uuid(uuid::Uuid::new_v4()), template_task_id: TemplateTaskId::from_uuid(id),
/// #     section_id: SectionId::from_uuid(id), title: title.into(), due_date: None,
/// #     webhook_enabled: false, depends_on };
/// // "Remote?" (element 0, on the first task) shows "Ship a laptop" (task 0) when true;
/// // "Grant access" (task 1) waits for it.
/// let plan = LogicPlan {
///     tasks: vec![task("Ship a laptop", vec![]), task("Grant access", vec![0])],
///     elements: vec![PlannedElement {
///         id: ElementId::from_uuid(id),
///         task: TaskId::from_uuid(id),
///         element_type: ElementType::Checkbox,
///     }],
///     rules: vec![Rule {
///         when: When::One(Condition { element: 0, is: Operator::Equal, value: Some(json!(true)) }),
///         show: vec![0],
///         hide: vec![],
///     }],
/// };
/// let open = || LiveTask { status: TaskStatus::Open, assignee: None };
/// let mut state = LogicState { tasks: vec![open(), open()], values: vec![None] };
/// // Not remote: the laptop is hidden, so it counts as done and blocks nothing.
/// assert_eq!(evaluate(&plan, &state), [
///     TaskFlags { hidden: true, blocked: false },
///     TaskFlags { hidden: false, blocked: false },
/// ]);
/// state.values[0] = Some(json!(true));
/// assert_eq!(evaluate(&plan, &state), [
///     TaskFlags { hidden: false, blocked: false },
///     TaskFlags { hidden: false, blocked: true },
/// ]);
/// ```
#[must_use]
pub fn evaluate(plan: &LogicPlan, state: &LogicState) -> Vec<TaskFlags> {
    let count = plan.tasks.len();
    let mut shown = vec![false; count];
    let mut wants_showing = vec![false; count];
    let mut hidden_by_rule = vec![false; count];
    for rule in &plan.rules {
        let holds = rule.when.holds_by(|condition| {
            let element = plan.elements.get(condition.element);
            let value = state.values.get(condition.element).and_then(Option::as_ref);
            element.is_some_and(|e| condition.holds(e.element_type, value))
        });
        for &t in rule.show.iter().filter(|&&t| t < count) {
            wants_showing[t] = true;
            shown[t] |= holds;
        }
        if holds {
            for &t in rule.hide.iter().filter(|&&t| t < count) {
                hidden_by_rule[t] = true;
            }
        }
    }
    let hidden: Vec<bool> = (0..count)
        .map(|t| (wants_showing[t] && !shown[t]) || hidden_by_rule[t])
        .collect();
    let status = |t: usize| state.tasks.get(t).map(|l| l.status);
    let open = |t: usize| status(t) == Some(TaskStatus::Open);
    plan.tasks
        .iter()
        .enumerate()
        .map(|(t, task)| TaskFlags {
            hidden: hidden[t],
            blocked: status(t) != Some(TaskStatus::Completed)
                && task
                    .depends_on
                    .iter()
                    .any(|&p| p < count && open(p) && !hidden[p]),
        })
        .collect()
}

impl LogicPlan {
    /// The plan of a run started from `template`, whose tasks are `tasks` (copied from the
    /// template's, in order); `None` when the template has no logic.
    #[must_use]
    pub fn of(template: &Template, tasks: &[RunTask]) -> Option<Self> {
        if !template.has_logic() {
            return None;
        }
        let run_task: HashMap<TemplateTaskId, &RunTask> =
            tasks.iter().map(|t| (t.template_task_id, t)).collect();
        let position: HashMap<TemplateTaskId, usize> = template
            .tasks
            .iter()
            .enumerate()
            .map(|(p, t)| (t.id, p))
            .collect();
        // Involved: named by a rule, depending or depended on.
        let mut involved = vec![false; template.tasks.len()];
        let mut mark = |id: &TemplateTaskId| {
            if let Some(&p) = position.get(id) {
                involved[p] = true;
            }
        };
        for rule in &template.rules {
            rule.show.iter().chain(&rule.hide).for_each(&mut mark);
        }
        for task in template.tasks.iter().filter(|t| !t.depends_on.is_empty()) {
            mark(&task.id);
            task.depends_on.iter().for_each(&mut mark);
        }
        let mut index: HashMap<TemplateTaskId, usize> = HashMap::new();
        let mut planned = Vec::new();
        for (p, task) in template.tasks.iter().enumerate() {
            let Some(copy) = involved[p].then(|| run_task.get(&task.id)).flatten() else {
                continue;
            };
            index.insert(task.id, planned.len());
            planned.push(PlannedTask {
                id: copy.id,
                template_task_id: task.id,
                section_id: copy.section_id,
                title: copy.title.clone(),
                due_date: copy.due_date,
                webhook_enabled: copy.webhook_enabled,
                depends_on: Vec::new(),
            });
        }
        for task in &template.tasks {
            if let Some(&me) = index.get(&task.id) {
                planned[me].depends_on = task
                    .depends_on
                    .iter()
                    .filter_map(|p| index.get(p).copied())
                    .collect();
            }
        }
        let mut elements: Vec<PlannedElement> = Vec::new();
        let mut element_index: HashMap<ElementId, usize> = HashMap::new();
        let holders: HashMap<ElementId, (&RunTask, ElementType)> = tasks
            .iter()
            .flat_map(|t| {
                t.custom_elements
                    .iter()
                    .map(move |e| (e.id, (t, e.element_type)))
            })
            .collect();
        let mut rules = Vec::with_capacity(template.rules.len());
        for rule in &template.rules {
            let planned_rule = rule.try_map(
                |task| index.get(task).copied().ok_or(()),
                |element| {
                    if let Some(&e) = element_index.get(element) {
                        return Ok(e);
                    }
                    let (holder, element_type) = holders.get(element).ok_or(())?;
                    element_index.insert(*element, elements.len());
                    elements.push(PlannedElement {
                        id: *element,
                        task: holder.id,
                        element_type: *element_type,
                    });
                    Ok(elements.len() - 1)
                },
            );
            // A template's rules name its own tasks and elements (its document was checked).
            if let Ok(planned_rule) = planned_rule {
                rules.push(planned_rule);
            }
        }
        Some(Self {
            tasks: planned,
            elements,
            rules,
        })
    }

    /// The rules with tasks and elements named by id, as the run shows them.
    #[must_use]
    pub fn rules(&self) -> Vec<RunRule> {
        self.rules
            .iter()
            .filter_map(|rule| {
                rule.try_map(
                    |&t| self.tasks.get(t).map(|task| task.id).ok_or(()),
                    |&e| self.elements.get(e).map(|element| element.id).ok_or(()),
                )
                .ok()
            })
            .collect()
    }

    /// The position of a task among the involved ones.
    #[must_use]
    pub fn position(&self, task: TaskId) -> Option<usize> {
        self.tasks.iter().position(|t| t.id == task)
    }

    /// The snapshot events carry of an involved task, as `state` has it.
    fn snapshot(&self, run: RunId, t: usize, state: &LogicState) -> TaskSnapshot {
        let task = &self.tasks[t];
        TaskSnapshot {
            id: task.id,
            instance_id: run,
            template_task_id: task.template_task_id,
            section_id: task.section_id,
            title: task.title.clone(),
            completed: state.tasks[t].status == TaskStatus::Completed,
            completed_at: None,
            completed_by: None,
            assignee: state.tasks[t].assignee.clone(),
            webhook_enabled: task.webhook_enabled,
            due_date: task.due_date,
        }
    }
}

impl LogicState {
    /// The state of `plan`'s tasks and elements as `tasks` (the run's, or any subset holding
    /// the involved tasks and the elements' holders) have them.
    #[must_use]
    pub fn of(plan: &LogicPlan, tasks: &[RunTask]) -> Self {
        let by_id: HashMap<TaskId, &RunTask> = tasks.iter().map(|t| (t.id, t)).collect();
        Self {
            tasks: plan
                .tasks
                .iter()
                .map(|planned| {
                    let task = by_id.get(&planned.id);
                    LiveTask {
                        status: task.map_or(TaskStatus::Open, |t| t.state.status()),
                        assignee: task.and_then(|t| t.assignee.clone()),
                    }
                })
                .collect(),
            values: plan
                .elements
                .iter()
                .map(|element| {
                    by_id.get(&element.task).and_then(|task| {
                        task.custom_elements
                            .iter()
                            .find(|e| e.id == element.id)
                            .and_then(|e| e.value.clone())
                    })
                })
                .collect(),
        }
    }

    /// Takes what the plan reads of `task` (its state, assignee and the values of elements
    /// conditions read); answers whether anything changed.
    pub fn record(&mut self, plan: &LogicPlan, task: &RunTask) -> bool {
        let mut changed = false;
        if let Some(t) = plan.position(task.id) {
            let live = LiveTask {
                status: task.state.status(),
                assignee: task.assignee.clone(),
            };
            if self.tasks[t] != live {
                self.tasks[t] = live;
                changed = true;
            }
        }
        for (e, element) in plan.elements.iter().enumerate() {
            if element.task != task.id {
                continue;
            }
            let value = task
                .custom_elements
                .iter()
                .find(|c| c.id == element.id)
                .and_then(|c| c.value.clone());
            if self.values[e] != value {
                self.values[e] = value;
                changed = true;
            }
        }
        changed
    }
}

impl RunLogic {
    /// A new run's logic: the plan of `template` over `tasks`, with their state; sets every
    /// task's flags. `None` when the template has no logic. [`Run::start`](super::Run::start)
    /// calls it after the pre-fill.
    ///
    /// ```
    /// use procflow_domain::run::{Run, StartRun};
    /// use procflow_domain::template::TemplateDocument;
    /// # use procflow_domain::ids::TeamId;
    /// # let ids = procflow_memory::SequentialIds::default();
    /// # let now = time::OffsetDateTime::UNIX_EPOCH;
    /// let document = serde_json::json!({"title": "Onboarding", "sections": [{"title": "Week 1",
    ///     "tasks": [{"ref": "training", "title": "Security training"},
    ///               {"title": "Grant access", "depends_on": ["training"]}]}]});
    /// let mut template = TemplateDocument::from_json(document).unwrap()
    ///     .build(TeamId::from_uuid(uuid::Uuid::nil()), None, &ids, now).unwrap();
    /// template.set_published(true, now).unwrap();
    /// let started = Run::start(StartRun { template: &template, title: None, due_date: None,
    ///     runner: None, members: &[], timezone: "UTC".into(), prefill: vec![] }, &ids, now)
    ///     .unwrap();
    /// assert!(!started.tasks[0].blocked);
    /// assert!(started.tasks[1].blocked);
    /// assert_eq!(started.run.logic.unwrap().plan.tasks.len(), 2);
    /// ```
    #[must_use]
    pub fn start(template: &Template, tasks: &mut [RunTask]) -> Option<Self> {
        let plan = LogicPlan::of(template, tasks)?;
        let state = LogicState::of(&plan, tasks);
        let flags = evaluate(&plan, &state);
        for (planned, flags) in plan.tasks.iter().zip(flags) {
            if let Some(task) = tasks.iter_mut().find(|t| t.id == planned.id) {
                task.hidden = flags.hidden;
                task.blocked = flags.blocked;
            }
        }
        Some(Self {
            plan: Arc::new(plan),
            state,
        })
    }

    /// Every involved task's flags now.
    #[must_use]
    pub fn flags(&self) -> Vec<TaskFlags> {
        evaluate(&self.plan, &self.state)
    }

    /// The titles of the open, visible prerequisites of an involved task, given `flags`.
    #[must_use]
    pub fn waiting_for(&self, t: usize, flags: &[TaskFlags]) -> Vec<String> {
        self.plan.tasks[t]
            .depends_on
            .iter()
            .filter(|&&p| self.state.tasks[p].status == TaskStatus::Open && !flags[p].hidden)
            .map(|&p| self.plan.tasks[p].title.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests;
