//! The change feed in D1 (extensions.md 1). Events are appended by the statements below,
//! placed in the same D1 batch as the change they record: one transaction, so neither
//! exists without the other. The account's counter row gives each event the next
//! sequence; D1 runs one transaction at a time, so sequences are consecutive per account.

use std::sync::OnceLock;

use worker::Result;

use super::card_row::CardRow;
use super::row::{from_json, impl_row, Row};
use super::views::template_object;
use super::{batch, columns_of, json_object_of, prune_in_steps, rows_of, select_first, Stmt};
use crate::db::Shard;
use crate::domain::event::{event_id, Event, EventObject, EventType};
use crate::domain::lead::{CardSummary, Lead};

/// A fresh event id from the platform's random source.
pub fn new_id() -> Result<String> {
    let mut random = [0u8; 16];
    getrandom::fill(&mut random)
        .map_err(|e| worker::Error::RustError(format!("getrandom: {e}")))?;
    Ok(event_id(&random))
}

/// Where an event's object comes from, read inside the batch right after the change.
pub enum Source {
    /// The card just inserted by the previous statement (nothing if it inserted nothing).
    InsertedCard,
    /// The card just updated by the previous statement (nothing if it updated nothing).
    UpdatedCard(i64),
    /// The card about to be deleted.
    DeletingCard(i64),
    /// The lead just inserted by the previous statement, with its card.
    InsertedLead,
    /// The template just inserted, or updated, by the previous statement.
    InsertedTemplate,
    UpdatedTemplate(i64),
    /// The template about to be deleted.
    DeletingTemplate(i64),
}

fn card_snapshot() -> &'static str {
    static SQL: OnceLock<String> = OnceLock::new();
    SQL.get_or_init(|| json_object_of::<CardRow>("c."))
}

fn lead_snapshot() -> &'static str {
    static SQL: OnceLock<String> = OnceLock::new();
    SQL.get_or_init(|| {
        format!(
            "json_object('lead', {}, 'card', {})",
            json_object_of::<Lead>("l."),
            json_object_of::<CardSummary>("c.")
        )
    })
}

/// The two statements that record an event: insert it with the account's next sequence,
/// then advance the account's counter, each only if the statement before it wrote a row
/// (`changes()`), so a change that did not happen (card limit reached, no such card)
/// records nothing and uses no sequence.
pub fn append_sql(
    account_id: i64,
    id: &str,
    kind: EventType,
    now: i64,
    source: Source,
) -> [Stmt; 2] {
    let (object, from, card) = match source {
        Source::InsertedCard => (
            card_snapshot(),
            "cards c WHERE c.id = last_insert_rowid() AND c.account_id = ?1 AND changes() > 0",
            None,
        ),
        Source::UpdatedCard(card) => (
            card_snapshot(),
            "cards c WHERE c.id = ?5 AND c.account_id = ?1 AND changes() > 0",
            Some(card),
        ),
        Source::DeletingCard(card) => (
            "json_object('id', c.id, 'slug', c.slug)",
            "cards c WHERE c.id = ?5 AND c.account_id = ?1",
            Some(card),
        ),
        Source::InsertedTemplate => (
            template_object(),
            "templates t WHERE t.id = last_insert_rowid() AND t.account_id = ?1 AND changes() > 0",
            None,
        ),
        Source::UpdatedTemplate(id) => (
            template_object(),
            "templates t WHERE t.id = ?5 AND t.account_id = ?1 AND changes() > 0",
            Some(id),
        ),
        Source::DeletingTemplate(id) => (
            "json_object('id', t.id, 'deleted', json('true'))",
            "templates t WHERE t.id = ?5 AND t.account_id = ?1",
            Some(id),
        ),
        Source::InsertedLead => (
            lead_snapshot(),
            "leads l JOIN cards c ON c.id = l.card_id \
             WHERE l.id = last_insert_rowid() AND l.account_id = ?1 AND changes() > 0",
            None,
        ),
    };
    // A lead's events name it in an indexed column, so an erasure finds its copies.
    let lead = match source {
        Source::InsertedLead => "l.id",
        _ => "NULL",
    };
    let mut args = vec![
        account_id.into(),
        id.into(),
        kind.as_str().into(),
        now.into(),
    ];
    args.extend(card.map(Into::into));
    [
        Stmt::new(
            format!(
                "INSERT INTO events (id, account_id, sequence, type, created_at, object, lead_id) \
                 SELECT ?2, ?1, (SELECT event_sequence + 1 FROM accounts WHERE id = ?1), ?3, ?4, \
                 {object}, {lead} FROM {from}"
            ),
            args,
        ),
        Stmt::new(
            "UPDATE accounts SET event_sequence = event_sequence + 1 \
             WHERE id = ?1 AND changes() > 0",
            vec![account_id.into()],
        ),
    ]
}

#[derive(Debug)]
pub struct EventRow {
    pub id: String,
    pub sequence: i64,
    pub kind: String,
    pub created_at: i64,
    pub object: String,
}
// `object` is a snapshot: a card is ~1.4 KB of JSON, 70 KB for a page of 50 events.
impl_row!(EventRow { id, sequence, kind as "type", created_at, object }, long_text);

struct DeletedCard {
    id: i64,
    slug: String,
}
impl_row!(DeletedCard { id, slug });

struct DeletedLead {
    id: i64,
    card_id: i64,
}
impl_row!(DeletedLead { id, card_id });

/// A snapshot's JSON text as the row `T`, or as the row in its member `key`. Snapshots
/// are the columns of their row types (`json_object_of`), so they decode the same way.
fn snapshot<T: Row>(text: &str, key: Option<&str>) -> Option<T> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let value = match key {
        Some(key) => value.get(key)?,
        None => &value,
    };
    from_json(value).ok()
}

impl EventRow {
    /// `None` (the caller logs it) for a type this build does not know or a snapshot that
    /// does not read as its type.
    pub fn decode(self) -> Option<Event> {
        let kind = EventType::parse(&self.kind)?;
        let object = match kind {
            EventType::CardCreated | EventType::CardUpdated => {
                let row: CardRow = snapshot(&self.object, None)?;
                EventObject::Card(Box::new(row.decode()))
            }
            EventType::CardDeleted => {
                let d: DeletedCard = snapshot(&self.object, None)?;
                EventObject::DeletedCard {
                    id: d.id,
                    slug: d.slug,
                }
            }
            EventType::LeadCreated => {
                let (text, key) = (&self.object, Some("lead"));
                EventObject::Lead {
                    lead: snapshot(text, key)?,
                    card: snapshot(text, Some("card"))?,
                }
            }
            EventType::LeadDeleted => {
                let d: DeletedLead = snapshot(&self.object, None)?;
                EventObject::DeletedLead {
                    id: d.id,
                    card_id: d.card_id,
                }
            }
            _ => EventObject::Template(serde_json::from_str(&self.object).ok()?),
        };
        Some(Event {
            id: self.id,
            sequence: self.sequence,
            kind,
            created_at: self.created_at,
            object,
        })
    }
}

fn event_columns() -> &'static str {
    static COLUMNS: OnceLock<String> = OnceLock::new();
    COLUMNS.get_or_init(|| columns_of::<EventRow>(""))
}

/// The account's feed position: the last sequence given and the last one pruned.
#[derive(Debug, Clone, Copy)]
pub struct FeedState {
    pub event_sequence: i64,
    pub events_pruned_through: i64,
}
impl_row!(FeedState {
    event_sequence,
    events_pruned_through
});

fn decode_all(rows: Vec<EventRow>) -> Vec<Event> {
    rows.into_iter()
        .filter_map(|r| {
            let id = r.id.clone();
            let event = r.decode();
            if event.is_none() {
                worker::console_error!("event {id} does not decode; left out of the feed");
            }
            event
        })
        .collect()
}

/// The account's state, then up to `limit` events after `after` of the given types, oldest
/// first, read in one transaction so the two agree.
pub fn list_sql(account_id: i64, after: i64, types: &[EventType], limit: i64) -> Vec<Stmt> {
    let names: Vec<&str> = types.iter().map(|t| t.as_str()).collect();
    vec![
        Stmt::new(
            "SELECT event_sequence, events_pruned_through FROM accounts WHERE id = ?1",
            vec![account_id.into()],
        ),
        Stmt::new(
            format!(
                "SELECT {} FROM events WHERE account_id = ?1 AND sequence > ?2 \
                 AND type IN (SELECT value FROM json_each(?3)) ORDER BY sequence LIMIT +?4",
                event_columns()
            ),
            vec![
                account_id.into(),
                after.into(),
                serde_json::to_string(&names).unwrap_or_default().into(),
                limit.into(),
            ],
        ),
    ]
}

pub async fn list(
    db: &Shard,
    account_id: i64,
    after: i64,
    types: &[EventType],
    limit: i64,
) -> Result<Option<(FeedState, Vec<Event>)>> {
    let results = batch(db, list_sql(account_id, after, types, limit)).await?;
    let state = rows_of::<FeedState>(&results, 0)?.into_iter().next();
    Ok(match state {
        Some(state) => Some((state, decode_all(rows_of(&results, 1)?))),
        None => None,
    })
}

pub fn get_sql(account_id: i64, id: &str) -> Stmt {
    Stmt::new(
        format!(
            "SELECT {} FROM events WHERE id = ?1 AND account_id = ?2",
            event_columns()
        ),
        vec![id.into(), account_id.into()],
    )
}

pub async fn get(db: &Shard, account_id: i64, id: &str) -> Result<Option<Event>> {
    let row: Option<EventRow> = select_first(db, get_sql(account_id, id)).await?;
    Ok(decode_all(row.into_iter().collect()).pop())
}

/// Removes up to `max_rows` of the oldest events made before `cutoff`, first recording per
/// account the highest sequence that goes, so a cursor from before it gets 410.
pub fn prune_sql(cutoff: i64, max_rows: i64) -> Vec<Stmt> {
    vec![
        Stmt::new(
            "UPDATE accounts SET events_pruned_through = MAX(events_pruned_through, \
                 (SELECT MAX(e.sequence) FROM events e \
                  WHERE e.account_id = accounts.id AND e.created_at < ?1)) \
             WHERE id IN (SELECT account_id FROM events WHERE created_at < ?1)",
            vec![cutoff.into()],
        ),
        Stmt::new(
            "DELETE FROM events WHERE rowid IN \
             (SELECT rowid FROM events WHERE created_at < ?1 ORDER BY created_at LIMIT +?2)",
            vec![cutoff.into(), max_rows.into()],
        ),
    ]
}

/// Prunes in bounded steps; the number of events removed.
pub async fn prune(db: &Shard, cutoff: i64) -> Result<usize> {
    const STEP: i64 = 1_000;
    prune_in_steps(db, STEP, 20, 1, || prune_sql(cutoff, STEP)).await
}
