//! `attributes` and `excludedAttributes` (RFC 7644 3.4.2.5, 3.9): which attributes of a
//! User an answer holds. Names are case-insensitive and may carry their schema's URN or
//! name a sub-attribute (`name.givenName`, `emails.value`, `urn:...:User:organization`).
//! `schemas` and `id` are returned always (RFC 7643 `returned: always`).

use serde_json::{Map, Value};

use super::{ENTERPRISE, USER};

/// One listed attribute: its name and, for a sub-attribute, the parent's.
#[derive(Debug, PartialEq)]
struct Listed {
    attr: String,
    sub: Option<String>,
}

fn listed(text: &str) -> Vec<Listed> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            let prefixed = |urn: &str| {
                s.get(..urn.len())
                    .filter(|p| p.eq_ignore_ascii_case(urn))
                    .map(|_| s[urn.len()..].trim_start_matches(':'))
            };
            if let Some(rest) = prefixed(ENTERPRISE) {
                let sub = (!rest.is_empty()).then(|| rest.to_string());
                return Listed {
                    attr: ENTERPRISE.into(),
                    sub,
                };
            }
            let s = prefixed(USER).unwrap_or(s);
            match s.split_once('.') {
                Some((a, sub)) => Listed {
                    attr: a.into(),
                    sub: Some(sub.into()),
                },
                None => Listed {
                    attr: s.into(),
                    sub: None,
                },
            }
        })
        .collect()
}

/// The key of `user` a name means, in its stored casing.
fn key_of(map: &Map<String, Value>, name: &str) -> Option<String> {
    map.keys().find(|k| k.eq_ignore_ascii_case(name)).cloned()
}

const ALWAYS: [&str; 2] = ["schemas", "id"];

/// Keeps what `attributes` asks for (then `excludedAttributes` is ignored, RFC 7644
/// 3.9), else drops what `excludedAttributes` names.
pub fn project(user: &mut Map<String, Value>, attributes: Option<&str>, excluded: Option<&str>) {
    if let Some(text) = attributes.filter(|t| !t.trim().is_empty()) {
        let wanted = listed(text);
        let mut out = Map::new();
        for (key, value) in std::mem::take(user) {
            if ALWAYS.contains(&key.as_str()) {
                out.insert(key, value);
                continue;
            }
            let asks: Vec<&Listed> = wanted
                .iter()
                .filter(|l| l.attr.eq_ignore_ascii_case(&key))
                .collect();
            if asks.is_empty() {
                continue;
            }
            if asks.iter().any(|l| l.sub.is_none()) {
                out.insert(key, value);
                continue;
            }
            let subs: Vec<&str> = asks.iter().filter_map(|l| l.sub.as_deref()).collect();
            let keep = |v: Value| match v {
                Value::Object(o) => {
                    let o: Map<String, Value> = o
                        .into_iter()
                        .filter(|(k, _)| subs.iter().any(|s| s.eq_ignore_ascii_case(k)))
                        .collect();
                    (!o.is_empty()).then_some(Value::Object(o))
                }
                _ => None,
            };
            let value = match value {
                Value::Array(items) => {
                    let items: Vec<Value> = items.into_iter().filter_map(keep).collect();
                    (!items.is_empty()).then_some(Value::Array(items))
                }
                v => keep(v),
            };
            if let Some(v) = value {
                out.insert(key, v);
            }
        }
        *user = out;
        return;
    }
    let Some(text) = excluded else {
        return;
    };
    for l in listed(text) {
        let Some(key) = key_of(user, &l.attr) else {
            continue;
        };
        if ALWAYS.contains(&key.as_str()) {
            continue;
        }
        match &l.sub {
            None => {
                user.remove(&key);
            }
            Some(sub) => {
                let drop = |v: &mut Value| {
                    if let Value::Object(o) = v {
                        if let Some(k) = key_of(o, sub) {
                            o.remove(&k);
                        }
                    }
                };
                let empty = |v: &Value| v.as_object().is_some_and(Map::is_empty);
                let gone = match user.get_mut(&key) {
                    Some(Value::Array(items)) => {
                        items.iter_mut().for_each(drop);
                        items.retain(|v| !empty(v));
                        items.is_empty()
                    }
                    Some(v) => {
                        drop(v);
                        empty(v)
                    }
                    None => false,
                };
                // An attribute with nothing left is absent, not `{}` or `[]` (RFC 7643 2.5).
                if gone {
                    user.remove(&key);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn user() -> Map<String, Value> {
        json!({
            "schemas": [USER], "id": "7", "externalId": "e", "userName": "u",
            "name": {"givenName": "A", "familyName": "B"},
            "emails": [{"value": "a@x.example", "type": "work"}],
            (ENTERPRISE): {"organization": "O"},
            "meta": {"resourceType": "User"}
        })
        .as_object()
        .cloned()
        .unwrap()
    }

    fn keys(u: &Map<String, Value>) -> Vec<&str> {
        u.keys().map(String::as_str).collect()
    }

    #[test]
    fn attributes_keep_what_they_name_and_id_always() {
        let mut u = user();
        project(&mut u, Some("ExternalID"), None);
        assert_eq!(keys(&u), ["externalId", "id", "schemas"]);
        let mut u = user();
        project(&mut u, Some("name.givenName, emails.value"), Some("id"));
        assert_eq!(u["name"], json!({"givenName": "A"}));
        assert_eq!(u["emails"], json!([{"value": "a@x.example"}]));
        let mut u = user();
        project(
            &mut u,
            Some(&format!("{USER}:userName,{ENTERPRISE}:organization")),
            None,
        );
        assert_eq!(u["userName"], "u");
        assert_eq!(u[ENTERPRISE], json!({"organization": "O"}));
    }

    #[test]
    fn excluded_attributes_drop_what_they_name_but_never_id() {
        let mut u = user();
        project(&mut u, None, Some("name,id,emails.type,meta"));
        assert!(u.get("name").is_none() && u.get("meta").is_none());
        assert_eq!(u["id"], "7");
        assert_eq!(u["emails"], json!([{"value": "a@x.example"}]));
        let mut u = user();
        project(&mut u, None, Some(ENTERPRISE));
        assert!(u.get(ENTERPRISE).is_none());
        let mut u = user();
        project(&mut u, Some(" "), None);
        assert_eq!(u, user(), "an empty list asks for nothing in particular");
    }

    /// `meta` is `returned: default` (RFC 7643 3.1), so `attributes` may leave it out;
    /// URNs and names match in any case.
    #[test]
    fn meta_is_default_and_urns_match_in_any_case() {
        let mut u = user();
        project(&mut u, Some("userName"), None);
        assert_eq!(keys(&u), ["id", "schemas", "userName"]);
        let mut u = user();
        project(&mut u, Some("META.resourceType"), None);
        assert_eq!(u["meta"], json!({"resourceType": "User"}));
        let mut u = user();
        let urn = ENTERPRISE.to_lowercase();
        project(&mut u, None, Some(&format!("{urn}:Organization, EMAILS")));
        assert!(u.get(ENTERPRISE).is_none() && u.get("emails").is_none());
        let mut u = user();
        project(&mut u, None, Some("name.givenName,name.familyName"));
        assert!(u.get("name").is_none(), "nothing left of it");
    }
}
