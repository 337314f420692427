//! Cards (account-area.md 2): the account's cards, most recently updated first, with their
//! name, status, language and last change, and links to each one's public page, QR code and
//! vCard, and, when wallet passes are configured (wallet.md), "Add to Apple Wallet" and
//! "Add to Google Wallet" for the cards whose page is up, and "Copy signature" (the card as
//! an email signature, teams.md 2, copied as rich text). Cards are made and changed
//! through the API; this page only shows them.

use worker::Response;

use super::layout::{pager, Nav};
use super::text::{texts, Common, Lang};
use super::{Ctx, Signed};
use crate::domain::html::Html;
use crate::domain::pagination::Page;
use crate::domain::time::iso8601;
use crate::domain::wallet::{apple_path, google_path, Offered};
use crate::http::error::ApiResult;
use crate::http::App;
use crate::ops;
use crate::store::cards::{self, CardLine};

texts! {
    CardsText {
        caption: "The account's cards, most recently updated first" / "Die Karten des Kontos, zuletzt geänderte zuerst",
        name: "Name" / "Name",
        status: "Status" / "Status",
        language: "Language" / "Sprache",
        updated: "Updated" / "Geändert",
        links: "Links" / "Links",
        public_page: "Public page" / "Öffentliche Seite",
        qr: "QR code" / "QR-Code",
        vcard: "vCard" / "vCard",
        apple_wallet: "Add to Apple Wallet" / "Zu Apple Wallet hinzufügen",
        google_wallet: "Add to Google Wallet" / "Zu Google Wallet hinzufügen",
        copy_signature: "Copy signature" / "Signatur kopieren",
        signature_copied: "Signature copied" / "Signatur kopiert",
        signature_failed: "The signature could not be copied." / "Die Signatur konnte nicht kopiert werden.",
        active: "Active" / "Aktiv",
        draft: "Draft" / "Entwurf",
        archived: "Archived" / "Archiviert",
        count: "Cards:" / "Karten:",
        none: "The account has no cards yet; they are made through the API." / "Das Konto hat noch keine Karten; sie werden über die API angelegt.",
    }
}

/// Cards a page shows.
const PER_PAGE: i64 = 25;

/// The page of `?page=` in a page's path and query (`ctx.here`), 25 cards a page.
pub(super) fn page_of(here: &str, per_page: i64) -> Page {
    let pairs = query_pairs(here);
    let page = pairs
        .iter()
        .find(|(k, _)| k == "page")
        .map(|(_, v)| v.as_str());
    Page {
        per_page,
        ..Page::from_query(page, None)
    }
}

/// The decoded query of a path and query.
pub(super) fn query_pairs(here: &str) -> Vec<(String, String)> {
    here.split_once('?')
        .map(|(_, q)| crate::domain::weburl::form_pairs(q))
        .unwrap_or_default()
}

pub async fn page(app: &App, ctx: &Ctx, s: &Signed) -> ApiResult<Response> {
    let t = CardsText::of(ctx.lang);
    let c = Common::of(ctx.lang);
    let at = page_of(&ctx.here, PER_PAGE);
    let (lines, total) = cards::lines(&*app.db()?, s.account.id, at.per_page, at.offset()).await?;
    let mut h = Html::default();
    h.raw("<section>");
    if total == 0 {
        h.element("p", &[], t.none);
    } else {
        h.element("p", &[("class", "muted")], &format!("{} {total}", t.count));
        table(&mut h, ctx.lang, &lines, ops::wallet::offered(app));
        let last = at.meta(total).last_page;
        pager(&mut h, ctx.lang, at.page, last, |p| {
            format!("/app/cards?page={p}")
        });
    }
    h.raw("</section>");
    Ok(ctx.page(c.cards, Nav::Cards, h, Some(s)))
}

fn table(h: &mut Html, lang: Lang, lines: &[CardLine], wallets: Offered) {
    let t = CardsText::of(lang);
    h.raw("<div class=\"table\"><table><caption class=\"muted\">")
        .text(t.caption)
        .raw("</caption><thead><tr>");
    for head in [t.name, t.status, t.language, t.updated, t.links] {
        h.element("th", &[("scope", "col")], head);
    }
    h.raw("</tr></thead><tbody>");
    for card in lines {
        let public = format!("/c/{}", card.slug);
        h.raw("<tr>")
            .open("th", &[("scope", "row")])
            .text(&card.title)
            .raw("<br>")
            .element("code", &[], &public)
            .close("th")
            .element("td", &[], status(t, &card.status))
            .element("td", &[], &card.language)
            .raw("<td>")
            .element(
                "time",
                &[("datetime", &iso8601(card.updated_at))],
                &lang.date_time(card.updated_at),
            )
            .raw("</td><td>");
        // A pass is only had from a card whose page is up: a draft's would be a 404.
        let active = card.status == "active";
        let links = [
            (t.public_page, public.clone(), true),
            (t.qr, format!("{public}/qr.svg"), true),
            (t.vcard, format!("{public}/vcard"), true),
            (
                t.apple_wallet,
                apple_path(&card.slug),
                active && wallets.apple,
            ),
            (
                t.google_wallet,
                google_path(&card.slug),
                active && wallets.google,
            ),
        ];
        let shown = links.iter().filter(|(_, _, shown)| *shown);
        for (i, (label, href, _)) in shown.enumerate() {
            if i > 0 {
                h.raw(" · ");
            }
            // The card's name in each link's accessible name: "QR code: Ada Lovelace".
            let name = format!("{label}: {}", card.title);
            h.element("a", &[("href", href), ("aria-label", &name)], label);
        }
        // The script fetches the signature and copies it; without it the button stays hidden.
        if active {
            h.raw(" ").element(
                "button",
                &[
                    ("type", "button"),
                    ("class", "link"),
                    (
                        "data-signature",
                        &format!("/app/cards/{}/signature", card.id),
                    ),
                    ("data-copied", t.signature_copied),
                    ("data-failed", t.signature_failed),
                    (
                        "aria-label",
                        &format!("{}: {}", t.copy_signature, card.title),
                    ),
                    ("hidden", ""),
                ],
                t.copy_signature,
            );
        }
        h.raw("</td></tr>");
    }
    h.raw("</tbody></table></div>");
}

/// `/app/cards/{id}/signature`: the account's card as an email signature, `{data: {html,
/// text}}` as the API answers it, shown as the account's current features allow.
pub async fn signature(app: &App, s: &Signed, id: i64) -> ApiResult<Response> {
    let features = s.account.overrides.effective(s.account.plan).0;
    ops::cards::signature_of(app, s.account.id, features, id).await
}

/// A stored status in the page's language; one the page does not know, as stored.
fn status<'a>(t: &'static CardsText, stored: &'a str) -> &'a str {
    match stored {
        "active" => t.active,
        "draft" => t.draft,
        "archived" => t.archived,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: i64, slug: &str, title: &str, status: &str) -> CardLine {
        CardLine {
            id,
            slug: slug.into(),
            title: title.into(),
            status: status.into(),
            language: "de".into(),
            updated_at: 1_795_358_596_123,
        }
    }

    const NO_WALLET: Offered = Offered {
        apple: false,
        google: false,
    };

    #[test]
    fn every_card_has_its_three_links_and_its_status_in_the_language() {
        let mut h = Html::default();
        table(
            &mut h,
            Lang::De,
            &[
                line(1, "ada-lovelace", "Ada <Lovelace>", "draft"),
                line(2, "alan-turing", "Alan Turing", "active"),
            ],
            NO_WALLET,
        );
        let html = h.into_string();
        for href in [
            "/c/ada-lovelace\"",
            "/c/ada-lovelace/qr.svg\"",
            "/c/ada-lovelace/vcard\"",
            "/c/alan-turing\"",
            "/c/alan-turing/qr.svg\"",
            "/c/alan-turing/vcard\"",
        ] {
            assert!(html.contains(&format!("href=\"{href}")), "{href}");
        }
        assert!(html.contains("Ada &lt;Lovelace&gt;") && !html.contains("<Lovelace>"));
        assert!(html.contains("aria-label=\"QR-Code: Alan Turing\""));
        assert!(html.contains("<td>Entwurf</td>") && html.contains("<td>Aktiv</td>"));
        assert!(html.contains("<time datetime=\"2026-11-22T14:43:16.123Z\">22.11.2026 14:43 UTC"));
        assert!(!html.contains("wallet"));
    }

    #[test]
    fn wallet_links_follow_the_configuration_the_status_and_the_language() {
        let lines = [
            line(1, "ada-lovelace", "Ada Lovelace", "active"),
            line(2, "alan-turing", "Alan Turing", "draft"),
        ];
        let html = |lang, apple, google| {
            let mut h = Html::default();
            table(&mut h, lang, &lines, Offered { apple, google });
            h.into_string()
        };
        let both = html(Lang::En, true, true);
        assert!(both.contains(
            "<a href=\"/c/ada-lovelace/vcard\" aria-label=\"vCard: Ada Lovelace\">vCard</a> · \
             <a href=\"/c/ada-lovelace/wallet.pkpass\" aria-label=\"Add to Apple Wallet: Ada \
             Lovelace\">Add to Apple Wallet</a> · <a href=\"/c/ada-lovelace/wallet/google\" \
             aria-label=\"Add to Google Wallet: Ada Lovelace\">Add to Google Wallet</a> <button"
        ));
        // The draft's page is 404, and so would its passes be.
        assert!(!both.contains("alan-turing/wallet"));
        let de = html(Lang::De, false, true);
        assert!(de.contains(">Zu Google Wallet hinzufügen</a>"));
        assert!(!de.contains("wallet.pkpass") && !de.contains("Apple"));
        assert!(html(Lang::De, true, false).contains(">Zu Apple Wallet hinzufügen</a>"));
    }

    #[test]
    fn active_cards_offer_their_signature_in_the_language() {
        let lines = [
            line(7, "ada-lovelace", "Ada Lovelace", "active"),
            line(8, "alan-turing", "Alan Turing", "draft"),
        ];
        let mut h = Html::default();
        table(&mut h, Lang::De, &lines, NO_WALLET);
        let html = h.into_string();
        assert!(html.contains(
            "<button type=\"button\" class=\"link\" data-signature=\"/app/cards/7/signature\" \
             data-copied=\"Signatur kopiert\" data-failed=\"Die Signatur konnte nicht kopiert \
             werden.\" aria-label=\"Signatur kopieren: Ada Lovelace\" hidden=\"\">Signatur \
             kopieren</button>"
        ));
        // A draft's page is 404: a signature linking to it would be too.
        assert!(!html.contains("/app/cards/8/signature"));
    }

    #[test]
    fn the_page_comes_from_the_query() {
        assert_eq!(page_of("/app/cards", 25).page, 1);
        assert_eq!(page_of("/app/cards?lang=de&page=3", 25).offset(), 50);
        assert_eq!(page_of("/app/cards?page=x", 25).page, 1);
        assert_eq!(page_of("/app/cards?page=-2", 25).per_page, 25);
    }
}
