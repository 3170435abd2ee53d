//! Chat webhooks (Discord-compatible), sent with an SSRF guard.
//!
//! A webhook URL is user input that makes this server open a connection, so by default it may
//! only reach public addresses: the host is resolved here, every address it resolves to is
//! checked, and the request then goes to a checked address (the client is pinned to it), so a
//! name that changes its answer between the check and the connection (DNS rebinding) cannot
//! slip through. Redirects are never followed and response bodies never leave this module.
use reqwest::{redirect::Policy, StatusCode, Url};
use serde_json::Value;
use std::{
    net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr},
    time::Duration,
};

/// Every webhook call gives up after this long.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// Longest `retry_after` from a 429 that is waited out; a longer one counts as a failure.
const MAX_RETRY_WAIT: Duration = Duration::from_secs(5);
/// Attempts in all when the receiver keeps answering 429.
const MAX_ATTEMPTS: usize = 3;

/// How an operator lets webhooks reach internal addresses, said wherever one is refused.
pub const PRIVATE_ADDRESSES_SWITCH: &str = "A node on a private network allows such addresses \
     when started with --allow-private-webhooks (PLAYTRACE_ALLOW_PRIVATE_WEBHOOKS=true).";

#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    #[error("the webhook URL must be an http(s) URL with a host")]
    InvalidUrl,
    #[error("the webhook URL points to a loopback, private, link-local or metadata address. {PRIVATE_ADDRESSES_SWITCH}")]
    Forbidden,
    #[error("the webhook host could not be resolved")]
    Unresolvable,
    #[error("the webhook receiver did not answer within 10 seconds")]
    Timeout,
    #[error("could not connect to the webhook receiver")]
    Connect,
    #[error("the webhook receiver answered with a redirect, which is not followed")]
    Redirect,
    #[error("the webhook receiver kept answering 429 Too Many Requests")]
    RateLimited,
    #[error("the webhook receiver answered HTTP {0}")]
    Status(u16),
}

/// Parses a webhook URL: http or https, with a host, no credentials, at most 2048 characters.
pub fn parse_url(raw: &str) -> Result<Url, WebhookError> {
    if raw.len() > 2048 {
        return Err(WebhookError::InvalidUrl);
    }
    let url = Url::parse(raw.trim()).map_err(|_| WebhookError::InvalidUrl)?;
    let plain = matches!(url.scheme(), "http" | "https")
        && url.host().is_some()
        && url.username().is_empty()
        && url.password().is_none();
    if plain {
        Ok(url)
    } else {
        Err(WebhookError::InvalidUrl)
    }
}

/// True for addresses a webhook must not reach: unspecified, loopback, private, shared
/// (CGNAT), link-local (cloud metadata lives there), multicast, broadcast and reserved ranges,
/// also when an IPv4 address hides inside an IPv6 one (mapped, compatible, NAT64, 6to4).
pub fn is_forbidden(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_forbidden_v4(v4),
        IpAddr::V6(v6) => is_forbidden_v6(v6),
    }
}

fn is_forbidden_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    ip.is_unspecified()
        || a == 0
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a >= 240
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT), incl. 100.100.100.200
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
}

fn is_forbidden_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = embedded_v4(ip) {
        return is_forbidden_v4(v4);
    }
    let first = ip.segments()[0];
    ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00 // unique local, incl. fd00:ec2::254
        || (first & 0xffc0) == 0xfe80 // link-local
        || (first & 0xffc0) == 0xfec0 // site-local (deprecated)
        || (first == 0x2001 && ip.segments()[1] == 0x0db8) // documentation
}

/// The IPv4 address carried by an IPv4-mapped, IPv4-compatible, NAT64 or 6to4 IPv6 address.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let tail = || Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    if s[..6] == [0, 0, 0, 0, 0, 0] && !(s[6] == 0 && s[7] <= 1) {
        return Some(tail()); // IPv4-compatible ::a.b.c.d
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(tail()); // NAT64 64:ff9b::a.b.c.d
    }
    if s[0] == 0x2002 {
        return Some(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ));
    }
    None
}

/// Where a checked request goes: the URL and, for a host name, the address it is pinned to.
#[derive(Debug)]
pub struct Target {
    pub url: Url,
    pinned: Option<(String, SocketAddr)>,
}

/// Resolves the URL's host (giving up after `lookup_timeout`) and checks every address. With
/// `allow_private` nothing is refused.
pub async fn check(
    url: &Url,
    allow_private: bool,
    lookup_timeout: Duration,
) -> Result<Target, WebhookError> {
    let port = url
        .port_or_known_default()
        .ok_or(WebhookError::InvalidUrl)?;
    let host = url.host_str().ok_or(WebhookError::InvalidUrl)?;
    // The URL parser already normalised IP literals (`0x7f000001`, `[::ffff:7f00:1]`, ...).
    if let Ok(ip) = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
    {
        return literal(url, ip, allow_private);
    }
    let host = host.to_string();
    if allow_private {
        return Ok(Target {
            url: url.clone(),
            pinned: None,
        });
    }
    let lookup = tokio::time::timeout(
        lookup_timeout,
        tokio::net::lookup_host((host.as_str(), port)),
    );
    let addresses: Vec<SocketAddr> = match lookup.await {
        Ok(Ok(found)) => found.collect(),
        _ => return Err(WebhookError::Unresolvable),
    };
    if addresses.is_empty() {
        return Err(WebhookError::Unresolvable);
    }
    if addresses.iter().any(|a| is_forbidden(a.ip())) {
        return Err(WebhookError::Forbidden);
    }
    Ok(Target {
        url: url.clone(),
        pinned: Some((host, addresses[0])),
    })
}

fn literal(url: &Url, ip: IpAddr, allow_private: bool) -> Result<Target, WebhookError> {
    if !allow_private && is_forbidden(ip) {
        return Err(WebhookError::Forbidden);
    }
    Ok(Target {
        url: url.clone(),
        pinned: None,
    })
}

/// POSTs `body` as JSON to the webhook. A 429 is retried after the receiver's `retry_after`
/// (JSON body, as Discord sends it, or the `Retry-After` header) when that is short.
pub async fn post_json(
    raw_url: &str,
    body: &Value,
    allow_private: bool,
) -> Result<(), WebhookError> {
    post_json_with(raw_url, body, &[], allow_private).await
}

/// Like `post_json`, with extra request headers (e.g. an `Idempotency-Key`).
pub async fn post_json_with(
    raw_url: &str,
    body: &Value,
    headers: &[(&str, &str)],
    allow_private: bool,
) -> Result<(), WebhookError> {
    let url = parse_url(raw_url)?;
    let target = check(&url, allow_private, TIMEOUT).await?;
    let mut builder = reqwest::Client::builder()
        .redirect(Policy::none())
        .timeout(TIMEOUT)
        .connect_timeout(TIMEOUT)
        .no_proxy()
        .user_agent(concat!("playtrace/", env!("CARGO_PKG_VERSION")));
    if let Some((host, address)) = &target.pinned {
        builder = builder.resolve(host, *address);
    }
    let client = builder.build().map_err(|_| WebhookError::Connect)?;
    for attempt in 1..=MAX_ATTEMPTS {
        let mut request = client.post(target.url.clone()).json(body);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.map_err(|e| {
            if e.is_timeout() {
                WebhookError::Timeout
            } else {
                WebhookError::Connect
            }
        })?;
        let status = response.status();
        if status.is_success() {
            return Ok(());
        }
        if status.is_redirection() {
            return Err(WebhookError::Redirect);
        }
        if status != StatusCode::TOO_MANY_REQUESTS {
            return Err(WebhookError::Status(status.as_u16()));
        }
        let wait = retry_after(response).await;
        match wait {
            Some(wait) if wait <= MAX_RETRY_WAIT && attempt < MAX_ATTEMPTS => {
                tokio::time::sleep(wait).await
            }
            _ => return Err(WebhookError::RateLimited),
        }
    }
    Err(WebhookError::RateLimited)
}

/// How long a 429 asks to wait: `retry_after` seconds in the JSON body, else the header.
async fn retry_after(response: reqwest::Response) -> Option<Duration> {
    let header = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok());
    let body: Option<Value> = tokio::time::timeout(TIMEOUT, response.json())
        .await
        .ok()
        .and_then(Result::ok);
    let seconds = body
        .as_ref()
        .and_then(|b| b.get("retry_after"))
        .and_then(Value::as_f64)
        .or(header)?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_internal_addresses_in_every_spelling() {
        let forbidden = [
            "127.0.0.1",
            "127.8.9.10",
            "0.0.0.0",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.100.100.200",
            "224.0.0.1",
            "255.255.255.255",
            "240.0.0.1",
            "192.0.0.192",
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::ffff:10.0.0.1",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::",
            "fe80::1",
            "fd00:ec2::254",
            "fc00::1",
            "ff02::1",
        ];
        for raw in forbidden {
            assert!(is_forbidden(raw.parse().unwrap()), "{raw} must be refused");
        }
        for raw in [
            "93.184.216.34",
            "1.1.1.1",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
        ] {
            assert!(!is_forbidden(raw.parse().unwrap()), "{raw} is public");
        }
    }

    #[test]
    fn parses_only_plain_http_urls() {
        for bad in [
            "ftp://example.com/x",
            "not a url",
            "http://user:pw@example.com/",
            "file:///etc/passwd",
            "javascript:alert(1)",
        ] {
            assert!(parse_url(bad).is_err(), "{bad}");
        }
        assert!(parse_url("https://discord.com/api/webhooks/1/abc").is_ok());
    }
}
