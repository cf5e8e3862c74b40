//! Value parsers for settings whose refusal names the environment variable beside the option:
//! a setting usually comes from the environment, where clap's own message (which names only
//! the option) leaves the operator guessing which variable to fix.

use std::ffi::OsStr;
use std::fmt::Display;
use std::time::Duration;

use clap::builder::TypedValueParser;
use clap::error::ErrorKind;
use clap::{Arg, Command, Error};
use procflow_domain::duration::DurationRule;
use procflow_domain::webhook::RetrySchedule;

/// A parser of one setting's text, refusing with the setting's names and the parser's reason.
#[derive(Clone, Debug)]
pub struct Setting<F>(F);

impl<F, T, E> TypedValueParser for Setting<F>
where
    F: Fn(&str) -> Result<T, E> + Clone + Send + Sync + 'static,
    E: Display,
    T: Clone + Send + Sync + 'static,
{
    type Value = T;

    fn parse_ref(&self, cmd: &Command, arg: Option<&Arg>, value: &OsStr) -> Result<T, Error> {
        // `format` adds the usage and the `--help` hint, as clap's own refusals have; it wants
        // the command mutable, so it gets a copy (on the way out only).
        let refuse = |kind, reason: &dyn Display| {
            Error::raw(kind, format!("invalid {}: {reason}", names(arg))).format(&mut cmd.clone())
        };
        let text = value
            .to_str()
            .ok_or_else(|| refuse(ErrorKind::InvalidUtf8, &"the value is not UTF-8"))?;
        (self.0)(text).map_err(|reason| refuse(ErrorKind::ValueValidation, &reason))
    }
}

/// `PROCFLOW_X (--x)`, or whichever of the two the argument has.
fn names(arg: Option<&Arg>) -> String {
    let env = arg
        .and_then(Arg::get_env)
        .map(|env| env.to_string_lossy().into_owned());
    let long = arg.and_then(Arg::get_long).map(|long| format!("--{long}"));
    match (env, long) {
        (Some(env), Some(long)) => format!("{env} ({long})"),
        (Some(name), None) | (None, Some(name)) => name,
        (None, None) => "value".to_owned(),
    }
}

/// A duration setting read by `rule`: the units of every duration setting, and a bare number
/// in the rule's unit.
#[must_use]
pub fn duration(rule: DurationRule) -> Setting<impl Fn(&str) -> Result<Duration, String> + Clone> {
    Setting(move |text: &str| rule.parse(text).map_err(|error| error.to_string()))
}

/// `PROCFLOW_WEBHOOK_RETRY_SCHEDULE`: its waits take the units of the duration settings.
#[must_use]
pub fn retry_schedule() -> Setting<impl Fn(&str) -> Result<RetrySchedule, String> + Clone> {
    Setting(|text: &str| {
        text.parse::<RetrySchedule>()
            .map_err(|error| error.to_string())
    })
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Probe {
        #[arg(long, env = "PROBE_WAIT", value_parser = duration(RULE))]
        wait: Option<Duration>,
        #[arg(long, value_parser = duration(RULE))]
        pause: Option<Duration>,
    }

    const RULE: DurationRule = DurationRule::new(Duration::from_secs(1), Duration::from_secs(60));

    fn refusal(args: &[&str]) -> String {
        let error = Probe::try_parse_from(args).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::ValueValidation, "{error}");
        error.to_string()
    }

    #[test]
    fn a_refusal_names_the_variable_the_option_and_the_reason() {
        let message = refusal(&["probe", "--wait", "5x"]);
        assert!(
            message.starts_with(
                "error: invalid PROBE_WAIT (--wait): \"5x\" has an unknown unit \"x\": write \
                 500ms, 30s, 5m, 2h or 1d, from 1s to 1m\n"
            ),
            "{message}"
        );
        assert!(message.contains("--help"), "{message}");
        let message = refusal(&["probe", "--pause", "0s"]);
        assert!(
            message.starts_with("error: invalid --pause: \"0s\" is zero"),
            "{message}"
        );
    }

    #[test]
    fn an_accepted_value_is_the_rules_duration() {
        let probe = Probe::try_parse_from(["probe", "--wait", "1m", "--pause", "1500ms"]).unwrap();
        assert_eq!(probe.wait, Some(Duration::from_secs(60)));
        assert_eq!(probe.pause, Some(Duration::from_millis(1_500)));
    }
}
