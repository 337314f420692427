//! The step every change of an account's data takes (extensions.md 1, 4): the statements
//! that make the change, the event that records it (with the account's next sequence) and
//! one pending webhook attempt per subscribed webhook, in one D1 batch, so neither the
//! change, its event nor its deliveries can be seen without the others. The attempts'
//! queue messages are sent after the commit (`outbox::dispatch`).

use worker::{D1Result, Result};

use super::events::{self, Source};
use super::outbox::{fanout_sql, Outbox};
use super::row::Row;
use super::{batch, row_count, rows_of, Stmt};
use crate::db::Shard;
use crate::domain::event::EventType;

/// One change of `kind` to an account's data, under a fresh event id.
pub struct Change {
    account_id: i64,
    kind: EventType,
    event: String,
    now: i64,
}

impl Change {
    pub fn new(account_id: i64, kind: EventType, now: i64) -> Result<Change> {
        Ok(Change {
            account_id,
            kind,
            event: events::new_id()?,
            now,
        })
    }

    /// The batch: `before` (the change, or what must precede the event), the event read
    /// from `source` and its fan-out, then `after` (what must follow it: a delete whose
    /// row the event's object is read from).
    pub fn statements(&self, source: Source, before: Vec<Stmt>, after: Vec<Stmt>) -> Vec<Stmt> {
        let [append, bump] =
            events::append_sql(self.account_id, &self.event, self.kind, self.now, source);
        let fanout = fanout_sql(self.account_id, &self.event, self.kind, self.now);
        let mut stmts = before;
        stmts.extend([append, bump, fanout]);
        stmts.extend(after);
        stmts
    }

    /// Commits the change with its event and webhook attempts; what each statement
    /// answered, and the attempts to send.
    pub async fn commit(
        self,
        db: &Shard,
        source: Source,
        before: Vec<Stmt>,
        after: Vec<Stmt>,
    ) -> Result<Committed> {
        let first_after = before.len() + 3;
        let results = batch(db, self.statements(source, before, after)).await?;
        let outbox = Outbox::written(&results, first_after - 1)?;
        Ok(Committed {
            results,
            first_after,
            outbox,
        })
    }
}

/// A committed change: the answers of its own statements, numbered as they were given.
pub struct Committed {
    results: Vec<D1Result>,
    first_after: usize,
    pub outbox: Outbox,
}

impl Committed {
    /// Rows of the `i`th statement of `before`.
    pub fn before<T: Row>(&self, i: usize) -> Result<Vec<T>> {
        rows_of(&self.results, i)
    }

    /// How many rows the `i`th statement of `after` returned.
    pub fn after_count(&self, i: usize) -> Result<usize> {
        row_count(&self.results, self.first_after + i)
    }
}
