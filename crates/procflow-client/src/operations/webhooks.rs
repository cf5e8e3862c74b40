//! Webhook endpoints, their deliveries and the event feed (API contract 8.1).

use procflow_domain::webhook::{DeliveryStatus, WebhookEvent};
use procflow_wire::List;
use procflow_wire::bodies::{CreateWebhookBody, TestWebhookBody, UpdateWebhookBody};

use super::{Delivery, Event, NO_BODY, Webhook, WebhookWithSecret};
use crate::operation::{
    CREATE_WEBHOOK, DELETE_WEBHOOK, GET_WEBHOOK, LIST_EVENTS, LIST_WEBHOOK_DELIVERIES,
    LIST_WEBHOOKS, REDELIVER_WEBHOOK, ROTATE_WEBHOOK_SECRET, TEST_WEBHOOK, UPDATE_WEBHOOK,
};
use crate::{Client, Error, PageRequest, Tagged, WriteOptions};

impl Client {
    /// `listWebhooks`: a page of the team's endpoints, oldest first.
    ///
    /// # Errors
    /// The API's refusal ([`Error::Api`]) or no answer.
    pub async fn list_webhooks(&self, page: PageRequest) -> Result<List<Webhook>, Error> {
        let none = WriteOptions::default();
        let reply = self
            .call(&LIST_WEBHOOKS, &[], &page.query(), NO_BODY, &none)
            .await?;
        reply.json()
    }

    /// `createWebhook`: the endpoint with its secret, shown this once.
    ///
    /// # Errors
    /// As [`Client::list_webhooks`].
    pub async fn create_webhook(
        &self,
        body: &CreateWebhookBody,
        options: &WriteOptions,
    ) -> Result<WebhookWithSecret, Error> {
        let reply = self
            .call(&CREATE_WEBHOOK, &[], &[], Some(body), options)
            .await?;
        reply.data()
    }

    /// `getWebhook`, with its `ETag`.
    ///
    /// # Errors
    /// As [`Client::list_webhooks`].
    pub async fn get_webhook(&self, id: &str) -> Result<Tagged<Webhook>, Error> {
        let none = WriteOptions::default();
        let reply = self.call(&GET_WEBHOOK, &[id], &[], NO_BODY, &none).await?;
        reply.tagged()
    }

    /// `updateWebhook`.
    ///
    /// # Errors
    /// As [`Client::list_webhooks`].
    pub async fn update_webhook(
        &self,
        id: &str,
        body: &UpdateWebhookBody,
        options: &WriteOptions,
    ) -> Result<Tagged<Webhook>, Error> {
        let reply = self
            .call(&UPDATE_WEBHOOK, &[id], &[], Some(body), options)
            .await?;
        reply.tagged()
    }

    /// `deleteWebhook`.
    ///
    /// # Errors
    /// As [`Client::list_webhooks`].
    pub async fn delete_webhook(&self, id: &str, options: &WriteOptions) -> Result<(), Error> {
        self.call(&DELETE_WEBHOOK, &[id], &[], NO_BODY, options)
            .await?;
        Ok(())
    }

    /// `rotateWebhookSecret`: a new secret (the previous one keeps signing for 24 hours).
    ///
    /// # Errors
    /// As [`Client::list_webhooks`].
    pub async fn rotate_webhook_secret(
        &self,
        id: &str,
        options: &WriteOptions,
    ) -> Result<WebhookWithSecret, Error> {
        let reply = self
            .call(&ROTATE_WEBHOOK_SECRET, &[id], &[], NO_BODY, options)
            .await?;
        reply.data()
    }

    /// `testWebhook`: queues a sample event to the endpoint.
    ///
    /// # Errors
    /// As [`Client::list_webhooks`].
    pub async fn test_webhook(
        &self,
        id: &str,
        body: &TestWebhookBody,
        options: &WriteOptions,
    ) -> Result<Delivery, Error> {
        let reply = self
            .call(&TEST_WEBHOOK, &[id], &[], Some(body), options)
            .await?;
        reply.data()
    }

    /// `listWebhookDeliveries`: a page of an endpoint's deliveries, newest first, in one status
    /// when given.
    ///
    /// # Errors
    /// As [`Client::list_webhooks`].
    pub async fn list_webhook_deliveries(
        &self,
        id: &str,
        status: Option<DeliveryStatus>,
        page: PageRequest,
    ) -> Result<List<Delivery>, Error> {
        let mut query = page.query();
        if let Some(status) = status {
            query.push(("status", status.as_str().to_owned()));
        }
        let none = WriteOptions::default();
        let reply = self
            .call(&LIST_WEBHOOK_DELIVERIES, &[id], &query, NO_BODY, &none)
            .await?;
        reply.json()
    }

    /// `redeliverWebhook`: a new delivery of a delivery's event.
    ///
    /// # Errors
    /// As [`Client::list_webhooks`].
    pub async fn redeliver_webhook(
        &self,
        delivery: &str,
        options: &WriteOptions,
    ) -> Result<Delivery, Error> {
        let reply = self
            .call(&REDELIVER_WEBHOOK, &[delivery], &[], NO_BODY, options)
            .await?;
        reply.data()
    }

    /// `listEvents`: a page of the team's event feed, oldest first, of one event when given.
    ///
    /// # Errors
    /// As [`Client::list_webhooks`].
    pub async fn list_events(
        &self,
        event: Option<WebhookEvent>,
        page: PageRequest,
    ) -> Result<List<Event>, Error> {
        let mut query = page.query();
        if let Some(event) = event {
            query.push(("event", event.as_str().to_owned()));
        }
        let none = WriteOptions::default();
        let reply = self.call(&LIST_EVENTS, &[], &query, NO_BODY, &none).await?;
        reply.json()
    }
}
