//! SCIM PATCH (RFC 7644 3.5.2) on a User's JSON: `add`, `replace` and `remove`, with a
//! path (`title`, `name.familyName`, `emails[type eq "work"].value`, schema-prefixed
//! names) or without one (an object of attributes, whose keys may be paths themselves),
//! in the shapes Entra ID and Okta send: `op` in any case, booleans as "True"/"False"
//! (read as booleans when the User is written: `user::canonical`). The result is written
//! as a PUT of it would be (`user::replace_patch`).

use serde_json::{Map, Value};

use super::filter::{self, AttrPath, Filter};
use super::user::{canonical_name, canonical_sub};
use super::{ScimError, ENTERPRISE, PATCH_OP};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Add,
    Replace,
    Remove,
}

/// A PATCH path: an attribute, a value filter on it, a sub-attribute.
struct Target {
    attr: &'static str,
    filter: Option<Filter>,
    sub: Option<&'static str>,
}

const MULTI: [&str; 3] = ["emails", "phoneNumbers", "addresses"];
/// At most this many operations a request.
const MAX_OPERATIONS: usize = 100;

/// Applies the operations of a PATCH body to `user`, in order; nothing is applied unless
/// all are (the caller writes the result or nothing).
pub fn apply(user: &mut Map<String, Value>, body: &Value) -> Result<(), ScimError> {
    let body = body
        .as_object()
        .ok_or_else(|| ScimError::invalid_syntax("The body must be a JSON object."))?;
    let get = |name: &str| {
        body.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    };
    let is_patch = get("schemas")
        .and_then(Value::as_array)
        .is_some_and(|s| s.iter().any(|s| s.as_str() == Some(PATCH_OP)));
    if !is_patch {
        return Err(ScimError::invalid_syntax(format!(
            "schemas must hold \"{PATCH_OP}\"."
        )));
    }
    let ops = get("Operations")
        .and_then(Value::as_array)
        .filter(|ops| !ops.is_empty())
        .ok_or_else(|| ScimError::invalid_syntax("Operations must be a non-empty array."))?;
    if ops.len() > MAX_OPERATIONS {
        return Err(ScimError::invalid_syntax(format!(
            "A PATCH holds at most {MAX_OPERATIONS} operations."
        )));
    }
    let mut next = user.clone();
    for (i, op) in ops.iter().enumerate() {
        operation(&mut next, op).map_err(|mut e| {
            e.detail = format!("Operations[{i}]: {}", e.detail);
            e
        })?;
    }
    *user = next;
    Ok(())
}

fn operation(user: &mut Map<String, Value>, op: &Value) -> Result<(), ScimError> {
    let op = op
        .as_object()
        .ok_or_else(|| ScimError::invalid_syntax("an operation must be an object"))?;
    let field = |name: &str| {
        op.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    };
    let kind = match field("op")
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase)
    {
        Some(k) if k == "add" => Kind::Add,
        Some(k) if k == "replace" => Kind::Replace,
        Some(k) if k == "remove" => Kind::Remove,
        _ => {
            return Err(ScimError::invalid_syntax(
                "op must be add, replace or remove",
            ))
        }
    };
    let value = field("value");
    match field("path").and_then(Value::as_str) {
        Some(path) => at_path(user, kind, path, value),
        None if kind == Kind::Remove => Err(ScimError::no_target("remove needs a path")),
        None => {
            let Some(Value::Object(attrs)) = value else {
                return Err(ScimError::invalid_syntax(
                    "without a path, value must be an object of attributes",
                ));
            };
            for (key, v) in attrs {
                at_path(user, kind, key, Some(v))?;
            }
            Ok(())
        }
    }
}

/// Reads a path; `None` for an attribute this service does not keep (its operations
/// change nothing: identity providers send attributes a service may not have).
fn target(path: &str) -> Result<Option<Target>, ScimError> {
    let bad = || ScimError::invalid_path(format!("\"{path}\" is no attribute path"));
    let (head, filter, tail) = match path.find('[') {
        Some(open) => {
            let close = path.rfind(']').filter(|c| *c > open).ok_or_else(bad)?;
            let inner = filter::parse(&path[open + 1..close])
                .map_err(|e| ScimError::invalid_path(e.detail))?;
            let tail = &path[close + 1..];
            let tail = match tail.strip_prefix('.') {
                Some(t) => Some(t),
                None if tail.is_empty() => None,
                None => return Err(bad()),
            };
            (&path[..open], Some(inner), tail)
        }
        None => (path, None, None),
    };
    let p = AttrPath::parse(head).ok_or_else(bad)?;
    let sub_text = match (p.sub.as_deref(), tail) {
        (Some(_), Some(_)) => return Err(bad()),
        (s, t) => s.or(t),
    };
    if p.attr.eq_ignore_ascii_case("id") || p.attr.eq_ignore_ascii_case("meta") {
        return Err(ScimError::mutability(format!("{} cannot change", p.attr)));
    }
    let attr = match canonical_name(&p.attr) {
        Some(a) => a,
        None if p.attr.eq_ignore_ascii_case("schemas") => return Ok(None),
        None => return Ok(None),
    };
    let sub = match sub_text {
        Some(s) => match canonical_sub(attr, s) {
            Some(s) => Some(s),
            None => return Ok(None),
        },
        None => None,
    };
    if filter.is_some() && !MULTI.contains(&attr) {
        return Err(ScimError::invalid_path(format!(
            "{attr} has one value: it takes no filter"
        )));
    }
    Ok(Some(Target { attr, filter, sub }))
}

fn at_path(
    user: &mut Map<String, Value>,
    kind: Kind,
    path: &str,
    value: Option<&Value>,
) -> Result<(), ScimError> {
    let Some(t) = target(path)? else {
        return Ok(());
    };
    if kind == Kind::Remove && t.attr == "userName" {
        return Err(ScimError::mutability("userName is required"));
    }
    let value = match (kind, value) {
        (Kind::Remove, v) => v.cloned(),
        (_, Some(v)) => Some(v.clone()),
        (_, None) => return Err(ScimError::invalid_syntax("add and replace need a value")),
    };
    if MULTI.contains(&t.attr) {
        return multi(user, kind, &t, value);
    }
    match (t.sub, kind) {
        (None, Kind::Remove) => {
            user.remove(t.attr);
        }
        // A complex attribute's object: its sub-attributes are merged (RFC 7644
        // 3.5.2.1, 3.5.2.3: those not given keep their values).
        (None, _) if matches!(t.attr, "name" | ENTERPRISE) => {
            let Some(Value::Object(subs)) = value else {
                return Err(ScimError::invalid_value(format!(
                    "{} takes an object",
                    t.attr
                )));
            };
            let entry = user
                .entry(t.attr)
                .or_insert_with(|| Value::Object(Map::new()));
            if !entry.is_object() {
                *entry = Value::Object(Map::new());
            }
            if let Value::Object(e) = entry {
                e.extend(subs);
            }
        }
        (None, _) => {
            if let Some(v) = value {
                user.insert(t.attr.into(), v);
            }
        }
        (Some(sub), kind) => {
            let entry = user
                .entry(t.attr)
                .or_insert_with(|| Value::Object(Map::new()));
            if !entry.is_object() {
                *entry = Value::Object(Map::new());
            }
            if let Value::Object(e) = entry {
                match (kind, value) {
                    (Kind::Remove, _) | (_, None) => {
                        e.remove(sub);
                    }
                    (_, Some(v)) => {
                        e.insert(sub.into(), v);
                    }
                }
                if e.is_empty() {
                    user.remove(t.attr);
                }
            }
        }
    }
    Ok(())
}

/// An operation on a multi-valued attribute (emails, phoneNumbers, addresses).
fn multi(
    user: &mut Map<String, Value>,
    kind: Kind,
    t: &Target,
    value: Option<Value>,
) -> Result<(), ScimError> {
    let values = |v: Option<Value>| match v {
        Some(Value::Array(items)) => items,
        Some(Value::Null) | None => vec![],
        Some(one) => vec![one],
    };
    let mut items = match user.remove(t.attr) {
        Some(Value::Array(items)) => items,
        Some(one) => vec![one],
        None => vec![],
    };
    match (&t.filter, t.sub, kind) {
        (None, None, Kind::Add) => items.extend(values(value)),
        (None, None, Kind::Replace) => items = values(value),
        (None, None, Kind::Remove) => {
            // Entra ID names the values to remove in `value`; none named: all go.
            let gone = values(value);
            if gone.is_empty() {
                items.clear();
            } else {
                items.retain(|i| !gone.iter().any(|g| g.get("value") == i.get("value")));
            }
        }
        // A sub-attribute of every value.
        (None, Some(sub), kind) => {
            for item in items.iter_mut().filter_map(Value::as_object_mut) {
                match (kind, &value) {
                    (Kind::Remove, _) | (_, None) => {
                        item.remove(sub);
                    }
                    (_, Some(v)) => {
                        item.insert(sub.into(), v.clone());
                    }
                }
            }
        }
        (Some(f), sub, kind) => {
            let hits: Vec<usize> = (0..items.len()).filter(|i| f.matches(&items[*i])).collect();
            match kind {
                Kind::Remove => match sub {
                    Some(sub) => {
                        for i in hits {
                            if let Some(Value::Object(o)) = items.get_mut(i) {
                                o.remove(sub);
                            }
                        }
                    }
                    None => {
                        let mut i = 0;
                        items.retain(|_| {
                            i += 1;
                            !hits.contains(&(i - 1))
                        });
                    }
                },
                Kind::Add | Kind::Replace => {
                    let Some(v) = value else {
                        return Err(ScimError::invalid_syntax("add and replace need a value"));
                    };
                    if hits.is_empty() {
                        // Entra ID replaces `emails[type eq "work"].value` of a User that
                        // has no work email yet: the value is made, with what the filter
                        // asks of it.
                        let mut item = seed(f);
                        match sub {
                            Some(sub) => {
                                item.insert(sub.into(), v.clone());
                            }
                            None => match &v {
                                Value::Object(o) => item.extend(o.clone()),
                                _ => return Err(ScimError::no_target("no value matches")),
                            },
                        }
                        items.push(Value::Object(item));
                    }
                    for i in hits {
                        let Some(Value::Object(o)) = items.get_mut(i) else {
                            continue;
                        };
                        match (sub, &v, kind) {
                            (Some(sub), v, _) => {
                                o.insert(sub.into(), v.clone());
                            }
                            (None, Value::Object(n), Kind::Add) => o.extend(n.clone()),
                            (None, Value::Object(n), _) => *o = n.clone(),
                            (None, _, _) => {
                                return Err(ScimError::invalid_value("a value must be an object"))
                            }
                        }
                    }
                }
            }
        }
    }
    if !items.is_empty() {
        user.insert(t.attr.into(), Value::Array(items));
    }
    Ok(())
}

/// The sub-attributes an `eq` filter asks of a value (`type eq "work"`): those of a new
/// value made for it.
fn seed(f: &Filter) -> Map<String, Value> {
    let mut out = Map::new();
    let mut add = |f: &Filter| {
        if let Filter::Compare(p, filter::Op::Eq, v) = f {
            out.insert(p.attr.clone(), v.clone());
        }
    };
    match f {
        Filter::And(a, b) => {
            add(a);
            add(b);
        }
        f => add(f),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn user() -> Map<String, Value> {
        json!({"userName": "u@x.example", "name": {"givenName": "A", "familyName": "B"},
            "emails": [{"value": "u@x.example", "type": "work", "primary": true}],
            "active": true})
        .as_object()
        .cloned()
        .unwrap()
    }

    fn patched(ops: Value) -> Result<Map<String, Value>, ScimError> {
        let mut u = user();
        apply(&mut u, &json!({"schemas": [PATCH_OP], "Operations": ops}))?;
        Ok(u)
    }

    /// Microsoft Learn, "Tutorial: Develop and plan provisioning for a SCIM endpoint in
    /// Microsoft Entra ID", Update User [Multi-valued properties] and Disable User.
    #[test]
    fn entra_id_shapes() {
        let u = patched(json!([
            {"op": "Replace", "path": "emails[type eq \"work\"].value", "value": "updatedEmail@microsoft.com"},
            {"op": "Replace", "path": "name.familyName", "value": "updatedFamilyName"}
        ]))
        .unwrap();
        assert_eq!(u["emails"][0]["value"], "updatedEmail@microsoft.com");
        assert_eq!(u["name"]["familyName"], "updatedFamilyName");
        assert_eq!(u["name"]["givenName"], "A");
        let u = patched(json!([{"op": "Replace", "path": "active", "value": "False"}])).unwrap();
        assert_eq!(
            u["active"], "False",
            "read as false when written (user::canonical)"
        );
        let u = patched(json!([{"op": "add", "value": {
            "displayName": "D",
            "name.givenName": "G",
            "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:organization": "O",
            "roles": [{"value": "x"}]
        }}]))
        .unwrap();
        assert_eq!(
            (u["displayName"].clone(), u["name"]["givenName"].clone()),
            (json!("D"), json!("G"))
        );
        assert_eq!(u[ENTERPRISE]["organization"], "O");
        assert!(u.get("roles").is_none(), "not kept, not an error");
        // A work phone that did not exist is made.
        let u = patched(json!([{"op": "replace", "path": "phoneNumbers[type eq \"mobile\"].value", "value": "123"}]))
            .unwrap();
        assert_eq!(
            u["phoneNumbers"],
            json!([{"type": "mobile", "value": "123"}])
        );
    }

    /// Okta, "SCIM 2.0 protocol reference", Update a specific User (PATCH): deactivate.
    #[test]
    fn okta_shapes() {
        let u = patched(json!([{"op": "replace", "value": {"active": false}}])).unwrap();
        assert_eq!(u["active"], false);
    }

    #[test]
    fn add_replace_remove_on_each_kind_of_attribute() {
        let u = patched(json!([{"op": "add", "path": "emails", "value": [{"value": "h@x.example", "type": "home"}]}]))
            .unwrap();
        assert_eq!(u["emails"].as_array().unwrap().len(), 2);
        let u = patched(
            json!([{"op": "replace", "path": "emails", "value": [{"value": "h@x.example"}]}]),
        )
        .unwrap();
        assert_eq!(u["emails"], json!([{"value": "h@x.example"}]));
        let u = patched(json!([{"op": "remove", "path": "emails[type eq \"work\"]"}])).unwrap();
        assert!(u.get("emails").is_none());
        let u =
            patched(json!([{"op": "remove", "path": "name"}, {"op": "remove", "path": "active"}]))
                .unwrap();
        assert!(u.get("name").is_none() && u.get("active").is_none());
        let u = patched(json!([{"op": "replace", "path": "name", "value": {"givenName": "Z"}}]))
            .unwrap();
        assert_eq!(u["name"], json!({"givenName": "Z", "familyName": "B"}));
        let u = patched(json!([{"op": "add", "path": ENTERPRISE, "value": {"schemas": [ENTERPRISE], "organization": "O"}}]))
            .unwrap();
        assert_eq!(u[ENTERPRISE]["organization"], "O");
        let u = patched(
            json!([{"op": "remove", "path": "emails", "value": [{"value": "u@x.example"}]}]),
        )
        .unwrap();
        assert!(u.get("emails").is_none());
    }

    #[test]
    fn refusals() {
        let code = |ops: Value| patched(ops).unwrap_err().scim_type;
        assert_eq!(
            code(json!([{"op": "remove", "path": "userName"}])),
            Some("mutability")
        );
        assert_eq!(
            code(json!([{"op": "replace", "path": "id", "value": "9"}])),
            Some("mutability")
        );
        assert_eq!(
            code(json!([{"op": "move", "path": "title", "value": "x"}])),
            Some("invalidSyntax")
        );
        assert_eq!(code(json!([{"op": "remove"}])), Some("noTarget"));
        assert_eq!(
            code(json!([{"op": "add", "path": "emails[type eq]", "value": "x"}])),
            Some("invalidPath")
        );
        assert_eq!(
            code(json!([{"op": "add", "path": "title[type eq \"x\"]", "value": "x"}])),
            Some("invalidPath")
        );
        assert_eq!(code(json!([])), Some("invalidSyntax"));
        let mut u = user();
        let e = apply(
            &mut u,
            &json!({"Operations": [{"op": "add", "path": "title", "value": "x"}]}),
        );
        assert_eq!(
            e.unwrap_err().scim_type,
            Some("invalidSyntax"),
            "schemas is required"
        );
        // All or nothing: a failing second operation leaves the first unapplied.
        let before = user();
        let mut u = user();
        let body = json!({"schemas": [PATCH_OP], "Operations": [
            {"op": "add", "path": "title", "value": "x"}, {"op": "remove", "path": "userName"}]});
        assert!(apply(&mut u, &body).is_err());
        assert_eq!(u, before);
    }
}
