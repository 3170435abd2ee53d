//! E-mail: the `Mailer` trait, its SMTP implementation (lettre) and the log-only one used when
//! no SMTP server is configured.
use async_trait::async_trait;
use lettre::{
    message::{header::ContentType, Mailbox},
    AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor,
};

/// What became of one e-mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    Sent,
    /// No SMTP server configured: the mail was logged, not sent.
    Skipped,
}

#[derive(Debug, thiserror::Error)]
pub enum MailError {
    #[error("invalid address: {0}")]
    Address(String),
    #[error("could not build the message: {0}")]
    Build(String),
    #[error("SMTP delivery failed: {0}")]
    Smtp(String),
}

#[async_trait]
pub trait Mailer: Send + Sync {
    async fn send(&self, to: &str, subject: &str, body: &str) -> Result<Delivery, MailError>;
}

pub struct SmtpMailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl SmtpMailer {
    pub fn new(smtp_url: &str, from: &str) -> anyhow::Result<Self> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(smtp_url)?
            .timeout(Some(std::time::Duration::from_secs(10)))
            .build();
        let from = from
            .parse()
            .map_err(|e| anyhow::anyhow!("invalid --mail-from: {e}"))?;
        Ok(Self { transport, from })
    }
}

#[async_trait]
impl Mailer for SmtpMailer {
    async fn send(&self, to: &str, subject: &str, body: &str) -> Result<Delivery, MailError> {
        let to: Mailbox = to.parse().map_err(|e| MailError::Address(format!("{e}")))?;
        let message = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(subject)
            .header(ContentType::TEXT_PLAIN)
            .body(body.to_string())
            .map_err(|e| MailError::Build(e.to_string()))?;
        self.transport
            .send(message)
            .await
            .map_err(|e| MailError::Smtp(e.to_string()))?;
        Ok(Delivery::Sent)
    }
}

/// Used when `--smtp-url` is unset: logs that a mail would have gone out. The body is not
/// logged, since it can hold a reset token.
pub struct LogMailer;

#[async_trait]
impl Mailer for LogMailer {
    async fn send(&self, to: &str, subject: &str, body: &str) -> Result<Delivery, MailError> {
        // The link of an invitation or a password reset is what lets a self-hoster without
        // SMTP still bring a teammate in: the operator reading the log passes it on.
        let link = body
            .split_whitespace()
            .find(|word| word.starts_with("http://") || word.starts_with("https://"));
        match link {
            Some(link) => tracing::info!(
                to,
                subject,
                link = %link,
                "no SMTP server configured; e-mail not sent, pass its link on"
            ),
            None => tracing::info!(to, subject, "no SMTP server configured; e-mail not sent"),
        }
        Ok(Delivery::Skipped)
    }
}
