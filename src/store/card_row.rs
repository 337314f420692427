//! The card row: the one place D1's card columns are decoded (0/1 booleans, JSON text),
//! shared by the card statements and the change feed's card snapshots. It decodes through
//! [`super::row`]: a derived visitor, inlined for every field, was ~10 KB of wasm.

use std::sync::OnceLock;

use serde_json::value::RawValue;

use super::columns_of;
use super::row::impl_row;
use crate::domain::card::{Card, Status};

/// Declares [`CardRow`] and its column list from one field list, so the two cannot drift.
macro_rules! card_row {
    ($($field:ident: $ty:ty,)*) => {
        /// A card row as D1 returns it: booleans are 0/1, timestamps Unix milliseconds, the
        /// free-form objects JSON text.
        #[derive(Debug, Clone)]
        pub struct CardRow {
            $(pub $field: $ty,)*
        }

        impl_row!(CardRow { $($field),* });
    };
}

card_row! {
    id: i64,
    account_id: i64,
    slug: String,
    title: String,
    first_name: String,
    last_name: String,
    job_title: Option<String>,
    company: Option<String>,
    bio: Option<String>,
    email: Option<String>,
    phone: Option<String>,
    website: Option<String>,
    booking_url: Option<String>,
    video_url: Option<String>,
    address: Option<String>,
    tagline: Option<String>,
    company_registration: Option<String>,
    vat_id: Option<String>,
    social_links: String,
    design_config: String,
    section_visibility: String,
    template_id: Option<String>,
    card_type: Option<String>,
    is_public: i64,
    is_password_protected: i64,
    show_branding: i64,
    show_lead_form: i64,
    seo_title: Option<String>,
    seo_description: Option<String>,
    seo_indexable: i64,
    status: String,
    language: String,
    translations: String,
    published_at: Option<i64>,
    expires_at: Option<i64>,
    created_at: i64,
    updated_at: i64,
}

/// JSON text from our own writes is kept as is; anything unparsable (a hand-edited row)
/// degrades to the empty value instead of failing the request.
fn json(text: String, empty: &'static str) -> Box<RawValue> {
    RawValue::from_string(text)
        .or_else(|_| RawValue::from_string(empty.to_string()))
        .unwrap_or_default()
}

impl CardRow {
    pub fn decode(self) -> Card {
        Card {
            id: self.id,
            account_id: self.account_id,
            slug: self.slug,
            title: self.title,
            first_name: self.first_name,
            last_name: self.last_name,
            job_title: self.job_title,
            company: self.company,
            bio: self.bio,
            email: self.email,
            phone: self.phone,
            website: self.website,
            booking_url: self.booking_url,
            video_url: self.video_url,
            address: self.address,
            tagline: self.tagline,
            company_registration: self.company_registration,
            vat_id: self.vat_id,
            social_links: json(self.social_links, "[]"),
            design_config: json(self.design_config, "{}"),
            section_visibility: json(self.section_visibility, "{}"),
            template_id: self.template_id,
            card_type: self.card_type,
            is_public: self.is_public != 0,
            is_password_protected: self.is_password_protected != 0,
            show_branding: self.show_branding != 0,
            show_lead_form: self.show_lead_form != 0,
            seo_title: self.seo_title,
            seo_description: self.seo_description,
            seo_indexable: self.seo_indexable != 0,
            // The schema's CHECK allows only the three; a card that reads as none of them
            // is kept off the public surface.
            status: Status::parse(&self.status).unwrap_or(Status::Draft),
            language: self.language,
            translations: json(self.translations, "{}"),
            published_at: self.published_at,
            expires_at: self.expires_at,
            created_at: self.created_at,
            updated_at: self.updated_at,
        }
    }
}

/// The columns of [`CardRow`].
pub fn card_columns() -> &'static str {
    static COLUMNS: OnceLock<String> = OnceLock::new();
    COLUMNS.get_or_init(|| columns_of::<CardRow>(""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::row::{from_json, Row};
    use serde_json::{json, Value};

    fn row() -> Value {
        let mut row = serde_json::Map::new();
        for f in CardRow::FIELDS {
            row.insert(f.to_string(), Value::Null);
        }
        for f in [
            "id",
            "account_id",
            "published_at",
            "created_at",
            "updated_at",
        ] {
            row.insert(f.to_string(), json!(1));
        }
        for f in [
            "is_public",
            "is_password_protected",
            "show_branding",
            "show_lead_form",
        ] {
            row.insert(f.to_string(), json!(0));
        }
        row.insert("seo_indexable".into(), json!(1));
        for f in [
            "slug",
            "title",
            "first_name",
            "last_name",
            "status",
            "language",
        ] {
            row.insert(f.to_string(), json!("x"));
        }
        for f in [
            "social_links",
            "design_config",
            "section_visibility",
            "translations",
        ] {
            row.insert(f.to_string(), json!("{}"));
        }
        row.insert("bio".into(), json!("hi"));
        row.insert("company".into(), Value::Null);
        row.insert("not_a_column".into(), json!([1, {"a": 2}]));
        Value::Object(row)
    }

    #[test]
    fn decodes_nulls_missing_options_and_ignores_other_columns() {
        let mut r = row();
        r.as_object_mut().unwrap().remove("tagline");
        let card: CardRow = from_json(&r).unwrap();
        assert_eq!((card.id, card.slug.as_str()), (1, "x"));
        assert_eq!(card.bio.as_deref(), Some("hi"));
        assert_eq!((card.company, card.tagline), (None, None));
        assert_eq!(card.published_at, Some(1));
    }

    #[test]
    fn a_missing_or_mistyped_column_is_an_error() {
        let mut r = row();
        r.as_object_mut().unwrap().remove("slug");
        let e = from_json::<CardRow>(&r).unwrap_err();
        assert!(e.to_string().contains("`slug`"), "{e}");
        let mut r = row();
        r["id"] = json!("1");
        assert!(from_json::<CardRow>(&r).is_err());
        let mut r = row();
        r["bio"] = json!(2);
        assert!(from_json::<CardRow>(&r).is_err());
    }
}
