//! The per-key rate limit gate (filled in by the rate-limit work).
