//! How an email leaves: over SMTP (lettre, pooled, within a time limit around the whole
//! conversation), into a folder as `.eml` files (a developer's machine), or only into the log.

use std::path::PathBuf;
use std::time::Duration;

use async_trait::async_trait;
use lettre::message::{Mailbox, MultiPart};
use lettre::transport::smtp::Error as SmtpError;
use lettre::{
    Address, AsyncFileTransport, AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor,
};
use procflow_domain::mail::{ClaimedMail, MailOutcome, Mails};
use procflow_domain::ports::Sender;
use time::OffsetDateTime;

use super::render::{one_line, render};

/// Where emails go and who sends them; read once at start-up. `Debug` never shows the SMTP
/// URL (it may hold credentials).
#[derive(Clone, PartialEq, Eq)]
pub struct MailConfig {
    /// `PROCFLOW_SMTP_URL`: `smtp://host:port` (plain), `?tls=required` (STARTTLS),
    /// `smtps://` (implicit TLS), credentials in the URL.
    pub smtp_url: Option<String>,
    /// `PROCFLOW_SMTP_FROM`: the sender's address (the team's name is its display name).
    pub from: String,
    /// `PROCFLOW_MAIL_DIR`: write `.eml` files here instead of sending.
    pub dir: Option<PathBuf>,
    /// The limit around one whole send (connection, TLS, the SMTP conversation).
    pub send_timeout: Duration,
}

impl MailConfig {
    /// Each send's limit (API contract 8.4).
    pub const DEFAULT_SEND_TIMEOUT: Duration = Duration::from_secs(30);
}

impl std::fmt::Debug for MailConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MailConfig")
            .field("smtp_url", &self.smtp_url.as_ref().map(|_| ".."))
            .field("from", &self.from)
            .field("dir", &self.dir)
            .field("send_timeout", &self.send_timeout)
            .finish()
    }
}

impl Default for MailConfig {
    fn default() -> Self {
        Self {
            smtp_url: None,
            from: "procflow@localhost".to_owned(),
            dir: None,
            send_timeout: Self::DEFAULT_SEND_TIMEOUT,
        }
    }
}

/// Why the mail transport could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum MailSetupError {
    /// The SMTP URL is not one lettre reads.
    #[error(
        "PROCFLOW_SMTP_URL is not a usable SMTP URL (smtp://host:port, smtps://host:port, ?tls=required): {0}"
    )]
    SmtpUrl(String),
    /// The sender's address is not an address.
    #[error("PROCFLOW_SMTP_FROM is not an email address: {0}")]
    From(String),
    /// The mail folder cannot be made.
    #[error("cannot create PROCFLOW_MAIL_DIR {path}: {error}")]
    Dir {
        /// The folder.
        path: String,
        /// Why.
        error: std::io::Error,
    },
}

enum Transport {
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
    Dir(AsyncFileTransport<Tokio1Executor>),
    Log,
}

/// Renders and sends emails.
pub struct MailSender {
    transport: Transport,
    from: Address,
    send_timeout: Duration,
}

impl std::fmt::Debug for MailSender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MailSender")
            .field("mode", &self.mode())
            .finish_non_exhaustive()
    }
}

impl MailSender {
    /// The sender `config` describes: SMTP when a URL is set, else the folder when set, else
    /// the log.
    ///
    /// # Errors
    /// An unusable URL, sender address or folder.
    pub fn new(config: &MailConfig) -> Result<Self, MailSetupError> {
        let from: Address = config
            .from
            .parse()
            .map_err(|e: lettre::address::AddressError| MailSetupError::From(e.to_string()))?;
        let transport = if let Some(url) = &config.smtp_url {
            let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
                // lettre's error names the URL's parts, never the credentials.
                .map_err(|e| MailSetupError::SmtpUrl(e.to_string()))?
                .timeout(Some(config.send_timeout))
                .build();
            Transport::Smtp(transport)
        } else if let Some(dir) = &config.dir {
            std::fs::create_dir_all(dir).map_err(|error| MailSetupError::Dir {
                path: dir.display().to_string(),
                error,
            })?;
            Transport::Dir(AsyncFileTransport::new(dir))
        } else {
            Transport::Log
        };
        Ok(Self {
            transport,
            from,
            send_timeout: config.send_timeout,
        })
    }

    /// `smtp`, `dir` or `log`: for the start-up log line.
    #[must_use]
    pub fn mode(&self) -> &'static str {
        match self.transport {
            Transport::Smtp(_) => "smtp",
            Transport::Dir(_) => "dir",
            Transport::Log => "log",
        }
    }

    /// Renders `mail` and sends it, within the send limit: a 5xx reply or a message that
    /// cannot be built is permanent; a 4xx reply, a connection or TLS failure and a timeout
    /// are temporary.
    pub async fn send(&self, mail: &ClaimedMail) -> MailOutcome {
        let message = match self.message(mail) {
            Ok(message) => message,
            Err(error) => return MailOutcome::Permanent(error),
        };
        let sent = tokio::time::timeout(self.send_timeout, async {
            match &self.transport {
                Transport::Smtp(smtp) => smtp.send(message).await.map(|_| ()).map_err(classify),
                Transport::Dir(dir) => dir.send(message).await.map(|_| ()).map_err(|e| {
                    MailOutcome::Temporary(format!("cannot write the email file: {e}"))
                }),
                Transport::Log => {
                    tracing::info!(
                        email.id = %mail.id, email.kind = %mail.kind,
                        email.domain = mail.recipient_domain(),
                        "no SMTP server or mail folder is configured: the email is logged, not sent"
                    );
                    Ok(())
                }
            }
        })
        .await;
        match sent {
            Ok(Ok(())) => MailOutcome::Sent,
            Ok(Err(outcome)) => outcome,
            Err(_) => MailOutcome::Temporary(format!(
                "no answer within {} s",
                self.send_timeout.as_secs()
            )),
        }
    }

    fn message(&self, mail: &ClaimedMail) -> Result<Message, String> {
        let rendered = render(mail.kind, &mail.content).map_err(|e| e.to_string())?;
        let to: Address = mail
            .recipient
            .as_str()
            .parse()
            .map_err(|e| format!("the recipient is not an address lettre accepts: {e}"))?;
        // The team's name is checked where it is set; a row stored before that check is
        // flattened here, as the subject's titles are.
        let sender = Mailbox::new(Some(one_line(&mail.content.team_name)), self.from.clone());
        Message::builder()
            .from(sender)
            .to(Mailbox::new(None, to))
            .subject(rendered.subject)
            .message_id(Some(message_id(mail, &self.from)))
            .multipart(MultiPart::alternative_plain_html(
                rendered.text,
                rendered.html,
            ))
            .map_err(|e| format!("cannot build the email: {e}"))
    }
}

/// `<event id.kind@sender's domain>`: the same for every attempt of the email of one event, so
/// a repeated send is recognisable.
fn message_id(mail: &ClaimedMail, from: &Address) -> String {
    format!("<{}.{}@{}>", mail.event_id, mail.kind, from.domain())
}

fn classify(error: SmtpError) -> MailOutcome {
    let text = error.to_string();
    if error.is_permanent() {
        MailOutcome::Permanent(format!("the SMTP server refused the email: {text}"))
    } else if error.is_transient() {
        MailOutcome::Temporary(format!("the SMTP server deferred the email: {text}"))
    } else {
        MailOutcome::Temporary(format!("cannot reach the SMTP server: {text}"))
    }
}

/// The email port of the attempt use case: the send's time is the transport's own.
#[async_trait]
impl Sender<Mails> for MailSender {
    async fn send(&self, claimed: &ClaimedMail, _now: OffsetDateTime) -> MailOutcome {
        MailSender::send(self, claimed).await
    }
}

#[cfg(test)]
mod tests {
    use procflow_domain::ids::{EmailId, EventId, TeamId};
    use procflow_domain::mail::{MailContent, MailKind};

    use super::*;

    #[test]
    fn the_message_id_is_the_events_id_at_the_senders_domain() {
        let event = uuid::Uuid::from_u128(7);
        let mail = ClaimedMail {
            id: EmailId::from_uuid(uuid::Uuid::from_u128(1)),
            team_id: TeamId::from_uuid(uuid::Uuid::from_u128(2)),
            event_id: EventId::from_uuid(event),
            kind: MailKind::TaskOverdue,
            recipient: "ada@example.org".parse().unwrap(),
            content: MailContent {
                team_name: "Acme".into(),
                run_title: "Onboarding".into(),
                task_title: None,
                due_date: None,
                share_url: None,
                comment: None,
                problem: None,
            },
            attempt: 3,
            lease: uuid::Uuid::nil(),
        };
        let from: Address = "ops@acme.example".parse().unwrap();
        assert_eq!(
            message_id(&mail, &from),
            format!("<{event}.task_overdue@acme.example>")
        );
    }

    fn claimed(team_name: &str) -> ClaimedMail {
        ClaimedMail {
            id: EmailId::from_uuid(uuid::Uuid::from_u128(1)),
            team_id: TeamId::from_uuid(uuid::Uuid::from_u128(2)),
            event_id: EventId::from_uuid(uuid::Uuid::from_u128(3)),
            kind: MailKind::GuestInvitation,
            recipient: "ada@example.org".parse().unwrap(),
            content: MailContent {
                team_name: team_name.into(),
                run_title: "Onboarding\r\nX-Evil: 1".into(),
                task_title: None,
                due_date: None,
                share_url: None,
                comment: None,
                problem: None,
            },
            attempt: 1,
            lease: uuid::Uuid::nil(),
        }
    }

    #[test]
    fn a_stored_name_with_line_breaks_cannot_add_a_header_line() {
        let sender = MailSender::new(&MailConfig::default()).unwrap();
        for name in [
            "Acme\r\nBcc: evil@example.org",
            "Acme\nBcc: x@y.z",
            "A\u{0}c\u{85}me\t",
        ] {
            let message = sender.message(&claimed(name)).unwrap();
            let raw = String::from_utf8(message.formatted()).unwrap();
            let head = raw.split("\r\n\r\n").next().unwrap();
            assert!(
                head.lines()
                    .all(|line| !line.starts_with("Bcc") && !line.starts_with("X-Evil")),
                "{head}"
            );
            assert!(head.contains("From: "), "{head}");
        }
    }

    #[test]
    fn a_url_that_is_not_smtp_is_refused_at_start_up() {
        let config = MailConfig {
            smtp_url: Some("http://mail.example".into()),
            ..MailConfig::default()
        };
        assert!(matches!(
            MailSender::new(&config),
            Err(MailSetupError::SmtpUrl(_))
        ));
        let config = MailConfig {
            from: "nobody".into(),
            ..MailConfig::default()
        };
        assert!(matches!(
            MailSender::new(&config),
            Err(MailSetupError::From(_))
        ));
    }
}
