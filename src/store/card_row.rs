//! The card row: the one place D1's card columns are decoded (0/1 booleans, JSON text),
//! shared by the card statements and the change feed's card snapshots.

use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::columns_of;
use crate::domain::card::{Card, Status};

/// A card row as D1 returns it: booleans are 0/1, timestamps Unix milliseconds, the
/// free-form objects JSON text.
#[derive(Debug, Clone, Deserialize)]
pub struct CardRow {
    pub id: i64,
    pub account_id: i64,
    pub slug: String,
    pub title: String,
    pub first_name: String,
    pub last_name: String,
    pub job_title: Option<String>,
    pub company: Option<String>,
    pub bio: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub website: Option<String>,
    pub booking_url: Option<String>,
    pub video_url: Option<String>,
    pub address: Option<String>,
    pub tagline: Option<String>,
    pub company_registration: Option<String>,
    pub vat_id: Option<String>,
    pub social_links: String,
    pub design_config: String,
    pub section_visibility: String,
    pub template_id: Option<String>,
    pub card_type: Option<String>,
    pub is_public: i64,
    pub is_password_protected: i64,
    pub show_branding: i64,
    pub show_lead_form: i64,
    pub seo_title: Option<String>,
    pub seo_description: Option<String>,
    pub seo_indexable: i64,
    pub status: String,
    pub language: String,
    pub translations: String,
    pub published_at: Option<i64>,
    pub expires_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
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
