//! procflow-http: see the crate README.
