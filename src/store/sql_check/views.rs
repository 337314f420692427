//! The representations SQLite builds, byte for byte the Rust serialisation.

use super::*;
use crate::domain::lead::Lead;
use crate::domain::plan::Features;
use crate::store::card_row::CardRow;
use crate::store::views::{card_args, card_object, lead_object, JsonText};

/// The read endpoints' card and lead JSON is built by SQLite (`store::views`), the other
/// answers' by serde, both from one declaration per representation, each kind and mask
/// written once for SQL and once for Rust: on the same rows, the SQL must be byte for byte
/// what serde makes of the domain views (strong ETags are digests of these bytes), for
/// every combination of plan masks and odd values.
#[test]
fn views_built_by_sqlite_equal_the_domain_views() {
    let mut db = Db::new();
    db.conn
        .execute_batch(
            "INSERT INTO accounts (id, name, plan, created_at) VALUES (1, 'A', 'enterprise', 1)",
        )
        .expect("account");
    let odd =
        "q\" b\\ s/ t\t n\n r\r \u{8}\u{c}\u{1}\u{1f}\u{7f} Zoë 🚀 \u{2028}\u{2029} 中文 </script>";
    // Text columns, social_links, design_config, translations, language, status, the five
    // flags (bit 0 is_public .. bit 4 seo_indexable), published_at and expires_at.
    type Case<'a> = (Option<&'a str>, [&'a str; 5], i64, [Option<i64>; 2]);
    let cases: [Case; 6] = [
        (
            Some("Ada"),
            ["[]", "{}", "{}", "en", "active"],
            0b10011,
            [Some(1_760_000_000_123), None],
        ),
        (
            Some(odd),
            [
                r#"[{"platform":"github","url":"https://g.example/a","label":null}]"#,
                r##"{"theme":"dark","accent_color":"#112233"}"##,
                r#"{"fr":{"bio":"é"},"xx":{},"de":{},"en":{}}"#,
                "en",
                "archived",
            ],
            0b01100,
            [Some(0), Some(253_402_300_799_999)],
        ),
        (
            None,
            ["not json", "[1", r#"["de"]"#, "sv", "draft"],
            0b11111,
            [None, Some(86_400_000)],
        ),
        (
            Some(""),
            ["{}", r#"{"a":"\u00e9\n"}"#, r#""de""#, "zz", "active"],
            0,
            [Some(999), None],
        ),
        (
            Some("x"),
            ["[]", "{}", "nope", "de", "active"],
            0b00001,
            [None, None],
        ),
        (
            Some("y"),
            [
                "[]",
                "{}",
                r#"{"uk":1,"bg":null,"en-GB":{}}"#,
                "pl",
                "draft",
            ],
            0b00010,
            [Some(1), Some(2)],
        ),
    ];
    for (i, (text, [links, design, translations, language, status], flags, [published, expires])) in
        cases.into_iter().enumerate()
    {
        let id = i as i64 + 1;
        let bit = |n: u32| flags >> n & 1;
        db.conn
            .execute(
                "INSERT INTO cards (id, account_id, slug, title, first_name, last_name, job_title, \
                 company, bio, email, phone, website, booking_url, video_url, address, tagline, \
                 company_registration, vat_id, social_links, design_config, section_visibility, \
                 template_id, card_type, is_public, is_password_protected, show_branding, \
                 show_lead_form, seo_title, seo_description, seo_indexable, status, language, \
                 translations, published_at, expires_at, created_at, updated_at) VALUES \
                 (?1, 1, ?2, ?3, ?3, ?3, ?4, ?4, ?4, ?4, ?4, ?4, ?4, ?4, ?4, ?4, ?4, ?4, ?5, ?6, \
                 ?6, ?4, ?4, ?7, ?8, ?9, ?10, ?4, ?4, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
                rusqlite::params![
                    id, format!("s-{id}"), text.unwrap_or("T"), text, links, design,
                    bit(0), bit(1), bit(2), bit(3), bit(4), status, language, translations,
                    published, expires, 1_700_000_000_000 + id * 1_001, 1_760_000_000_000 + id,
                ],
            )
            .expect("card");
        db.conn
            .execute(
                "INSERT INTO leads (account_id, card_id, name, email, phone, message, note, \
                 source, consent_at, created_at, updated_at) VALUES \
                 (1, ?1, ?2, ?2, ?2, ?2, ?2, ?2, ?3, ?4, ?4)",
                rusqlite::params![id, text, published, 1_765_432_109_876 + id],
            )
            .expect("lead");
    }
    // Every combination of the masking features, so a mask bound to the wrong parameter
    // or feature shows.
    let masks: [Features; 8] = std::array::from_fn(|bits| Features {
        api_access: true,
        advanced_analytics: bits & 1 != 0,
        white_label: bits & 2 != 0,
        lead_form: bits & 4 != 0,
    });
    for id in 1..=cases.len() as i64 {
        let by_id = format!(" WHERE id = {id}");
        let card = one::<CardRow>(
            "cards",
            db.exec(
                "cards",
                &Stmt::new(
                    format!(
                        "SELECT {} FROM cards{by_id}",
                        crate::store::card_row::card_columns()
                    ),
                    vec![],
                ),
            ),
        )
        .decode();
        for (base, features) in ["", "https://cards.example/", "https://c.example"]
            .into_iter()
            .flat_map(|b| masks.map(|m| (b, m)))
        {
            let stmt = Stmt::new(
                format!("SELECT {} AS json FROM cards WHERE id = ?5", card_object()),
                [card_args(base, features).to_vec(), vec![id.into()]].concat(),
            );
            let sql = one::<JsonText>("views::card_object", db.exec("views::card_object", &stmt));
            let serde = serde_json::to_string(&card.clone().effective(features).view(base))
                .expect("serialises");
            assert_eq!(sql.json, serde, "card {id}, base {base:?}, {features:?}");
        }
        let lead = one::<Lead>(
            "leads",
            db.exec(
                "leads",
                &Stmt::new(
                    format!(
                        "SELECT {} FROM leads WHERE card_id = {id}",
                        crate::store::leads::lead_columns()
                    ),
                    vec![],
                ),
            ),
        );
        let sql = one::<JsonText>(
            "views::lead_object",
            db.exec(
                "views::lead_object",
                &Stmt::new(
                    format!(
                        "SELECT {} AS json FROM leads WHERE card_id = {id}",
                        lead_object()
                    ),
                    vec![],
                ),
            ),
        );
        let serde = serde_json::to_string(&lead.view(None)).expect("serialises");
        assert_eq!(sql.json, serde, "lead of card {id}");
    }
}
