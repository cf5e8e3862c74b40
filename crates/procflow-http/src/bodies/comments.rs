//! The bodies of the comment operations (API contract 14.1) read into the domain's requests.

use procflow_domain::ids::AttachmentId;
use procflow_domain::service::AddComment;

use super::{CreateCommentBody, IntoRequest, UpdateCommentBody, actor_email};
use crate::error::ApiError;

impl IntoRequest for CreateCommentBody {
    type Request = AddComment;

    /// The domain's request; the text is checked by the use case.
    ///
    /// # Errors
    /// 400 for an attachment id that is no id, or an `actor_email` with NUL.
    fn into_request(self) -> Result<AddComment, ApiError> {
        let attachment_ids = self
            .attachment_ids
            .iter()
            .enumerate()
            .map(|(i, text)| {
                text.parse::<uuid::Uuid>()
                    .map(AttachmentId::from_uuid)
                    .map_err(|_| {
                        ApiError::invalid_field(
                            &format!("attachment_ids[{i}]"),
                            "is not an attachment id (a UUID)",
                        )
                    })
            })
            .collect::<Result<_, _>>()?;
        Ok(AddComment {
            text: self.text,
            actor_email: actor_email(self.actor_email)?,
            attachment_ids,
        })
    }
}

impl IntoRequest for UpdateCommentBody {
    type Request = String;

    /// The new text; checked by the use case.
    ///
    /// # Errors
    /// None: every text is read, the use case refuses.
    fn into_request(self) -> Result<String, ApiError> {
        Ok(self.text)
    }
}
