//! The command line: `procflow serve | migrate | admin ...`; every setting can also come from
//! the environment variable its `--help` names.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use std::str::FromStr;

use clap::builder::{BoolishValueParser, PossibleValuesParser, TypedValueParser};
use clap::{ArgAction, Args, Parser, Subcommand};
use procflow_domain::duration::DurationRule;
use procflow_domain::ids::{ApiKeyId, EventId, TeamId};
use procflow_domain::names::UnknownName;
use procflow_domain::team::{KeyScope, Role, Subscription};
use procflow_domain::values::Email;

use procflow_http::HttpConfig;
use procflow_postgres::PoolConfig;

use crate::config::{BaseUrl, DatabaseUrl, LogFormat, ServeConfig, Timezone};
use crate::setting;
use crate::worker::WorkerArgs;

/// procflow: a process-workflow service with a JSON REST API.
#[derive(Debug, Parser)]
#[command(name = "procflow", version, propagate_version = true)]
#[command(after_help = "Admin commands print one JSON object on stdout; logs go to stderr.")]
pub struct Cli {
    /// Settings every command reads.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Settings every command reads.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// PostgreSQL to use, postgres://user:password@host:port/database (required by every
    /// command)
    #[arg(
        long,
        env = "DATABASE_URL",
        global = true,
        hide_env_values = true,
        display_order = 100
    )]
    pub database_url: Option<DatabaseUrl>,
    /// How log lines are written on stderr
    #[arg(
        long,
        env = "PROCFLOW_LOG_FORMAT",
        global = true,
        value_enum,
        default_value_t = LogFormat::Text,
        display_order = 101
    )]
    pub log_format: LogFormat,
    /// Which log lines are written: a tracing filter such as `info` or `procflow=debug,warn`
    #[arg(
        long,
        env = "RUST_LOG",
        global = true,
        default_value = "info",
        display_order = 102
    )]
    pub log_filter: String,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the API and the guest pages, and deliver webhooks, until SIGTERM (graceful) or Ctrl-C
    Serve(ServeArgs),
    /// Deliver webhooks only (no API), until SIGTERM (graceful) or Ctrl-C; also sweeps the
    /// attachment bytes that no row names
    Worker(WorkerCommand),
    /// Apply pending database migrations; prints {"applied": the versions applied}
    Migrate,
    /// Manage teams, members, API keys and templates; each prints one JSON object
    Admin(AdminArgs),
    /// Serve the Model Context Protocol on stdio for an AI agent, as a client of the procflow
    /// API at PROCFLOW_API_URL with the key PROCFLOW_API_KEY (docs/mcp.md)
    Mcp,
}

/// Where the server listens and how clients reach it.
#[derive(Clone, Debug, Args)]
pub struct AddressArgs {
    /// Address to listen on
    #[arg(long, env = "PROCFLOW_BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    /// The server's own address as clients reach it; the default base URL of new teams
    /// [default: http:// + the bind address]
    #[arg(long, env = "PROCFLOW_PUBLIC_URL")]
    pub public_url: Option<BaseUrl>,
}

impl AddressArgs {
    /// `--public-url`, else `http://` + the bind address.
    #[must_use]
    pub fn public_url(&self) -> BaseUrl {
        self.public_url
            .clone()
            .unwrap_or_else(|| BaseUrl::of_bind(self.bind))
    }
}

/// `procflow serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Where to listen.
    #[command(flatten)]
    pub address: AddressArgs,
    /// Requests accepted per API key in any rolling 60 seconds
    #[arg(
        long,
        env = "PROCFLOW_RATE_LIMIT_PER_MINUTE",
        default_value_t = HttpConfig::DEFAULT_RATE_LIMIT_PER_MINUTE,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub rate_limit_per_minute: u32,
    /// Guest posts (form submissions on a share link) accepted per run in any rolling 60
    /// seconds
    #[arg(
        long,
        env = "PROCFLOW_GUEST_POSTS_PER_MINUTE",
        default_value_t = HttpConfig::DEFAULT_GUEST_POSTS_PER_MINUTE_PER_RUN,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub guest_posts_per_minute: u32,
    /// Guest posts accepted per client address (IPv6: per /64) in any rolling 60 seconds
    #[arg(
        long,
        env = "PROCFLOW_GUEST_POSTS_PER_MINUTE_PER_ADDRESS",
        default_value_t = HttpConfig::DEFAULT_GUEST_POSTS_PER_MINUTE_PER_ADDRESS,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub guest_posts_per_minute_per_address: u32,
    /// Runs started from one run link (its public start page) in any rolling hour
    #[arg(
        long,
        env = "PROCFLOW_RUN_LINK_STARTS_PER_HOUR",
        default_value_t = HttpConfig::DEFAULT_RUN_LINK_STARTS_PER_HOUR_PER_LINK,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub run_link_starts_per_hour: u32,
    /// Runs started from run links per client address (IPv6: per /64) in any rolling 60
    /// seconds
    #[arg(
        long,
        env = "PROCFLOW_RUN_LINK_STARTS_PER_MINUTE_PER_ADDRESS",
        default_value_t = HttpConfig::DEFAULT_RUN_LINK_STARTS_PER_MINUTE_PER_ADDRESS,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub run_link_starts_per_minute_per_address: u32,
    /// Connections to PostgreSQL at most
    #[arg(
        long,
        env = "PROCFLOW_DB_POOL_SIZE",
        default_value_t = PoolConfig::DEFAULT_MAX_SIZE,
        value_parser = clap::value_parser!(u16).range(1..)
    )]
    pub db_pool_size: u16,
    /// HTTP worker threads [default: one per CPU core]
    #[arg(long, env = "PROCFLOW_HTTP_WORKERS", value_parser = clap::value_parser!(u16).range(1..))]
    pub http_workers: Option<u16>,
    /// How long a request head may take to arrive (from the connection's start, or a later
    /// request's first byte): 500ms, 30s, 5m, 2h or 1d, from 100ms to 1h; a slower one answers
    /// 408 and ends its connection
    #[arg(
        long,
        env = "PROCFLOW_REQUEST_HEAD_TIMEOUT",
        value_name = "DURATION",
        default_value = "5s",
        value_parser = setting::duration(TRANSPORT_TIMEOUT)
    )]
    pub request_head_timeout: Duration,
    /// How long a request body may take to arrive after its head: 500ms, 30s, 5m, 2h or 1d,
    /// from 100ms to 1h; a slower one answers 408 and ends its connection
    #[arg(
        long,
        env = "PROCFLOW_REQUEST_BODY_TIMEOUT",
        value_name = "DURATION",
        default_value = "30s",
        value_parser = setting::duration(TRANSPORT_TIMEOUT)
    )]
    pub request_body_timeout: Duration,
    /// How long a response may wait for the client to take it (the server's output to the
    /// connection blocked): 500ms, 30s, 5m, 2h or 1d, from 100ms to 1h; then the connection
    /// ends
    #[arg(
        long,
        env = "PROCFLOW_RESPONSE_WRITE_TIMEOUT",
        value_name = "DURATION",
        default_value = "30s",
        value_parser = setting::duration(TRANSPORT_TIMEOUT)
    )]
    pub response_write_timeout: Duration,
    /// Where attachments' bytes are stored: file:///absolute/path (a local directory, created
    /// when missing) or s3://bucket?endpoint=URL&region=NAME (credentials from the AWS_*
    /// variables) [default: .data/files under the working directory]
    #[arg(long, env = "PROCFLOW_STORAGE_URL", value_name = "URL")]
    pub storage_url: Option<crate::storage::StorageSetting>,
    /// The largest attachment accepted, in bytes; a larger one is refused with 413
    #[arg(
        long,
        env = "PROCFLOW_UPLOAD_MAX_BYTES",
        default_value_t = HttpConfig::DEFAULT_UPLOAD_MAX_BYTES,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub upload_max_bytes: u64,
    /// The bytes of the latest uploads a local storage directory leaves in the kernel's page
    /// cache, so that a file just uploaded is read back from memory; an older upload's pages
    /// are let go once newer ones pass it (0 keeps none). A bucket's uploads ignore it
    #[arg(
        long,
        env = "PROCFLOW_UPLOAD_CACHE_BYTES",
        default_value_t = procflow_files::DEFAULT_UPLOAD_CACHE_BYTES
    )]
    pub upload_cache_bytes: u64,
    /// Run the delivery worker in this process (true|false); run `procflow worker` elsewhere
    /// when false
    #[arg(
        long,
        env = "PROCFLOW_WORKER",
        default_value_t = true,
        action = ArgAction::Set,
        value_parser = BoolishValueParser::new()
    )]
    pub worker: bool,
    /// How webhooks are delivered.
    #[command(flatten)]
    pub delivery: WorkerArgs,
}

impl ServeArgs {
    /// The server's configuration for `database_url`.
    #[must_use]
    pub fn into_config(self, database_url: DatabaseUrl) -> ServeConfig {
        ServeConfig {
            database_url,
            public_url: self.address.public_url(),
            db_pool_size: usize::from(self.db_pool_size),
            http: HttpConfig {
                rate_limit_per_minute: self.rate_limit_per_minute,
                workers: self.http_workers.map(usize::from),
                guest_posts_per_minute_per_run: self.guest_posts_per_minute,
                guest_posts_per_minute_per_address: self.guest_posts_per_minute_per_address,
                run_link_starts_per_hour_per_link: self.run_link_starts_per_hour,
                run_link_starts_per_minute_per_address: self.run_link_starts_per_minute_per_address,
                head_timeout: self.request_head_timeout,
                body_timeout: self.request_body_timeout,
                write_timeout: self.response_write_timeout,
                upload_max_bytes: self.upload_max_bytes,
                ..HttpConfig::default()
            },
            smtp_url: self.delivery.smtp_url.clone(),
            smtp_from: self.delivery.smtp_from.to_string(),
            webhook_allow_private: self.delivery.webhook_allow_private,
            worker: self.worker.then(|| self.delivery.settings()),
            storage_url: self
                .storage_url
                .map_or_else(crate::storage::default_local, |setting| *setting.0),
            upload_cache_bytes: self.upload_cache_bytes,
        }
    }
}

/// `PROCFLOW_REQUEST_HEAD_TIMEOUT`, `PROCFLOW_REQUEST_BODY_TIMEOUT` and
/// `PROCFLOW_RESPONSE_WRITE_TIMEOUT`: new settings, so a unit is required.
pub const TRANSPORT_TIMEOUT: DurationRule =
    DurationRule::new(Duration::from_millis(100), Duration::from_secs(3_600));

/// `procflow worker`: the delivery worker alone, with `/metrics` and `/healthz`.
#[derive(Debug, Args)]
pub struct WorkerCommand {
    /// Address to serve /metrics and /healthz on
    #[arg(long, env = "PROCFLOW_BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    /// Connections to PostgreSQL at most
    #[arg(
        long,
        env = "PROCFLOW_DB_POOL_SIZE",
        default_value_t = 4,
        value_parser = clap::value_parser!(u16).range(1..)
    )]
    pub db_pool_size: u16,
    /// Where attachments' bytes are stored, as for `procflow serve`: the worker sweeps the
    /// bytes no row names there [default: .data/files under the working directory]
    #[arg(long, env = "PROCFLOW_STORAGE_URL", value_name = "URL")]
    pub storage_url: Option<crate::storage::StorageSetting>,
    /// How webhooks are delivered.
    #[command(flatten)]
    pub delivery: WorkerArgs,
}

impl WorkerCommand {
    /// The storage it sweeps: `--storage-url`, else `procflow serve`'s default.
    #[must_use]
    pub fn storage_url(&self) -> crate::storage::StorageUrl {
        self.storage_url
            .as_ref()
            .map_or_else(crate::storage::default_local, |setting| {
                (*setting.0).clone()
            })
    }
}

/// `procflow admin`.
#[derive(Debug, Args)]
pub struct AdminArgs {
    /// Which admin command.
    #[command(subcommand)]
    pub command: AdminCommand,
}

/// The admin commands; each prints one JSON object on stdout.
#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Create a team with its first admin; prints {"team_id","admin_user_id"}
    CreateTeam(CreateTeam),
    /// Add a member to a team; prints {"user_id"}
    AddMember(AddMember),
    /// Change a member's active flag or role; prints {"user_id","active","role"}
    SetMember(SetMember),
    /// Create an API key (shown once) for an active admin; prints
    /// {"key_id","key","prefix","scope"}
    CreateApiKey(CreateApiKey),
    /// List a team's API keys (never the keys themselves); prints {"keys":[...]}
    ListApiKeys(ListApiKeys),
    /// Revoke an API key at once; prints {"revoked":true,"key_id"}
    RevokeApiKey(RevokeApiKey),
    /// Turn a team's API on (active) or off (inactive); prints {"team_id","status"}
    SetSubscription(SetSubscription),
    /// Create a template from an authoring document; prints {"template_id","version",...}
    ImportTemplate(ImportTemplate),
    /// Outbox events set aside because they cannot be read: list them (--dead; prints
    /// {"dead":[...]}) or re-queue one after fixing its cause (--retry ID; prints
    /// {"requeued":true,"event_id"})
    Outbox(OutboxCommand),
}

/// `admin outbox`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("action").required(true).args(["dead", "retry"])))]
pub struct OutboxCommand {
    /// List the events set aside, oldest first, with when and why
    #[arg(long)]
    pub dead: bool,
    /// Re-queue the event set aside with this id; it is dispatched again at once
    #[arg(long, value_name = "ID")]
    pub retry: Option<EventId>,
    /// With --dead: list at most this many
    #[arg(long, default_value_t = 100, conflicts_with = "retry", value_parser = clap::value_parser!(u16).range(1..=10_000))]
    pub limit: u16,
}

/// `admin create-team`.
#[derive(Debug, Args)]
pub struct CreateTeam {
    /// The team's name
    #[arg(long)]
    pub name: String,
    /// The team's own address; share links are built on it [default: the public URL]
    #[arg(long)]
    pub base_url: Option<BaseUrl>,
    /// IANA time zone name; runs take it (checked for shape only)
    #[arg(long, default_value = "UTC")]
    pub timezone: Timezone,
    /// Email of the team's first admin
    #[arg(long)]
    pub admin_email: Email,
    /// Name of the team's first admin
    #[arg(long)]
    pub admin_name: Option<String>,
    /// The server's address, for the default base URL.
    #[command(flatten)]
    pub address: AddressArgs,
}

/// A parser of the names of a domain enum (`Role`, `Subscription`, ...): `--help` lists the
/// names, and the domain's `FromStr` reads them, so the command line spells them as the API and
/// the store do.
fn named<T>(names: &'static [&'static str]) -> impl TypedValueParser<Value = T>
where
    T: FromStr<Err = UnknownName> + Clone + Send + Sync + 'static,
{
    PossibleValuesParser::new(names).try_map(|text| text.parse::<T>())
}

/// `admin add-member`.
#[derive(Debug, Args)]
pub struct AddMember {
    /// The team's id
    #[arg(long)]
    pub team: TeamId,
    /// The member's email (unique in the team, ignoring case)
    #[arg(long)]
    pub email: Email,
    /// The member's name
    #[arg(long)]
    pub name: Option<String>,
    /// The member's role
    #[arg(long, value_parser = named::<Role>(Role::NAMES), default_value = Role::Member.as_str())]
    pub role: Role,
}

/// `admin set-member`.
#[derive(Debug, Args)]
pub struct SetMember {
    /// The team's id
    #[arg(long)]
    pub team: TeamId,
    /// The member's email
    #[arg(long)]
    pub email: Email,
    /// Whether the member is active (true|false) [default: unchanged]
    #[arg(long, action = ArgAction::Set)]
    pub active: Option<bool>,
    /// The member's role [default: unchanged]
    #[arg(long, value_parser = named::<Role>(Role::NAMES))]
    pub role: Option<Role>,
}

/// `admin create-api-key`.
#[derive(Debug, Args)]
pub struct CreateApiKey {
    /// The team's id
    #[arg(long)]
    pub team: TeamId,
    /// Email of the active admin who creates the key
    #[arg(long)]
    pub admin_email: Email,
    /// A label for the key
    #[arg(long)]
    pub name: Option<String>,
    /// What the key may do: `read` calls only operations that change nothing (GET), `write`
    /// every operation
    #[arg(long, value_parser = named::<KeyScope>(KeyScope::NAMES), default_value = KeyScope::Write.as_str())]
    pub scope: KeyScope,
}

/// `admin list-api-keys`.
#[derive(Debug, Args)]
pub struct ListApiKeys {
    /// The team's id
    #[arg(long)]
    pub team: TeamId,
}

/// `admin revoke-api-key`.
#[derive(Debug, Args)]
pub struct RevokeApiKey {
    /// The team's id
    #[arg(long)]
    pub team: TeamId,
    /// The key's id (`key_id` of create-api-key)
    #[arg(long)]
    pub key_id: ApiKeyId,
}

/// `admin set-subscription`.
#[derive(Debug, Args)]
pub struct SetSubscription {
    /// The team's id
    #[arg(long)]
    pub team: TeamId,
    /// The new status
    #[arg(long, value_parser = named::<Subscription>(Subscription::NAMES))]
    pub status: Subscription,
}

/// `admin import-template`.
#[derive(Debug, Args)]
pub struct ImportTemplate {
    /// The team's id
    #[arg(long)]
    pub team: TeamId,
    /// The authoring document, a JSON file (see docs/examples/demo-template.json)
    pub file: PathBuf,
    /// Publish the template once created
    #[arg(long)]
    pub publish: bool,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use crate::config::Secret;

    use super::*;

    fn parse(args: &[&str]) -> Cli {
        Cli::try_parse_from(args).unwrap()
    }

    fn serve(args: &[&str]) -> ServeConfig {
        let mut argv = vec![
            "procflow",
            "--database-url",
            "postgres://u:pw@db/x",
            "serve",
        ];
        argv.extend_from_slice(args);
        let cli = parse(&argv);
        let Command::Serve(serve) = cli.command else {
            panic!("not serve: {cli:?}");
        };
        serve.into_config(cli.global.database_url.unwrap())
    }

    #[test]
    fn the_cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn the_transport_timeouts_take_a_duration_with_its_unit() {
        let config = serve(&[
            "--request-head-timeout",
            "2s",
            "--request-body-timeout",
            "1m",
            "--response-write-timeout",
            "500ms",
        ]);
        assert_eq!(config.http.head_timeout, Duration::from_secs(2));
        assert_eq!(config.http.body_timeout, Duration::from_secs(60));
        assert_eq!(config.http.write_timeout, Duration::from_millis(500));
        let defaults = serve(&[]).http;
        assert_eq!(
            (
                defaults.head_timeout,
                defaults.body_timeout,
                defaults.write_timeout
            ),
            (
                Duration::from_secs(5),
                Duration::from_secs(30),
                Duration::from_secs(30)
            )
        );
        for bad in ["30", "0s", "2h", "fast"] {
            let argv = [
                "procflow",
                "--database-url",
                "postgres://u:pw@db/x",
                "serve",
                "--request-body-timeout",
                bad,
            ];
            let error = Cli::try_parse_from(argv).unwrap_err().to_string();
            assert!(
                error.contains("PROCFLOW_REQUEST_BODY_TIMEOUT (--request-body-timeout)"),
                "{bad}: {error}"
            );
        }
    }

    #[test]
    fn the_run_link_limits_are_settings_of_at_least_one() {
        let defaults = serve(&[]).http;
        assert_eq!(
            (
                defaults.run_link_starts_per_hour_per_link,
                defaults.run_link_starts_per_minute_per_address
            ),
            (100, 10),
            "API contract 13.2"
        );
        let set = serve(&[
            "--run-link-starts-per-hour",
            "3",
            "--run-link-starts-per-minute-per-address",
            "2",
        ])
        .http;
        assert_eq!(
            (
                set.run_link_starts_per_hour_per_link,
                set.run_link_starts_per_minute_per_address
            ),
            (3, 2)
        );
        for flag in [
            "--run-link-starts-per-hour",
            "--run-link-starts-per-minute-per-address",
        ] {
            let argv = [
                "procflow",
                "--database-url",
                "postgres://u:pw@db/x",
                "serve",
                flag,
                "0",
            ];
            assert!(Cli::try_parse_from(argv).is_err(), "{flag} 0");
        }
    }

    #[test]
    fn serve_has_the_documented_defaults() {
        let config = serve(&[]);
        assert_eq!(config.public_url.as_str(), "http://127.0.0.1:8080");
        assert_eq!(config.http.rate_limit_per_minute, 100);
        assert_eq!(config.db_pool_size, 16);
        assert_eq!(config.http.workers, None);
        assert_eq!(config.http, HttpConfig::default());
        assert_eq!(config.smtp_url, None);
        assert_eq!(config.smtp_from, "procflow@localhost");
        assert!(!config.webhook_allow_private);
        assert_eq!(config.upload_cache_bytes, 64 * 1024 * 1024);
        let worker = config.worker.unwrap();
        assert_eq!(
            worker.worker.schedule.to_string(),
            "5s,5m,30m,2h,5h,10h,10h"
        );
        assert_eq!(worker.worker.concurrency, 128);
        assert_eq!(worker.worker.lease, std::time::Duration::from_secs(5));
        assert_eq!(
            worker.worker.poll_interval,
            std::time::Duration::from_secs(1)
        );
        assert!(!worker.sender.allow_private);
        assert_eq!(
            worker.scheduler_interval,
            std::time::Duration::from_secs(60)
        );
        assert_eq!(
            worker,
            crate::config::WorkerSettings::default(),
            "the defaults of --help are the worker's own"
        );
    }

    #[test]
    fn the_worker_settings_are_parsed_and_checked() {
        let config = serve(&[
            "--worker",
            "false",
            "--webhook-retry-schedule",
            "1s,2s",
            "--webhook-allow-private",
            "true",
        ]);
        assert!(config.worker.is_none());
        let config = serve(&[
            "--webhook-retry-schedule",
            "1s,2s",
            "--worker-poll-ms",
            "50",
        ]);
        let worker = config.worker.unwrap();
        assert_eq!(worker.worker.schedule.max_attempts(), 3);
        assert_eq!(
            worker.worker.poll_interval,
            std::time::Duration::from_millis(50)
        );
        for bad in [
            ["--webhook-retry-schedule", "5"],
            ["--webhook-retry-schedule", "0s"],
            ["--worker-concurrency", "0"],
            ["--worker-lease-seconds", "0"],
            ["--worker-poll-ms", "1"],
            ["--worker", "maybe"],
        ] {
            let mut argv = vec!["procflow", "serve"];
            argv.extend_from_slice(&bad);
            assert!(
                Cli::try_parse_from(&argv).is_err(),
                "{bad:?} should be refused"
            );
        }
    }

    #[test]
    fn duration_settings_take_units_and_bare_numbers_in_their_old_unit() {
        use std::time::Duration;

        let worker = serve(&[
            "--scheduler-interval",
            "30s",
            "--worker-lease-seconds",
            "2m",
            "--worker-poll-ms",
            "2s",
        ])
        .worker
        .unwrap();
        assert_eq!(worker.scheduler_interval, Duration::from_secs(30));
        assert_eq!(worker.worker.lease, Duration::from_secs(120));
        assert_eq!(worker.worker.poll_interval, Duration::from_secs(2));

        let worker = serve(&[
            "--scheduler-interval",
            "45",
            "--worker-lease-seconds",
            "90",
            "--worker-poll-ms",
            "250",
        ])
        .worker
        .unwrap();
        assert_eq!(worker.scheduler_interval, Duration::from_secs(45));
        assert_eq!(worker.worker.lease, Duration::from_secs(90));
        assert_eq!(worker.worker.poll_interval, Duration::from_millis(250));
    }

    #[test]
    fn a_bad_duration_is_refused_naming_its_variable_and_the_accepted_forms() {
        for (option, value, variable) in [
            ("--scheduler-interval", "30x", "PROCFLOW_SCHEDULER_INTERVAL"),
            ("--scheduler-interval", "0s", "PROCFLOW_SCHEDULER_INTERVAL"),
            ("--scheduler-interval", "2d", "PROCFLOW_SCHEDULER_INTERVAL"),
            (
                "--worker-lease-seconds",
                "-5s",
                "PROCFLOW_WORKER_LEASE_SECONDS",
            ),
            (
                "--worker-lease-seconds",
                "",
                "PROCFLOW_WORKER_LEASE_SECONDS",
            ),
            ("--worker-poll-ms", "5ms", "PROCFLOW_WORKER_POLL_MS"),
            ("--worker-poll-ms", "1.5s", "PROCFLOW_WORKER_POLL_MS"),
            (
                "--webhook-retry-schedule",
                "5s,5x",
                "PROCFLOW_WEBHOOK_RETRY_SCHEDULE",
            ),
        ] {
            // `--option=value`, so that a leading `-` is read as the value, not as an option.
            let argument = format!("{option}={value}");
            let error = Cli::try_parse_from(["procflow", "serve", &argument]).unwrap_err();
            assert_eq!(
                error.kind(),
                clap::error::ErrorKind::ValueValidation,
                "{option} {value:?}: {error}"
            );
            let message = error.to_string();
            assert!(
                message.contains(variable) && message.contains(option),
                "{option} {value:?} should name {variable}: {message}"
            );
            assert!(
                message.contains("500ms, 30s, 5m, 2h or 1d"),
                "{option} {value:?} should say what is accepted: {message}"
            );
        }
    }

    #[test]
    fn the_public_url_follows_the_bind_address_unless_given() {
        assert_eq!(
            serve(&["--bind", "0.0.0.0:9000"]).public_url.as_str(),
            "http://0.0.0.0:9000"
        );
        assert_eq!(
            serve(&[
                "--bind",
                "0.0.0.0:9000",
                "--public-url",
                "https://pf.example/"
            ])
            .public_url
            .as_str(),
            "https://pf.example"
        );
    }

    #[test]
    fn serve_settings_are_parsed_and_checked() {
        let config = serve(&[
            "--rate-limit-per-minute",
            "7",
            "--db-pool-size",
            "4",
            "--http-workers",
            "2",
            "--smtp-url",
            "smtp://user:pw@mail:25",
            "--smtp-from",
            "Ops@Example.com",
            "--webhook-allow-private",
            "yes",
            "--upload-cache-bytes",
            "0",
        ]);
        assert_eq!(config.http.rate_limit_per_minute, 7);
        assert_eq!(config.upload_cache_bytes, 0);
        assert_eq!(config.db_pool_size, 4);
        assert_eq!(config.http.workers, Some(2));
        assert_eq!(
            config.smtp_url.as_ref().map(Secret::expose),
            Some("smtp://user:pw@mail:25")
        );
        assert_eq!(config.smtp_from, "ops@example.com");
        assert!(config.webhook_allow_private);
        let debug = format!("{config:?}");
        assert!(!debug.contains("pw"), "{debug}");

        for bad in [
            ["--rate-limit-per-minute", "0"],
            ["--db-pool-size", "0"],
            ["--bind", "localhost"],
            ["--public-url", "ftp://x"],
            ["--smtp-from", "nobody"],
            ["--webhook-allow-private", "perhaps"],
            ["--upload-cache-bytes", "-1"],
            ["--upload-cache-bytes", "64MiB"],
        ] {
            let mut argv = vec!["procflow", "serve"];
            argv.extend_from_slice(&bad);
            assert!(
                Cli::try_parse_from(&argv).is_err(),
                "{bad:?} should be refused"
            );
        }
    }

    #[test]
    fn the_worker_takes_the_storage_setting_of_serve() {
        let worker = |args: &[&str]| {
            let argv = ["procflow", "worker"].iter().chain(args);
            match Cli::try_parse_from(argv).unwrap().command {
                Command::Worker(worker) => worker.storage_url(),
                other => panic!("not worker: {other:?}"),
            }
        };
        assert_eq!(
            worker(&["--storage-url", "file:///var/lib/procflow/files"]),
            crate::storage::local(std::path::Path::new("/var/lib/procflow/files"))
        );
        assert_eq!(worker(&[]), crate::storage::default_local());
        assert!(
            Cli::try_parse_from(["procflow", "worker", "--storage-url", "/var/lib"]).is_err(),
            "read as strictly as serve's"
        );
    }

    #[test]
    fn log_settings_are_global() {
        let cli = parse(&[
            "procflow",
            "migrate",
            "--log-format",
            "json",
            "--log-filter",
            "warn",
        ]);
        assert_eq!(cli.global.log_format, LogFormat::Json);
        assert_eq!(cli.global.log_filter, "warn");
        assert!(Cli::try_parse_from(["procflow", "migrate", "--log-format", "xml"]).is_err());
    }

    #[test]
    fn serve_help_documents_every_variable() {
        let mut command = Cli::command();
        command.build();
        let help = command
            .find_subcommand_mut("serve")
            .unwrap()
            .render_long_help()
            .to_string();
        for variable in [
            "DATABASE_URL",
            "PROCFLOW_BIND",
            "PROCFLOW_PUBLIC_URL",
            "PROCFLOW_RATE_LIMIT_PER_MINUTE",
            "PROCFLOW_SMTP_URL",
            "PROCFLOW_SMTP_FROM",
            "PROCFLOW_WEBHOOK_ALLOW_PRIVATE",
            "PROCFLOW_LOG_FORMAT",
            "RUST_LOG",
            "PROCFLOW_DB_POOL_SIZE",
            "PROCFLOW_HTTP_WORKERS",
            "PROCFLOW_WORKER",
            "PROCFLOW_WEBHOOK_RETRY_SCHEDULE",
            "PROCFLOW_WORKER_CONCURRENCY",
            "PROCFLOW_WORKER_LEASE_SECONDS",
            "PROCFLOW_WORKER_POLL_MS",
            "PROCFLOW_MAIL_DIR",
            "PROCFLOW_SCHEDULER_INTERVAL",
        ] {
            assert!(help.contains(variable), "{variable} missing from:\n{help}");
        }
        for rule in [
            crate::worker::SCHEDULER_INTERVAL,
            crate::worker::WORKER_LEASE,
            crate::worker::WORKER_POLL,
        ] {
            assert!(
                help.contains(&rule.to_string()),
                "{rule} missing from:\n{help}"
            );
        }
    }

    #[test]
    fn admin_commands_parse_their_arguments() {
        let team = "0190d3c4-6f1e-7a4b-9c7d-2b1a3e4f5a6b";
        let cli = parse(&[
            "procflow",
            "admin",
            "create-team",
            "--name",
            "Acme",
            "--admin-email",
            "Boss@Acme.example",
        ]);
        let Command::Admin(AdminArgs {
            command: AdminCommand::CreateTeam(create),
        }) = cli.command
        else {
            panic!("not create-team");
        };
        assert_eq!(create.admin_email.as_str(), "boss@acme.example");
        assert_eq!(create.timezone.as_str(), "UTC");
        assert_eq!(create.base_url, None);

        let cli = parse(&[
            "procflow",
            "admin",
            "set-member",
            "--team",
            team,
            "--email",
            "a@b.co",
            "--active",
            "false",
        ]);
        let Command::Admin(AdminArgs {
            command: AdminCommand::SetMember(set),
        }) = cli.command
        else {
            panic!("not set-member");
        };
        assert_eq!(set.active, Some(false));
        assert_eq!(set.role, None);

        for bad in [
            vec!["admin", "add-member", "--team", "nope", "--email", "a@b.co"],
            vec!["admin", "add-member", "--team", team, "--email", "nope"],
            vec![
                "admin",
                "add-member",
                "--team",
                team,
                "--email",
                "a@b.co",
                "--role",
                "owner",
            ],
            vec![
                "admin",
                "set-subscription",
                "--team",
                team,
                "--status",
                "paused",
            ],
            vec![
                "admin",
                "create-team",
                "--name",
                "X",
                "--admin-email",
                "a@b.co",
                "--timezone",
                "Europe/ Paris",
            ],
            vec!["admin", "import-template", "--team", team],
        ] {
            let argv: Vec<&str> = std::iter::once("procflow").chain(bad.clone()).collect();
            assert!(
                Cli::try_parse_from(&argv).is_err(),
                "{bad:?} should be refused"
            );
        }
    }
}
