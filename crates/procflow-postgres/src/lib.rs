//! procflow-postgres: see the crate README.
