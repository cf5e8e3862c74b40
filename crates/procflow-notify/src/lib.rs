//! procflow-notify: see the crate README.
