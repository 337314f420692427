//! `Mover`: one object per account move (regions.md 4). It keeps the move's [`Plan`] in
//! its storage and takes one step per alarm (or a few, when each is quick): fence the
//! source, copy the tables page by page, compare the counts, switch the directory, wait
//! out the requests that learnt the old shard, empty the source. Why an object with
//! alarms rather than queue messages: the steps of one move must never run twice at once
//! (an object runs one event at a time), a restart of the worker loses nothing (the plan
//! and the alarm are stored with the object), and a failed alarm is retried by the
//! platform; the every-minute cron also wakes every move that has not ended, in case an
//! alarm was lost.

pub mod client;

use serde_json::{Map, Value};
use worker::{durable_object, DurableObject, Env, Request, Response, Result, State};

use crate::db::{Directory, Shard};
use crate::domain::moving::{mismatch, Phase, Plan};
use crate::durable::rate_limiter::client as gate;
use crate::store::moves::{self, TABLES};
use crate::store::{tokens, webhooks, SqlValue};

const PLAN: &str = "plan";
/// Steps one alarm takes when steps need no pause, within this much time.
/// Short: locally a running alarm held every other request of the worker until it ended
/// (measured with 5 s: requests waited up to 20 s, ~10% failed; with one step per alarm,
/// none), and an object's event should stay short anyway.
const ALARM_BUDGET_MS: f64 = 500.0;
/// Rows one emptying statement deletes.
const EMPTY_ROWS: i64 = 500;
/// Bytes of JSON one copying statement carries at most (a page is split beyond it).
const INSERT_BYTES: usize = 400_000;

#[durable_object(alarm)]
pub struct Mover {
    state: State,
    env: Env,
}

impl DurableObject for Mover {
    fn new(state: State, env: Env) -> Self {
        Self { state, env }
    }

    /// `POST` a [`Plan`]: kept unless the object has one, and the next step scheduled.
    async fn fetch(&self, mut req: Request) -> Result<Response> {
        let given: Plan = match req.json().await {
            Ok(p) => p,
            Err(e) => return Response::error(format!("bad plan: {e}"), 400),
        };
        let plan = match self.load().await? {
            Some(kept) => kept,
            None => {
                self.save(&given).await?;
                given
            }
        };
        if plan.phase != Phase::Ended && self.state.storage().get_alarm().await?.is_none() {
            self.state.storage().set_alarm(0).await?;
        }
        Ok(Response::empty()?.with_status(204))
    }

    async fn alarm(&self) -> Result<Response> {
        let Some(mut plan) = self.load().await? else {
            return Response::empty();
        };
        let started = js_sys::Date::now();
        while plan.phase != Phase::Ended {
            match self.step(&mut plan).await {
                Ok(()) => plan.failures = 0,
                Err(e) => {
                    worker::console_error!(
                        "move {}: step {:?} failed: {e}",
                        plan.move_id,
                        plan.phase
                    );
                    plan.failed_step(e.to_string());
                    self.save(&plan).await?;
                    let backoff = 1_000 * i64::from(plan.failures);
                    self.state.storage().set_alarm(backoff).await?;
                    return Response::empty();
                }
            }
            self.save(&plan).await?;
            let waiting = match (plan.phase, plan.switched_at) {
                (Phase::Grace, Some(at)) => (at + plan.grace_ms - now()).max(0),
                _ => plan.step_ms,
            };
            if plan.phase != Phase::Ended
                && (waiting > 0 || js_sys::Date::now() - started > ALARM_BUDGET_MS)
            {
                self.state.storage().set_alarm(waiting.max(1)).await?;
                break;
            }
        }
        Response::empty()
    }
}

fn now() -> i64 {
    js_sys::Date::now() as i64
}

/// A row's key as a statement value.
fn key_value(v: &Value) -> SqlValue {
    match v {
        Value::Number(n) => n.as_i64().map_or(SqlValue::Null, SqlValue::Int),
        Value::String(s) => SqlValue::Text(s.clone()),
        _ => SqlValue::Null,
    }
}

impl Mover {
    /// The plan, kept as JSON text: serde's JsValue path for it would add its any-value
    /// machinery to the binary for one object.
    async fn load(&self) -> Result<Option<Plan>> {
        match self.state.storage().get::<String>(PLAN).await? {
            Some(text) => Ok(Some(serde_json::from_str(&text)?)),
            None => Ok(None),
        }
    }

    async fn save(&self, plan: &Plan) -> Result<()> {
        self.state
            .storage()
            .put(PLAN, serde_json::to_string(plan)?)
            .await
    }

    /// One step of the plan; the plan records where the next one starts.
    async fn step(&self, plan: &mut Plan) -> Result<()> {
        let env = &self.env;
        let account = plan.account_id;
        match plan.phase {
            Phase::Prepare => {
                let source = Shard::primary(env, &plan.from)?;
                moves::set_state(&source, account, "moving").await?;
                let Some(row) = moves::account_row(&source, account).await? else {
                    plan.fail(format!("the account has no row in {}", plan.from));
                    return Ok(());
                };
                moves::copy_account(&Shard::primary(env, &plan.to)?, &row).await?;
                plan.phase = Phase::Copy;
                plan.table = 0;
                plan.after = None;
            }
            Phase::Copy => {
                let source = Shard::primary(env, &plan.from)?;
                let after = plan.after.as_ref().map(key_value);
                let rows =
                    moves::page(&source, plan.table, account, after, plan.batch_rows).await?;
                if rows.is_empty() {
                    plan.table += 1;
                    plan.after = None;
                    if plan.table == TABLES.len() {
                        plan.phase = Phase::Verify;
                    }
                    return Ok(());
                }
                let target = Shard::primary(env, &plan.to)?;
                let skip = usize::from(
                    plan.drop_a_row && TABLES[plan.table].0 == "leads" && plan.after.is_none(),
                );
                for chunk in chunks(&rows[skip.min(rows.len())..]) {
                    moves::insert(&target, plan.table, chunk).await?;
                }
                let (table, key) = TABLES[plan.table];
                plan.after = rows.last().and_then(|r| r.get(key)).cloned();
                if plan.count_copied(table, rows.len() - skip.min(rows.len()), now()) {
                    self.report(plan, None).await?;
                }
            }
            Phase::Verify => {
                let source = moves::counts(&Shard::primary(env, &plan.from)?, account).await?;
                let target = moves::counts(&Shard::primary(env, &plan.to)?, account).await?;
                self.report(plan, Some(&target)).await?;
                match mismatch(&source, &target) {
                    Some(why) => plan.fail(why),
                    None => plan.phase = Phase::Switch,
                }
            }
            Phase::Switch => {
                let target = Shard::primary(env, &plan.to)?;
                moves::set_state(&target, account, "live").await?;
                let dir = Directory::primary(env)?;
                settle_revocations(&dir, &target, account).await?;
                moves::flip(&dir, account, &plan.to, &plan.region).await?;
                // Its tokens learn the new shard before their next request is served.
                gate::invalidate_all(env, &tokens::hashes(&dir, account).await?).await?;
                plan.switched_at = Some(now());
                plan.phase = Phase::Grace;
            }
            Phase::Grace => {
                let at = plan.switched_at.unwrap_or(0);
                if now() >= at + plan.grace_ms {
                    let source = Shard::primary(env, &plan.from)?;
                    moves::set_state(&source, account, "gone").await?;
                    plan.phase = Phase::Empty;
                    plan.table = TABLES.len();
                }
            }
            Phase::Empty => {
                let source = Shard::primary(env, &plan.from)?;
                if self.empty_step(&source, plan).await? {
                    let dir = Directory::primary(env)?;
                    moves::end(&dir, plan.move_id, "done", None, now()).await?;
                    gate::invalidate_all(env, &tokens::hashes(&dir, account).await?).await?;
                    plan.phase = Phase::Ended;
                }
            }
            Phase::Failing => {
                let target = Shard::primary(env, &plan.to)?;
                if self.empty_step(&target, plan).await? {
                    let source = Shard::primary(env, &plan.from)?;
                    moves::set_state(&source, account, "live").await?;
                    let dir = Directory::primary(env)?;
                    settle_revocations(&dir, &source, account).await?;
                    let why = plan.error.clone().unwrap_or_else(|| "failed".into());
                    moves::end(&dir, plan.move_id, "failed", Some(&why), now()).await?;
                    gate::invalidate_all(env, &tokens::hashes(&dir, account).await?).await?;
                    plan.phase = Phase::Ended;
                }
            }
            Phase::Ended => {}
        }
        Ok(())
    }

    /// Deletes a bounded slice of the account's rows from `db`, last table first (rows
    /// before the rows they refer to); `true` once none is left, the account's row too.
    /// `plan.table` counts down from the number of tables (set by the caller, or 0 for a
    /// fresh `Failing`, which starts at the end).
    async fn empty_step(&self, db: &Shard, plan: &mut Plan) -> Result<bool> {
        if plan.table == 0 || plan.table > TABLES.len() {
            if plan.phase == Phase::Failing && plan.after.is_none() {
                // A failing move empties the target from the last table down.
                plan.table = TABLES.len();
                plan.after = Some(Value::Bool(true));
                return Ok(false);
            }
            moves::drop_account(db, plan.account_id).await?;
            return Ok(true);
        }
        let n = moves::empty(db, plan.table - 1, plan.account_id, EMPTY_ROWS).await?;
        if (n as i64) < EMPTY_ROWS {
            plan.table -= 1;
        }
        Ok(false)
    }

    /// Writes the rows copied so far (per table) to the directory's move: the running
    /// count while copying, the target's counts once they are checked.
    async fn report(&self, plan: &Plan, verified: Option<&Map<String, Value>>) -> Result<()> {
        let mut copied = verified.unwrap_or(&plan.copied).clone();
        copied.remove("accounts");
        let dir = Directory::primary(&self.env)?;
        moves::progress(&dir, plan.move_id, &Value::Object(copied).to_string()).await
    }
}

/// A page split so no statement carries more than [`INSERT_BYTES`] of JSON.
fn chunks(rows: &[Map<String, Value>]) -> Vec<&[Map<String, Value>]> {
    let mut out = vec![];
    let (mut start, mut bytes) = (0, 0);
    for (i, row) in rows.iter().enumerate() {
        let size = Value::Object(row.clone()).to_string().len();
        if bytes + size > INSERT_BYTES && i > start {
            out.push(&rows[start..i]);
            start = i;
            bytes = 0;
        }
        bytes += size;
    }
    if start < rows.len() {
        out.push(&rows[start..]);
    }
    out
}

/// Disables, in the shard that takes the account's writes again, the webhooks of its
/// revoked tokens: a token revoked while the move fenced the shard left them enabled
/// (ops::tokens::revoke). Idempotent, so a step run again does no harm.
async fn settle_revocations(dir: &Directory, shard: &Shard, account: i64) -> Result<()> {
    let ids = tokens::revoked_ids(dir, account).await?;
    let n = webhooks::disable_for_tokens(shard, account, &ids, now()).await?;
    if n > 0 {
        worker::console_log!(
            "move of account {account}: {n} webhook(s) of revoked tokens disabled"
        );
    }
    Ok(())
}
