//! procflow-testkit: see the crate README.
