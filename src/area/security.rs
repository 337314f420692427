//! The security log (account-area.md 2): the account's newest 200 entries of both logs
//! (the directory's: sign-ins, tokens, members; the shard's: webhooks, erasures), newest
//! first, with the time, what happened, who (a member's address, a token's name, the
//! operator, someone not signed in), the detail and the country. No IP address is kept,
//! so none is shown.

use worker::Response;

use super::layout::Nav;
use super::text::{texts, Common, Lang};
use super::{Ctx, Signed};
use crate::domain::html::Html;
use crate::domain::security::{merged, Actor, Entry, Kind};
use crate::http::error::ApiResult;
use crate::http::App;
use crate::store::members::{token_names, TokenName};
use crate::store::security;

texts! {
    SecurityText {
        intro: "The account's last 200 security events, newest first. Only the country of each request is kept, never its IP address." / "Die letzten 200 Sicherheitsereignisse des Kontos, neueste zuerst. Von jeder Anfrage wird nur das Land gespeichert, nie die IP-Adresse.",
        none: "Nothing has happened yet." / "Bisher ist nichts geschehen.",
        table: "Security events" / "Sicherheitsereignisse",
        time: "Time" / "Zeit",
        what: "What happened" / "Was geschah",
        who: "Who" / "Wer",
        detail: "Detail" / "Detail",
        country: "Country" / "Land",
        sign_in: "Signed in" / "Angemeldet",
        sign_in_failed: "Sign-in failed" / "Anmeldung fehlgeschlagen",
        sign_out: "Signed out" / "Abgemeldet",
        passkey_added: "Passkey added" / "Passkey hinzugefügt",
        passkey_removed: "Passkey removed" / "Passkey entfernt",
        token_created: "API token created" / "API-Token erstellt",
        token_revoked: "API token revoked" / "API-Token widerrufen",
        webhook_created: "Webhook created" / "Webhook erstellt",
        webhook_deleted: "Webhook deleted" / "Webhook gelöscht",
        webhook_secret_rotated: "Webhook secret rotated" / "Webhook-Geheimnis erneuert",
        member_invited: "Member invited" / "Mitglied eingeladen",
        member_removed: "Member removed" / "Mitglied entfernt",
        leads_erased: "Leads erased" / "Leads gelöscht",
        token: "token “{name}”" / "Token „{name}“",
        unknown_token: "a token no longer there" / "ein nicht mehr vorhandenes Token",
        former_member: "a former member" / "ein ehemaliges Mitglied",
        operator: "the operator" / "der Betreiber",
        visitor: "someone not signed in" / "jemand, der nicht angemeldet war",
        by_invite: "by accepting an invite" / "durch Annahme einer Einladung",
        leads_count: "{n} leads" / "{n} Leads",
    }
}

pub async fn page(app: &App, ctx: &Ctx, s: &Signed) -> ApiResult<Response> {
    let t = SecurityText::of(ctx.lang);
    let c = Common::of(ctx.lang);
    let dir = app.directory()?;
    let account = s.account.id;
    let directory = security::list(&dir, account).await?;
    let db = app.db()?;
    let shard = security::list(&db, account).await?;
    let entries = merged(directory, shard);
    let names = token_names(&dir, account).await?;

    let mut h = Html::default();
    h.element("p", &[("class", "muted")], t.intro);
    h.raw("<section>");
    if entries.is_empty() {
        h.element("p", &[("class", "muted")], t.none);
    } else {
        super::widgets::table(&mut h, t.table);
        h.raw("<thead><tr>");
        for head in [t.time, t.what, t.who, t.detail, t.country] {
            h.element("th", &[("scope", "col")], head);
        }
        h.raw("</tr></thead><tbody>");
        for e in &entries {
            h.raw("<tr>");
            super::widgets::time_cell(&mut h, ctx.lang, t.time, e.at);
            h.element("td", &[("data-label", t.what)], &what(&e.kind, ctx.lang))
                .element("td", &[("data-label", t.who)], &who(e, &names, ctx.lang))
                .element("td", &[("data-label", t.detail)], &detail(e, ctx.lang))
                .element(
                    "td",
                    &[("data-label", t.country)],
                    e.country.as_deref().unwrap_or(""),
                )
                .raw("</tr>");
        }
        h.raw("</tbody></table></div>");
    }
    h.raw("</section>");
    Ok(ctx.page(c.security, Nav::Security, h, Some(s)))
}

/// What happened, in the page's language; a kind this build does not know, as stored.
pub fn what(kind: &str, lang: Lang) -> String {
    let t = SecurityText::of(lang);
    let Some(kind) = Kind::parse(kind) else {
        return kind.to_string();
    };
    match kind {
        Kind::SignIn => t.sign_in,
        Kind::SignInFailed => t.sign_in_failed,
        Kind::SignOut => t.sign_out,
        Kind::PasskeyAdded => t.passkey_added,
        Kind::PasskeyRemoved => t.passkey_removed,
        Kind::TokenCreated => t.token_created,
        Kind::TokenRevoked => t.token_revoked,
        Kind::WebhookCreated => t.webhook_created,
        Kind::WebhookDeleted => t.webhook_deleted,
        Kind::WebhookSecretRotated => t.webhook_secret_rotated,
        Kind::MemberInvited => t.member_invited,
        Kind::MemberRemoved => t.member_removed,
        Kind::LeadsErased => t.leads_erased,
    }
    .to_string()
}

/// Who did it: a member's address (kept with the entry), a token's name (looked up now),
/// the operator, or someone not signed in.
pub fn who(e: &Entry, names: &[TokenName], lang: Lang) -> String {
    let t = SecurityText::of(lang);
    if let Some(id) = Actor::token_of(&e.actor) {
        return match names.iter().find(|n| n.id == id) {
            Some(n) => t.token.replace("{name}", &n.name),
            None => t.unknown_token.to_string(),
        };
    }
    match e.actor.as_str() {
        "operator" => t.operator.to_string(),
        "visitor" => t.visitor.to_string(),
        _ => e
            .actor_name
            .clone()
            .unwrap_or_else(|| t.former_member.to_string()),
    }
}

/// The entry's detail: a name, an address or a URL as kept; a count of erased leads and
/// a sign-in by invite said in words.
pub fn detail(e: &Entry, lang: Lang) -> String {
    let t = SecurityText::of(lang);
    let kept = e.detail.clone().unwrap_or_default();
    match Kind::parse(&e.kind) {
        Some(Kind::SignIn) if kept == "invite" => t.by_invite.to_string(),
        Some(Kind::LeadsErased) if !kept.is_empty() => t.leads_count.replace("{n}", &kept),
        _ => kept,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: Kind, actor: &str, name: Option<&str>, detail: Option<&str>) -> Entry {
        Entry {
            at: 0,
            kind: kind.as_str().into(),
            actor: actor.into(),
            actor_name: name.map(String::from),
            detail: detail.map(String::from),
            country: Some("DE".into()),
        }
    }

    #[test]
    fn every_kind_has_a_label_in_both_languages() {
        for lang in [Lang::En, Lang::De] {
            let mut seen = Vec::new();
            for kind in Kind::ALL {
                let label = what(kind.as_str(), lang);
                assert!(!label.contains('_'), "{kind:?}: {label}");
                assert!(!seen.contains(&label), "{kind:?}");
                seen.push(label);
            }
        }
        assert_eq!(what("token_revoked", Lang::De), "API-Token widerrufen");
        assert_eq!(what("something_new", Lang::En), "something_new");
    }

    #[test]
    fn who_names_members_tokens_the_operator_and_visitors() {
        let names = vec![TokenName {
            id: 7,
            name: "CRM".into(),
        }];
        let member = entry(Kind::SignIn, "member:3", Some("ada@acme.example"), None);
        assert_eq!(who(&member, &names, Lang::En), "ada@acme.example");
        let token = entry(Kind::WebhookCreated, "token:7", None, None);
        assert_eq!(who(&token, &names, Lang::En), "token “CRM”");
        assert_eq!(who(&token, &names, Lang::De), "Token „CRM“");
        let gone = entry(Kind::WebhookCreated, "token:8", None, None);
        assert_eq!(who(&gone, &names, Lang::En), "a token no longer there");
        let op = entry(Kind::TokenCreated, "operator", None, None);
        assert_eq!(who(&op, &names, Lang::En), "the operator");
        let visitor = entry(Kind::SignInFailed, "visitor", None, None);
        assert_eq!(who(&visitor, &names, Lang::En), "someone not signed in");
        assert_eq!(
            who(
                &entry(Kind::SignOut, "member:9", None, None),
                &names,
                Lang::De
            ),
            "ein ehemaliges Mitglied"
        );
    }

    #[test]
    fn details_are_said_in_words_where_they_are_codes() {
        let invite = entry(Kind::SignIn, "member:1", None, Some("invite"));
        assert_eq!(detail(&invite, Lang::De), "durch Annahme einer Einladung");
        let erased = entry(Kind::LeadsErased, "member:1", None, Some("3"));
        assert_eq!(detail(&erased, Lang::En), "3 leads");
        let hook = entry(
            Kind::WebhookCreated,
            "member:1",
            None,
            Some("https://h.example/x"),
        );
        assert_eq!(detail(&hook, Lang::En), "https://h.example/x");
        assert_eq!(
            detail(&entry(Kind::SignOut, "visitor", None, None), Lang::En),
            ""
        );
    }
}
