//! The typed client of [`super::Throttle`]: its binding, the calls it answers and their
//! answers. One object per name (`lead:{card}`, `admin:{address hash}`), so counts are exact
//! across isolates and each object stays small; a card's object lives in its account's
//! jurisdiction, if it has one (regions.md 3).

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

/// One throttle object: its name and where it is created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Object {
    name: String,
    jurisdiction: Option<&'static str>,
}

/// The object that limits lead posts to a card. It holds salted visitor hashes, so it lives
/// in the jurisdiction of the card's account when that account's region is one (`None`:
/// anywhere).
pub fn lead_object(card_id: i64, jurisdiction: Option<&'static str>) -> Object {
    Object {
        name: format!("lead:{card_id}"),
        jurisdiction,
    }
}

/// The object that limits failed admin logins from one address. Anywhere: it belongs to
/// no account.
pub fn admin_object(address_hash: &str) -> Object {
    Object {
        name: format!("admin:{address_hash}"),
        jurisdiction: None,
    }
}

/// The object that limits failed sign-ins to the account area from one address
/// (account-area.md 1). Anywhere: it belongs to no account.
pub fn sign_in_object(address_hash: &str) -> Object {
    Object {
        name: format!("sign-in:{address_hash}"),
        jurisdiction: None,
    }
}

async fn ask(env: &Env, object: &Object, call: &Call) -> Result<Verdict> {
    let body = serde_json::to_string(call)?;
    let Object { name, jurisdiction } = object;
    match crate::durable::call_in(env, BINDING, *jurisdiction, name, URL, Some(&body)).await? {
        (200, text) => Ok(serde_json::from_str(&text)?),
        (s, _) => Err(worker::Error::RustError(format!("throttle answered {s}"))),
    }
}

/// Counts a hit against every limit, or refuses it.
pub async fn take(env: &Env, object: &Object, limits: Vec<Limit>) -> Result<Verdict> {
    ask(env, object, &Call::Take(limits)).await
}

/// Whether a hit would be allowed now, without counting one.
pub async fn peek(env: &Env, object: &Object, limits: Vec<Limit>) -> Result<Verdict> {
    ask(env, object, &Call::Peek(limits)).await
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
    fn object_names_are_stable_and_only_a_card_s_takes_a_jurisdiction() {
        // A renamed object would start its counts over.
        let lead = lead_object(7, Some("eu"));
        assert_eq!(
            (lead.name.as_str(), lead.jurisdiction),
            ("lead:7", Some("eu"))
        );
        let admin = admin_object("ab12");
        assert_eq!(
            (admin.name.as_str(), admin.jurisdiction),
            ("admin:ab12", None)
        );
    }

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
