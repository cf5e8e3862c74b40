//! Schedules: runs of a template started on a recurrence (API contract 13.1).

use procflow_wire::List;
use procflow_wire::bodies::{CreateScheduleBody, UpdateScheduleBody};

use super::{NO_BODY, Schedule};
use crate::operation::{
    CREATE_SCHEDULE, DELETE_SCHEDULE, GET_SCHEDULE, LIST_SCHEDULES, UPDATE_SCHEDULE,
};
use crate::{Client, Error, PageRequest, Tagged, WriteOptions};

impl Client {
    /// `listSchedules`: a page of the team's schedules, oldest first.
    ///
    /// # Errors
    /// The API's refusal ([`Error::Api`]) or no answer.
    pub async fn list_schedules(&self, page: PageRequest) -> Result<List<Schedule>, Error> {
        let none = WriteOptions::default();
        let reply = self
            .call(&LIST_SCHEDULES, &[], &page.query(), NO_BODY, &none)
            .await?;
        reply.json()
    }

    /// `createSchedule`.
    ///
    /// # Errors
    /// As [`Client::list_schedules`].
    pub async fn create_schedule(
        &self,
        body: &CreateScheduleBody,
        options: &WriteOptions,
    ) -> Result<Schedule, Error> {
        let reply = self
            .call(&CREATE_SCHEDULE, &[], &[], Some(body), options)
            .await?;
        reply.data()
    }

    /// `getSchedule`, with its `ETag`.
    ///
    /// # Errors
    /// As [`Client::list_schedules`].
    pub async fn get_schedule(&self, id: &str) -> Result<Tagged<Schedule>, Error> {
        let none = WriteOptions::default();
        let reply = self.call(&GET_SCHEDULE, &[id], &[], NO_BODY, &none).await?;
        reply.tagged()
    }

    /// `updateSchedule` (`If-Match` in `options` to change only what you read).
    ///
    /// # Errors
    /// As [`Client::list_schedules`].
    pub async fn update_schedule(
        &self,
        id: &str,
        body: &UpdateScheduleBody,
        options: &WriteOptions,
    ) -> Result<Tagged<Schedule>, Error> {
        let reply = self
            .call(&UPDATE_SCHEDULE, &[id], &[], Some(body), options)
            .await?;
        reply.tagged()
    }

    /// `deleteSchedule`.
    ///
    /// # Errors
    /// As [`Client::list_schedules`].
    pub async fn delete_schedule(&self, id: &str, options: &WriteOptions) -> Result<(), Error> {
        self.call(&DELETE_SCHEDULE, &[id], &[], NO_BODY, options)
            .await?;
        Ok(())
    }
}
