//! Alert kinds and the validated parts of a rule.
use super::AlertError;
use crate::{analytics::Metric, notify::webhook};

pub use crate::words::AlertType;

impl AlertType {
    /// How people read it.
    pub fn label(self) -> &'static str {
        match self {
            Self::CrashSpike => "Crash spike",
            Self::LogErrorSpike => "Log error spike",
            Self::RevenueDrop => "Revenue drop",
            Self::DauDrop => "DAU drop",
            Self::RetentionDrop => "Retention drop",
            Self::MetricSpike => "Metric spike",
            Self::MetricDrop => "Metric drop",
        }
    }

    /// Embed colour (DESIGN 3.8; the metric kinds share the spike and drop colours of the
    /// kinds closest to them: dark red and blue-grey).
    pub fn color(self) -> u32 {
        match self {
            Self::CrashSpike => 0xE74C3C,
            Self::LogErrorSpike => 0x992D22,
            Self::RevenueDrop => 0xE67E22,
            Self::DauDrop => 0x3498DB,
            Self::RetentionDrop => 0x9B59B6,
            Self::MetricSpike => 0xC0392B,
            Self::MetricDrop => 0x607D8B,
        }
    }

    /// Spikes fire at or above `baseline * threshold`; drops below it.
    pub fn is_spike(self) -> bool {
        matches!(
            self,
            Self::CrashSpike | Self::LogErrorSpike | Self::MetricSpike
        )
    }

    /// The kinds that watch a metric of the rule's choosing.
    pub fn takes_metric(self) -> bool {
        matches!(self, Self::MetricSpike | Self::MetricDrop)
    }

    /// The metric of a fixed kind; `None` for the metric kinds.
    pub fn fixed_metric(self) -> Option<Metric> {
        Some(match self {
            Self::CrashSpike => Metric::Crashes,
            Self::LogErrorSpike => Metric::LogErrors,
            Self::RevenueDrop => Metric::Revenue,
            Self::DauDrop => Metric::ActiveUsers,
            Self::RetentionDrop => Metric::RetentionD7,
            Self::MetricSpike | Self::MetricDrop => return None,
        })
    }
}

/// What a rule watches: its kind, and the metric it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watch {
    pub kind: AlertType,
    pub metric: Metric,
}

impl Watch {
    /// A stored rule's (or firing's) kind and metric. A metric kind without a readable metric
    /// cannot be stored (`parse_metric`); it would read as new users rather than fail.
    pub fn stored(alert_type: &str, metric: Option<&str>) -> Self {
        let kind = AlertType::parse(alert_type).unwrap_or(AlertType::CrashSpike);
        let metric = kind
            .fixed_metric()
            .or_else(|| metric.and_then(Metric::parse))
            .unwrap_or(Metric::NewUsers);
        Self { kind, metric }
    }

    /// "Crash spike", or for a metric kind "Sessions drop".
    pub fn label(self) -> String {
        match self.kind {
            AlertType::MetricSpike => format!("{} spike", self.metric.label()),
            AlertType::MetricDrop => format!("{} drop", self.metric.label()),
            kind => kind.label().to_string(),
        }
    }
}

/// The rule's `metric`, checked against its kind: required by the metric kinds (any metric
/// name of the metrics read), refused by the fixed ones.
pub fn parse_metric(kind: AlertType, raw: Option<&str>) -> Result<Option<Metric>, AlertError> {
    match (
        kind.takes_metric(),
        raw.map(str::trim).filter(|m| !m.is_empty()),
    ) {
        (true, Some(name)) => Metric::parse(name).map(Some).ok_or_else(|| {
            AlertError::invalid(format!("metric must be one of: {}", Metric::NAMES))
        }),
        (true, None) => Err(AlertError::invalid(format!(
            "metric is required for {}: one of {}",
            kind.as_str(),
            Metric::NAMES
        ))),
        (false, Some(_)) => Err(AlertError::invalid(
            "metric is only for metric_spike and metric_drop rules",
        )),
        (false, None) => Ok(None),
    }
}

/// Longest comparison window: 90 days.
pub const MAX_WINDOW_HOURS: i64 = 2160;
/// A game keeps at most this many rules.
pub const MAX_RULES_PER_GAME: u64 = 100;

pub fn parse_name(raw: &str) -> Result<String, AlertError> {
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(AlertError::invalid("name must be 1 to 100 characters"));
    }
    Ok(name.to_string())
}

pub fn parse_threshold(raw: f64) -> Result<f64, AlertError> {
    if !raw.is_finite() || raw <= 0.0 || raw > 1000.0 {
        return Err(AlertError::invalid(
            "threshold must be a number above 0 (at most 1000)",
        ));
    }
    Ok(raw)
}

pub fn parse_window(raw: i64) -> Result<i32, AlertError> {
    if !(1..=MAX_WINDOW_HOURS).contains(&raw) {
        return Err(AlertError::invalid(
            "comparison_window_hours must be 1 to 2160",
        ));
    }
    Ok(raw as i32)
}

pub fn parse_environment(raw: &str) -> Result<String, AlertError> {
    Ok(crate::query::parse_environment(raw)?.to_string())
}

/// An http(s) webhook URL; an empty string means none. Unless private targets are allowed,
/// a URL whose host is, or resolves to, an internal address is refused here already (it is
/// checked again on every send, since DNS answers change).
pub async fn parse_webhook(raw: &str, allow_private: bool) -> Result<Option<String>, AlertError> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Ok(None);
    }
    // "Webhook URL" is the field's label in the dashboard's form, where most people meet it.
    let url = webhook::parse_url(raw).map_err(|_| {
        AlertError::InvalidWebhook("Webhook URL must be an http or https URL".into())
    })?;
    match webhook::check(&url, allow_private, std::time::Duration::from_secs(3)).await {
        Err(webhook::WebhookError::Forbidden) => Err(AlertError::InvalidWebhook(format!(
            "Webhook URL must reach a public address: {} is, or resolves to, a loopback, \
             private, link-local or metadata address. {}",
            url.host_str().unwrap_or_default(),
            webhook::PRIVATE_ADDRESSES_SWITCH
        ))),
        // Unresolvable right now is not proof of anything; the send-time check decides.
        _ => Ok(Some(url.to_string())),
    }
}
