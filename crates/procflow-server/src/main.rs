//! `procflow`: the server and its operator commands (see `procflow --help`).

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    procflow_server::run(procflow_server::Cli::parse())
}
