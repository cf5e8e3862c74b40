//! The start page of a run link (API contract 13.2): the template's title, description and
//! cover image, and a form asking the person's name and email. The guest page's layout,
//! stylesheet and headers; everything from the template is escaped by askama. The honeypot
//! field (`website`) is moved off screen by the stylesheet's `.skip` and hidden from assistive
//! technology: only a robot fills it in.

use askama::Template;
use procflow_domain::template::Template as ProcessTemplate;

use super::style::CSS;

/// The start page.
#[derive(Template)]
#[template(path = "guest/start.html")]
pub(crate) struct StartPage<'a> {
    css: &'static str,
    title: &'a str,
    description: Option<&'a str>,
    cover_image: Option<&'a str>,
    /// Where the form posts: the page's own address, relative (`<token>`), so that it works
    /// under whatever path the team's base URL has.
    action: &'a str,
    /// What a refused post sent, kept, and the refusal beside each field.
    entries: StartEntries,
}

/// The values and refusals of a refused post.
#[derive(Clone, Debug, Default)]
pub(crate) struct StartEntries {
    pub(crate) name: String,
    pub(crate) email: String,
    pub(crate) name_error: Option<String>,
    pub(crate) email_error: Option<String>,
}

impl<'a> StartPage<'a> {
    /// The page of `template`'s link with `token`.
    pub(crate) fn new(template: &'a ProcessTemplate, token: &'a str) -> Self {
        Self {
            css: CSS,
            title: &template.title,
            description: template.description.as_deref().filter(|d| !d.is_empty()),
            // Only web addresses: the CSP allows no other image source anyway.
            cover_image: template
                .cover_image
                .as_deref()
                .filter(|src| src.starts_with("https://") || src.starts_with("http://")),
            action: token,
            entries: StartEntries::default(),
        }
    }

    /// The page again after a refused post.
    pub(crate) fn with_entries(mut self, entries: StartEntries) -> Self {
        self.entries = entries;
        self
    }
}
