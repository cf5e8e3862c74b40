//! procflow-server: see the crate README.
