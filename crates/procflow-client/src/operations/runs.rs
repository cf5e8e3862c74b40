//! Runs (spec 4.5-4.8): list, start, get, share and stop sharing.

use procflow_domain::run::RunStatus;
use procflow_wire::List;
use procflow_wire::bodies::{CreateRunBody, InviteBody};

use super::{CreatedRun, NO_BODY, Run, ShareResult};
use crate::operation::{CREATE_RUN, GET_RUN, INVITE_GUEST, LIST_RUNS, STOP_SHARING};
use crate::{Client, Error, PageRequest, Tagged, WriteOptions};

impl Client {
    /// `listRuns`: a page of runs, newest first, of one template and in one status when given.
    ///
    /// # Errors
    /// The API's refusal ([`Error::Api`]) or no answer.
    pub async fn list_runs(
        &self,
        template_id: Option<&str>,
        status: Option<RunStatus>,
        page: PageRequest,
    ) -> Result<List<Run>, Error> {
        let mut query = page.query();
        if let Some(template_id) = template_id {
            query.push(("template_id", template_id.to_owned()));
        }
        if let Some(status) = status {
            query.push(("status", status.as_str().to_owned()));
        }
        let none = WriteOptions::default();
        let reply = self.call(&LIST_RUNS, &[], &query, NO_BODY, &none).await?;
        reply.json()
    }

    /// `createRun`: starts a run of a published template.
    ///
    /// # Errors
    /// As [`Client::list_runs`].
    pub async fn create_run(
        &self,
        body: &CreateRunBody,
        options: &WriteOptions,
    ) -> Result<CreatedRun, Error> {
        let reply = self
            .call(&CREATE_RUN, &[], &[], Some(body), options)
            .await?;
        reply.data()
    }

    /// `getRun`, with its `ETag`.
    ///
    /// # Errors
    /// As [`Client::list_runs`].
    pub async fn get_run(&self, id: &str) -> Result<Tagged<Run>, Error> {
        let none = WriteOptions::default();
        let reply = self.call(&GET_RUN, &[id], &[], NO_BODY, &none).await?;
        reply.tagged()
    }

    /// `inviteGuest`: shares the run (and invites a guest by email when `body.email` is given).
    ///
    /// # Errors
    /// As [`Client::list_runs`].
    pub async fn invite_guest(
        &self,
        id: &str,
        body: &InviteBody,
        options: &WriteOptions,
    ) -> Result<ShareResult, Error> {
        let reply = self
            .call(&INVITE_GUEST, &[id], &[], Some(body), options)
            .await?;
        reply.data()
    }

    /// `stopSharing`: the share link stops working.
    ///
    /// # Errors
    /// As [`Client::list_runs`].
    pub async fn stop_sharing(&self, id: &str, options: &WriteOptions) -> Result<Run, Error> {
        let reply = self
            .call(&STOP_SHARING, &[id], &[], NO_BODY, options)
            .await?;
        reply.data()
    }
}
