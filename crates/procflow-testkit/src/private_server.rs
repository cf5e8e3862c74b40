//! Private PostgreSQL clusters: initdb in a temp directory, tuned for tests; the process-wide
//! server of the tests, and the clusters behind [`DisposableServer`](crate::DisposableServer).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::binaries::Binaries;
use crate::error::Error;
use crate::watchdog::{self, Watchdog};

/// How often to try another port when the one the OS offered was taken meanwhile.
const START_ATTEMPTS: usize = 3;

/// How long `pg_ctl start -w` may wait for the server to accept connections, in seconds.
const START_TIMEOUT_SECS: &str = "60";

/// Settings appended to `postgresql.conf`: fast and disposable, never durable.
const SETTINGS: &[(&str, &str)] = &[
    ("listen_addresses", "'127.0.0.1'"),
    ("max_connections", "300"),
    ("fsync", "off"),
    ("synchronous_commit", "off"),
    ("full_page_writes", "off"),
    // A prepared transaction keeps its locks when its session ends, as at a shutdown: the
    // fault tests hold a lock through a stop with one.
    ("max_prepared_transactions", "4"),
];

/// A started private server; it stops when the watchdog sees this process end.
#[derive(Debug)]
pub(crate) struct PrivateServer {
    pub(crate) port: u16,
    _cluster: Cluster,
}

impl PrivateServer {
    /// Creates a cluster in a new temp directory and starts it on a free port of 127.0.0.1.
    pub(crate) fn start() -> Result<Self, Error> {
        let cluster = Cluster::init()?;
        let port = cluster.start_on_free_port()?;
        Ok(Self {
            port,
            _cluster: cluster,
        })
    }
}

/// How `pg_ctl stop` shuts the server down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StopMode {
    /// `-m fast`: clients are told the server is shutting down, then disconnected.
    Fast,
    /// `-m immediate`: every server process quits at once, as in a crash.
    Immediate,
}

impl StopMode {
    fn as_arg(self) -> &'static str {
        match self {
            Self::Fast => "fast",
            Self::Immediate => "immediate",
        }
    }
}

/// A cluster (`initdb`'s data directory) in a temp directory of its own, watched by a
/// watchdog that stops it and removes the directory once this process ends or
/// [`Cluster::remove`] is called.
#[derive(Debug)]
pub(crate) struct Cluster {
    binaries: Binaries,
    owner: Owner,
    dir: PathBuf,
    data: PathBuf,
    log: PathBuf,
    watchdog: Watchdog,
}

impl Cluster {
    /// Creates a new cluster in a new temp directory; it is not started.
    pub(crate) fn init() -> Result<Self, Error> {
        let binaries = Binaries::find()?;
        let owner = Owner::detect()?;
        let dir = new_server_dir(&owner)?;
        let data = dir.join("data");
        let watchdog = watchdog::spawn(&dir, &data, &binaries.pg_ctl, owner.is_root())?;
        let cluster = Self {
            log: dir.join("server.log"),
            binaries,
            owner,
            dir,
            data,
            watchdog,
        };

        let mut initdb = cluster
            .owner
            .command(&cluster.binaries.initdb, &cluster.dir);
        initdb.arg("-D").arg(&cluster.data).args([
            "--no-sync",
            "--auth=trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--locale=C",
        ]);
        run("initdb", &mut initdb)?;
        append_settings(&cluster.data, &cluster.dir)?;
        Ok(cluster)
    }

    /// Starts the server on a free port of 127.0.0.1, trying another port when the one the OS
    /// offered was taken meanwhile; returns the port.
    pub(crate) fn start_on_free_port(&self) -> Result<u16, Error> {
        let mut last_error = None;
        for _ in 0..START_ATTEMPTS {
            let port = crate::ports::free_port()?;
            match self.start_on(port) {
                Ok(()) => return Ok(port),
                Err(err) => {
                    let log_text = std::fs::read_to_string(&self.log).unwrap_or_default();
                    let port_taken =
                        log_text.contains("could not bind") || log_text.contains("already in use");
                    last_error = Some(err);
                    if !port_taken {
                        break;
                    }
                    tracing::debug!(port, "port taken meanwhile; trying another");
                }
            }
        }
        Err(last_error.unwrap_or_else(|| Error::Setup("pg_ctl start was not run".to_owned())))
    }

    /// Starts the server on `port` and waits until it accepts connections.
    pub(crate) fn start_on(&self, port: u16) -> Result<(), Error> {
        let started = Instant::now();
        let mut pg_ctl = self.owner.command(&self.binaries.pg_ctl, &self.dir);
        pg_ctl
            .arg("start")
            .arg("-D")
            .arg(&self.data)
            .arg("-l")
            .arg(&self.log)
            .args(["-w", "-t", START_TIMEOUT_SECS, "-o"])
            .arg(format!("-p {port}"));
        match run("pg_ctl start", &mut pg_ctl) {
            Ok(()) => {
                tracing::info!(
                    port,
                    dir = %self.dir.display(),
                    duration_ms = started.elapsed().as_millis(),
                    "started a private PostgreSQL"
                );
                Ok(())
            }
            Err(err) => {
                let log_text = std::fs::read_to_string(&self.log).unwrap_or_default();
                Err(with_log(err, &log_text))
            }
        }
    }

    /// Stops the server and waits until it is gone.
    pub(crate) fn stop(&self, mode: StopMode) -> Result<(), Error> {
        let started = Instant::now();
        let mut pg_ctl = self.owner.command(&self.binaries.pg_ctl, &self.dir);
        pg_ctl.arg("stop").arg("-D").arg(&self.data).args([
            "-m",
            mode.as_arg(),
            "-w",
            "-t",
            START_TIMEOUT_SECS,
        ]);
        run("pg_ctl stop", &mut pg_ctl)?;
        tracing::info!(
            dir = %self.dir.display(),
            mode = mode.as_arg(),
            duration_ms = started.elapsed().as_millis(),
            "stopped a private PostgreSQL"
        );
        Ok(())
    }

    /// Stops the server if it runs and removes its directory, waiting for the watchdog to
    /// finish.
    pub(crate) fn remove(self) {
        self.watchdog.finish();
    }
}

/// Who runs the server: this user, or `postgres` when this process is root (initdb refuses
/// to run as root).
#[derive(Debug)]
enum Owner {
    Me,
    Postgres { uid: u32, gid: u32 },
}

impl Owner {
    fn detect() -> Result<Self, Error> {
        if id(&["-u"])? != 0 {
            return Ok(Self::Me);
        }
        let user_error = |_| {
            Error::Setup(
                "running as root, the private PostgreSQL must run as the `postgres` user, which \
                 does not exist here: install Debian's `postgresql` package (it creates the \
                 user), run the tests as another user, or set DATABASE_URL"
                    .to_owned(),
            )
        };
        Ok(Self::Postgres {
            uid: id(&["-u", "postgres"]).map_err(user_error)?,
            gid: id(&["-g", "postgres"]).map_err(user_error)?,
        })
    }

    fn is_root(&self) -> bool {
        matches!(self, Self::Postgres { .. })
    }

    /// `program`, run as the owner (through `runuser` when root), in `dir`.
    fn command(&self, program: &Path, dir: &Path) -> Command {
        let mut command = match self {
            Self::Me => Command::new(program),
            Self::Postgres { .. } => {
                let mut command = Command::new("runuser");
                command.args(["-u", "postgres", "--"]).arg(program);
                command
            }
        };
        command.current_dir(dir);
        command
    }
}

/// A new, empty directory under the system temp dir, owned by the server's user.
fn new_server_dir(owner: &Owner) -> Result<PathBuf, Error> {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    let dir = std::env::temp_dir().join(format!(
        "procflow-testkit-pg-{}-{nanos:09}",
        std::process::id()
    ));
    let what = || format!("creating {}", dir.display());
    std::fs::create_dir(&dir).map_err(Error::io(what()))?;
    if let Owner::Postgres { uid, gid } = owner {
        std::os::unix::fs::chown(&dir, Some(*uid), Some(*gid)).map_err(Error::io(what()))?;
    }
    Ok(dir)
}

fn append_settings(data: &Path, socket_dir: &Path) -> Result<(), Error> {
    let conf = data.join("postgresql.conf");
    let mut text = String::from("\n# procflow-testkit: a disposable server for tests\n");
    for (name, value) in SETTINGS {
        let _ = writeln!(text, "{name} = {value}");
    }
    let socket_dir = socket_dir.to_string_lossy().replace('\'', "''");
    let _ = writeln!(text, "unix_socket_directories = '{socket_dir}'");
    let what = || format!("writing {}", conf.display());
    let mut current = std::fs::read_to_string(&conf).map_err(Error::io(what()))?;
    current.push_str(&text);
    std::fs::write(&conf, current).map_err(Error::io(what()))
}

/// `id <args>`: a user or group id.
fn id(args: &[&str]) -> Result<u32, Error> {
    let output = Command::new("id")
        .args(args)
        .output()
        .map_err(Error::io("running id"))?;
    let text = String::from_utf8_lossy(&output.stdout);
    match text.trim().parse() {
        Ok(id) if output.status.success() => Ok(id),
        _ => Err(Error::Setup(format!(
            "id {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ))),
    }
}

/// Runs `command` to completion; its output becomes the error when it fails.
fn run(what: &str, command: &mut Command) -> Result<(), Error> {
    let Output {
        status,
        stdout,
        stderr,
    } = command
        .output()
        .map_err(Error::io(format!("running {what}")))?;
    if status.success() {
        return Ok(());
    }
    Err(Error::Command {
        what: what.to_owned(),
        status,
        output: format!(
            "{}{}",
            String::from_utf8_lossy(&stdout),
            String::from_utf8_lossy(&stderr)
        ),
    })
}

/// Adds the tail of the server log to a failed start's error.
fn with_log(err: Error, log: &str) -> Error {
    let lines: Vec<&str> = log.lines().collect();
    let tail = lines[lines.len().saturating_sub(20)..].join("\n");
    match err {
        Error::Command {
            what,
            status,
            output,
        } => Error::Command {
            what,
            status,
            output: format!("{output}\nserver log (last lines):\n{tail}"),
        },
        other => other,
    }
}
