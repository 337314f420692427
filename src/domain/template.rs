//! Company templates (teams.md 1): the typed create and update bodies. A template's
//! values are card fields, checked by the card's own rules (`CardPatch::parse`) and kept
//! as the card columns they write, so a card and its template compare column by column.

use serde_json::{Map, Value};

use super::card::{CardPatch, Templated};
use super::input::{Column, Field, Input, Mode};
use super::validation::{FieldErrors, Rule};

/// The card fields a template may hold (and lock).
pub const FIELDS: [&str; 12] = [
    "company",
    "website",
    "address",
    "phone",
    "booking_url",
    "video_url",
    "bio",
    "design_config",
    "social_links",
    "show_branding",
    "show_lead_form",
    "language",
];

/// Templates an account may have.
pub const MAX_TEMPLATES: i64 = 50;

/// A card's `template_id` that names a template: `tpl_{id}`.
pub fn template_ref(template_id: Option<&str>) -> Option<i64> {
    template_id?.trim().strip_prefix("tpl_")?.parse().ok()
}

/// Stored values (JSON text) as a map; through `Value`, whose parser the worker has anyway.
pub fn values_of(text: &str) -> Map<String, Value> {
    match serde_json::from_str(text) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// Stored locks (JSON text) as names.
pub fn locks_of(text: &str) -> Vec<String> {
    match serde_json::from_str(text) {
        Ok(Value::Array(a)) => a
            .into_iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => vec![],
    }
}

fn layout(s: &str) -> Option<&'static str> {
    ["classic", "modern", "minimal"]
        .into_iter()
        .find(|l| *l == s)
}

/// A create or update body: `None` is a field not sent. `values` and `locked` are JSON
/// text as stored (keys sorted, so equal values are equal text).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TemplateInput {
    pub name: Option<String>,
    pub layout: Option<&'static str>,
    pub values: Option<String>,
    pub locked: Option<String>,
    pub default: Option<bool>,
}

impl TemplateInput {
    /// `stored`: the template's values and locks as stored (an update), against which
    /// a `locked` sent without `values` (or the other way round) is checked.
    pub fn parse(
        body: &Map<String, Value>,
        mode: Mode,
        stored: Option<(&str, &str)>,
    ) -> Result<TemplateInput, FieldErrors> {
        let mut input = Input::new(body);
        let name = input.required_text("name", 100, mode);
        let layout = match input.choice("layout", layout) {
            Field::Set(l) => Some(l),
            Field::Null => {
                input.fail_rule("layout", Rule::Required);
                None
            }
            Field::Absent => {
                if mode == Mode::Create && !input.has_error("layout") {
                    input.fail_rule("layout", Rule::Required);
                }
                None
            }
        };
        let values = values(&mut input, body.get("values"));
        let locked = locked(&mut input, body.get("locked"));
        let default = input.boolean("default").value().copied();
        // Create: `values` {} and `locked` [] unless sent.
        let (values, locked) = match mode {
            Mode::Create => (
                values.or_else(|| Some(Map::new())),
                locked.or_else(|| Some(vec![])),
            ),
            Mode::Update => (values, locked),
        };
        let stored_values = stored.map(|(v, _)| values_of(v));
        let stored_locked = stored.map(|(_, l)| locks_of(l));
        if let (Some(v), Some(l)) = (
            values.as_ref().or(stored_values.as_ref()),
            locked.as_ref().or(stored_locked.as_ref()),
        ) {
            if !input.has_error("values") && l.iter().any(|k| !v.contains_key(k)) {
                input.fail(
                    "locked",
                    "The locked field must name keys of values.".into(),
                );
            }
        }
        input.finish(TemplateInput {
            name,
            layout,
            values: values.map(|v| Value::Object(v).to_string()),
            locked: locked.map(|l| Value::from(l).to_string()),
            default,
        })
    }
}

/// Copies the field `key` (one of [`FIELDS`]) of `from` into `to`.
fn copy(to: &mut CardPatch, from: &CardPatch, key: &str) {
    match key {
        "company" => to.company = from.company.clone(),
        "website" => to.website = from.website.clone(),
        "address" => to.address = from.address.clone(),
        "phone" => to.phone = from.phone.clone(),
        "booking_url" => to.booking_url = from.booking_url.clone(),
        "video_url" => to.video_url = from.video_url.clone(),
        "bio" => to.bio = from.bio.clone(),
        "design_config" => to.design_config = from.design_config.clone(),
        "social_links" => to.social_links = from.social_links.clone(),
        "show_branding" => to.show_branding = from.show_branding,
        "show_lead_form" => to.show_lead_form = from.show_lead_form,
        "language" => to.language = from.language.clone(),
        _ => {}
    }
}

/// What the template `tpl_{id}` (its stored values and locks, at `rev`) does to a card
/// write (teams.md 1): a locked field written with another value (null included) is
/// refused, unless `kept` names it (a SCIM write whose User leaves its attribute out, so
/// the value is no one's); every
/// locked field is written with the template's value. The unlocked values fill what the
/// write leaves out: on a create (`creating`) here, on an update in the store, only where
/// the card's own value is empty and the card did not use the template before.
pub fn apply(
    patch: &mut CardPatch,
    (id, values, locked, rev): (i64, &str, &str, i64),
    kept: &[&str],
    creating: bool,
) -> Result<(), FieldErrors> {
    let (values, locked) = (values_of(values), locks_of(locked));
    let tpl = CardPatch::parse(&values).unwrap_or_default();
    let theirs = tpl.writes();
    let mine = patch.writes();
    let mut errors = FieldErrors::new();
    let mut defaults = vec![];
    for (i, (key, value)) in theirs.into_iter().enumerate() {
        if !values.contains_key(key) {
            continue;
        }
        let sent = &mine[i].1;
        let left_out = *sent == Field::Absent || kept.contains(&key);
        if locked.iter().any(|l| l == key) {
            if !left_out && *sent != value {
                errors.add_rule(key, Rule::Locked);
            }
            copy(patch, &tpl, key);
        } else if creating && (left_out || *sent == Field::Null) {
            copy(patch, &tpl, key);
        } else if left_out {
            defaults.push((key, value));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    patch.template = Some(Templated {
        id,
        rev,
        start: format!("tpl_{id}"),
        defaults,
    });
    Ok(())
}

/// `values`: card fields of [`FIELDS`] under the card's rules, as the columns they write.
fn values(input: &mut Input, sent: Option<&Value>) -> Option<Map<String, Value>> {
    let map = match sent {
        None => return None,
        Some(Value::Null) => return Some(Map::new()),
        Some(Value::Object(map)) => map,
        Some(_) => {
            input.fail_rule("values", Rule::Object);
            return None;
        }
    };
    let mut ok = true;
    for key in map.keys().filter(|k| !FIELDS.contains(&k.as_str())) {
        input.fail_rule(&format!("values.{key}"), Rule::Choice);
        ok = false;
    }
    let patch = match CardPatch::parse(map) {
        Ok(patch) => patch,
        Err(errors) => {
            for (field, rule, message) in errors.entries() {
                let field = format!("values.{field}");
                match rule {
                    Rule::Other => input.fail(&field, message.to_string()),
                    rule => input.fail_rule(&field, rule),
                }
            }
            return None;
        }
    };
    if !ok {
        return None;
    }
    Some(columns(&patch, |k| map.contains_key(k)))
}

/// The columns of `patch` whose names `keep` accepts, as JSON values (JSON columns parsed).
pub fn columns(patch: &CardPatch, keep: impl Fn(&str) -> bool) -> Map<String, Value> {
    let mut out = Map::new();
    for (column, write) in patch.writes() {
        if !keep(column) {
            continue;
        }
        let value = match write {
            Field::Absent => continue,
            Field::Null => Value::Null,
            Field::Set(Column::Flag(b)) => Value::Bool(b),
            Field::Set(Column::Text(s)) if matches!(column, "social_links" | "design_config") => {
                serde_json::from_str(&s).unwrap_or(Value::Null)
            }
            Field::Set(Column::Text(s)) => Value::String(s),
        };
        out.insert(column.to_string(), value);
    }
    out
}

/// `locked`: names of card fields, each once.
fn locked(input: &mut Input, sent: Option<&Value>) -> Option<Vec<String>> {
    let items = match sent {
        None => return None,
        Some(Value::Null) => return Some(vec![]),
        Some(Value::Array(items)) => items,
        Some(_) => {
            input.fail_rule("locked", Rule::Array);
            return None;
        }
    };
    for (i, item) in items.iter().enumerate() {
        if !item.as_str().is_some_and(|s| FIELDS.contains(&s)) {
            input.fail_rule(&format!("locked.{i}"), Rule::Choice);
        }
    }
    // In the order of FIELDS, each once: equal locks are equal text.
    let named = |f: &&&str| items.iter().any(|i| i.as_str() == Some(**f));
    Some(FIELDS.iter().filter(named).map(|f| f.to_string()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value, mode: Mode) -> Result<TemplateInput, FieldErrors> {
        TemplateInput::parse(v.as_object().unwrap(), mode, None)
    }

    #[test]
    fn a_create_needs_name_and_layout_and_defaults_the_rest() {
        let e = parse(json!({}), Mode::Create).unwrap_err();
        assert!(e.has("name") && e.has("layout"));
        let t = parse(json!({"name": " Acme ", "layout": "modern"}), Mode::Create).unwrap();
        assert_eq!(t.name.as_deref(), Some("Acme"));
        assert_eq!(
            (t.values.as_deref(), t.locked.as_deref()),
            (Some("{}"), Some("[]"))
        );
        let e = parse(json!({"name": "x", "layout": "fancy"}), Mode::Create).unwrap_err();
        assert!(e.broke("layout", Rule::Choice));
    }

    #[test]
    fn values_are_card_fields_under_the_cards_rules() {
        let t = parse(
            json!({"values": {"website": " https://acme.example ", "company": "",
                   "show_branding": false, "social_links": [{"platform": "github", "url": "acme"}]},
                   "locked": ["website", "website"]}),
            Mode::Update,
        )
        .unwrap();
        let v: Value = serde_json::from_str(t.values.as_deref().unwrap()).unwrap();
        assert_eq!(v["website"], "https://acme.example");
        assert_eq!(v["company"], Value::Null);
        assert_eq!(v["show_branding"], false);
        assert_eq!(v["social_links"][0]["label"], Value::Null);
        assert_eq!(t.locked.as_deref(), Some(r#"["website"]"#));
        let t = parse(
            json!({"values": {"bio": "b", "phone": "1"}, "locked": ["phone", "bio"]}),
            Mode::Update,
        );
        assert_eq!(t.unwrap().locked.as_deref(), Some(r#"["phone","bio"]"#));
        let e = parse(
            json!({"values": {"website": "nope", "first_name": "A"}}),
            Mode::Update,
        )
        .unwrap_err();
        assert!(e.broke("values.website", Rule::Url), "{e:?}");
        assert!(e.has("values.first_name"));
        assert_eq!(
            e.of("values.website")[0].1,
            "The values.website field must be a valid URL."
        );
    }

    #[test]
    fn locked_names_keys_of_values_sent_or_stored() {
        let e = parse(
            json!({"values": {"bio": "x"}, "locked": ["address"]}),
            Mode::Update,
        )
        .unwrap_err();
        assert!(e.has("locked"));
        let body = json!({"locked": ["address"]});
        let stored = Some((r#"{"address":"Main St 1"}"#, "[]"));
        assert!(TemplateInput::parse(body.as_object().unwrap(), Mode::Update, stored).is_ok());
        let body = json!({"values": {}});
        let stored = Some((r#"{"address":"Main St 1"}"#, r#"["address"]"#));
        assert!(TemplateInput::parse(body.as_object().unwrap(), Mode::Update, stored).is_err());
        assert!(parse(json!({"locked": ["first_name"]}), Mode::Update).is_err());
    }

    #[test]
    fn locked_fields_are_refused_when_changed_and_always_written() {
        let tpl = (
            7,
            r#"{"address":"Main St 1","company":"Acme","phone":null}"#,
            r#"["address","phone"]"#,
            3,
        );
        let patch = |v: Value| CardPatch::parse(v.as_object().unwrap()).unwrap();
        // Another value, or null where the template has one: refused, worded like the others.
        let mut p = patch(json!({"address": "Elsewhere", "company": "Mine"}));
        let e = apply(&mut p, tpl, &[], false).unwrap_err();
        assert_eq!(
            e.of("address")[0].1,
            "The address is set by the company template."
        );
        assert!(!e.has("company"));
        let mut p = patch(json!({"address": null}));
        assert!(apply(&mut p, tpl, &[], false).is_err());
        // Null kept (a SCIM write leaving the attribute out), the same value, or left out.
        let mut p = patch(json!({"address": null, "phone": null}));
        apply(&mut p, tpl, &["address"], false).unwrap();
        assert_eq!(p.address, Field::Set("Main St 1".into()));
        let mut p = patch(json!({"address": " Main St 1 "}));
        apply(&mut p, tpl, &[], false).unwrap();
        // An update: the unlocked value is a default the store fills only where empty.
        let mut p = patch(json!({"bio": "b"}));
        apply(&mut p, tpl, &[], false).unwrap();
        assert_eq!(p.address, Field::Set("Main St 1".into()));
        assert_eq!(p.company, Field::Absent);
        let t = p.template.unwrap();
        assert_eq!((t.rev, t.start.as_str()), (3, "tpl_7"));
        assert_eq!(
            t.defaults,
            vec![("company", Field::Set(Column::Text("Acme".into())))]
        );
        // A create: unlocked values fill what it leaves out or empty, not what it sets.
        let mut p = patch(json!({"company": ""}));
        apply(&mut p, tpl, &[], true).unwrap();
        assert_eq!(p.company, Field::Set("Acme".into()));
        let mut p = patch(json!({"company": "Mine"}));
        apply(&mut p, tpl, &[], true).unwrap();
        assert_eq!(p.company, Field::Set("Mine".into()));
    }

    #[test]
    fn template_ids_name_templates_only_with_the_prefix() {
        assert_eq!(template_ref(Some("tpl_42")), Some(42));
        assert_eq!(template_ref(Some("modern")), None);
        assert_eq!(template_ref(Some("tpl_x")), None);
        assert_eq!(template_ref(None), None);
    }
}
