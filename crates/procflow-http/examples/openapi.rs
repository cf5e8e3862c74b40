//! Prints the OpenAPI document of the API, as served at `/api/v1/openapi.json`:
//! `cargo run -q -p procflow-http --example openapi > docs/openapi.json` (`make openapi`).

use std::io::Write as _;

fn main() -> std::io::Result<()> {
    std::io::stdout().write_all(procflow_http::openapi::document_json().as_bytes())
}
