//! A template's public start link (API contract 13.2).

use super::{NO_BODY, RunLink};
use crate::operation::{DISABLE_RUN_LINK, ENABLE_RUN_LINK, GET_RUN_LINK};
use crate::{Client, Error, WriteOptions};

impl Client {
    /// `getRunLink`: the template's link (`enabled: false` while it is off).
    ///
    /// # Errors
    /// The API's refusal ([`Error::Api`]) or no answer.
    pub async fn get_run_link(&self, template_id: &str) -> Result<RunLink, Error> {
        let none = WriteOptions::default();
        let reply = self
            .call(&GET_RUN_LINK, &[template_id], &[], NO_BODY, &none)
            .await?;
        reply.data()
    }

    /// `enableRunLink`: turns the link on (the same link if it is on already).
    ///
    /// # Errors
    /// As [`Client::get_run_link`].
    pub async fn enable_run_link(
        &self,
        template_id: &str,
        options: &WriteOptions,
    ) -> Result<RunLink, Error> {
        let reply = self
            .call(&ENABLE_RUN_LINK, &[template_id], &[], NO_BODY, options)
            .await?;
        reply.data()
    }

    /// `disableRunLink`: turns the link off and voids its token.
    ///
    /// # Errors
    /// As [`Client::get_run_link`].
    pub async fn disable_run_link(
        &self,
        template_id: &str,
        options: &WriteOptions,
    ) -> Result<(), Error> {
        self.call(&DISABLE_RUN_LINK, &[template_id], &[], NO_BODY, options)
            .await?;
        Ok(())
    }
}
