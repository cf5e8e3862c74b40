//! `procflow`: the server and its operator commands (see `procflow --help`).

use std::process::ExitCode;

use clap::Parser;

/// jemalloc rather than the system's malloc: a request allocates and frees many small values
/// (rows, their JSON, the answer's pieces), and glibc's malloc and free were about a tenth of
/// the server's instructions on a list of tasks and more on a task's completion
/// (docs/performance.md, "The allocator").
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    procflow_server::run(procflow_server::Cli::parse())
}
