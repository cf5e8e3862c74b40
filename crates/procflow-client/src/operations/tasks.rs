//! A run's tasks (spec 4.9-4.11, API contract 11): list, get, update one, update several.

use procflow_wire::List;
use procflow_wire::bodies::{UpdateTaskBody, UpdateTasksBody};
use procflow_wire::params::InboxQuery;

use super::{InboxTask, NO_BODY, RunTask, RunTaskListItem};
use crate::operation::{
    GET_RUN_TASK, LIST_RUN_TASKS, LIST_TASKS, UPDATE_RUN_TASK, UPDATE_RUN_TASKS,
};
use crate::{Client, Error, PageRequest, Tagged, WriteOptions};

impl Client {
    /// `listRunTasks`: a page of a run's tasks, by order.
    ///
    /// # Errors
    /// The API's refusal ([`Error::Api`]) or no answer.
    pub async fn list_run_tasks(
        &self,
        run: &str,
        page: PageRequest,
    ) -> Result<List<RunTaskListItem>, Error> {
        let none = WriteOptions::default();
        let reply = self
            .call(&LIST_RUN_TASKS, &[run], &page.query(), NO_BODY, &none)
            .await?;
        reply.json()
    }

    /// `getRunTask`, with its `ETag`.
    ///
    /// # Errors
    /// As [`Client::list_run_tasks`].
    pub async fn get_run_task(&self, run: &str, task: &str) -> Result<Tagged<RunTask>, Error> {
        let none = WriteOptions::default();
        let reply = self
            .call(&GET_RUN_TASK, &[run, task], &[], NO_BODY, &none)
            .await?;
        reply.tagged()
    }

    /// `updateRunTask`: complete, reopen, skip, assign, decide, fill in fields (`If-Match` in
    /// `options`: only if the task is still as read, else 412 `precondition_failed`).
    ///
    /// # Errors
    /// As [`Client::list_run_tasks`].
    pub async fn update_run_task(
        &self,
        run: &str,
        task: &str,
        body: &UpdateTaskBody,
        options: &WriteOptions,
    ) -> Result<Tagged<RunTask>, Error> {
        let reply = self
            .call(&UPDATE_RUN_TASK, &[run, task], &[], Some(body), options)
            .await?;
        reply.tagged()
    }

    /// `updateRunTasks`: several tasks of one run, all or nothing; the tasks in the order given.
    ///
    /// # Errors
    /// As [`Client::list_run_tasks`].
    pub async fn update_run_tasks(
        &self,
        run: &str,
        body: &UpdateTasksBody,
        options: &WriteOptions,
    ) -> Result<Vec<RunTask>, Error> {
        let reply = self
            .call(&UPDATE_RUN_TASKS, &[run], &[], Some(body), options)
            .await?;
        reply.data()
    }

    /// `listTasks`: a page of the inbox, tasks across the team's runs by due date (API
    /// contract 15.1); `query` holds the filters and the page.
    ///
    /// # Errors
    /// As [`Client::list_run_tasks`].
    pub async fn list_tasks(&self, query: &InboxQuery) -> Result<List<InboxTask>, Error> {
        let none = WriteOptions::default();
        let reply = self
            .call(&LIST_TASKS, &[], &query.pairs(), NO_BODY, &none)
            .await?;
        reply.json()
    }
}
