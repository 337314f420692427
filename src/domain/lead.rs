//! Leads as stored and as returned (spec 2.2).

use serde::{Deserialize, Serialize};

use super::card::CardSummary;
use super::time::iso8601;

#[derive(Debug, Clone, Deserialize)]
pub struct LeadRow {
    pub id: i64,
    pub card_id: i64,
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub message: Option<String>,
    pub note: Option<String>,
    pub source: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

pub const LEAD_COLUMNS: &str =
    "id, card_id, name, email, phone, message, note, source, created_at, updated_at";

#[derive(Debug, Serialize)]
pub struct Lead<'a> {
    pub id: i64,
    pub card_id: i64,
    pub name: Option<&'a str>,
    pub email: Option<&'a str>,
    pub phone: Option<&'a str>,
    pub message: Option<&'a str>,
    pub note: Option<&'a str>,
    pub source: Option<&'a str>,
    pub created_at: String,
    pub updated_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card: Option<&'a CardSummary>,
}

impl LeadRow {
    pub fn to_lead<'a>(&'a self, card: Option<&'a CardSummary>) -> Lead<'a> {
        Lead {
            id: self.id,
            card_id: self.card_id,
            name: self.name.as_deref(),
            email: self.email.as_deref(),
            phone: self.phone.as_deref(),
            message: self.message.as_deref(),
            note: self.note.as_deref(),
            source: self.source.as_deref(),
            created_at: iso8601(self.created_at),
            updated_at: iso8601(self.updated_at),
            card,
        }
    }
}
