//! The card and lead representations of the read endpoints (spec 2.1, 2.2), built by
//! SQLite as JSON text: a read row then crosses into wasm as one string instead of one
//! value per column, and is never decoded, rebuilt and serialised again (listCards 100
//! spent ~30 % of its CPU on that). This is a second definition of
//! `domain::card::CardView` and `domain::lead::LeadView`; `sql_check` holds the two
//! byte-for-byte equal on the same rows, special characters and plan masks included.

use super::row::impl_row;
use super::SqlValue;
use crate::domain::plan::Features;

/// One row's representation, as JSON text.
pub struct JsonText {
    pub json: String,
}
// A page of cards is one string (`joined`), ~145 KB for 100 cards.
impl_row!(JsonText { json }, long_text);

impl AsRef<str> for JsonText {
    fn as_ref(&self) -> &str {
        &self.json
    }
}

/// What a card's representation depends on besides its row: bound as `?1` to `?4` of
/// every statement that uses [`card_object`].
pub fn card_args(base_url: &str, features: Features) -> [SqlValue; 4] {
    [
        base_url.trim_end_matches('/').into(),
        features.lead_form.into(),
        features.white_label.into(),
        features.advanced_analytics.into(),
    ]
}

/// [`crate::domain::time::iso8601`] of a millisecond column: UTC with milliseconds.
macro_rules! timestamp {
    ($c:literal) => {
        concat!(
            "iif(",
            $c,
            " IS NULL, NULL, strftime('%Y-%m-%dT%H:%M:%S', ",
            $c,
            " / 1000, 'unixepoch') || printf('.%03dZ', ",
            $c,
            " % 1000))"
        )
    };
}

/// A 0/1 condition as a JSON boolean. `json('true')` is a constant SQLite evaluates once
/// per statement; `json(iif(..))` parsed per row (~30 % more for the flags of 100 cards).
macro_rules! flag {
    ($c:literal) => {
        concat!("iif(", $c, ", json('true'), json('false'))")
    };
}

/// Stored JSON text as is; text that does not parse reads as `empty` (as `CardRow`'s).
/// A column that is `empty`, the usual case, skips the two parses (validate, embed).
macro_rules! embedded {
    ($c:literal, $empty:literal) => {
        concat!(
            "iif(",
            $c,
            " = '",
            $empty,
            "', json('",
            $empty,
            "'), ",
            "iif(json_valid(",
            $c,
            "), json(",
            $c,
            "), json('",
            $empty,
            "')))"
        )
    };
}

/// The language codes of `domain::lang::LANGUAGES` as an SQL list (a unit test holds them
/// equal). A macro, so `concat!` takes it and the statement stays one literal.
macro_rules! codes {
    () => {
        "'de','en','bg','cs','da','el','es','fr','hr','hu','it','nl','pl','pt','ro','sk','sl','sv','uk'"
    };
}

/// A card row's `CardView` as a JSON object (`?1` base URL, `?2`-`?4` the features
/// lead_form, white_label, advanced_analytics), columns of `cards` unqualified.
pub fn card_object() -> &'static str {
    concat!(
        "json_object('id', id, 'slug', slug, 'title', title, 'first_name', first_name, ",
        "'last_name', last_name, 'job_title', job_title, 'company', company, 'bio', bio, ",
        "'email', email, 'phone', phone, 'website', website, 'booking_url', booking_url, ",
        "'video_url', iif(?4, video_url, NULL), 'address', address, 'tagline', tagline, ",
        "'company_registration', company_registration, 'vat_id', vat_id, ",
        "'social_links', ",
        embedded!("social_links", "[]"),
        ", 'design_config', ",
        embedded!("design_config", "{}"),
        ", 'section_visibility', ",
        embedded!("section_visibility", "{}"),
        ", 'template_id', template_id, 'card_type', card_type, ",
        "'is_public', ",
        flag!("is_public"),
        ", 'is_password_protected', ",
        flag!("is_password_protected"),
        ", 'show_branding', ",
        flag!("show_branding OR NOT ?3"),
        ", 'show_lead_form', ",
        flag!("show_lead_form AND ?2"),
        ", 'seo_title', seo_title, 'seo_description', seo_description, ",
        "'seo_indexable', ",
        flag!("seo_indexable"),
        ", 'status', iif(status IN ('active', 'draft', 'archived'), status, 'draft'), ",
        "'language', language, ",
        // `[language]` and the translation keys that are language codes, sorted, unique;
        // without translations (most cards) just `[language]`, not two `json_each`, a
        // UNION and a sort (a fifth of the SQLite time of a page of cards).
        "'available_languages', iif(translations = '{}', json_array(language), ",
        "json((SELECT json_group_array(code) FROM (",
        "SELECT value AS code FROM json_each(json_array(language)) UNION ",
        "SELECT key FROM json_each(iif(json_valid(translations), translations, '{}')) ",
        "WHERE key IN (",
        codes!(),
        ") ORDER BY code)))), ",
        "'translations', ",
        embedded!("translations", "{}"),
        ", 'public_url', ?1 || '/c/' || slug, ",
        "'published_at', ",
        timestamp!("published_at"),
        ", 'expires_at', ",
        timestamp!("expires_at"),
        ", 'created_at', ",
        timestamp!("created_at"),
        ", 'updated_at', ",
        timestamp!("updated_at"),
        ")"
    )
}

/// A page of representations as one row: `items`, a `SELECT` of `json` with its sort keys
/// `k1`, `k2` (both descending, as every page here is ordered), joined with commas in that
/// order; no row for an empty page. One string crosses into wasm instead of one row per
/// item (JavaScript objects, `Object.values` and a string each).
pub fn joined(items: &str) -> String {
    format!(
        "SELECT group_concat(json, ',' ORDER BY k1 DESC, k2 DESC) AS json \
         FROM ({items}) HAVING count(*) > 0"
    )
}

/// A lead row's `LeadView` without its card, columns of `leads` unqualified.
pub fn lead_object() -> &'static str {
    concat!(
        "json_object('id', id, 'card_id', card_id, 'name', name, 'email', email, ",
        "'phone', phone, 'message', message, 'note', note, 'source', source, ",
        "'consent_at', ",
        timestamp!("consent_at"),
        ", 'created_at', ",
        timestamp!("created_at"),
        ", 'updated_at', ",
        timestamp!("updated_at"),
        ")"
    )
}

#[cfg(test)]
mod tests {
    use crate::domain::lang::LANGUAGES;

    #[test]
    fn the_sql_language_list_is_the_domains() {
        let listed: Vec<&str> = codes!().split(',').map(|c| c.trim_matches('\'')).collect();
        assert_eq!(listed, LANGUAGES);
    }
}
