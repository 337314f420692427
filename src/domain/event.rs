//! The change feed (extensions.md 1): event types, what each carries, the feed's cursor and
//! query, and the event as the API shows it.

use std::collections::HashMap;

use serde::Serialize;

use super::card::{Card, CardView};
use super::lead::{CardSummary, Lead, LeadView};
use super::plan::Features;
use super::time::iso8601;
use super::token::{hex, Scope, Scopes};
use super::validation::{FieldErrors, Rule};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum EventType {
    #[serde(rename = "card.created")]
    CardCreated,
    #[serde(rename = "card.updated")]
    CardUpdated,
    #[serde(rename = "card.deleted")]
    CardDeleted,
    #[serde(rename = "lead.created")]
    LeadCreated,
    #[serde(rename = "lead.deleted")]
    LeadDeleted,
    #[serde(rename = "template.created")]
    TemplateCreated,
    #[serde(rename = "template.updated")]
    TemplateUpdated,
    #[serde(rename = "template.deleted")]
    TemplateDeleted,
}

impl EventType {
    pub const ALL: [EventType; 8] = [
        EventType::CardCreated,
        EventType::CardUpdated,
        EventType::CardDeleted,
        EventType::LeadCreated,
        EventType::LeadDeleted,
        EventType::TemplateCreated,
        EventType::TemplateUpdated,
        EventType::TemplateDeleted,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventType::CardCreated => "card.created",
            EventType::CardUpdated => "card.updated",
            EventType::CardDeleted => "card.deleted",
            EventType::LeadCreated => "lead.created",
            EventType::LeadDeleted => "lead.deleted",
            EventType::TemplateCreated => "template.created",
            EventType::TemplateUpdated => "template.updated",
            EventType::TemplateDeleted => "template.deleted",
        }
    }

    pub fn parse(s: &str) -> Option<EventType> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// The scope a token needs to read events of this type (`cards:write` grants
    /// `cards:read`).
    pub fn scope(self) -> Scope {
        match self {
            EventType::CardCreated | EventType::CardUpdated | EventType::CardDeleted => {
                Scope::CardsRead
            }
            EventType::LeadCreated | EventType::LeadDeleted => Scope::LeadsRead,
            // `templates:write` grants it (teams.md 1).
            _ => Scope::TemplatesRead,
        }
    }

    /// The types a token may read; empty means the feed is not for it (403).
    pub fn readable(scopes: &Scopes) -> Vec<EventType> {
        Self::ALL
            .into_iter()
            .filter(|t| scopes.grants(t.scope()))
            .collect()
    }
}

/// `evt_` + 128 random bits in hex: unique across the service without coordination.
pub fn event_id(random: &[u8; 16]) -> String {
    format!("evt_{}", hex(random))
}

/// A position in an account's feed: the sequence of the last event seen. Opaque to
/// clients; it is a number, so it survives restarts and redeploys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor(pub i64);

impl Cursor {
    const PREFIX: &'static str = "cur_";

    pub fn encode(self) -> String {
        format!("{}{:x}", Self::PREFIX, self.0)
    }

    pub fn decode(s: &str) -> Option<Cursor> {
        let digits = s.strip_prefix(Self::PREFIX)?;
        if digits.is_empty() || digits.len() > 13 || !digits.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return None;
        }
        i64::from_str_radix(digits, 16).ok().map(Cursor)
    }
}

/// Where a cursor stands against the account's feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// At or after the last event pruned and at or before the newest: listed from.
    Within,
    /// Before events that were pruned unread: 410, the client syncs afresh.
    Pruned,
    /// Past the newest sequence the account ever gave: no cursor the service handed out
    /// (422 on `after`).
    Ahead,
}

impl Cursor {
    /// Every cursor the service hands out is at most the account's `newest` sequence (a
    /// listed event's, the sent cursor again, or "now"), and sequences never go back;
    /// pruning only raises `pruned_through`, so those cursors stay within or become pruned.
    pub fn standing(self, newest: i64, pruned_through: i64) -> Standing {
        if self.0 > newest {
            Standing::Ahead
        } else if self.0 < pruned_through {
            Standing::Pruned
        } else {
            Standing::Within
        }
    }
}

pub const DEFAULT_LIMIT: i64 = 50;
pub const MAX_LIMIT: i64 = 100;

/// `GET /api/v1/events` parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedQuery {
    pub after: Option<Cursor>,
    pub limit: i64,
    /// `None`: every type.
    pub types: Option<Vec<EventType>>,
}

impl FeedQuery {
    /// A malformed cursor or an unknown type is a 422; `limit` is clamped, never refused.
    pub fn parse(q: &HashMap<String, String>) -> Result<FeedQuery, FieldErrors> {
        let mut errors = FieldErrors::new();
        let after = match q.get("after").map(|a| a.trim()) {
            None | Some("") => None,
            Some(raw) => {
                let c = Cursor::decode(raw);
                if c.is_none() {
                    errors.add(
                        "after",
                        "The after field must be a cursor from meta.next_cursor.".into(),
                    );
                }
                c
            }
        };
        let limit = q
            .get("limit")
            .and_then(|l| l.trim().parse::<i64>().ok())
            .unwrap_or(DEFAULT_LIMIT)
            .clamp(1, MAX_LIMIT);
        let types = match q.get("types").map(|t| t.trim()) {
            None | Some("") => None,
            Some(list) => {
                let mut types = Vec::new();
                for name in list.split(',').map(str::trim) {
                    match EventType::parse(name) {
                        Some(t) if !types.contains(&t) => types.push(t),
                        Some(_) => {}
                        None => errors.add_rule("types", Rule::Choice),
                    }
                }
                Some(types)
            }
        };
        if errors.is_empty() {
            Ok(FeedQuery {
                after,
                limit,
                types,
            })
        } else {
            Err(errors)
        }
    }

    /// The types to list: those asked for that the token may read.
    pub fn visible(&self, readable: &[EventType]) -> Vec<EventType> {
        match &self.types {
            None => readable.to_vec(),
            Some(asked) => asked
                .iter()
                .copied()
                .filter(|t| readable.contains(t))
                .collect(),
        }
    }
}

/// What an event carries, decoded from its snapshot.
#[derive(Debug, Clone)]
pub enum EventObject {
    Card(Box<Card>),
    DeletedCard {
        id: i64,
        slug: String,
    },
    Lead {
        lead: Lead,
        card: CardSummary,
    },
    /// An erased lead: only its id and card remain.
    DeletedLead {
        id: i64,
        card_id: i64,
    },
    /// A template, or `{id, deleted: true}`, as SQLite made it (`views::template_object`).
    Template(serde_json::Value),
}

/// An event as stored.
#[derive(Debug, Clone)]
pub struct Event {
    pub id: String,
    pub sequence: i64,
    pub kind: EventType,
    pub created_at: i64,
    pub object: EventObject,
}

/// `data.object` as the API shows it: the card or lead as their own endpoints show them.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ObjectView<'a> {
    Card(Box<CardView<'a>>),
    DeletedCard {
        id: i64,
        slug: &'a str,
        deleted: bool,
    },
    Lead(LeadView<'a>),
    DeletedLead {
        id: i64,
        card_id: i64,
        deleted: bool,
    },
    Template(&'a serde_json::Value),
}

#[derive(Debug, Serialize)]
pub struct DataView<'a> {
    pub object: ObjectView<'a>,
}

/// The Event object of extensions.md 1.
#[derive(Debug, Serialize)]
pub struct EventView<'a> {
    pub id: &'a str,
    #[serde(rename = "type")]
    pub kind: EventType,
    pub sequence: i64,
    pub created_at: String,
    pub data: DataView<'a>,
}

impl Event {
    /// A card snapshot shows as the account's current features allow, as the card
    /// endpoints show it.
    pub fn apply_features(&mut self, features: Features) {
        if let EventObject::Card(card) = &mut self.object {
            card.show_as(features);
        }
    }

    pub fn view<'a>(&'a self, base_url: &'a str) -> EventView<'a> {
        let object = match &self.object {
            EventObject::Card(c) => ObjectView::Card(Box::new(c.view(base_url))),
            EventObject::DeletedCard { id, slug } => ObjectView::DeletedCard {
                id: *id,
                slug,
                deleted: true,
            },
            EventObject::Lead { lead, card } => ObjectView::Lead(lead.view(Some(card))),
            EventObject::DeletedLead { id, card_id } => ObjectView::DeletedLead {
                id: *id,
                card_id: *card_id,
                deleted: true,
            },
            EventObject::Template(t) => ObjectView::Template(t),
        };
        EventView {
            id: &self.id,
            kind: self.kind,
            sequence: self.sequence,
            created_at: iso8601(self.created_at),
            data: DataView { object },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn cursors_round_trip_and_refuse_garbage() {
        for n in [0, 1, 255, 1 << 40] {
            assert_eq!(Cursor::decode(&Cursor(n).encode()), Some(Cursor(n)));
        }
        for bad in ["", "cur_", "cur_xyz", "12", "cur_-1", "cur_fffffffffffffff"] {
            assert_eq!(Cursor::decode(bad), None, "{bad}");
        }
    }

    #[test]
    fn cursors_stand_within_before_or_past_the_feed() {
        // An empty account's "now" cursor, and the newest event's.
        assert_eq!(Cursor(0).standing(0, 0), Standing::Within);
        assert_eq!(Cursor(7).standing(7, 0), Standing::Within);
        // Events pruned through 5: a cursor at 5 missed nothing, one at 4 did.
        assert_eq!(Cursor(5).standing(7, 5), Standing::Within);
        assert_eq!(Cursor(4).standing(7, 5), Standing::Pruned);
        // Everything pruned: the newest cursor still lists (nothing) from there.
        assert_eq!(Cursor(7).standing(7, 7), Standing::Within);
        assert_eq!(Cursor(8).standing(7, 7), Standing::Ahead);
        assert_eq!(Cursor(1).standing(0, 0), Standing::Ahead);
        assert_eq!(Cursor(0x999_9999).standing(40, 0), Standing::Ahead);
    }

    #[test]
    fn feed_query_parses_clamps_and_refuses() {
        let f = FeedQuery::parse(&q(&[])).unwrap();
        assert_eq!((f.after, f.limit, f.types), (None, 50, None));
        let f = FeedQuery::parse(&q(&[("limit", "1000"), ("after", "cur_a")])).unwrap();
        assert_eq!((f.after, f.limit), (Some(Cursor(10)), 100));
        assert_eq!(FeedQuery::parse(&q(&[("limit", "0")])).unwrap().limit, 1);
        assert_eq!(FeedQuery::parse(&q(&[("limit", "x")])).unwrap().limit, 50);
        let f =
            FeedQuery::parse(&q(&[("types", "lead.created, card.deleted,lead.created")])).unwrap();
        assert_eq!(
            f.types,
            Some(vec![EventType::LeadCreated, EventType::CardDeleted])
        );
        let e = FeedQuery::parse(&q(&[
            ("types", "card.created,card.exploded"),
            ("after", "x"),
        ]))
        .unwrap_err();
        assert!(e.has("types") && e.has("after"));
    }

    #[test]
    fn scopes_decide_the_visible_types() {
        let cards = Scopes::new(vec![Scope::CardsWrite]);
        let leads = Scopes::new(vec![Scope::LeadsRead]);
        assert_eq!(EventType::readable(&cards).len(), 3);
        assert_eq!(
            EventType::readable(&leads),
            vec![EventType::LeadCreated, EventType::LeadDeleted]
        );
        assert!(EventType::readable(&Scopes::new(vec![Scope::AnalyticsRead])).is_empty());
        let f = FeedQuery::parse(&q(&[("types", "card.created,lead.created")])).unwrap();
        assert_eq!(
            f.visible(&EventType::readable(&leads)),
            vec![EventType::LeadCreated]
        );
    }

    #[test]
    fn ids_are_prefixed_hex() {
        let id = event_id(&[0xab; 16]);
        assert_eq!(id.len(), 4 + 32);
        assert!(id.starts_with("evt_abab"));
    }
}
