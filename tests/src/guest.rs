//! The guest page as the tests use it: share links, pages opened and forms posted without any
//! key, and the page parsed to find inputs by their labels, as a person would.

use reqwest::Method;
use scraper::{ElementRef, Html, Selector};
use serde_json::json;

use crate::app::TestApp;
use crate::reply::Reply;

/// A run's share link, as the invite answered it.
#[derive(Clone, Debug)]
pub struct GuestLink {
    /// The run.
    pub run_id: String,
    /// The link's token.
    pub token: String,
}

impl GuestLink {
    /// `/instance/<run>?token=<token>`.
    #[must_use]
    pub fn page(&self) -> String {
        format!("/instance/{}?token={}", self.run_id, self.token)
    }

    /// Where a task's comment form posts.
    #[must_use]
    pub fn comments(&self, task_id: &str) -> String {
        format!(
            "/instance/{}/tasks/{task_id}/comments?token={}",
            self.run_id, self.token
        )
    }

    /// Where a task's upload form posts.
    #[must_use]
    pub fn attachments(&self, task_id: &str) -> String {
        format!(
            "/instance/{}/tasks/{task_id}/attachments?token={}",
            self.run_id, self.token
        )
    }

    /// Where the page links an attachment's bytes.
    #[must_use]
    pub fn file(&self, attachment_id: &str) -> String {
        format!(
            "/instance/{}/attachments/{attachment_id}?token={}",
            self.run_id, self.token
        )
    }

    /// Where a task's form posts.
    #[must_use]
    pub fn task(&self, task_id: &str) -> String {
        format!(
            "/instance/{}/tasks/{task_id}?token={}",
            self.run_id, self.token
        )
    }
}

/// The boundary of [`multipart_file`] bodies.
pub const BOUNDARY: &str = "procflow-guest-boundary-3c9e";

/// The `Content-Type` of [`multipart_file`] bodies.
pub const MULTIPART: &str = "multipart/form-data; boundary=procflow-guest-boundary-3c9e";

/// A `multipart/form-data` body of one part `file` with this filename, type and bytes, as a
/// browser sends a file input; its `Content-Type` is `multipart/form-data; boundary=`
/// [`BOUNDARY`].
#[must_use]
pub fn multipart_file(filename: &str, content_type: &str, bytes: &[u8]) -> Vec<u8> {
    let mut body = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{filename}\"\r\nContent-Type: {content_type}\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    body
}

/// `fields` as a browser encodes a form (`application/x-www-form-urlencoded`).
#[must_use]
pub fn form_body(fields: &[(&str, &str)]) -> String {
    let mut body = url::form_urlencoded::Serializer::new(String::new());
    for (name, value) in fields {
        body.append_pair(name, value);
    }
    body.finish()
}

impl TestApp {
    /// Shares a run (with the guest's email, if given) and returns its link.
    pub async fn share(&self, run_id: &str, email: Option<&str>) -> GuestLink {
        let body = email.map_or_else(|| json!({}), |email| json!({"email": email}));
        let share = self
            .post(&format!("/api/v1/process-runs/{run_id}/invite"), &body)
            .await
            .data(200);
        let url = share["share_url"].as_str().expect("share_url");
        let path = url
            .strip_prefix(self.base())
            .unwrap_or_else(|| panic!("{url} is not on {}", self.base()));
        let token = path.split("?token=").nth(1).expect("a token").to_owned();
        assert_eq!(path, format!("/instance/{run_id}?token={token}"));
        GuestLink {
            run_id: run_id.to_owned(),
            token,
        }
    }

    /// `GET path` without any key, as a guest's browser asks it.
    pub async fn open_page(&self, path: &str) -> Reply {
        self.call(Method::GET, path).no_key().send().await
    }

    /// `POST path` of a multipart body ([`multipart_file`]), without any key.
    pub async fn post_multipart(&self, path: &str, body: Vec<u8>) -> Reply {
        self.call(Method::POST, path)
            .no_key()
            .raw(body, Some(MULTIPART))
            .send()
            .await
    }

    /// `POST path` of a form, without any key.
    pub async fn post_form(&self, path: &str, fields: &[(&str, &str)]) -> Reply {
        self.call(Method::POST, path)
            .no_key()
            .raw(form_body(fields), Some("application/x-www-form-urlencoded"))
            .send()
            .await
    }
}

/// A guest page, parsed.
pub struct Page {
    html: Html,
}

fn select(selector: &str) -> Selector {
    Selector::parse(selector).unwrap_or_else(|e| panic!("selector {selector}: {e}"))
}

/// The text of an element, whitespace collapsed.
#[must_use]
pub fn text(element: ElementRef<'_>) -> String {
    element
        .text()
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

impl Page {
    /// Parses a page.
    #[must_use]
    pub fn parse(reply: &Reply) -> Self {
        Self {
            html: Html::parse_document(&reply.text),
        }
    }

    /// Every element matching `selector`.
    #[must_use]
    pub fn all(&self, selector: &str) -> Vec<ElementRef<'_>> {
        self.html.select(&select(selector)).collect()
    }

    /// The one element matching `selector`.
    #[must_use]
    #[track_caller]
    pub fn one(&self, selector: &str) -> ElementRef<'_> {
        let found = self.all(selector);
        assert_eq!(found.len(), 1, "{selector}: {} matches", found.len());
        found[0]
    }

    /// The text of the page's `<body>`.
    #[must_use]
    pub fn body_text(&self) -> String {
        text(self.one("body"))
    }

    /// A task's item (`li#task-<id>`).
    #[must_use]
    #[track_caller]
    pub fn task(&self, task_id: &str) -> ElementRef<'_> {
        self.one(&format!("li#task-{task_id}"))
    }

    /// A task's form, when the guest may act on it (not its comment form, which every
    /// visible task has, nor its upload form).
    #[must_use]
    pub fn form(&self, task_id: &str) -> Option<ElementRef<'_>> {
        self.task(task_id)
            .select(&select("form:not(.comment-form):not(.upload-form)"))
            .next()
    }

    /// A task's upload form, when the guest may attach files to it.
    #[must_use]
    pub fn upload_form(&self, task_id: &str) -> Option<ElementRef<'_>> {
        self.task(task_id)
            .select(&select("form.upload-form"))
            .next()
    }

    /// A task's files, oldest first, as (filename, size, uploader, download link).
    #[must_use]
    pub fn files(&self, task_id: &str) -> Vec<(String, String, String, String)> {
        self.task(task_id)
            .select(&select("li.file"))
            .map(|file| {
                let link = file.select(&select("a.file-name")).next();
                let part = |selector: &str| file.select(&select(selector)).next().map(text);
                (
                    link.map(text).unwrap_or_default(),
                    part(".file-size").unwrap_or_default(),
                    part(".uploader").unwrap_or_default(),
                    link.and_then(|a| a.value().attr("href"))
                        .unwrap_or_default()
                        .to_owned(),
                )
            })
            .collect()
    }

    /// A task's comment form.
    #[must_use]
    pub fn comment_form(&self, task_id: &str) -> Option<ElementRef<'_>> {
        self.task(task_id)
            .select(&select("form.comment-form"))
            .next()
    }

    /// A task's comments, oldest first, as (author, text) pairs; a deleted one's text is
    /// what the page says instead.
    #[must_use]
    pub fn comments(&self, task_id: &str) -> Vec<(String, String)> {
        self.task(task_id)
            .select(&select("li.comment"))
            .map(|comment| {
                let author = comment.select(&select(".author")).next().map(text);
                let body = comment.select(&select(".comment-text")).next().map(text);
                (author.unwrap_or_default(), body.unwrap_or_default())
            })
            .collect()
    }

    /// The control a `<label>` (or a fieldset's `<legend>`) whose text starts with `label`
    /// names, within a task.
    #[must_use]
    #[track_caller]
    pub fn control(&self, task_id: &str, label: &str) -> ElementRef<'_> {
        let task = self.task(task_id);
        let by_label = task
            .select(&select("label"))
            .find(|l| text(*l).starts_with(label))
            .and_then(|l| l.value().attr("for"))
            .map(str::to_owned);
        let id = by_label.unwrap_or_else(|| {
            task.select(&select("fieldset"))
                .find(|f| {
                    f.select(&select("legend"))
                        .next()
                        .is_some_and(|l| text(l).starts_with(label))
                })
                .and_then(|f| f.value().attr("id"))
                .unwrap_or_else(|| panic!("task {task_id} has no control labelled {label:?}"))
                .to_owned()
        });
        self.one(&format!("#{id}"))
    }

    /// The error shown beside a control (`aria-describedby`), if any.
    #[must_use]
    pub fn error_of(&self, control: ElementRef<'_>) -> Option<String> {
        let id = control.value().attr("aria-describedby")?;
        Some(text(self.one(&format!("#{id}"))))
    }

    /// The buttons of a task's form(s), by their visible text (not its comment form's nor its
    /// upload form's).
    #[must_use]
    pub fn buttons(&self, task_id: &str) -> Vec<String> {
        self.task(task_id)
            .select(&select("form:not(.comment-form):not(.upload-form) button"))
            .map(text)
            .collect()
    }
}
