//! Pieces the integration pages (API tokens, webhooks, the security log) share: a
//! query value of the page's own address, a one-time secret with its copy button, a
//! form field's error, the pager, and a form's fields as the JSON object the domain's
//! parsers read (so a page validates exactly as the API does).

use serde_json::{Map, Value};

use super::text::{texts, Common, Lang};
use super::Ctx;
use crate::domain::html::Html;
use crate::domain::time::iso8601;
use crate::domain::weburl::form_pairs;

texts! {
    WidgetText {
        once: "Copy it now: it is shown only this once and cannot be shown again. Keep it like a password." / "Kopieren Sie es jetzt: Es wird nur dieses eine Mal angezeigt und kann nicht erneut angezeigt werden. Bewahren Sie es wie ein Passwort auf.",
        form_invalid: "Some fields need another look." / "Einige Felder müssen Sie noch einmal prüfen.",
    }
}

/// A value of this page's query (`?done=revoked`), decoded.
pub fn asked(ctx: &Ctx, name: &str) -> Option<String> {
    let query = ctx.here.split('#').next()?.split_once('?')?.1;
    form_pairs(query)
        .into_iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
}

/// A secret shown once: its text in a `.secret` block with `id`, a copy button (the
/// script shows it; without the script the text is there to select), and the warning.
pub fn secret(h: &mut Html, lang: Lang, id: &str, label: &str, secret: &str) {
    let c = Common::of(lang);
    let w = WidgetText::of(lang);
    h.element("p", &[("class", "label")], label)
        .element("code", &[("class", "secret"), ("id", id)], secret)
        .open(
            "button",
            &[
                ("type", "button"),
                ("class", "secondary"),
                ("data-copy", id),
                ("data-copied", c.copied),
                ("hidden", ""),
            ],
        )
        .text(c.copy)
        .close("button")
        .element("p", &[("class", "note")], w.once);
}

/// The start of a table in a `.table` box: a named region that takes the keyboard's focus,
/// so it can be scrolled sideways without a mouse when it is wider than the screen. Below
/// 40rem its rows stack (`table.stack`): each cell on a line of its own, named by its
/// `data-label`, so no column is out of sight on a phone.
pub fn table(h: &mut Html, label: &str) {
    h.open(
        "div",
        &[
            ("class", "table"),
            ("role", "region"),
            ("tabindex", "0"),
            ("aria-label", label),
        ],
    )
    .raw("<table class=\"stack\">");
}

/// A one-line text input with its label, hint and error. `id` names the input; its hint
/// and error paragraphs are `{id}-hint` and `{id}-error` (given, so they stay static).
pub struct TextField<'a> {
    pub id: &'static str,
    pub hint_id: &'static str,
    pub error_id: &'static str,
    /// `aria-describedby`: the error's id, then the hint's (an absent error is skipped).
    pub described: &'static str,
    pub name: &'static str,
    pub kind: &'static str,
    pub max: &'static str,
    pub required: bool,
    pub label: &'a str,
    pub hint: &'a str,
    pub value: &'a str,
    pub error: Option<&'a str>,
}

pub fn text_field(h: &mut Html, f: &TextField) {
    h.element("label", &[("for", f.id)], f.label).element(
        "p",
        &[("class", "muted"), ("id", f.hint_id)],
        f.hint,
    );
    let mut attrs = vec![
        ("type", f.kind),
        ("id", f.id),
        ("name", f.name),
        ("value", f.value),
        ("maxlength", f.max),
        ("autocomplete", "off"),
        ("aria-describedby", f.described),
    ];
    if f.required {
        attrs.push(("required", ""));
    }
    if f.error.is_some() {
        attrs.push(("aria-invalid", "true"));
    }
    h.open("input", &attrs);
    field_error(h, f.error_id, f.error);
}

/// A checkbox or radio button inside its label (no id needed), with an optional code
/// (`cards:read`) before its text.
pub fn choice(h: &mut Html, kind: &str, name: &str, value: &str, on: bool, code: &str, text: &str) {
    let mut attrs = vec![("type", kind), ("name", name), ("value", value)];
    if on {
        attrs.push(("checked", ""));
    }
    h.raw("<label class=\"check\">")
        .open("input", &attrs)
        .raw("<span>");
    if !code.is_empty() {
        h.element("code", &[], code).raw(" — ");
    }
    h.text(text).raw("</span></label>");
}

/// A fieldset of choices with its legend and error (`aria-describedby` when it has one).
pub fn fieldset(h: &mut Html, legend: &str, error_id: &'static str, error: Option<&str>) {
    let attrs: &[(&str, &str)] = match error {
        Some(_) => &[("aria-describedby", error_id)],
        None => &[],
    };
    h.open("fieldset", attrs).element("legend", &[], legend);
    field_error(h, error_id, error);
}

/// A field's error under it, when it has one.
fn field_error(h: &mut Html, error_id: &str, error: Option<&str>) {
    if let Some(e) = error {
        h.element("p", &[("class", "error"), ("id", error_id)], e);
    }
}

/// "The form has errors" at its top, so a screen reader hears it first.
pub fn form_errors(h: &mut Html, lang: Lang, any: bool) {
    if any {
        h.element(
            "p",
            &[("class", "error"), ("role", "alert")],
            WidgetText::of(lang).form_invalid,
        );
    }
}

/// The page number asked for: 1 and up, anything else is 1.
pub fn page_number(ctx: &Ctx) -> i64 {
    asked(ctx, "page")
        .and_then(|p| p.trim().parse::<i64>().ok())
        .unwrap_or(1)
        .clamp(1, crate::domain::pagination::MAX_PAGE)
}

/// A time in a table cell: `<td><time datetime="…">` as people of the language write it
/// (the frame keeps a time on one line), the cell named `label` when its row stacks.
pub fn time_cell(h: &mut Html, lang: Lang, label: &str, ms: i64) {
    h.open("td", &[("data-label", label)])
        .element("time", &[("datetime", &iso8601(ms))], &lang.date_time(ms))
        .raw("</td>");
}

/// A form's fields as a JSON object: `lists` are arrays of every value given (checkboxes
/// of one name, none checked: an empty array), every other field its first value.
pub fn object(form: &[(String, String)], texts: &[&str], lists: &[&str]) -> Map<String, Value> {
    let mut body = Map::new();
    for name in texts {
        if let Some(v) = super::field(form, name) {
            body.insert(name.to_string(), Value::String(v.to_string()));
        }
    }
    for name in lists {
        let all = super::values(form, name)
            .map(|v| Value::String(v.to_string()))
            .collect();
        body.insert(name.to_string(), Value::Array(all));
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(here: &str) -> Ctx {
        Ctx {
            lang: Lang::En,
            here: here.into(),
            origin: "https://x.example".into(),
            chosen: None,
        }
    }

    #[test]
    fn asked_reads_the_pages_query() {
        assert_eq!(
            asked(&ctx("/app/tokens?done=revoked"), "done").as_deref(),
            Some("revoked")
        );
        assert_eq!(
            asked(&ctx("/app/x?a=1&done=a%20b#f"), "done").as_deref(),
            Some("a b")
        );
        assert_eq!(asked(&ctx("/app/tokens"), "done"), None);
        assert_eq!(page_number(&ctx("/app/w/1?page=3")), 3);
        assert_eq!(page_number(&ctx("/app/w/1?page=-2")), 1);
        assert_eq!(page_number(&ctx("/app/w/1?page=x")), 1);
    }

    #[test]
    fn a_time_cell_says_it_for_people_and_machines() {
        let mut h = Html::default();
        time_cell(&mut h, Lang::De, "Zeit", 0);
        assert_eq!(
            h.into_string(),
            "<td data-label=\"Zeit\"><time datetime=\"1970-01-01T00:00:00.000Z\">01.01.1970 00:00 UTC</time></td>"
        );
    }

    #[test]
    fn a_form_becomes_the_parsers_object() {
        let form: Vec<(String, String)> = [("name", "CRM"), ("scopes", "a"), ("scopes", "b")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let o = object(&form, &["name", "missing"], &["scopes", "events"]);
        assert_eq!(o["name"], "CRM");
        assert!(!o.contains_key("missing"));
        assert_eq!(o["scopes"], serde_json::json!(["a", "b"]));
        assert_eq!(o["events"], serde_json::json!([]));
    }

    #[test]
    fn a_field_says_its_error_and_a_choice_needs_no_id() {
        let mut h = Html::default();
        let field = TextField {
            id: "n",
            hint_id: "n-hint",
            error_id: "n-error",
            described: "n-error n-hint",
            name: "name",
            kind: "text",
            max: "9",
            required: true,
            label: "Name",
            hint: "Hint",
            value: "a\"b",
            error: Some("Wrong"),
        };
        text_field(&mut h, &field);
        let s = h.into_string();
        assert!(
            s.starts_with("<label for=\"n\">Name</label><p class=\"muted\" id=\"n-hint\">Hint</p>")
        );
        assert!(s.contains("value=\"a&quot;b\""));
        assert!(
            s.contains("aria-describedby=\"n-error n-hint\" required=\"\" aria-invalid=\"true\">")
        );
        assert!(s.ends_with("<p class=\"error\" id=\"n-error\">Wrong</p>"));
        let mut h = Html::default();
        choice(&mut h, "radio", "status", "on", true, "", "On");
        assert_eq!(
            h.into_string(),
            "<label class=\"check\"><input type=\"radio\" name=\"status\" value=\"on\" checked=\"\"><span>On</span></label>"
        );
    }

    #[test]
    fn a_secret_has_its_copy_button_hidden_until_the_script_runs() {
        let mut h = Html::default();
        secret(&mut h, Lang::En, "new-token", "Token", "dbc_<x>");
        let s = h.into_string();
        assert!(s.contains("<code class=\"secret\" id=\"new-token\">dbc_&lt;x&gt;</code>"));
        assert!(s.contains("data-copy=\"new-token\" data-copied=\"Copied\" hidden=\"\""));
        assert!(s.contains("shown only this once"));
    }
}
