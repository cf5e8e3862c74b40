//! The notices no request raises: a guest's reminder and a task's overdue notices, found by
//! the scheduler when their time comes.

use time::Duration;

use crate::ids::{GuestId, RunId, TeamId};
use crate::run::RunTask;
use crate::values::Email;

/// How long after an overdue notice the next one is due while the task stays open.
pub const OVERDUE_REPEAT: Duration = Duration::DAY;

/// A notice whose time has come, as the store found it under its lock.
#[derive(Clone, Debug, PartialEq)]
pub enum DueNotice {
    /// A guest with reminders on, invited at least `reminder_days` ago, who has not opened the
    /// page and has not been reminded.
    Reminder {
        /// The run's team.
        team_id: TeamId,
        /// The run.
        run_id: RunId,
        /// Its title.
        run_title: String,
        /// Whether the run is still active: a completed run's guest is not reminded.
        run_active: bool,
        /// The guest record.
        guest_id: GuestId,
        /// The guest's address.
        email: Email,
    },
    /// An open, assigned task past its due date, not notified within the last
    /// [`OVERDUE_REPEAT`].
    Overdue {
        /// The run's team.
        team_id: TeamId,
        /// The run's title.
        run_title: String,
        /// The task.
        task: Box<RunTask>,
    },
}
