//! Black-box tests of procflow over HTTP live in `tests/`.
