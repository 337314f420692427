//! `Throttle`: exact hit counts for the limits of the public surface (lead posts per
//! visitor and per card, failed admin logins per address). One object per name runs one
//! call at a time and counts with synchronous SQL, so concurrent requests cannot both take
//! the last slot. Its storage holds only hits that still count: each row carries its
//! expiry, every call prunes, and an alarm empties the object once nothing counts any
//! more, so an address that tried once leaves nothing behind.

pub mod client;

use std::cell::Cell;

use serde::Deserialize;
use worker::{durable_object, DurableObject, Env, Request, Response, Result, SqlStorage, State};

use crate::domain::throttle::{verdict, Limit, Verdict};
use crate::durable::{int, txt};
use client::Call;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS hits (bucket TEXT NOT NULL, expires INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS hits_by_bucket ON hits (bucket, expires);
";

#[durable_object(alarm)]
pub struct Throttle {
    state: State,
    schema_ready: Cell<bool>,
}

#[derive(Deserialize)]
struct Expiry {
    expires: i64,
}

impl Throttle {
    fn sql(&self) -> Result<SqlStorage> {
        crate::durable::sql_storage(&self.state, SCHEMA, &self.schema_ready)
    }

    /// Decides and counts with no await in between: one call's check and its count cannot
    /// be split by another call.
    fn run(&self, call: &Call, now: i64) -> Result<Verdict> {
        let sql = self.sql()?;
        sql.exec("DELETE FROM hits WHERE expires <= ?", vec![int(now)])?;
        let limits: &[Limit] = match call {
            Call::Take(limits) | Call::Peek(limits) => limits,
        };
        let mut live = Vec::with_capacity(limits.len());
        for limit in limits {
            let rows: Vec<Expiry> = sql
                .exec(
                    "SELECT expires FROM hits WHERE bucket = ?",
                    vec![txt(&limit.bucket)],
                )?
                .to_array()?;
            live.push(rows.into_iter().map(|r| r.expires).collect::<Vec<_>>());
        }
        let v = verdict(limits, &live, now);
        if v.allowed && matches!(call, Call::Take(_)) {
            for limit in limits {
                sql.exec(
                    "INSERT INTO hits (bucket, expires) VALUES (?, ?)",
                    vec![txt(&limit.bucket), int(limit.span.expiry(now))],
                )?;
            }
        }
        Ok(v)
    }

    /// The alarm fires when the earliest hit expires.
    async fn arm(&self) -> Result<()> {
        #[derive(Deserialize)]
        struct Next {
            next: Option<i64>,
        }
        let rows: Vec<Next> = self
            .sql()?
            .exec("SELECT MIN(expires) AS next FROM hits", None)?
            .to_array()?;
        if let Some(next) = rows.first().and_then(|r| r.next) {
            let now = js_sys::Date::now() as i64;
            self.state.storage().set_alarm((next - now).max(1)).await?;
        }
        Ok(())
    }
}

impl DurableObject for Throttle {
    fn new(state: State, _env: Env) -> Self {
        Self {
            state,
            schema_ready: Cell::new(false),
        }
    }

    /// Answers a [`Call`] of the client module with a [`Verdict`].
    async fn fetch(&self, mut req: Request) -> Result<Response> {
        let call = match client::decode(&mut req).await {
            Ok(call) => call,
            Err(e) => return Response::error(format!("bad call: {e}"), 400),
        };
        let v = self.run(&call, js_sys::Date::now() as i64)?;
        if v.allowed && matches!(call, Call::Take(_)) {
            self.arm().await?;
        }
        Response::from_json(&v)
    }

    /// Drops what no longer counts; an object left with nothing deletes its storage.
    async fn alarm(&self) -> Result<Response> {
        let sql = self.sql()?;
        sql.exec(
            "DELETE FROM hits WHERE expires <= ?",
            vec![int(js_sys::Date::now() as i64)],
        )?;
        #[derive(Deserialize)]
        struct Left {
            n: i64,
        }
        let left: Vec<Left> = sql
            .exec("SELECT COUNT(*) AS n FROM hits", None)?
            .to_array()?;
        if left.first().is_some_and(|l| l.n > 0) {
            self.arm().await?;
        } else {
            self.state.storage().delete_all().await?;
            self.schema_ready.set(false);
        }
        Response::empty()
    }
}
