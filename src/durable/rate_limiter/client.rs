//! The typed client of [`super::RateLimiter`]: its binding, the calls it answers and
//! their answers. Callers use [`check`] and [`invalidate`]; the wire format (a small URL
//! per call, chosen because the gate is on every API request's path) stays in this file.

use serde::{Deserialize, Serialize};
use worker::{Env, Result};

use crate::domain::own_writes::Settle;
use crate::domain::ratelimit::Decision;
use crate::domain::weburl::{form_encode, form_pairs, parse_http};
use crate::store::tokens::AuthRow;

/// The Durable Object namespace binding in `wrangler.toml`.
pub const BINDING: &str = "RATE_LIMITER";

/// What the object is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// Who is this token, and may it make one more request under `limit` per minute? A
    /// `write` is marked (its reads after it start at the primary until it settles);
    /// `settles` are the bookmarks of this isolate's earlier writes of the token.
    Check {
        hash: String,
        limit: u32,
        write: bool,
        settles: Vec<Settle>,
    },
    /// Forget the cached auth record (after a revoke or an account change).
    Invalidate,
}

impl Call {
    fn url(&self) -> String {
        match self {
            Call::Check {
                hash,
                limit,
                write,
                settles,
            } => {
                let mut url = format!("https://gate/check?hash={hash}&limit={limit}");
                if *write {
                    url.push_str("&write=1");
                }
                // `settle=<mark>.<bookmark>`, either part empty when there is none.
                for s in settles {
                    let mark = s.mark.map(|m| m.to_string()).unwrap_or_default();
                    let bookmark = form_encode(s.bookmark.as_deref().unwrap_or_default());
                    url.push_str(&format!("&settle={mark}.{bookmark}"));
                }
                url
            }
            Call::Invalidate => "https://gate/invalidate".to_string(),
        }
    }

    /// The call a request to the object carries; `None` for anything else.
    pub fn decode(url: &str) -> Option<Call> {
        let url = parse_http(url)?;
        let path = url.rest.split(['?', '#']).next().unwrap_or_default();
        match path {
            "/invalidate" => Some(Call::Invalidate),
            "/check" => {
                let pairs = form_pairs(url.query().unwrap_or_default());
                let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
                let limit = get("limit")
                    .and_then(|v| v.parse::<i64>().ok())
                    .unwrap_or(1000)
                    .clamp(1, u32::MAX as i64) as u32;
                let settles = pairs
                    .iter()
                    .filter(|(n, _)| n == "settle")
                    .filter_map(|(_, v)| {
                        let (mark, bookmark) = v.split_once('.')?;
                        Some(Settle {
                            mark: mark.parse().ok(),
                            bookmark: Some(bookmark.to_string()).filter(|b| !b.is_empty()),
                        })
                    })
                    .collect();
                Some(Call::Check {
                    hash: get("hash").unwrap_or_default().to_string(),
                    limit,
                    write: get("write") == Some("1"),
                    settles,
                })
            }
            _ => None,
        }
    }
}

/// The answer to a check: who the token belongs to (none: 401) and, for a valid token,
/// the rate-limit decision and where the request's reads start.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Gate {
    pub auth: Option<AuthRow>,
    pub decision: Option<Decision>,
    /// The D1 bookmark of the token's newest settled write, if it made one.
    #[serde(default)]
    pub bookmark: Option<String>,
    /// A write of the token may be unsettled: reads start at the primary.
    #[serde(default)]
    pub primary: bool,
    /// The mark of this request, if it is an admitted write: it goes back in a settle.
    #[serde(default)]
    pub mark: Option<u64>,
}

/// Asks the token's object who the token is and whether it may make this request (a
/// `write` is marked), handing it the `settles` of this isolate's earlier writes.
pub async fn check(
    env: &Env,
    hash: &str,
    limit: u32,
    write: bool,
    settles: Vec<Settle>,
) -> Result<Gate> {
    let call = Call::Check {
        hash: hash.to_string(),
        limit,
        write,
        settles,
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
            write: false,
            settles: vec![],
        };
        assert_eq!(Call::decode(&check.url()), Some(check));
        let settles = vec![
            Settle {
                mark: Some(7),
                bookmark: Some("0000002a-00000001-00004f1c-1b5b".into()),
            },
            Settle {
                mark: None,
                bookmark: Some("odd&one=out.+%".into()),
            },
            Settle {
                mark: Some(8),
                bookmark: None,
            },
        ];
        let write = Call::Check {
            hash: "ab12".into(),
            limit: 60,
            write: true,
            settles,
        };
        assert_eq!(Call::decode(&write.url()), Some(write));
        assert_eq!(
            Call::decode(&Call::Invalidate.url()),
            Some(Call::Invalidate)
        );
        assert_eq!(Call::decode("https://gate/remember"), None);
        assert_eq!(Call::decode("https://gate/other"), None);
        assert_eq!(
            Call::decode("https://gate/check?hash=h&limit=0&settle=x"),
            Some(Call::Check {
                hash: "h".into(),
                limit: 1,
                write: false,
                settles: vec![],
            }),
            "the limit is at least 1; a settle that is none is ignored"
        );
    }
}
