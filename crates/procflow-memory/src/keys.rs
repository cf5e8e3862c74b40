//! `KeyChanges` by hand: the changes a test pushes, in order; waiting while there are none.

use std::collections::VecDeque;
use std::future::poll_fn;
use std::sync::{Mutex, PoisonError};
use std::task::{Poll, Waker};

use async_trait::async_trait;

use procflow_domain::ports::{KeyChange, KeyChanges};

/// A [`KeyChanges`] fed by [`ScriptedKeyChanges::push`].
#[derive(Debug, Default)]
pub struct ScriptedKeyChanges(Mutex<(VecDeque<KeyChange>, Vec<Waker>)>);

impl ScriptedKeyChanges {
    /// Reports `change` to the waiter, or the next one.
    pub fn push(&self, change: KeyChange) {
        let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        state.0.push_back(change);
        for waker in state.1.drain(..) {
            waker.wake();
        }
    }
}

#[async_trait]
impl KeyChanges for ScriptedKeyChanges {
    async fn next(&self) -> KeyChange {
        poll_fn(|cx| {
            let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            match state.0.pop_front() {
                Some(change) => Poll::Ready(change),
                None => {
                    state.1.push(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
        .await
    }
}
