//! A run's live logic state as `runs.logic_state` keeps it: compact, because it is written with
//! the run header by every change of a run with logic. Each involved task's status is one letter
//! of one string, assignees are kept only where there is one, and the read values are an array:
//! a 50-task run with 20 rules and 20 dependencies stays far under the size at which PostgreSQL
//! compresses or moves a value out of its row.

use std::collections::BTreeMap;

use procflow_domain::actor::Assignee;
use procflow_domain::run::{LiveTask, LogicState, TaskStatus};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `{"s": "ocs...", "a": {"3": "<assignee>"}, "v": [<value or null>...]}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct StoredState {
    /// Each involved task's status: `o`pen, `c`ompleted, `s`kipped.
    s: String,
    /// The assignees of the involved tasks that have one, by position.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    a: BTreeMap<usize, Assignee>,
    /// The values the conditions read, by position.
    v: Vec<Option<Value>>,
}

impl From<&LogicState> for StoredState {
    fn from(state: &LogicState) -> Self {
        Self {
            s: state
                .tasks
                .iter()
                .map(|task| match task.status {
                    TaskStatus::Open => 'o',
                    TaskStatus::Completed => 'c',
                    TaskStatus::Skipped => 's',
                })
                .collect(),
            a: state
                .tasks
                .iter()
                .enumerate()
                .filter_map(|(t, task)| task.assignee.clone().map(|a| (t, a)))
                .collect(),
            v: state.values.clone(),
        }
    }
}

impl TryFrom<StoredState> for LogicState {
    type Error = String;

    fn try_from(mut stored: StoredState) -> Result<Self, Self::Error> {
        let tasks = stored
            .s
            .chars()
            .enumerate()
            .map(|(t, letter)| {
                let status = match letter {
                    'o' => TaskStatus::Open,
                    'c' => TaskStatus::Completed,
                    's' => TaskStatus::Skipped,
                    other => return Err(format!("unknown task status {other:?}")),
                };
                Ok(LiveTask {
                    status,
                    assignee: stored.a.remove(&t),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(t) = stored.a.keys().next() {
            return Err(format!(
                "an assignee for task {t}, which the state does not have"
            ));
        }
        Ok(Self {
            tasks,
            values: stored.v,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_state_reads_back_as_it_was_written_and_small() {
        let state = LogicState {
            tasks: vec![
                LiveTask {
                    status: TaskStatus::Open,
                    assignee: None,
                },
                LiveTask {
                    status: TaskStatus::Completed,
                    assignee: Some(Assignee::Email("ops@example.org".parse().unwrap())),
                },
                LiveTask {
                    status: TaskStatus::Skipped,
                    assignee: None,
                },
            ],
            values: vec![Some(json!(true)), None, Some(json!(["a", "b"]))],
        };
        let stored = serde_json::to_value(StoredState::from(&state)).unwrap();
        assert_eq!(
            stored,
            json!({"s": "ocs", "a": {"1": "ops@example.org"}, "v": [true, null, ["a", "b"]]})
        );
        let read: StoredState = serde_json::from_value(stored).unwrap();
        assert_eq!(LogicState::try_from(read).unwrap(), state);
    }

    #[test]
    fn a_broken_state_is_refused() {
        for stored in [
            json!({"s": "ox", "v": []}),
            json!({"s": "o", "a": {"4": "ops@example.org"}, "v": []}),
        ] {
            let read: StoredState = serde_json::from_value(stored).unwrap();
            assert!(LogicState::try_from(read).is_err());
        }
    }
}
