//! The typed client of [`super::Throttle`]: its binding, the calls it answers and their
//! answers. One object per name (`lead:{card}`, `admin:{address hash}`), so counts are exact
//! across isolates and each object stays small.

use serde::{Deserialize, Serialize};
use worker::{Env, Request, Result};

use crate::domain::throttle::{Limit, Verdict};

/// The Durable Object namespace binding in `wrangler.toml`.
pub const BINDING: &str = "THROTTLE";

/// The object reads only the body; a stub needs an absolute URL all the same.
const URL: &str = "https://throttle/";

/// What the object is asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Call {
    /// Count one hit in every bucket if all have room; refuse (and count nothing) if not.
    Take(Vec<Limit>),
    /// Whether one more hit would be allowed; counts nothing.
    Peek(Vec<Limit>),
}

/// The name of the object that limits lead posts to a card.
pub fn lead_object(card_id: i64) -> String {
    format!("lead:{card_id}")
}

/// The name of the object that limits failed admin logins from one address.
pub fn admin_object(address_hash: &str) -> String {
    format!("admin:{address_hash}")
}

async fn ask(env: &Env, name: &str, call: &Call) -> Result<Verdict> {
    let body = serde_json::to_string(call)?;
    match crate::durable::call(env, BINDING, name, URL, Some(&body)).await? {
        (200, text) => Ok(serde_json::from_str(&text)?),
        (s, _) => Err(worker::Error::RustError(format!("throttle answered {s}"))),
    }
}

/// Counts a hit against every limit, or refuses it.
pub async fn take(env: &Env, name: &str, limits: Vec<Limit>) -> Result<Verdict> {
    ask(env, name, &Call::Take(limits)).await
}

/// Whether a hit would be allowed now, without counting one.
pub async fn peek(env: &Env, name: &str, limits: Vec<Limit>) -> Result<Verdict> {
    ask(env, name, &Call::Peek(limits)).await
}

/// The call a request to the object carries.
pub async fn decode(req: &mut Request) -> Result<Call> {
    req.json().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::throttle::{Span, MINUTE_MS};

    #[test]
    fn calls_have_a_stable_wire_form() {
        let call = Call::Take(vec![Limit {
            bucket: "failed".into(),
            max: 10,
            span: Span::Rolling(MINUTE_MS),
        }]);
        let text = serde_json::to_string(&call).unwrap();
        assert_eq!(
            text,
            r#"{"take":[{"bucket":"failed","max":10,"span":{"rolling":60000}}]}"#
        );
        assert_eq!(serde_json::from_str::<Call>(&text).unwrap(), call);
    }
}
