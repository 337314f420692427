//! The worker's configuration: every var and secret it reads (wrangler.toml, `.dev.vars`,
//! `wrangler secret put`), parsed in one place into typed values. A value that is missing
//! or cannot be read is decided here, once: the default or fallback it gets and a line
//! saying what that means, for the caller to log. Nothing else reads a var.

use super::region::Topology;
use super::time::DAY_MS;
use super::wallet;
use super::webhook::RetrySchedule;
use super::weburl::parse_http;

/// A test-only fault: `WEBHOOKS_FAULT=drop-send` skips the queue send after a commit, as a
/// crash between the two would.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebhooksFault {
    DropSend,
}

/// A test-only fault, as a crash there would: `SLUGS_FAULT=after-reserve` fails createCard
/// between the name's reservation and the shard's insert; `after-create` between the
/// shard's insert and the slug's routing row; `after-delete` fails deleteCard between the
/// shard's delete and the slug's retirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlugsFault {
    AfterReserve,
    AfterCreate,
    AfterDelete,
}

/// How long a slug's entry may stay pending or deleting before a create that meets it asks
/// the shard whether its card is there (`SLUG_SETTLE_MS`, tests only): longer than any
/// request runs.
pub const DEFAULT_SLUG_SETTLE_MS: i64 = 5 * 60 * 1000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// `PUBLIC_BASE_URL` without a trailing `/`; `None`: each request's own origin.
    pub public_base_url: Option<String>,
    /// `RATE_LIMIT_PER_MINUTE`: requests per rolling minute per API token.
    pub rate_limit_per_minute: u32,
    /// `LEADS_PER_VISITOR_PER_HOUR` and `LEADS_PER_CARD_PER_DAY` (extensions.md 5).
    pub leads_per_visitor_per_hour: u32,
    pub leads_per_card_per_day: u32,
    /// `EVENT_RETENTION_DAYS`: how long the change feed keeps events.
    pub event_retention_days: i64,
    /// `RETENTION_DAY_MS` (tests only): the length of a lead-retention day.
    pub retention_day_ms: i64,
    /// `WEBHOOK_RETRY_SCHEDULE`: seconds between webhook attempts.
    pub webhook_retry_schedule: RetrySchedule,
    /// `WEBHOOKS_ALLOW_PRIVATE=true` (local only): `http://` and private hosts as webhook URLs.
    pub webhooks_allow_private: bool,
    /// `WEBHOOKS_FAULT` (tests only).
    pub webhooks_fault: Option<WebhooksFault>,
    /// `ADMIN_HOSTS`: the only hosts that serve `/admin/v1`; `None`: any host.
    pub admin_hosts: Option<Vec<String>>,
    /// `ADMIN_TOKEN` (secret): `None` and `/admin/v1` does not exist (404).
    pub admin_token: Option<String>,
    /// `VISITOR_SALT` (secret): salts the visitor and client address hashes.
    pub visitor_salt: String,
    /// `TOKEN_PEPPER` (secret): keys token checksums, request digests and the keys that
    /// seal webhook secrets and kept idempotent answers.
    pub token_pepper: String,
    /// `SHARDS` and `DEFAULT_DATA_REGION` (regions.md 1), checked against the worker's
    /// bindings. An error names the fault; every request that needs D1 answers 500 with it.
    pub topology: Result<Topology, String>,
    /// `DURABLE_OBJECT_JURISDICTIONS=off` (local only: workerd does not implement them):
    /// the objects of `eu` and `fedramp` accounts are created without a jurisdiction. The
    /// deploy preflight refuses the var.
    pub durable_object_jurisdictions: bool,
    /// `SLUGS_FAULT` (tests only).
    pub slugs_fault: Option<SlugsFault>,
    /// `SLUG_SETTLE_MS` (tests only).
    pub slug_settle_ms: i64,
    /// Moves (regions.md 4): `MOVE_BATCH_ROWS` rows per copied page, `MOVE_STEP_MS`
    /// between two steps (tests slow a move down to restart the worker in it), and
    /// `MOVE_GRACE_MS` between the directory's switch and the emptying of the old shard
    /// (requests that learnt the old shard before the switch finish there, fenced).
    pub move_batch_rows: i64,
    pub move_step_ms: i64,
    pub move_grace_ms: i64,
    /// `MOVE_FAULT=drop-row` (tests only): a move leaves one lead out of its copy, so the
    /// count check before the switch fails it.
    pub move_drops_a_row: bool,
    /// Wallet passes (wallet.md): `APPLE_*` and `GOOGLE_WALLET_*`, checked when a wallet
    /// route or a card page first needs them (`wallet::Settings::identities`). The two
    /// private keys are not read here: WebCrypto takes them from their secrets.
    pub wallet: wallet::Settings,
}

pub const DEFAULT_MOVE_BATCH_ROWS: i64 = 100;
pub const DEFAULT_MOVE_GRACE_MS: i64 = 30_000;

pub const DEFAULT_RATE_LIMIT_PER_MINUTE: u32 = 1000;
pub const DEFAULT_LEADS_PER_VISITOR_PER_HOUR: u32 = 5;
pub const DEFAULT_LEADS_PER_CARD_PER_DAY: u32 = 1000;
/// The contract asks for at least 30 days; lower values exist for tests of the 410.
pub const DEFAULT_EVENT_RETENTION_DAYS: i64 = 30;

impl Config {
    /// The configuration `get` (a var or secret by name; unset and empty alike are `None`)
    /// describes, and one line per value that is missing or unreadable, saying what the
    /// worker does instead. Optional values that are simply unset say nothing.
    /// `bindings` names every binding the worker has (for the shard check).
    pub fn parse(
        get: impl Fn(&str) -> Option<String>,
        bindings: &[String],
    ) -> (Config, Vec<String>) {
        let get = |name: &str| {
            get(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let mut problems = vec![];
        let mut number = |name: &str, default: i64, min: i64, max: i64| -> i64 {
            let Some(text) = get(name) else {
                return default;
            };
            match text.parse::<i64>() {
                Ok(n) if (min..=max).contains(&n) => n,
                _ => {
                    problems.push(format!(
                        "{name} {text:?} is not a whole number from {min} to {max}; using {default}"
                    ));
                    default
                }
            }
        };
        let u32_max = i64::from(u32::MAX);
        let rate_limit_per_minute = number(
            "RATE_LIMIT_PER_MINUTE",
            DEFAULT_RATE_LIMIT_PER_MINUTE.into(),
            1,
            u32_max,
        );
        let leads_per_visitor_per_hour = number(
            "LEADS_PER_VISITOR_PER_HOUR",
            DEFAULT_LEADS_PER_VISITOR_PER_HOUR.into(),
            0,
            u32_max,
        );
        let leads_per_card_per_day = number(
            "LEADS_PER_CARD_PER_DAY",
            DEFAULT_LEADS_PER_CARD_PER_DAY.into(),
            0,
            u32_max,
        );
        let event_retention_days = number(
            "EVENT_RETENTION_DAYS",
            DEFAULT_EVENT_RETENTION_DAYS,
            0,
            36_500,
        );
        let retention_day_ms = number("RETENTION_DAY_MS", DAY_MS, 1, DAY_MS);
        let slug_settle_ms = number("SLUG_SETTLE_MS", DEFAULT_SLUG_SETTLE_MS, 0, DAY_MS);
        let move_batch_rows = number("MOVE_BATCH_ROWS", DEFAULT_MOVE_BATCH_ROWS, 1, 1000);
        let move_step_ms = number("MOVE_STEP_MS", 0, 0, 60_000);
        let move_grace_ms = number("MOVE_GRACE_MS", DEFAULT_MOVE_GRACE_MS, 0, 600_000);

        let public_base_url = get("PUBLIC_BASE_URL").and_then(|url| {
            let url = url.trim_end_matches('/').to_string();
            if parse_http(&url).is_some() {
                return Some(url);
            }
            problems.push(format!(
                "PUBLIC_BASE_URL {url:?} is not an http(s) URL; card URLs use each request's origin"
            ));
            None
        });
        let webhook_retry_schedule = match get("WEBHOOK_RETRY_SCHEDULE") {
            None => RetrySchedule::default_schedule(),
            Some(s) => RetrySchedule::parse(&s).unwrap_or_else(|| {
                problems.push(format!(
                    "WEBHOOK_RETRY_SCHEDULE {s:?} is not a list of seconds; using the default"
                ));
                RetrySchedule::default_schedule()
            }),
        };
        let webhooks_allow_private = match get("WEBHOOKS_ALLOW_PRIVATE").as_deref() {
            None | Some("false") => false,
            Some("true") => true,
            Some(other) => {
                problems.push(format!(
                    "WEBHOOKS_ALLOW_PRIVATE {other:?} is neither \"true\" nor \"false\"; \
                     private and plain http webhook URLs stay refused"
                ));
                false
            }
        };
        let webhooks_fault = match get("WEBHOOKS_FAULT").as_deref() {
            None => None,
            Some("drop-send") => Some(WebhooksFault::DropSend),
            Some(other) => {
                problems.push(format!(
                    "WEBHOOKS_FAULT {other:?} is no known fault; webhooks are sent as usual"
                ));
                None
            }
        };
        let admin_hosts = get("ADMIN_HOSTS").map(|hosts| {
            let names: Vec<String> = hosts
                .split(',')
                .map(|h| h.trim().to_ascii_lowercase())
                .filter(|h| !h.is_empty())
                .collect();
            if names.is_empty() {
                problems.push(format!(
                    "ADMIN_HOSTS {hosts:?} names no host; /admin/v1 answers 404 on every host"
                ));
            }
            names
        });
        let admin_token = get("ADMIN_TOKEN");
        if admin_token.is_none() {
            problems.push("ADMIN_TOKEN is not set; /admin/v1 answers 404".into());
        }
        let mut secret = |name: &str, consequence: &str| {
            get(name).unwrap_or_else(|| {
                problems.push(format!("{name} is not set; {consequence}"));
                String::new()
            })
        };
        let visitor_salt = secret(
            "VISITOR_SALT",
            "visitor and client address hashes are unsalted (an address can be found again \
             by hashing candidates)",
        );
        let token_pepper = secret(
            "TOKEN_PEPPER",
            "token checksums are unkeyed (anybody can make a token that passes the \
             checksum), and webhook secrets and kept answers are sealed with a key anybody \
             can derive",
        );
        let topology = Topology::parse(
            get("SHARDS").as_deref(),
            get("DEFAULT_DATA_REGION").as_deref(),
            bindings,
        );
        if let Err(e) = &topology {
            problems.push(format!("{e}; every request that needs D1 answers 500"));
        }
        let durable_object_jurisdictions = match get("DURABLE_OBJECT_JURISDICTIONS").as_deref() {
            None | Some("on") => true,
            Some("off") => false,
            Some(other) => {
                problems.push(format!(
                    "DURABLE_OBJECT_JURISDICTIONS {other:?} is neither \"on\" nor \"off\"; \
                     jurisdictions stay on"
                ));
                true
            }
        };
        let slugs_fault = match get("SLUGS_FAULT").as_deref() {
            None => None,
            Some("after-reserve") => Some(SlugsFault::AfterReserve),
            Some("after-create") => Some(SlugsFault::AfterCreate),
            Some("after-delete") => Some(SlugsFault::AfterDelete),
            Some(other) => {
                problems.push(format!(
                    "SLUGS_FAULT {other:?} is no known fault; cards are made as usual"
                ));
                None
            }
        };
        let move_drops_a_row = match get("MOVE_FAULT").as_deref() {
            None => false,
            Some("drop-row") => true,
            Some(other) => {
                problems.push(format!(
                    "MOVE_FAULT {other:?} is no known fault; moves copy every row"
                ));
                false
            }
        };
        let wallet = wallet::Settings::read(&get, bindings);
        let config = Config {
            public_base_url,
            rate_limit_per_minute: rate_limit_per_minute as u32,
            leads_per_visitor_per_hour: leads_per_visitor_per_hour as u32,
            leads_per_card_per_day: leads_per_card_per_day as u32,
            event_retention_days,
            retention_day_ms,
            webhook_retry_schedule,
            webhooks_allow_private,
            webhooks_fault,
            admin_hosts,
            admin_token,
            visitor_salt,
            token_pepper,
            topology,
            durable_object_jurisdictions,
            slugs_fault,
            slug_settle_ms,
            move_batch_rows,
            move_step_ms,
            move_grace_ms,
            move_drops_a_row,
            wallet,
        };
        (config, problems)
    }

    /// Whether `/admin/v1` exists on `host` (`ADMIN_HOSTS`; ASCII case-insensitive).
    pub fn serves_admin_on(&self, host: &str) -> bool {
        match &self.admin_hosts {
            None => true,
            Some(hosts) => hosts.iter().any(|h| h.eq_ignore_ascii_case(host)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn parse(vars: &[(&str, &str)]) -> (Config, Vec<String>) {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::parse(|name| vars.get(name).cloned(), &["SHARD_A".to_string()])
    }

    const SECRETS: [(&str, &str); 4] = [
        ("ADMIN_TOKEN", "admin"),
        ("VISITOR_SALT", "salt"),
        ("TOKEN_PEPPER", "pepper"),
        ("SHARDS", "SHARD_A=wnam"),
    ];

    #[test]
    fn defaults_when_unset() {
        let (c, problems) = parse(&SECRETS);
        assert_eq!(problems, Vec::<String>::new());
        assert_eq!(c.public_base_url, None);
        assert_eq!(c.rate_limit_per_minute, 1000);
        assert_eq!(c.leads_per_visitor_per_hour, 5);
        assert_eq!(c.leads_per_card_per_day, 1000);
        assert_eq!(c.event_retention_days, 30);
        assert_eq!(c.retention_day_ms, DAY_MS);
        assert_eq!(c.webhook_retry_schedule, RetrySchedule::default_schedule());
        assert!(!c.webhooks_allow_private);
        assert_eq!(c.webhooks_fault, None);
        assert_eq!(c.admin_hosts, None);
        assert!(c.serves_admin_on("anything.example"));
        assert_eq!(c.admin_token.as_deref(), Some("admin"));
        assert_eq!(
            (c.visitor_salt.as_str(), c.token_pepper.as_str()),
            ("salt", "pepper")
        );
    }

    #[test]
    fn set_values_are_read() {
        let mut vars = SECRETS.to_vec();
        vars.extend([
            ("PUBLIC_BASE_URL", " https://cards.example.com/ "),
            ("RATE_LIMIT_PER_MINUTE", "5"),
            ("LEADS_PER_VISITOR_PER_HOUR", "0"),
            ("LEADS_PER_CARD_PER_DAY", "7"),
            ("EVENT_RETENTION_DAYS", "0"),
            ("RETENTION_DAY_MS", "1000"),
            ("WEBHOOK_RETRY_SCHEDULE", "1, 2"),
            ("WEBHOOKS_ALLOW_PRIVATE", "true"),
            ("WEBHOOKS_FAULT", "drop-send"),
            ("ADMIN_HOSTS", "Admin.Example.com, ,ops.example.com"),
        ]);
        let (c, problems) = parse(&vars);
        assert_eq!(problems, Vec::<String>::new());
        assert_eq!(
            c.public_base_url.as_deref(),
            Some("https://cards.example.com")
        );
        assert_eq!(c.rate_limit_per_minute, 5);
        assert_eq!(c.leads_per_visitor_per_hour, 0);
        assert_eq!(c.leads_per_card_per_day, 7);
        assert_eq!(c.event_retention_days, 0);
        assert_eq!(c.retention_day_ms, 1000);
        assert_eq!(
            c.webhook_retry_schedule,
            RetrySchedule::parse("1,2").unwrap()
        );
        assert!(c.webhooks_allow_private);
        assert_eq!(c.webhooks_fault, Some(WebhooksFault::DropSend));
        assert_eq!(
            c.admin_hosts,
            Some(vec!["admin.example.com".into(), "ops.example.com".into()])
        );
        assert!(c.serves_admin_on("ADMIN.example.com"));
        assert!(!c.serves_admin_on("cards.example.com"));
    }

    #[test]
    fn empty_is_unset() {
        let mut vars = SECRETS.to_vec();
        vars.extend([("PUBLIC_BASE_URL", ""), ("RATE_LIMIT_PER_MINUTE", "  ")]);
        let (c, problems) = parse(&vars);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(c.public_base_url, None);
        assert_eq!(c.rate_limit_per_minute, 1000);
    }

    #[test]
    fn an_invalid_value_gets_the_default_and_says_so_once() {
        let mut vars = SECRETS.to_vec();
        vars.extend([
            ("PUBLIC_BASE_URL", "cards.example.com"),
            ("RATE_LIMIT_PER_MINUTE", "0"),
            ("LEADS_PER_VISITOR_PER_HOUR", "-1"),
            ("LEADS_PER_CARD_PER_DAY", "many"),
            ("EVENT_RETENTION_DAYS", "1.5"),
            ("RETENTION_DAY_MS", "0"),
            ("WEBHOOK_RETRY_SCHEDULE", "5,x"),
            ("WEBHOOKS_ALLOW_PRIVATE", "yes"),
            ("WEBHOOKS_FAULT", "drop"),
            ("ADMIN_HOSTS", " , "),
        ]);
        let (c, problems) = parse(&vars);
        assert_eq!(c, parse(&SECRETS).0.with_admin_hosts(Some(vec![])));
        let named: Vec<&str> = problems
            .iter()
            .map(|p| p.split(' ').next().unwrap())
            .collect();
        assert_eq!(
            named,
            [
                "RATE_LIMIT_PER_MINUTE",
                "LEADS_PER_VISITOR_PER_HOUR",
                "LEADS_PER_CARD_PER_DAY",
                "EVENT_RETENTION_DAYS",
                "RETENTION_DAY_MS",
                "PUBLIC_BASE_URL",
                "WEBHOOK_RETRY_SCHEDULE",
                "WEBHOOKS_ALLOW_PRIVATE",
                "WEBHOOKS_FAULT",
                "ADMIN_HOSTS",
            ]
        );
        // Each line says what happens instead.
        assert!(problems[0].ends_with("using 1000"), "{}", problems[0]);
        assert!(
            problems[5].contains("each request's origin"),
            "{}",
            problems[5]
        );
        assert!(problems[9].contains("404 on every host"), "{}", problems[9]);
        assert!(!c.serves_admin_on("admin.example.com"));
    }

    #[test]
    fn missing_secrets_are_decided_and_said() {
        let (c, problems) = parse(&[]);
        assert_eq!(c.admin_token, None);
        assert_eq!(c.visitor_salt, "");
        assert_eq!(c.token_pepper, "");
        assert!(c.topology.is_err());
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(
            problems[3].starts_with("SHARDS is not set"),
            "{}",
            problems[3]
        );
        assert!(problems[0].starts_with("ADMIN_TOKEN is not set; /admin/v1 answers 404"));
        assert!(problems[1].starts_with("VISITOR_SALT is not set; "));
        assert!(problems[2].starts_with("TOKEN_PEPPER is not set; "));
    }

    impl Config {
        fn with_admin_hosts(mut self, hosts: Option<Vec<String>>) -> Config {
            self.admin_hosts = hosts;
            self
        }
    }
}
