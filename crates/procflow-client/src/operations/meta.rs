//! The OpenAPI document and the health checks: no key needed (the client sends it anyway; the
//! server ignores it there).

use serde_json::Value;

use super::NO_BODY;
use crate::operation::{GET_OPENAPI, LIVENESS, READINESS};
use crate::{Client, Error, WriteOptions};

impl Client {
    /// `getOpenApi`: the server's OpenAPI 3.1 document.
    ///
    /// # Errors
    /// The API's refusal ([`Error::Api`]) or no answer.
    pub async fn get_openapi(&self) -> Result<Value, Error> {
        let none = WriteOptions::default();
        let reply = self.call(&GET_OPENAPI, &[], &[], NO_BODY, &none).await?;
        reply.json()
    }

    /// `liveness`: `Ok` while the process answers.
    ///
    /// # Errors
    /// As [`Client::get_openapi`].
    pub async fn liveness(&self) -> Result<(), Error> {
        let none = WriteOptions::default();
        self.call(&LIVENESS, &[], &[], NO_BODY, &none).await?;
        Ok(())
    }

    /// `readiness`: `Ok` while the database answers; 503 `unavailable` otherwise.
    ///
    /// # Errors
    /// As [`Client::get_openapi`].
    pub async fn readiness(&self) -> Result<(), Error> {
        let none = WriteOptions::default();
        self.call(&READINESS, &[], &[], NO_BODY, &none).await?;
        Ok(())
    }
}
