//! What a guest may do on a shared run (API contract 7.1): which tasks are theirs to act on,
//! and the form they post, read into element values and the patch the state machine applies.

mod form;

pub use form::{FieldError, FormField, GuestForm, GuestIntent};

use crate::actor::Assignee;
use crate::run::RunTask;
use crate::values::Email;

/// Whether the guest may act on `task`: it is unassigned, or assigned to the guest's (invited)
/// email. A run shared without an email has no guest email: its guest acts on unassigned
/// tasks only.
///
/// ```
/// use procflow_domain::actor::Assignee;
/// use procflow_domain::guest::may_act;
/// # use procflow_domain::run::RunTask;
/// # fn check(task: &mut RunTask) {
/// let ada = "ada@example.org".parse().unwrap();
/// task.assignee = None;
/// assert!(may_act(None, task));
/// task.assignee = Some(Assignee::Email(ada));
/// assert!(may_act(Some(&"ADA@example.org".parse().unwrap()), task));
/// assert!(!may_act(Some(&"bob@example.org".parse().unwrap()), task));
/// assert!(!may_act(None, task));
/// # }
/// ```
#[must_use]
pub fn may_act<E>(guest_email: Option<&Email>, task: &RunTask<E>) -> bool {
    match &task.assignee {
        None => true,
        Some(Assignee::Email(assigned)) => guest_email == Some(assigned),
        Some(Assignee::User(_)) => false,
    }
}
