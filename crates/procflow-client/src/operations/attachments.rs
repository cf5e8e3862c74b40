//! A task's attachments (API contract 14.2): list, upload, download, delete.

use procflow_wire::List;

use super::{Attachment, NO_BODY};
use crate::operation::{
    DELETE_ATTACHMENT, DOWNLOAD_ATTACHMENT, LIST_TASK_ATTACHMENTS, UPLOAD_TASK_ATTACHMENT,
};
use crate::{Client, Error, PageRequest, WriteOptions};

/// The boundary of the uploads this client encodes: a file whose bytes hold it is sent under
/// a longer one.
const BOUNDARY: &str = "procflow-client-boundary-3c8e0f7a";

/// `multipart/form-data` of one part `file`, and its content type.
fn multipart(filename: &str, content_type: &str, bytes: &[u8]) -> (String, Vec<u8>) {
    let mut boundary = BOUNDARY.to_owned();
    while bytes
        .windows(boundary.len())
        .any(|w| w == boundary.as_bytes())
    {
        boundary.push('x');
    }
    // Quotes and line breaks cannot end the header's value.
    let filename: String = filename
        .chars()
        .map(|c| if c == '"' || c.is_control() { '_' } else { c })
        .collect();
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{filename}\"\r\nContent-Type: {content_type}\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

impl Client {
    /// `listTaskAttachments`: a page of a task's attachments, oldest first.
    ///
    /// # Errors
    /// The API's refusal ([`Error::Api`]) or no answer.
    pub async fn list_task_attachments(
        &self,
        run: &str,
        task: &str,
        page: PageRequest,
    ) -> Result<List<Attachment>, Error> {
        let none = WriteOptions::default();
        let reply = self
            .call(
                &LIST_TASK_ATTACHMENTS,
                &[run, task],
                &page.query(),
                NO_BODY,
                &none,
            )
            .await?;
        reply.json()
    }

    /// `uploadTaskAttachment`: attaches `bytes` to a task as `filename` of `content_type`
    /// (`Idempotency-Key` in `options` makes a retry safe). The bytes are sent from memory:
    /// for files larger than memory, post a streamed multipart body with an HTTP client.
    ///
    /// # Errors
    /// As [`Client::list_task_attachments`].
    pub async fn upload_task_attachment(
        &self,
        run: &str,
        task: &str,
        filename: &str,
        content_type: &str,
        bytes: &[u8],
        options: &WriteOptions,
    ) -> Result<Attachment, Error> {
        let (multipart_type, body) = multipart(filename, content_type, bytes);
        let reply = self
            .call_raw(
                &UPLOAD_TASK_ATTACHMENT,
                &[run, task],
                &multipart_type,
                body,
                options,
            )
            .await?;
        reply.data()
    }

    /// `downloadAttachment`: an attachment's bytes.
    ///
    /// # Errors
    /// As [`Client::list_task_attachments`].
    pub async fn download_attachment(&self, id: &str) -> Result<Vec<u8>, Error> {
        let none = WriteOptions::default();
        let reply = self
            .call(&DOWNLOAD_ATTACHMENT, &[id], &[], NO_BODY, &none)
            .await?;
        Ok(reply.into_bytes())
    }

    /// `deleteAttachment`: its row and its bytes.
    ///
    /// # Errors
    /// As [`Client::list_task_attachments`].
    pub async fn delete_attachment(&self, id: &str, options: &WriteOptions) -> Result<(), Error> {
        self.call(&DELETE_ATTACHMENT, &[id], &[], NO_BODY, options)
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_boundary_never_occurs_in_the_bytes_it_frames() {
        let bytes = format!("a{BOUNDARY}b");
        let (content_type, body) = multipart("a\"b\r\n.txt", "text/plain", bytes.as_bytes());
        let boundary = content_type.split("boundary=").nth(1).unwrap();
        assert_eq!(boundary, format!("{BOUNDARY}x"));
        let text = String::from_utf8(body).unwrap();
        assert!(text.contains("filename=\"a_b__.txt\""), "{text}");
    }
}
