//! The typed client of [`super::RateLimiter`]: its binding, the calls it answers and
//! their answers. Callers use [`check`] and [`invalidate`]; the wire format (a small URL
//! per call, chosen because the gate is on every API request's path) stays in this file.

use serde::{Deserialize, Serialize};
use worker::{Env, Result};

use crate::domain::ratelimit::Decision;
use crate::domain::weburl::{form_pairs, parse_http};
use crate::store::tokens::AuthRow;

/// The Durable Object namespace binding in `wrangler.toml`.
pub const BINDING: &str = "RATE_LIMITER";

/// What the object is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// Who is this token, and may it make one more request under `limit` per minute?
    Check { hash: String, limit: u32 },
    /// Forget the cached auth record (after a revoke or an account change).
    Invalidate,
    /// Keep the D1 bookmark of the token's latest write (the request body), so its next
    /// request reads no older data (extensions.md 6).
    Remember,
}

impl Call {
    fn url(&self) -> String {
        match self {
            Call::Check { hash, limit } => format!("https://gate/check?hash={hash}&limit={limit}"),
            Call::Invalidate => "https://gate/invalidate".to_string(),
            Call::Remember => "https://gate/remember".to_string(),
        }
    }

    /// The call a request to the object carries; `None` for anything else.
    pub fn decode(url: &str) -> Option<Call> {
        let url = parse_http(url)?;
        let path = url.rest.split(['?', '#']).next().unwrap_or_default();
        match path {
            "/invalidate" => Some(Call::Invalidate),
            "/remember" => Some(Call::Remember),
            "/check" => {
                let pairs = form_pairs(url.query().unwrap_or_default());
                let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
                let limit = get("limit")
                    .and_then(|v| v.parse::<i64>().ok())
                    .unwrap_or(1000)
                    .clamp(1, u32::MAX as i64) as u32;
                Some(Call::Check {
                    hash: get("hash").unwrap_or_default().to_string(),
                    limit,
                })
            }
            _ => None,
        }
    }
}

/// The answer to a check: who the token belongs to (none: 401) and, for a valid token,
/// the rate-limit decision.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Gate {
    pub auth: Option<AuthRow>,
    pub decision: Option<Decision>,
    /// The D1 bookmark of the token's latest write, if it made one.
    #[serde(default)]
    pub bookmark: Option<String>,
}

/// Asks the token's object who the token is and whether it may make this request.
pub async fn check(env: &Env, hash: &str, limit: u32) -> Result<Gate> {
    let call = Call::Check {
        hash: hash.to_string(),
        limit,
    };
    match crate::durable::call(env, BINDING, hash, &call.url(), None).await? {
        (200, text) => Ok(serde_json::from_str(&text)?),
        (s, _) => Err(worker::Error::RustError(format!("gate answered {s}"))),
    }
}

/// A call that answers nothing but success.
async fn post_call(env: &Env, hash: &str, call: Call, body: &str) -> Result<()> {
    match crate::durable::call(env, BINDING, hash, &call.url(), Some(body)).await? {
        (200, _) => Ok(()),
        (s, _) => Err(worker::Error::RustError(format!("gate answered {s}"))),
    }
}

/// Makes the token's object forget its cached auth record, so the very next request sees
/// D1's current state.
pub async fn invalidate(env: &Env, hash: &str) -> Result<()> {
    post_call(env, hash, Call::Invalidate, "").await
}

/// Hands the token's object the bookmark of a write before the write is answered, so the
/// token's next request, wherever it runs, starts its reads there.
pub async fn remember(env: &Env, hash: &str, bookmark: &str) -> Result<()> {
    post_call(env, hash, Call::Remember, bookmark).await
}

/// Invalidates every token of a list (an account's, after its plan changed).
pub async fn invalidate_all(env: &Env, hashes: &[String]) -> Result<()> {
    for hash in hashes {
        invalidate(env, hash).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_round_trip_through_their_urls() {
        let check = Call::Check {
            hash: "ab12".into(),
            limit: 60,
        };
        assert_eq!(Call::decode(&check.url()), Some(check));
        assert_eq!(
            Call::decode(&Call::Invalidate.url()),
            Some(Call::Invalidate)
        );
        assert_eq!(Call::decode(&Call::Remember.url()), Some(Call::Remember));
        assert_eq!(Call::decode("https://gate/other"), None);
        assert_eq!(
            Call::decode("https://gate/check?hash=h&limit=0"),
            Some(Call::Check {
                hash: "h".into(),
                limit: 1
            }),
            "the limit is at least 1"
        );
    }
}
