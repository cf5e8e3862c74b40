//! A task's comments (API contract 14.1): list, write, edit, delete.

use procflow_wire::List;
use procflow_wire::bodies::{CreateCommentBody, UpdateCommentBody};

use super::{Comment, NO_BODY};
use crate::operation::{CREATE_TASK_COMMENT, DELETE_COMMENT, LIST_TASK_COMMENTS, UPDATE_COMMENT};
use crate::{Client, Error, PageRequest, WriteOptions};

impl Client {
    /// `listTaskComments`: a page of a task's comments, oldest first.
    ///
    /// # Errors
    /// The API's refusal ([`Error::Api`]) or no answer.
    pub async fn list_task_comments(
        &self,
        run: &str,
        task: &str,
        page: PageRequest,
    ) -> Result<List<Comment>, Error> {
        let none = WriteOptions::default();
        let reply = self
            .call(
                &LIST_TASK_COMMENTS,
                &[run, task],
                &page.query(),
                NO_BODY,
                &none,
            )
            .await?;
        reply.json()
    }

    /// `createTaskComment`: a comment on a task (`Idempotency-Key` in `options` makes a retry
    /// safe).
    ///
    /// # Errors
    /// As [`Client::list_task_comments`].
    pub async fn create_task_comment(
        &self,
        run: &str,
        task: &str,
        body: &CreateCommentBody,
        options: &WriteOptions,
    ) -> Result<Comment, Error> {
        let reply = self
            .call(&CREATE_TASK_COMMENT, &[run, task], &[], Some(body), options)
            .await?;
        reply.data()
    }

    /// `updateComment`: a comment's new text.
    ///
    /// # Errors
    /// As [`Client::list_task_comments`].
    pub async fn update_comment(
        &self,
        id: &str,
        body: &UpdateCommentBody,
        options: &WriteOptions,
    ) -> Result<Comment, Error> {
        let reply = self
            .call(&UPDATE_COMMENT, &[id], &[], Some(body), options)
            .await?;
        reply.data()
    }

    /// `deleteComment`: it stays in its thread as deleted, its text gone.
    ///
    /// # Errors
    /// As [`Client::list_task_comments`].
    pub async fn delete_comment(&self, id: &str, options: &WriteOptions) -> Result<(), Error> {
        self.call(&DELETE_COMMENT, &[id], &[], NO_BODY, options)
            .await?;
        Ok(())
    }
}
