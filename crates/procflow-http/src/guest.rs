//! The guest page (API contract 7.1): the shared run as an HTML page that needs no JavaScript,
//! one form per task the guest may act on, and a page for every other outcome, all with the
//! same strict headers. Rendered by askama templates (`templates/guest/`) with one stylesheet
//! of ours inlined under a CSP hash; the HTML of `text` elements cleaned by an allowlist.

mod answers;
mod comment;
mod fields;
mod form;
mod limit;
mod markup;
mod messages;
mod page;
mod respond;
mod sanitize;
mod start;
mod start_post;
mod style;

pub(crate) use answers::{
    not_found, refusal, refused_comment, refused_post, refused_upload, see_comment, see_task,
    task_at, too_many, unreadable,
};
pub(crate) use comment::{comment_message, read_comment};
pub(crate) use form::read_form;
pub(crate) use limit::admit_post;
pub(crate) use page::{Link, PageView};
pub(crate) use respond::{address, html, query_token};
pub(crate) use start::{StartEntries, StartPage};
pub(crate) use start_post::{StartForm, admit_start, read_start_form};
