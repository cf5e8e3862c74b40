//! Use cases of the guest who holds a share link (API contract 7.1): open the shared run, and
//! act on a task through the same state machine and events as the API, as `Actor::Guest`.

use super::Procflow;
use crate::actor::Actor;
use crate::error::{DomainError, DomainResult, Resource};
use crate::guest::{self, FieldError, GuestForm};
use crate::ids::{RunId, TaskId};
use crate::run::{Run, RunTask, TaskChange};
use crate::sharing::Guest;
use crate::values::{Email, ShareToken};

/// A shared run as its guest sees it: the run, every task by order, and the guest invited by
/// email, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedRun {
    /// The run.
    pub run: Run,
    /// Its tasks, by order.
    pub tasks: Vec<RunTask>,
    /// The guest invited by email; `None` when the run was shared without one.
    pub guest: Option<Guest>,
}

impl SharedRun {
    /// The guest's email, which the guest's own tasks are assigned to.
    #[must_use]
    pub fn guest_email(&self) -> Option<&Email> {
        self.guest.as_ref().map(|guest| &guest.email)
    }

    /// Whether the guest may act on `task` now: the run is active and the task is unassigned
    /// or the guest's ([`guest::may_act`]).
    #[must_use]
    pub fn may_act(&self, task: &RunTask) -> bool {
        !self.run.is_completed() && guest::may_act(self.guest_email(), task)
    }
}

/// What became of a guest's post.
#[derive(Clone, Debug, PartialEq)]
pub enum GuestPost {
    /// The change was applied, as the API applies one (events included).
    Applied(Box<TaskChange>),
    /// Entries of the form were refused, each beside its field; nothing was stored.
    Invalid(Vec<FieldError>),
}

// A share link opens its run only while the run's team has an active subscription, as the
// API answers only such a team's keys: an inactive team cannot turn sharing off, so its links
// must not go on taking work in its name meanwhile. The store checks it with the link
// (`RunStore::find_shared_run`), so that a wrong link says nothing of the team.
impl Procflow {
    /// The run a share link opens, with every task, for whoever holds the link (the token is
    /// the capability, whichever the team). Opening it is the guest's engagement: the first
    /// opening's time is recorded (once).
    ///
    /// # Errors
    /// `NotFound(Run)` alike for an unknown run, a run not shared and a wrong token;
    /// `SubscriptionInactive` for a right one while the run's team has no active
    /// subscription (nothing is recorded).
    pub async fn open_shared_run(&self, run: RunId, token: &ShareToken) -> DomainResult<SharedRun> {
        let (run, share, tasks) = self.ports.runs.read_shared_run(run, token).await?;
        let mut guest = share.guest;
        if let Some(guest) = guest.as_mut().filter(|g| g.engaged_at.is_none()) {
            let now = self.ports.clock.now();
            if self
                .ports
                .runs
                .record_guest_engagement(run.team_id, run.id, now)
                .await?
            {
                guest.engaged_at = Some(now);
            }
        }
        Ok(SharedRun { run, tasks, guest })
    }

    /// Applies a guest's form to a task of the shared run, acting as [`Actor::Guest`]: the same
    /// state machine as [`update_task`](Self::update_task), so the same validation, the same
    /// events, and the run completing with its last task.
    ///
    /// The guest may act only on unassigned tasks and tasks assigned to the guest's email;
    /// that, and that the run is still shared, is checked again under the store's lock.
    ///
    /// # Errors
    /// `NotFound(Run)` for a wrong token, an unknown run or one no longer shared;
    /// `SubscriptionInactive` while the run's team has no active subscription;
    /// `NotFound(Task)` for a task not of that run; `NotGuestsTask`; `RunCompleted`; a
    /// validation error for a change the state machine refuses (a decision on a task that is
    /// no approval). Refused values are no error: they are [`GuestPost::Invalid`].
    pub async fn post_as_guest(
        &self,
        run: RunId,
        token: &ShareToken,
        task: TaskId,
        form: &GuestForm,
    ) -> DomainResult<GuestPost> {
        let (run, share) = self.ports.runs.find_shared_run(run, token).await?;
        let guest_email = share.guest.map(|guest| guest.email);
        let current = self.ports.runs.get_task(run.team_id, run.id, task).await?;
        if !guest::may_act(guest_email.as_ref(), &current) {
            return Err(DomainError::NotGuestsTask);
        }
        if run.is_completed() {
            return Err(DomainError::RunCompleted);
        }
        // A run's elements never change, so the values read against this copy of the task are
        // the ones the state machine accepts under the lock.
        let patch = match form.patch_for(&current) {
            Ok(patch) => patch,
            Err(errors) => return Ok(GuestPost::Invalid(errors)),
        };
        let (clock, ids) = (&*self.ports.clock, &*self.ports.ids);
        let change = self
            .ports
            .runs
            .update_task(run.team_id, run.id, task, &|run, task| {
                if !run.is_shared {
                    return Err(DomainError::NotFound(Resource::Run));
                }
                if !guest::may_act(guest_email.as_ref(), task) {
                    return Err(DomainError::NotGuestsTask);
                }
                patch.apply(run, task, Actor::Guest, ids, clock.now())
            })
            .await?;
        Ok(GuestPost::Applied(Box::new(change)))
    }
}
