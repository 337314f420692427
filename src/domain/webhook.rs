//! Webhooks (extensions.md 4): subscriptions, which URLs may receive them, Standard
//! Webhooks signatures, the retry schedule, and how subscriptions and delivery attempts
//! are shown.

use core::net::Ipv6Addr;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::event::EventType;
use super::input::{Field, Input, Mode};
use super::signing::{base64, base64_decode, hmac_sha256_parts};
use super::time::{iso8601, DAY_MS};
use super::token::Scopes;
use super::validation::{FieldErrors, Rule};

/// Subscriptions an account may have; one more is a 403.
pub const MAX_PER_ACCOUNT: i64 = 10;
pub const MAX_URL_CHARS: usize = 2000;
const MAX_DESCRIPTION_CHARS: usize = 500;
/// After a rotation the old secret still signs for this long, so receivers can switch.
pub const ROTATION_OVERLAP_MS: i64 = DAY_MS;
/// A webhook whose attempts have all failed for this long is disabled.
pub const DISABLE_AFTER_MS: i64 = 5 * DAY_MS;
/// Delivery attempts are listed for this long, then pruned.
pub const DELIVERY_RETENTION_MS: i64 = 30 * DAY_MS;
/// A consumer's claim on an attempt; past it the attempt is another consumer's to take
/// (the first one crashed). Longer than an attempt can take (10 s request + D1).
pub const CLAIM_MS: i64 = 60_000;
/// How long the receiver has to answer.
pub const TIMEOUT_MS: i32 = 10_000;
/// Cloudflare Queues delays a message by at most 12 hours.
const MAX_DELAY_SECONDS: u32 = 43_200;
pub const DEFAULT_SCHEDULE: &str = "5,300,1800,7200,18000,36000,36000";

/// Which events a webhook receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventFilter {
    All,
    /// Non-empty, without duplicates, in the order given.
    Only(Vec<EventType>),
}

impl EventFilter {
    pub fn matches(&self, t: EventType) -> bool {
        match self {
            EventFilter::All => true,
            EventFilter::Only(types) => types.contains(&t),
        }
    }

    pub fn names(&self) -> Vec<&'static str> {
        match self {
            EventFilter::All => vec!["*"],
            EventFilter::Only(types) => types.iter().map(|t| t.as_str()).collect(),
        }
    }

    /// JSON text of the names: the stored form, which the fan-out at commit matches in SQL.
    pub fn to_stored(&self) -> String {
        serde_json::to_string(&self.names()).unwrap_or_else(|_| "[]".into())
    }

    /// Names this build does not know are skipped, so an old row never fails to read.
    pub fn parse_stored(s: &str) -> EventFilter {
        let names: Vec<String> = serde_json::from_str(s).unwrap_or_default();
        if names.iter().any(|n| n == "*") {
            return EventFilter::All;
        }
        EventFilter::Only(names.iter().filter_map(|n| EventType::parse(n)).collect())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebhookStatus {
    Enabled,
    Disabled,
}

impl WebhookStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            WebhookStatus::Enabled => "enabled",
            WebhookStatus::Disabled => "disabled",
        }
    }

    pub fn parse(s: &str) -> Option<WebhookStatus> {
        match s {
            "enabled" => Some(WebhookStatus::Enabled),
            "disabled" => Some(WebhookStatus::Disabled),
            _ => None,
        }
    }
}

/// Why a URL may not receive webhooks; the text completes "The url field ...". The same
/// check guards create, update and every delivery attempt.
pub fn check_url(url: &str, allow_private: bool) -> Result<(), &'static str> {
    let Some(parsed) = super::weburl::parse_http(url) else {
        return Err("must be a valid URL.");
    };
    // The runtime maps a non-ASCII host (UTS 46: NFKC, case folding, `。` as a dot) before
    // it connects, so `１２７.０.０.１` or `①②⑦.⓪.⓪.①` is 127.0.0.1. An ASCII host is
    // connected to as written, so only such a host is classified here.
    if !parsed.host.is_ascii() {
        return Err("must have an ASCII host name: write an internationalised domain name in its xn-- (punycode) form.");
    }
    if parsed
        .port
        .is_some_and(|p| p.parse::<u16>().map_or(true, |p| p == 0))
    {
        return Err("must have a port from 1 to 65535.");
    }
    if allow_private {
        return Ok(());
    }
    if parsed.scheme != "https" {
        return Err("must be an https:// URL.");
    }
    if public_host(&parsed.host) {
        Ok(())
    } else {
        Err("must point to a public host (not localhost or a private, loopback, link-local or special-purpose address).")
    }
}

/// A name on the public internet, or an IP literal outside the private, loopback,
/// link-local, shared, multicast, reserved and special-purpose ranges. `host` is ASCII and
/// lowercased (as [`check_url`] has it). A host whose last label is a number is read by
/// URL parsers as IPv4 (`2130706433`, `0x7f.1`, `127.1`, `0177.0.0.1`): only the plain
/// dotted-decimal form is classified, and every other such host is refused.
pub fn public_host(host: &str) -> bool {
    // `localhost.` is `localhost` to DNS.
    let host = host.strip_suffix('.').unwrap_or(host);
    if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return v6.parse::<Ipv6Addr>().is_ok_and(public_ipv6);
    }
    let last = host.rsplit('.').next().unwrap_or("");
    let numeric =
        !last.is_empty() && (last.bytes().all(|b| b.is_ascii_digit()) || last.starts_with("0x"));
    if numeric {
        return ipv4(host).is_some_and(public_ipv4);
    }
    let private_suffix = [".localhost", ".local", ".internal", ".home.arpa", ".lan"]
        .iter()
        .any(|s| host.ends_with(s));
    // A single label (`intranet`) only resolves on a private network.
    host != "localhost" && !private_suffix && host.contains('.')
}

/// Four decimal octets without leading zeros, the one IPv4 form accepted.
fn ipv4(host: &str) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut parts = host.split('.');
    for slot in &mut out {
        let p = parts.next()?;
        if p.is_empty() || p.len() > 3 || (p.len() > 1 && p.starts_with('0')) {
            return None;
        }
        *slot = p.parse().ok()?;
    }
    parts.next().is_none().then_some(out)
}

/// Outside the IANA IPv4 special-purpose registry's ranges that are not globally
/// reachable, and outside 192.88.99.0/24 (the 6to4 relay anycast, which forwards to an
/// address of the sender's choosing).
fn public_ipv4([a, b, c, _]: [u8; 4]) -> bool {
    !(a == 0
        || a == 10
        || a == 127
        || (a == 100 && (64..128).contains(&b))
        || (a == 169 && b == 254)
        || (a == 172 && (16..32).contains(&b))
        || (a == 192 && b == 168)
        || (a == 192 && b == 0 && (c == 0 || c == 2))
        || (a == 192 && b == 88 && c == 99)
        || (a == 198 && (b == 18 || b == 19))
        || (a == 198 && b == 51 && c == 100)
        || (a == 203 && b == 0 && c == 113)
        || a >= 224)
}

/// Global unicast (2000::/3) only, less its special-purpose blocks: 2001::/23 (IETF
/// protocol assignments: Teredo 2001::/32 carries an IPv4 address, benchmarking, ORCHID),
/// 2001:db8::/32 and 3fff::/20 (documentation), 2002::/16 (6to4, an IPv4 address inside).
/// Everything outside 2000::/3 (loopback, unspecified, unique local, link-local,
/// multicast, IPv4-mapped, NAT64) is refused.
fn public_ipv6(ip: Ipv6Addr) -> bool {
    let [s0, s1, ..] = ip.segments();
    let global_unicast = (0x2000..0x4000).contains(&s0);
    let special =
        (s0 == 0x2001 && (s1 < 0x0200 || s1 == 0x0db8)) || s0 == 0x2002 || (s0 & 0xfff0) == 0x3ff0;
    global_unicast && !special
}

/// The first event type `filter` carries that a token with `scopes` may not read from the
/// feed (extensions.md 1: `card.*` needs cards:read or cards:write, `lead.*` leads:read).
/// A webhook carries only what the token that sets it up could read itself.
pub fn unreadable(filter: &EventFilter, scopes: &Scopes) -> Option<EventType> {
    let carried = match filter {
        // A token's `*` carries template events only when named (`outbox::fanout_sql`),
        // so a v1 client's `*` webhook needs no template scope (teams.md 1).
        EventFilter::All => EventType::ALL[..5].to_vec(),
        EventFilter::Only(types) => types.clone(),
    };
    carried.into_iter().find(|t| !scopes.grants(t.scope()))
}

/// Redeliveries of one event to one webhook in [`REDELIVER_WINDOW_MS`]; one more is a 429.
pub const REDELIVER_LIMIT: i64 = 5;
pub const REDELIVER_WINDOW_MS: i64 = 3_600_000;

/// Seconds until the oldest redelivery of the window (made at `oldest`) leaves it.
pub fn redeliver_retry_after(oldest: i64, now: i64) -> u64 {
    let ms = (oldest + REDELIVER_WINDOW_MS - now).max(1000);
    u64::try_from((ms + 999) / 1000).unwrap_or(1)
}

/// How long an attempt of an account without API access waits before it is looked at
/// again; restoring access resumes the waiting attempts at once.
pub const PARK_MS: i64 = 3_600_000;

/// `whsec_` + base64 of 32 random bytes (Standard Webhooks).
pub fn format_secret(random: &[u8; 32]) -> String {
    format!("whsec_{}", base64(random))
}

/// The signing key inside a secret.
pub fn secret_key(secret: &str) -> Option<Vec<u8>> {
    base64_decode(secret.strip_prefix("whsec_")?)
}

/// `v1,` + base64 HMAC-SHA-256 of `{id}.{timestamp}.{body}`: one signature of a
/// `webhook-signature` header.
pub fn signature(key: &[u8], id: &str, timestamp: i64, body: &str) -> String {
    let ts = timestamp.to_string();
    let mac = hmac_sha256_parts(
        key,
        &[id.as_bytes(), b".", ts.as_bytes(), b".", body.as_bytes()],
    );
    format!("v1,{}", base64(&mac))
}

/// Seconds to wait after each failed attempt (`WEBHOOK_RETRY_SCHEDULE`); its length is
/// the number of retries, so attempts = length + 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetrySchedule(Vec<u32>);

impl RetrySchedule {
    /// Comma-separated seconds; `None` for anything else, so a typo is noticed.
    pub fn parse(s: &str) -> Option<RetrySchedule> {
        let waits: Option<Vec<u32>> = s.split(',').map(|p| p.trim().parse().ok()).collect();
        waits.map(RetrySchedule)
    }

    pub fn default_schedule() -> RetrySchedule {
        RetrySchedule::parse(DEFAULT_SCHEDULE).unwrap_or(RetrySchedule(vec![]))
    }

    /// The delay before the attempt after `attempt` (1-based) failed, or `None` when that
    /// was the last. A receiver's `Retry-After` (seconds) lengthens the wait, never
    /// shortens it; Queues cannot wait longer than 12 hours.
    pub fn next_delay(&self, attempt: i64, retry_after: Option<u32>) -> Option<u32> {
        let wait = *self.0.get(usize::try_from(attempt - 1).ok()?)?;
        Some(wait.max(retry_after.unwrap_or(0)).min(MAX_DELAY_SECONDS))
    }

    pub fn waits(&self) -> &[u32] {
        &self.0
    }
}

/// `{url, events, description?}` of createWebhook, and the fields of updateWebhook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookInput {
    pub url: Option<String>,
    pub events: Option<EventFilter>,
    pub description: Field<String>,
    pub status: Option<WebhookStatus>,
}

impl WebhookInput {
    /// Create (`url` and `events` required; `status` not taken) or update (each optional).
    pub fn parse(
        body: &Map<String, Value>,
        mode: Mode,
        allow_private: bool,
    ) -> Result<WebhookInput, FieldErrors> {
        let mut input = Input::new(body);
        let url = input.required_text("url", MAX_URL_CHARS, mode);
        if let Some(u) = &url {
            if let Err(why) = check_url(u, allow_private) {
                input.fail("url", format!("The url field {why}"));
            }
        }
        let events = events(&mut input, mode);
        let description = input.text("description", MAX_DESCRIPTION_CHARS);
        let status = match mode {
            Mode::Create => None,
            Mode::Update => match input.choice("status", WebhookStatus::parse) {
                Field::Set(s) => Some(s),
                Field::Null => {
                    input.fail_rule("status", Rule::Required);
                    None
                }
                Field::Absent => None,
            },
        };
        input.finish(WebhookInput {
            url,
            events,
            description,
            status,
        })
    }
}

fn events(input: &mut Input, mode: Mode) -> Option<EventFilter> {
    let items = match input.get("events") {
        Field::Absent if mode == Mode::Update => return None,
        Field::Set(Value::Array(items)) if !items.is_empty() => items,
        Field::Set(Value::Array(_)) | Field::Absent | Field::Null => {
            input.fail_rule("events", Rule::Required);
            return None;
        }
        Field::Set(_) => {
            input.fail_rule("events", Rule::Array);
            return None;
        }
    };
    let (mut all, mut types) = (false, Vec::new());
    for (i, item) in items.iter().enumerate() {
        match item.as_str() {
            Some("*") => all = true,
            Some(name) => match EventType::parse(name) {
                Some(t) if !types.contains(&t) => types.push(t),
                Some(_) => {}
                None => input.fail_rule(&format!("events.{i}"), Rule::Choice),
            },
            None => input.fail_rule(&format!("events.{i}"), Rule::String),
        }
    }
    Some(if all {
        EventFilter::All
    } else {
        EventFilter::Only(types)
    })
}

/// A subscription as stored (the secrets stay in storage).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Webhook {
    pub id: i64,
    pub url: String,
    pub events: EventFilter,
    pub description: Option<String>,
    pub status: WebhookStatus,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Serialize)]
pub struct WebhookView<'a> {
    pub id: i64,
    pub url: &'a str,
    pub events: Vec<&'static str>,
    pub description: Option<&'a str>,
    pub status: &'static str,
    /// Only in the answers of create and rotate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<&'a str>,
    pub created_at: String,
    pub updated_at: String,
}

impl Webhook {
    pub fn view<'a>(&'a self, secret: Option<&'a str>) -> WebhookView<'a> {
        WebhookView {
            id: self.id,
            url: &self.url,
            events: self.events.names(),
            description: self.description.as_deref(),
            status: self.status.as_str(),
            secret,
            created_at: iso8601(self.created_at),
            updated_at: iso8601(self.updated_at),
        }
    }
}

/// One delivery attempt, as stored and listed.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Delivery {
    pub id: i64,
    pub event_id: String,
    pub event_type: String,
    pub attempt: i64,
    pub status: String,
    pub response_status: Option<i64>,
    pub error: Option<String>,
    pub created_at: i64,
    pub completed_at: Option<i64>,
}

#[derive(Serialize)]
pub struct DeliveryView<'a> {
    pub id: i64,
    pub event_id: &'a str,
    pub event_type: &'a str,
    pub attempt: i64,
    pub status: &'a str,
    pub response_status: Option<i64>,
    pub error: Option<&'a str>,
    pub created_at: String,
    pub completed_at: Option<String>,
}

impl Delivery {
    pub fn view(&self) -> DeliveryView<'_> {
        DeliveryView {
            id: self.id,
            event_id: &self.event_id,
            event_type: &self.event_type,
            attempt: self.attempt,
            status: &self.status,
            response_status: self.response_status,
            error: self.error.as_deref(),
            created_at: iso8601(self.created_at),
            completed_at: self.completed_at.map(iso8601),
        }
    }
}

/// What one attempt came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A 2xx answer in time.
    Delivered(u16),
    /// Any other answer; `retry_after` from a 429 or 503.
    Refused {
        status: u16,
        retry_after: Option<u32>,
    },
    /// No answer: timeout, connection error, or a URL no longer allowed.
    NoAnswer(String),
}

impl Outcome {
    pub fn from_status(status: u16, retry_after: Option<&str>) -> Outcome {
        if (200..300).contains(&status) {
            return Outcome::Delivered(status);
        }
        let retry_after = match status {
            429 | 503 => retry_after.and_then(|s| s.trim().parse().ok()),
            _ => None,
        };
        Outcome::Refused {
            status,
            retry_after,
        }
    }

    pub fn succeeded(&self) -> bool {
        matches!(self, Outcome::Delivered(_))
    }

    /// 410 Gone: the receiver asks to be forgotten; the webhook is disabled at once.
    pub fn gone(&self) -> bool {
        matches!(self, Outcome::Refused { status: 410, .. })
    }

    pub fn status(&self) -> Option<i64> {
        match self {
            Outcome::Delivered(s) | Outcome::Refused { status: s, .. } => Some(i64::from(*s)),
            Outcome::NoAnswer(_) => None,
        }
    }

    pub fn error(&self) -> Option<String> {
        match self {
            Outcome::Delivered(_) => None,
            Outcome::Refused { status, .. } => Some(format!("HTTP {status}")),
            Outcome::NoAnswer(why) => Some(why.clone()),
        }
    }

    pub fn retry_after(&self) -> Option<u32> {
        match self {
            Outcome::Refused { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

/// Whether a failure ends the webhook: a 410, or failures only since `failing_since`
/// for [`DISABLE_AFTER_MS`].
pub fn disables(outcome: &Outcome, failing_since: Option<i64>, now: i64) -> bool {
    !outcome.succeeded()
        && (outcome.gone() || failing_since.is_some_and(|t| now - t >= DISABLE_AFTER_MS))
}

/// The message of a 403 at the subscription limit.
pub fn limit_message() -> String {
    format!("An account can have at most {MAX_PER_ACCOUNT} webhooks. Delete one to add another.")
}

/// The key that seals signing secrets at rest, derived from the `TOKEN_PEPPER` secret so
/// that deployments need no further secret.
pub fn sealing_key(pepper: &str) -> [u8; 32] {
    super::signing::hmac_sha256(pepper.as_bytes(), b"webhook signing secrets v1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn signature_matches_the_standard_webhooks_example() {
        // The example of the Standard Webhooks specification and its reference libraries.
        let key = secret_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let body = r#"{"test": 2432232314}"#;
        assert_eq!(
            signature(&key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
        assert_ne!(
            signature(&key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, "{}"),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn secrets_carry_32_bytes() {
        let s = format_secret(&[7; 32]);
        assert!(s.starts_with("whsec_"));
        assert_eq!(secret_key(&s).unwrap(), vec![7; 32]);
        assert_eq!(secret_key("nope"), None);
    }

    #[test]
    fn only_public_hosts_in_production() {
        for ok in [
            "https://example.com/hook",
            "https://hooks.example.co.uk:8443/a?b=c",
            "https://8.8.8.8/x",
            "https://[2606:4700::1111]/x",
        ] {
            assert_eq!(check_url(ok, false), Ok(()), "{ok}");
        }
        for bad in [
            "http://example.com/hook",
            "https://localhost/x",
            "https://api.localhost/x",
            "https://127.0.0.1/x",
            "https://10.1.2.3/x",
            "https://172.20.0.1/x",
            "https://192.168.1.1/x",
            "https://169.254.169.254/latest/meta-data",
            "https://100.64.0.1/x",
            "https://0.0.0.0/x",
            "https://2130706433/x",
            "https://0x7f.0.0.1/x",
            "https://127.1/x",
            "https://[::1]/x",
            "https://[fe80::1]/x",
            "https://[fd00::1]/x",
            "https://[::ffff:127.0.0.1]/x",
            "https://printer.local/x",
            "https://intranet/x",
            "ftp://example.com/x",
            "not a url",
        ] {
            assert!(check_url(bad, false).is_err(), "{bad}");
        }
        assert_eq!(check_url("http://127.0.0.1:9000/hook", true), Ok(()));
        assert!(check_url("ftp://127.0.0.1/", true).is_err());
    }

    /// Issue 29's finding 1 and its neighbours: hosts a WHATWG parser (the runtime's, and
    /// the `url` crate's) maps to a private or special address, ports that are no port.
    /// One list, shared with the end-to-end tests.
    fn smuggled() -> Vec<&'static str> {
        include_str!("../../tests/data/smuggled-webhook-urls.txt")
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    }

    /// Public names written in Unicode: refused too (the rule is "ASCII hosts only"), with
    /// the xn-- form accepted instead.
    const UNICODE_NAMES: &[&str] = &[
        "https://bücher.de/",
        "https://BÜCHER.de/",
        "https://例え.jp/",
        "https://exa\u{AD}mple.com/",
    ];

    const ACCEPTED: &[&str] = &[
        "https://example.com/hook",
        "https://Hooks.Example.COM:8443/a?b=c",
        "https://xn--bcher-kva.de/hook",
        "https://8.8.8.8/x",
        "https://1.1.1.1:443/x",
        "https://[2606:4700::1111]/x",
        "https://[2606:4700:0:0::1111]/x",
        "https://[2001:4860:4860::8888]/",
        "https://example.com:65535/",
        "https://under_score.example.com/",
    ];

    /// The host and port a WHATWG parser connects to: the `url` crate's reading, as text
    /// (ASCII: IPv4 dotted decimal, IPv6 compressed in brackets, names in punycode).
    fn whatwg(url: &str) -> Option<(String, Option<u16>)> {
        let u = url::Url::parse(url).ok()?;
        Some((u.host_str()?.to_string(), u.port()))
    }

    fn same_host(ours: &str, theirs: &str) -> bool {
        let v6 = |h: &str| {
            h.strip_prefix('[')
                .and_then(|h| h.strip_suffix(']'))
                .and_then(|h| h.parse::<Ipv6Addr>().ok())
        };
        match (v6(ours), v6(theirs)) {
            (Some(a), Some(b)) => a == b,
            _ => ours == theirs,
        }
    }

    /// The rules are held to a real WHATWG parser: whatever `check_url` accepts, the `url`
    /// crate reads as the very host (and port) that was classified, and that host is
    /// public; every smuggling payload is, to that parser, a private or special
    /// destination, an invalid port, or no URL at all.
    #[test]
    fn classifies_the_host_a_whatwg_parser_connects_to() {
        let smuggled = smuggled();
        let all = smuggled.iter().chain(UNICODE_NAMES).chain(ACCEPTED);
        for url in all {
            if check_url(url, false).is_err() {
                continue;
            }
            let ours = super::super::weburl::parse_http(url).expect("accepted, so parsed");
            let (host, port) = whatwg(url).unwrap_or_else(|| panic!("{url}: url crate refused"));
            assert!(
                same_host(&ours.host, &host),
                "{url}: {} vs {host}",
                ours.host
            );
            assert!(public_host(&host), "{url}: {host}");
            let our_port = ours.port.and_then(|p| p.parse::<u16>().ok());
            assert!(port.is_none() || port == our_port, "{url}: {port:?}");
        }
        for url in ACCEPTED {
            assert_eq!(check_url(url, false), Ok(()), "{url}");
        }
        for url in &smuggled {
            if let Some((host, port)) = whatwg(url) {
                assert!(
                    !public_host(&host) || port == Some(0),
                    "{url} reaches the public {host}: not a smuggling case"
                );
            }
        }
        for url in UNICODE_NAMES {
            let (host, _) = whatwg(url).expect("a valid IDN");
            assert!(host.is_ascii() && public_host(&host), "{url}: {host}");
            assert!(check_url(url, false).is_err(), "{url}");
        }
    }

    #[test]
    fn smuggled_hosts_and_ports_are_refused() {
        for url in &smuggled() {
            assert!(check_url(url, false).is_err(), "{url}");
        }
        // Under the local rules too, but for their scheme and private hosts.
        assert!(check_url("http://１２７.０.０.１:9000/", true).is_err());
        assert!(check_url("http://127.0.0.1:0/", true).is_err());
        assert_eq!(check_url("https://xn--bcher-kva.de/hook", false), Ok(()));
        assert_eq!(check_url("https://example.com:65535/", false), Ok(()));
        assert_eq!(check_url("https://[2600:1f18::1]:8443/", false), Ok(()));
        assert_eq!(check_url("https://[2001:4860:4860::8888]/", false), Ok(()));
    }

    #[test]
    fn events_a_token_may_not_read() {
        use super::super::token::Scope;
        let scopes = |s: Vec<Scope>| Scopes::new(s);
        let cards = scopes(vec![Scope::CardsWrite, Scope::WebhooksWrite]);
        let leads = scopes(vec![Scope::LeadsRead, Scope::WebhooksWrite]);
        let both = scopes(vec![Scope::CardsRead, Scope::LeadsRead]);
        let only = |t: Vec<EventType>| EventFilter::Only(t);
        assert_eq!(
            unreadable(&only(vec![EventType::CardCreated]), &cards),
            None
        );
        assert_eq!(
            unreadable(
                &only(vec![EventType::CardCreated, EventType::LeadCreated]),
                &cards
            ),
            Some(EventType::LeadCreated)
        );
        assert_eq!(
            unreadable(&EventFilter::All, &cards),
            Some(EventType::LeadCreated)
        );
        assert_eq!(
            unreadable(&EventFilter::All, &leads),
            Some(EventType::CardCreated)
        );
        assert_eq!(unreadable(&EventFilter::All, &both), None);
        assert_eq!(
            unreadable(
                &only(vec![EventType::LeadDeleted]),
                &scopes(vec![Scope::WebhooksWrite])
            ),
            Some(EventType::LeadDeleted)
        );
    }

    #[test]
    fn redelivery_waits_for_the_oldest_to_leave_the_hour() {
        assert_eq!(redeliver_retry_after(0, 0), 3600);
        assert_eq!(redeliver_retry_after(0, 3_599_001), 1);
        assert_eq!(redeliver_retry_after(0, 3_600_500), 1);
        assert_eq!(redeliver_retry_after(1_000, 1_500), 3600);
    }

    #[test]
    fn create_input() {
        let w = WebhookInput::parse(
            &obj(
                json!({"url": "https://example.com/h", "events": ["lead.created", "lead.created"]}),
            ),
            Mode::Create,
            false,
        )
        .unwrap();
        assert_eq!(
            w.events,
            Some(EventFilter::Only(vec![EventType::LeadCreated]))
        );
        assert_eq!(w.description, Field::Absent);
        let all = WebhookInput::parse(
            &obj(json!({"url": "https://example.com/h", "events": ["*"], "description": "CRM"})),
            Mode::Create,
            false,
        )
        .unwrap();
        assert_eq!(all.events, Some(EventFilter::All));
        assert_eq!(all.events.unwrap().to_stored(), r#"["*"]"#);

        let e = WebhookInput::parse(&obj(json!({})), Mode::Create, false).unwrap_err();
        assert!(e.has("url") && e.has("events"));
        let e = WebhookInput::parse(
            &obj(json!({"url": "http://127.0.0.1/h", "events": ["card.exploded", 3]})),
            Mode::Create,
            false,
        )
        .unwrap_err();
        assert!(e.has("url") && e.has("events.0") && e.has("events.1"));
        let e = WebhookInput::parse(
            &obj(json!({"url": "https://example.com/h", "events": []})),
            Mode::Create,
            false,
        )
        .unwrap_err();
        assert!(e.has("events"));
        let long = format!("https://example.com/{}", "a".repeat(2000));
        let e = WebhookInput::parse(
            &obj(json!({"url": long, "events": ["*"]})),
            Mode::Create,
            false,
        )
        .unwrap_err();
        assert!(e.has("url"));
    }

    #[test]
    fn update_input() {
        let w =
            WebhookInput::parse(&obj(json!({"status": "disabled"})), Mode::Update, false).unwrap();
        assert_eq!(w.status, Some(WebhookStatus::Disabled));
        assert_eq!((w.url, w.events), (None, None));
        let e = WebhookInput::parse(&obj(json!({"status": "paused"})), Mode::Update, false)
            .unwrap_err();
        assert!(e.has("status"));
        let w =
            WebhookInput::parse(&obj(json!({"description": null})), Mode::Update, false).unwrap();
        assert_eq!(w.description, Field::Null);
    }

    #[test]
    fn filters() {
        let only = EventFilter::parse_stored(r#"["card.created","bogus"]"#);
        assert!(only.matches(EventType::CardCreated) && !only.matches(EventType::LeadCreated));
        assert!(EventFilter::parse_stored(r#"["*"]"#).matches(EventType::LeadCreated));
        assert_eq!(only.names(), ["card.created"]);
    }

    #[test]
    fn schedule() {
        let s = RetrySchedule::default_schedule();
        assert_eq!(s.waits().len(), 7);
        assert_eq!(s.next_delay(1, None), Some(5));
        assert_eq!(s.next_delay(1, Some(60)), Some(60));
        assert_eq!(s.next_delay(2, Some(60)), Some(300));
        assert_eq!(s.next_delay(7, Some(999_999)), Some(43_200));
        assert_eq!(s.next_delay(8, None), None);
        assert_eq!(
            RetrySchedule::parse("1, 2"),
            Some(RetrySchedule(vec![1, 2]))
        );
        assert_eq!(RetrySchedule::parse("1,x"), None);
    }

    #[test]
    fn outcomes() {
        assert!(Outcome::from_status(204, None).succeeded());
        let busy = Outcome::from_status(503, Some("120"));
        assert_eq!(busy.retry_after(), Some(120));
        assert_eq!(Outcome::from_status(500, Some("120")).retry_after(), None);
        let gone = Outcome::from_status(410, None);
        assert!(disables(&gone, None, 0));
        let failed = Outcome::from_status(500, None);
        assert!(!disables(&failed, Some(0), DISABLE_AFTER_MS - 1));
        assert!(disables(&failed, Some(0), DISABLE_AFTER_MS));
        assert!(!disables(
            &Outcome::Delivered(200),
            Some(0),
            DISABLE_AFTER_MS
        ));
        assert_eq!(failed.error().as_deref(), Some("HTTP 500"));
    }
}
