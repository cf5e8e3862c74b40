//! Templates (spec 4.2-4.4) and their authoring (API contract 5).

use procflow_domain::template::TemplateDocument;
use procflow_wire::List;
use procflow_wire::bodies::PublishBody;

use super::{NO_BODY, Template, TemplateListItem, TemplateTask};
use crate::operation::{
    ARCHIVE_TEMPLATE, CREATE_TEMPLATE, GET_TEMPLATE, LIST_TEMPLATE_TASKS, LIST_TEMPLATES,
    PUBLISH_TEMPLATE, REPLACE_TEMPLATE,
};
use crate::{Client, Error, PageRequest, Tagged, WriteOptions};

impl Client {
    /// `listTemplates`: a page of the team's templates.
    ///
    /// # Errors
    /// The API's refusal ([`Error::Api`]) or no answer.
    pub async fn list_templates(&self, page: PageRequest) -> Result<List<TemplateListItem>, Error> {
        let none = WriteOptions::default();
        let reply = self
            .call(&LIST_TEMPLATES, &[], &page.query(), NO_BODY, &none)
            .await?;
        reply.json()
    }

    /// `createTemplate`: a draft from one authoring document.
    ///
    /// # Errors
    /// As [`Client::list_templates`].
    pub async fn create_template(
        &self,
        document: &TemplateDocument,
        options: &WriteOptions,
    ) -> Result<Tagged<Template>, Error> {
        let reply = self
            .call(&CREATE_TEMPLATE, &[], &[], Some(document), options)
            .await?;
        reply.tagged()
    }

    /// `getTemplate`, with its `ETag`.
    ///
    /// # Errors
    /// As [`Client::list_templates`].
    pub async fn get_template(&self, id: &str) -> Result<Tagged<Template>, Error> {
        let none = WriteOptions::default();
        let reply = self.call(&GET_TEMPLATE, &[id], &[], NO_BODY, &none).await?;
        reply.tagged()
    }

    /// `replaceTemplate`: a draft's new document (`If-Match` in `options` to replace only
    /// what you read).
    ///
    /// # Errors
    /// As [`Client::list_templates`].
    pub async fn replace_template(
        &self,
        id: &str,
        document: &TemplateDocument,
        options: &WriteOptions,
    ) -> Result<Tagged<Template>, Error> {
        let reply = self
            .call(&REPLACE_TEMPLATE, &[id], &[], Some(document), options)
            .await?;
        reply.tagged()
    }

    /// `archiveTemplate`.
    ///
    /// # Errors
    /// As [`Client::list_templates`].
    pub async fn archive_template(&self, id: &str, options: &WriteOptions) -> Result<(), Error> {
        self.call(&ARCHIVE_TEMPLATE, &[id], &[], NO_BODY, options)
            .await?;
        Ok(())
    }

    /// `listTemplateTasks`: a page of a template's tasks, by order.
    ///
    /// # Errors
    /// As [`Client::list_templates`].
    pub async fn list_template_tasks(
        &self,
        id: &str,
        page: PageRequest,
    ) -> Result<List<TemplateTask>, Error> {
        let none = WriteOptions::default();
        let reply = self
            .call(&LIST_TEMPLATE_TASKS, &[id], &page.query(), NO_BODY, &none)
            .await?;
        reply.json()
    }

    /// `publishTemplate`: publishes (`true`) or unpublishes (`false`).
    ///
    /// # Errors
    /// As [`Client::list_templates`].
    pub async fn publish_template(
        &self,
        id: &str,
        published: bool,
        options: &WriteOptions,
    ) -> Result<Tagged<Template>, Error> {
        let body = PublishBody { published };
        let reply = self
            .call(&PUBLISH_TEMPLATE, &[id], &[], Some(&body), options)
            .await?;
        reply.tagged()
    }
}
