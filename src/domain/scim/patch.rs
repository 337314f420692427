//! SCIM PATCH (RFC 7644 3.5.2) on a User's JSON: `add`, `replace` and `remove`, with a
//! path (`title`, `name.familyName`, `emails[type eq "work"].value`, schema-prefixed
//! names) or without one (an object of attributes, whose keys may be paths themselves),
//! in the shapes Entra ID and Okta send: `op` in any case, booleans as "True"/"False".
//! The result is a User in the schema's casing, written as a PUT of it would be
//! (`user::replace_patch`).

use serde_json::{Map, Value};

use super::filter::{self, AttrPath, Filter};
use super::user::{boolean, canonical_name, canonical_sub};
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

/// Attributes of RFC 7643's User (4.1) and enterprise (4.3) schemas this service does not
/// keep: an operation on one changes nothing, as identity providers send what their
/// attribute mapping has. A name in neither schema is an `invalidPath`.
const NOT_KEPT: [&str; 12] = [
    "nickName",
    "profileUrl",
    "userType",
    "locale",
    "timezone",
    "password",
    "ims",
    "photos",
    "groups",
    "entitlements",
    "roles",
    "x509Certificates",
];
const ENTERPRISE_NOT_KEPT: [&str; 5] = [
    "employeeNumber",
    "costCenter",
    "division",
    "department",
    "manager",
];

/// Applies the operations of a PATCH body to `user`, in order; nothing is applied unless
/// all are (the caller writes the result or nothing).
pub fn apply(user: &mut Map<String, Value>, body: &Value) -> Result<(), ScimError> {
    let body = body
        .as_object()
        .ok_or_else(|| ScimError::invalid_syntax("The body must be a JSON object."))?;
    let is_patch = get(body, "schemas")
        .and_then(Value::as_array)
        .is_some_and(|s| s.iter().any(|s| s.as_str() == Some(PATCH_OP)));
    if !is_patch {
        return Err(ScimError::invalid_syntax(format!(
            "schemas must hold \"{PATCH_OP}\"."
        )));
    }
    let ops = get(body, "Operations")
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

/// A member of an object, its name in any case (Entra ID sends "Operations").
fn get<'a>(o: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    o.iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v)
}

fn operation(user: &mut Map<String, Value>, op: &Value) -> Result<(), ScimError> {
    let op = op
        .as_object()
        .ok_or_else(|| ScimError::invalid_syntax("an operation must be an object"))?;
    let kind = match get(op, "op")
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("add") => Kind::Add,
        Some("replace") => Kind::Replace,
        Some("remove") => Kind::Remove,
        _ => {
            return Err(ScimError::invalid_syntax(
                "op must be add, replace or remove",
            ))
        }
    };
    let value = get(op, "value");
    match get(op, "path") {
        Some(Value::String(path)) => at_path(user, kind, path, value),
        Some(Value::Null) | None => {
            if kind == Kind::Remove {
                return Err(ScimError::no_target("remove needs a path"));
            }
            let Some(Value::Object(attrs)) = value else {
                return Err(ScimError::invalid_syntax(
                    "without a path, value must be an object of attributes",
                ));
            };
            for (key, v) in attrs {
                // `schemas` names the value's schemas, and a client may send the User back
                // whole: its id and meta unchanged are no change.
                let same =
                    |name: &str| key.eq_ignore_ascii_case(name) && get(user, name) == Some(v);
                if key.eq_ignore_ascii_case("schemas") || same("id") || same("meta") {
                    continue;
                }
                at_path(user, kind, key, Some(v))?;
            }
            Ok(())
        }
        Some(_) => Err(ScimError::invalid_path("path must be a string")),
    }
}

/// Reads a path; `None` for an attribute of the schemas this service does not keep.
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
    if ["id", "meta", "schemas"]
        .iter()
        .any(|a| p.attr.eq_ignore_ascii_case(a))
    {
        return Err(ScimError::mutability(format!("{} cannot change", p.attr)));
    }
    let unknown = || ScimError::invalid_path(format!("\"{path}\" names no attribute of a User"));
    let Some(attr) = canonical_name(&p.attr) else {
        return match NOT_KEPT.iter().any(|a| a.eq_ignore_ascii_case(&p.attr)) {
            true => Ok(None),
            false => Err(unknown()),
        };
    };
    let sub = match sub_text {
        Some(s) => match canonical_sub(attr, s) {
            Some(s) => Some(s),
            None => {
                let kept_not = match attr {
                    ENTERPRISE => ENTERPRISE_NOT_KEPT
                        .iter()
                        .any(|a| a.eq_ignore_ascii_case(s)),
                    _ => NOT_KEPT.iter().any(|a| {
                        a.split_once('.')
                            .is_some_and(|(a, b)| a == attr && b.eq_ignore_ascii_case(s))
                    }),
                };
                return if kept_not { Ok(None) } else { Err(unknown()) };
            }
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

/// A value as the schema writes it: `active` and `primary` as booleans (Entra ID sends
/// "True"/"False"), the sub-attributes of a complex value in their canonical casing (so
/// `GivenName` replaces `givenName`, not sits next to it). Anything else is left for the
/// User's own checks.
fn normal(attr: &str, sub: Option<&str>, v: Value) -> Value {
    match (sub.unwrap_or(attr), v) {
        ("active" | "primary", v) => boolean(&v).map_or(v, Value::Bool),
        (_, Value::Object(o)) if sub.is_none() => Value::Object(
            o.into_iter()
                .map(|(k, v)| match canonical_sub(attr, &k) {
                    Some(s) => (s.to_string(), normal(attr, Some(s), v)),
                    None => (k, v),
                })
                .collect(),
        ),
        (_, v) => v,
    }
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
    // A null value is no value (RFC 7643 2.5): setting it is removing.
    let (kind, value) = match (kind, value) {
        (Kind::Remove, v) | (_, v @ Some(Value::Null)) => {
            (Kind::Remove, v.filter(|v| !v.is_null()).cloned())
        }
        (k, Some(v)) => (k, Some(v.clone())),
        (_, None) => return Err(ScimError::invalid_syntax("add and replace need a value")),
    };
    if kind == Kind::Remove && t.attr == "userName" {
        return Err(ScimError::mutability("userName is required"));
    }
    if MULTI.contains(&t.attr) {
        return multi(user, kind, &t, value);
    }
    let value = value.map(|v| normal(t.attr, t.sub, v));
    match (t.sub, value) {
        (None, None) => {
            user.remove(t.attr);
        }
        // A complex attribute's object: its sub-attributes are merged (RFC 7644
        // 3.5.2.1, 3.5.2.3: those not given keep their values).
        (None, Some(v)) if matches!(t.attr, "name" | ENTERPRISE) => {
            let Value::Object(subs) = v else {
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
        (None, Some(v)) => {
            user.insert(t.attr.into(), v);
        }
        (Some(sub), value) => {
            let entry = user
                .entry(t.attr)
                .or_insert_with(|| Value::Object(Map::new()));
            if !entry.is_object() {
                *entry = Value::Object(Map::new());
            }
            if let Value::Object(e) = entry {
                match value {
                    None => e.remove(sub),
                    Some(v) => e.insert(sub.into(), v),
                };
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
    let values = |v: Option<Value>| match v.map(|v| normal(t.attr, t.sub, v)) {
        Some(Value::Array(items)) => items
            .into_iter()
            .map(|i| normal(t.attr, t.sub, i))
            .collect(),
        None => vec![],
        Some(one) => vec![one],
    };
    let mut items = match user.remove(t.attr) {
        Some(Value::Array(items)) => items,
        Some(Value::Null) | None => vec![],
        Some(one) => vec![one],
    };
    // The values this operation wrote: one of them made primary makes the others not
    // (RFC 7643 2.4: at most one primary value).
    let mut wrote: Vec<usize> = vec![];
    match (&t.filter, t.sub, kind) {
        (None, None, Kind::Add) => {
            for v in values(value) {
                // Adding a value already there changes nothing (RFC 7644 3.5.2.1).
                match items.iter().position(|i| *i == v) {
                    Some(at) => wrote.push(at),
                    None => {
                        wrote.push(items.len());
                        items.push(v);
                    }
                }
            }
        }
        (None, None, Kind::Replace) => {
            items = values(value);
            wrote = (0..items.len()).collect();
        }
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
            let v = value.map(|v| normal(t.attr, Some(sub), v));
            for (at, item) in items.iter_mut().enumerate() {
                if let Value::Object(item) = item {
                    match (kind, &v) {
                        (Kind::Remove, _) | (_, None) => item.remove(sub),
                        (_, Some(v)) => item.insert(sub.into(), v.clone()),
                    };
                    wrote.push(at);
                }
            }
        }
        (Some(f), sub, kind) => {
            let hits: Vec<usize> = (0..items.len()).filter(|i| f.matches(&items[*i])).collect();
            let v = match (kind, value) {
                (Kind::Remove, _) => None,
                (_, Some(v)) => Some(normal(t.attr, sub, v)),
                (_, None) => return Err(ScimError::invalid_syntax("add and replace need a value")),
            };
            match v {
                None => {
                    let mut at = 0;
                    items.retain_mut(|item| {
                        at += 1;
                        match (hits.contains(&(at - 1)), sub, item) {
                            (false, _, _) => true,
                            (true, None, _) => false,
                            (true, Some(sub), Value::Object(o)) => {
                                o.remove(sub);
                                true
                            }
                            (true, Some(_), _) => true,
                        }
                    });
                }
                Some(v) if hits.is_empty() => {
                    // Entra ID replaces `emails[type eq "work"].value` of a User that has
                    // no work email yet: a filter on `type` (and other `eq`s) makes the
                    // value it asks for. Any other filter that matches nothing: noTarget
                    // (RFC 7644 3.5.2.3).
                    let mut item = seed(t.attr, f)
                        .ok_or_else(|| ScimError::no_target("no value matches the filter"))?;
                    match (sub, v) {
                        (Some(sub), v) => {
                            item.insert(sub.into(), v);
                        }
                        (None, Value::Object(o)) => item.extend(o),
                        (None, _) => {
                            return Err(ScimError::invalid_value("a value must be an object"))
                        }
                    }
                    wrote.push(items.len());
                    items.push(Value::Object(item));
                }
                Some(v) => {
                    for at in hits {
                        let Some(Value::Object(o)) = items.get_mut(at) else {
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
                        wrote.push(at);
                    }
                }
            }
        }
    }
    let primary = |i: &Value| i.get("primary") == Some(&Value::Bool(true));
    if wrote.iter().any(|at| items.get(*at).is_some_and(primary)) {
        for (at, item) in items.iter_mut().enumerate() {
            if !wrote.contains(&at) && primary(item) {
                if let Value::Object(o) = item {
                    o.insert("primary".into(), Value::Bool(false));
                }
            }
        }
    }
    if !items.is_empty() {
        user.insert(t.attr.into(), Value::Array(items));
    }
    Ok(())
}

/// The value a filter of `eq`s with one on `type` asks for (`type eq "work"`), to make
/// when none matches; `None` for any other filter.
fn seed(attr: &str, f: &Filter) -> Option<Map<String, Value>> {
    let mut out = Map::new();
    let mut todo = vec![f];
    while let Some(f) = todo.pop() {
        match f {
            Filter::And(a, b) => todo.extend([&**a, &**b]),
            Filter::Compare(p, filter::Op::Eq, v) if p.sub.is_none() => {
                let name = canonical_sub(attr, &p.attr)?;
                out.insert(name.into(), normal(attr, Some(name), v.clone()));
            }
            _ => return None,
        }
    }
    out.contains_key("type").then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn user() -> Map<String, Value> {
        json!({"id": "7", "userName": "u@x.example", "name": {"givenName": "A", "familyName": "B"},
            "emails": [{"value": "u@x.example", "type": "work", "primary": true}],
            "active": true, "meta": {"resourceType": "User"}})
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
    /// Microsoft Entra ID", Update User [Multi-valued properties], [Single-valued
    /// properties] and Disable User (verbatim bodies).
    #[test]
    fn entra_id_shapes() {
        let mut u = user();
        let body: Value = serde_json::from_str(
            r#"{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"Replace","path":"emails[type eq \"work\"].value","value":"updatedEmail@microsoft.com"},{"op":"Replace","path":"name.familyName","value":"updatedFamilyName"}]}"#,
        )
        .unwrap();
        apply(&mut u, &body).unwrap();
        assert_eq!(
            u["emails"],
            json!([{"value": "updatedEmail@microsoft.com", "type": "work", "primary": true}])
        );
        assert_eq!(
            u["name"],
            json!({"givenName": "A", "familyName": "updatedFamilyName"})
        );
        let u = patched(json!([{"op": "Replace", "path": "userName", "value": "5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com"}])).unwrap();
        assert_eq!(
            u["userName"],
            "5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com"
        );
        for (sent, active) in [("False", false), ("True", true), ("false", false)] {
            let u = patched(json!([{"op": "Replace", "path": "active", "value": sent}])).unwrap();
            assert_eq!(u["active"], active, "{sent}");
        }
        // Known issues, "Requests to replace multiple attributes": one path-less replace
        // whose keys are paths; employeeNumber is the enterprise schema's, not kept.
        let u = patched(json!([{"op": "replace", "value": {
            "displayName": "Bjfe",
            "name.givenName": "Kkom",
            "name.familyName": "Unua",
            "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber": "Wwme"
        }}]))
        .unwrap();
        assert_eq!(u["displayName"], "Bjfe");
        assert_eq!(
            u["name"],
            json!({"givenName": "Kkom", "familyName": "Unua"})
        );
        assert!(u.get(ENTERPRISE).is_none());
        let u = patched(json!([{"op": "add", "value": {
            "displayName": "D",
            "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:organization": "O",
            "roles": [{"value": "x"}]
        }}]))
        .unwrap();
        assert_eq!(u["displayName"], "D");
        assert_eq!(u[ENTERPRISE], json!({"organization": "O"}));
        assert!(u.get("roles").is_none(), "not kept, not an error");
        // Entra ID also sends Add on the value path (Microsoft Q&A 1684621).
        let u = patched(json!([{"op": "Add", "path": "emails[type eq \"work\"].value", "value": "n@x.example"}])).unwrap();
        assert_eq!(u["emails"][0]["value"], "n@x.example");
        assert_eq!(u["emails"].as_array().unwrap().len(), 1);
        // A mobile phone and a work address that did not exist are made.
        let u = patched(json!([
            {"op": "replace", "path": "phoneNumbers[type eq \"mobile\"].value", "value": "123"},
            {"op": "Add", "path": "addresses[type eq \"work\"].formatted", "value": "1 Main St"},
            {"op": "Add", "path": "addresses[type eq \"work\"].locality", "value": "Town"}
        ]))
        .unwrap();
        assert_eq!(
            u["phoneNumbers"],
            json!([{"type": "mobile", "value": "123"}])
        );
        assert_eq!(
            u["addresses"],
            json!([{"type": "work", "formatted": "1 Main St", "locality": "Town"}])
        );
        // The enterprise manager is the schema's, not kept.
        let u = patched(json!([{"op": "Add", "path": "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager", "value": "a1"}])).unwrap();
        assert_eq!(u, user());
    }

    /// Okta, "SCIM 2.0 protocol reference", Update a specific User (PATCH): deactivate.
    #[test]
    fn okta_shapes() {
        let mut u = user();
        let body: Value = serde_json::from_str(
            r#"{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","value":{"active":false}}]}"#,
        )
        .unwrap();
        apply(&mut u, &body).unwrap();
        assert_eq!(u["active"], false);
        let u = patched(json!([{"op": "replace", "value": {"active": "TRUE"}}])).unwrap();
        assert_eq!(u["active"], true);
    }

    #[test]
    fn add_replace_remove_on_each_kind_of_attribute() {
        let u = patched(json!([{"op": "add", "path": "emails", "value": [{"value": "h@x.example", "type": "home"}]}]))
            .unwrap();
        assert_eq!(u["emails"].as_array().unwrap().len(), 2);
        // One object is one value; a value already there is not added twice.
        let u = patched(json!([{"op": "add", "path": "emails", "value": {"value": "u@x.example", "type": "work", "primary": true}}]))
            .unwrap();
        assert_eq!(u["emails"], user()["emails"]);
        let u = patched(
            json!([{"op": "replace", "path": "emails", "value": [{"value": "h@x.example"}]}]),
        )
        .unwrap();
        assert_eq!(u["emails"], json!([{"value": "h@x.example"}]));
        let u = patched(json!([{"op": "remove", "path": "emails[type eq \"work\"]"}])).unwrap();
        assert!(u.get("emails").is_none());
        let u = patched(json!([{"op": "remove", "path": "emails[type eq \"home\"]"}])).unwrap();
        assert_eq!(u, user(), "nothing to remove is no error");
        let u =
            patched(json!([{"op": "remove", "path": "emails[type eq \"work\"].primary"}])).unwrap();
        assert_eq!(
            u["emails"],
            json!([{"value": "u@x.example", "type": "work"}])
        );
        let u =
            patched(json!([{"op": "replace", "path": "emails.type", "value": "other"}])).unwrap();
        assert_eq!(u["emails"][0]["type"], "other");
        let u =
            patched(json!([{"op": "remove", "path": "name"}, {"op": "remove", "path": "active"}]))
                .unwrap();
        assert!(u.get("name").is_none() && u.get("active").is_none());
        let u = patched(json!([{"op": "remove", "path": "name.givenName"}, {"op": "remove", "path": "name.familyName"}]))
            .unwrap();
        assert!(u.get("name").is_none(), "an empty name is no name");
        let u = patched(json!([{"op": "replace", "path": "name", "value": {"GIVENNAME": "Z"}}]))
            .unwrap();
        assert_eq!(u["name"], json!({"givenName": "Z", "familyName": "B"}));
        let u = patched(json!([{"op": "add", "path": ENTERPRISE, "value": {"schemas": [ENTERPRISE], "Organization": "O"}}]))
            .unwrap();
        assert_eq!(u[ENTERPRISE]["organization"], "O");
        let u = patched(
            json!([{"op": "remove", "path": "emails", "value": [{"value": "u@x.example"}]}]),
        )
        .unwrap();
        assert!(u.get("emails").is_none());
        // A null value is removal.
        let u = patched(json!([{"op": "replace", "path": "title", "value": "T"}, {"op": "replace", "value": {"title": null}}]))
            .unwrap();
        assert!(u.get("title").is_none());
        // Names in any case, with the User schema's URN.
        let u = patched(json!([
            {"op": "replace", "path": "urn:ietf:params:scim:schemas:core:2.0:User:DisplayName", "value": "X"},
            {"op": "replace", "path": "NAME.GIVENNAME", "value": "G"},
            {"op": "add", "path": "EMAILS", "value": [{"Value": "h@x.example", "Type": "home", "Primary": "True"}]}
        ]))
        .unwrap();
        assert_eq!(u["displayName"], "X");
        assert_eq!(u["name"]["givenName"], "G");
        // The new primary value makes the old one not primary.
        assert_eq!(
            u["emails"],
            json!([{"value": "u@x.example", "type": "work", "primary": false},
                {"value": "h@x.example", "type": "home", "primary": true}])
        );
        // A whole User sent back: id, meta and schemas unchanged are no change.
        let mut whole = user();
        whole.insert("schemas".into(), json!([crate::domain::scim::USER]));
        whole.insert("title".into(), json!("T"));
        let u = patched(json!([{"op": "replace", "value": whole}])).unwrap();
        assert_eq!(u["title"], "T");
    }

    #[test]
    fn refusals() {
        let code = |ops: Value| patched(ops).unwrap_err().scim_type;
        for (ops, want) in [
            (json!([{"op": "remove", "path": "userName"}]), "mutability"),
            (
                json!([{"op": "replace", "path": "userName", "value": null}]),
                "mutability",
            ),
            (
                json!([{"op": "replace", "path": "id", "value": "9"}]),
                "mutability",
            ),
            (
                json!([{"op": "replace", "path": "meta.created", "value": "x"}]),
                "mutability",
            ),
            (
                json!([{"op": "add", "path": "schemas", "value": ["x"]}]),
                "mutability",
            ),
            (
                json!([{"op": "replace", "value": {"id": "9"}}]),
                "mutability",
            ),
            (
                json!([{"op": "move", "path": "title", "value": "x"}]),
                "invalidSyntax",
            ),
            (json!([{"path": "title", "value": "x"}]), "invalidSyntax"),
            (json!([{"op": "add", "path": "title"}]), "invalidSyntax"),
            (json!([{"op": "add", "value": "x"}]), "invalidSyntax"),
            (json!(["add"]), "invalidSyntax"),
            (json!([{"op": "remove"}]), "noTarget"),
            (
                json!([{"op": "add", "path": "emails[type eq]", "value": "x"}]),
                "invalidPath",
            ),
            (
                json!([{"op": "add", "path": "emails[type eq \"work\"", "value": "x"}]),
                "invalidPath",
            ),
            (
                json!([{"op": "add", "path": "emails[type eq \"work\"]x", "value": "x"}]),
                "invalidPath",
            ),
            (
                json!([{"op": "add", "path": "title[type eq \"x\"]", "value": "x"}]),
                "invalidPath",
            ),
            (
                json!([{"op": "add", "path": "favouriteColour", "value": "x"}]),
                "invalidPath",
            ),
            (
                json!([{"op": "add", "path": "name.nickname", "value": "x"}]),
                "invalidPath",
            ),
            (
                json!([{"op": "add", "value": {"favouriteColour": "x"}}]),
                "invalidPath",
            ),
            (
                json!([{"op": "add", "path": "urn:x:y:z", "value": "x"}]),
                "invalidPath",
            ),
            (
                json!([{"op": "add", "path": format!("{ENTERPRISE}:shoeSize"), "value": "x"}]),
                "invalidPath",
            ),
            (
                json!([{"op": "add", "path": 5, "value": "x"}]),
                "invalidPath",
            ),
            (
                json!([{"op": "replace", "path": "emails[value eq \"none@x\"].type", "value": "x"}]),
                "noTarget",
            ),
            (
                json!([{"op": "replace", "path": "emails[type ne \"work\"].value", "value": "x"}]),
                "noTarget",
            ),
            (
                json!([{"op": "replace", "path": "emails[type eq \"home\"]", "value": "x"}]),
                "invalidValue",
            ),
            (
                json!([{"op": "replace", "path": "name", "value": "x"}]),
                "invalidValue",
            ),
            (json!([]), "invalidSyntax"),
        ] {
            assert_eq!(code(ops.clone()), Some(want), "{ops}");
        }
        let err = patched(json!([{"op": "add", "path": "title", "value": "x"}, {"op": "add", "path": "bogus", "value": "x"}])).unwrap_err();
        assert!(err.detail.starts_with("Operations[1]: "), "{}", err.detail);
        for body in [
            json!({"Operations": [{"op": "add", "path": "title", "value": "x"}]}),
            json!({"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "Operations": [{"op": "add", "path": "title", "value": "x"}]}),
            json!([]),
            json!({"schemas": [PATCH_OP], "Operations": vec![json!({"op": "add", "path": "title", "value": "x"}); 101]}),
        ] {
            let e = apply(&mut user(), &body).unwrap_err();
            assert_eq!(e.scim_type, Some("invalidSyntax"), "{body}");
        }
        // "operations" in any case.
        let mut u = user();
        apply(&mut u, &json!({"SCHEMAS": [PATCH_OP], "operations": [{"op": "add", "path": "title", "value": "x"}]})).unwrap();
        assert_eq!(u["title"], "x");
        // All or nothing: a failing second operation leaves the first unapplied.
        let mut u = user();
        let body = json!({"schemas": [PATCH_OP], "Operations": [
            {"op": "add", "path": "title", "value": "x"}, {"op": "remove", "path": "userName"}]});
        assert!(apply(&mut u, &body).is_err());
        assert_eq!(u, user());
    }
}
