//! The guest page in a real headless Chromium, driven over WebDriver: a guest opens the share
//! link, fills fields by their labels, presses Complete and sees the result, finishes a whole
//! run, uses the keyboard alone, attaches a file; hostile content never runs; axe-core finds
//! no serious or critical accessibility violation; screenshots at desktop and phone width are written to
//! `target/guest-page/` to be looked at.
//!
//! `make test` installs Chromium, ChromeDriver and axe-core first (`make browser-tools`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests and their helpers fail loudly"
)]

mod browser {
    pub mod accessibility;
    pub mod attachments;
    pub mod comments;
    pub mod hostile;
    pub mod journeys;
    pub mod logic;
    pub mod run_link;
}
