//! Tears the private server down when this process ends, however it ends.
//!
//! Rust runs no destructors for statics, and a test process may panic, be killed or be
//! interrupted. So a tiny `sh` process holds the read end of a pipe whose write end only this
//! process holds: when this process ends for any reason the kernel closes the pipe, the
//! watchdog's `read` sees end-of-file, and it stops PostgreSQL (`pg_ctl stop -m immediate`,
//! then SIGKILL if that failed) and removes the server's directory. It ignores terminal
//! signals and runs in its own process group, so Ctrl-C on `cargo test` does not stop it
//! before it has cleaned up.

use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::Error;

/// `$1` the server's directory, `$2` its data directory, `$3` pg_ctl, `$4` "root" when pg_ctl
/// must run as the `postgres` user.
const SCRIPT: &str = r#"
trap '' HUP INT QUIT TERM PIPE
while read -r _; do :; done
if [ -f "$2/postmaster.pid" ]; then
  if [ "$4" = root ]; then
    runuser -u postgres -- "$3" stop -D "$2" -m immediate -w -t 20 >/dev/null 2>&1
  else
    "$3" stop -D "$2" -m immediate -w -t 20 >/dev/null 2>&1
  fi
  if [ -f "$2/postmaster.pid" ]; then
    pid=$(head -n 1 "$2/postmaster.pid")
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
    sleep 1
  fi
fi
rm -rf "$1"
"#;

/// How long [`Watchdog::finish`] waits for the cleanup (the script's `pg_ctl stop` may take
/// 20 s, then a `kill -9` and a second).
const FINISH_TIMEOUT: Duration = Duration::from_secs(40);

/// The running watchdog; keeping it alive keeps the pipe open. The process-wide server's is
/// never dropped (the process's end triggers the cleanup); a disposable server's is finished
/// when the server is dropped.
#[derive(Debug)]
pub(crate) struct Watchdog {
    process: Child,
    lifeline: ChildStdin,
}

impl Watchdog {
    /// Triggers the cleanup now (closes the pipe) and waits, at most 40 s, for it to finish.
    pub(crate) fn finish(self) {
        let Self {
            mut process,
            lifeline,
        } = self;
        drop(lifeline);
        let deadline = Instant::now() + FINISH_TIMEOUT;
        loop {
            match process.try_wait() {
                Ok(Some(_)) => return,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Ok(None) => {
                    tracing::warn!(
                        "the watchdog's cleanup did not finish within {FINISH_TIMEOUT:?}"
                    );
                    return;
                }
                Err(err) => {
                    tracing::warn!(error = %err, "could not wait for the watchdog's cleanup");
                    return;
                }
            }
        }
    }
}

/// Starts a watchdog that, once this process is gone, stops the server in `dir/data` and
/// removes `dir`.
pub(crate) fn spawn(
    dir: &Path,
    data: &Path,
    pg_ctl: &Path,
    as_root: bool,
) -> Result<Watchdog, Error> {
    let mut process = Command::new("sh")
        .arg("-c")
        .arg(SCRIPT)
        .arg("procflow-testkit-watchdog")
        .arg(dir)
        .arg(data)
        .arg(pg_ctl)
        .arg(if as_root { "root" } else { "" })
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(Error::io("starting the private server's watchdog (sh)"))?;
    let Some(lifeline) = process.stdin.take() else {
        return Err(Error::Setup("the watchdog has no stdin pipe".to_owned()));
    };
    Ok(Watchdog { process, lifeline })
}
