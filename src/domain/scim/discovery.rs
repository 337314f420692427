//! The discovery documents (RFC 7643 5-7, RFC 7644 4): what the service supports, exactly.
//! They are data, kept as compact JSON (`discovery.json`: no bytes of the upload spent on
//! indentation) with `{base}` where the service's URL goes; tests hold them to the code
//! they describe (the attribute table of [`super::user::ATTRIBUTES`], the page size, the
//! language codes).

use serde_json::{Map, Value};

use super::LIST;

const DOCUMENTS: &str = include_str!("discovery.json");

/// The documents, their locations under `base` (`https://host/scim/v2`).
fn documents(base: &str) -> Value {
    serde_json::from_str(&DOCUMENTS.replace("{base}", base)).unwrap_or_default()
}

/// A ListResponse of all the `items` (RFC 7644 4: discovery lists are not paged).
fn list(items: Vec<Value>) -> Value {
    let mut body = Map::new();
    body.insert("schemas".into(), Value::from(vec![LIST]));
    body.insert("totalResults".into(), items.len().into());
    body.insert("itemsPerPage".into(), items.len().into());
    body.insert("startIndex".into(), 1.into());
    body.insert("Resources".into(), items.into());
    Value::Object(body)
}

pub fn service_provider_config(base: &str) -> Value {
    documents(base)["config"].take()
}

pub fn resource_types(base: &str) -> Value {
    list(vec![documents(base)["resourceType"].take()])
}

/// `/ResourceTypes/{name}`: only `User` (Groups are not offered).
pub fn resource_type(name: &str, base: &str) -> Option<Value> {
    let rt = documents(base)["resourceType"].take();
    (rt["id"] == name).then_some(rt)
}

pub fn schemas(base: &str) -> Value {
    match documents(base)["schemas"].take() {
        Value::Array(items) => list(items),
        _ => list(Vec::new()),
    }
}

/// `/Schemas/{id}`: the schema of that URN.
pub fn schema(id: &str, base: &str) -> Option<Value> {
    match documents(base)["schemas"].take() {
        Value::Array(items) => items.into_iter().find(|s| s["id"] == id),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::user::ATTRIBUTES;
    use super::super::{ENTERPRISE, MAX_RESULTS, USER};
    use super::*;
    use crate::domain::lang::LANGUAGES;

    const BASE: &str = "https://x.example/scim/v2";

    #[test]
    fn the_documents_parse_and_are_located_under_the_base() {
        let config = service_provider_config(BASE);
        assert_eq!(config["patch"]["supported"], true);
        assert_eq!(config["filter"]["maxResults"], MAX_RESULTS);
        for off in ["bulk", "sort", "etag", "changePassword"] {
            assert_eq!(config[off]["supported"], false, "{off}");
        }
        assert_eq!(
            config["meta"]["location"],
            format!("{BASE}/ServiceProviderConfig")
        );
        let types = resource_types(BASE);
        assert_eq!(types["totalResults"], 1);
        assert_eq!(types["Resources"][0]["schema"], USER);
        assert!(resource_type("User", BASE).is_some());
        assert!(resource_type("Group", BASE).is_none(), "no Groups");
        assert!(!DOCUMENTS.contains("Group"));
        assert_eq!(schemas(BASE)["totalResults"], 2);
        let user = schema(USER, BASE).unwrap();
        assert_eq!(user["meta"]["location"], format!("{BASE}/Schemas/{USER}"));
        assert!(schema("urn:nope", BASE).is_none());
    }

    /// The schemas declare exactly the attributes a User keeps: a declared attribute the
    /// service dropped would not read back, and one it kept undeclared would not parse
    /// in a strict client.
    #[test]
    fn the_schemas_declare_exactly_what_a_user_keeps() {
        let mut declared: Vec<(String, Vec<String>)> = vec![];
        for (id, prefix) in [(USER, None), (ENTERPRISE, Some(ENTERPRISE))] {
            let s = schema(id, BASE).unwrap();
            let attributes = s["attributes"].as_array().unwrap();
            let names = |a: &Value| -> Vec<String> {
                a["subAttributes"]
                    .as_array()
                    .map(|subs| {
                        subs.iter()
                            .map(|s| s["name"].as_str().unwrap().to_string())
                            .collect()
                    })
                    .unwrap_or_default()
            };
            match prefix {
                None => declared.extend(
                    attributes
                        .iter()
                        .map(|a| (a["name"].as_str().unwrap().to_string(), names(a))),
                ),
                Some(ext) => declared.push((
                    ext.to_string(),
                    attributes
                        .iter()
                        .map(|a| a["name"].as_str().unwrap().to_string())
                        .collect(),
                )),
            }
        }
        let kept: Vec<(String, Vec<String>)> = ATTRIBUTES
            .iter()
            .map(|(a, subs)| (a.to_string(), subs.iter().map(|s| s.to_string()).collect()))
            .collect();
        assert_eq!(declared, kept);
        let user = schema(USER, BASE).unwrap();
        let language = user["attributes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["name"] == "preferredLanguage")
            .unwrap();
        assert_eq!(language["canonicalValues"], serde_json::json!(LANGUAGES));
    }

    /// RFC 7643 7: every attribute states its characteristics (a client must not guess
    /// them), strings their caseExact, and only complex ones have sub-attributes.
    #[test]
    fn every_attribute_states_its_characteristics() {
        for id in [USER, ENTERPRISE] {
            let s = schema(id, BASE).unwrap();
            let mut stack: Vec<Value> = s["attributes"].as_array().unwrap().clone();
            while let Some(a) = stack.pop() {
                for key in [
                    "name",
                    "type",
                    "multiValued",
                    "required",
                    "mutability",
                    "returned",
                    "uniqueness",
                ] {
                    assert!(a.get(key).is_some(), "{key} of {a}");
                }
                assert_eq!(a["type"] == "string", a.get("caseExact").is_some(), "{a}");
                assert_eq!(
                    a["type"] == "complex",
                    a.get("subAttributes").is_some(),
                    "{a}"
                );
                assert_eq!(a["mutability"], "readWrite", "{a}");
                stack.extend(a["subAttributes"].as_array().cloned().unwrap_or_default());
            }
        }
        let user = schema(USER, BASE).unwrap();
        let user_name = &user["attributes"][0];
        assert_eq!(user_name["name"], "userName");
        assert_eq!(
            (
                &user_name["required"],
                &user_name["uniqueness"],
                &user_name["caseExact"]
            ),
            (
                &Value::Bool(true),
                &Value::from("server"),
                &Value::Bool(false)
            )
        );
    }
}
