//! An account's move between shards (regions.md 4): the plan a mover follows, step by
//! step, and the rules it checks. Pure, so the order of the steps and the check before
//! the directory switches are unit-tested natively.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::config::Config;

/// Where a move stands. Each step is idempotent, so a step cut short by a restart is
/// simply run again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Fence the source (its writes fail) and put the account's row in the target.
    Prepare,
    /// Copy the tables, a page at a time.
    Copy,
    /// Compare every table's row count in both shards.
    Verify,
    /// Point the directory at the target; the target takes writes.
    Switch,
    /// Wait until requests that learnt the old shard before the switch are done there.
    Grace,
    /// Delete the account's rows from the source.
    Empty,
    /// The copy failed before the switch: clear the target, lift the fence.
    Failing,
    Ended,
}

/// Everything a mover needs to go on after a restart (kept in its storage).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub move_id: i64,
    pub account_id: i64,
    pub from: String,
    pub to: String,
    pub region: String,
    pub phase: Phase,
    /// The table being copied or emptied (an index into `store::moves::TABLES`).
    #[serde(default)]
    pub table: usize,
    /// The key of the last row copied of that table.
    #[serde(default)]
    pub after: Option<Value>,
    #[serde(default)]
    pub switched_at: Option<i64>,
    #[serde(default)]
    pub error: Option<String>,
    /// Steps that failed in a row (D1 unavailable, say); past [`MAX_FAILURES`] before the
    /// switch, the move fails.
    #[serde(default)]
    pub failures: u32,
    pub batch_rows: i64,
    pub step_ms: i64,
    pub grace_ms: i64,
    /// `MOVE_FAULT=drop-row` (tests only): the first page of leads is copied without its
    /// first row.
    #[serde(default)]
    pub drop_a_row: bool,
    /// Rows copied so far per table, as `GET /admin/v1/moves/{id}` shows them while the
    /// copy runs (a page copied again after a restart counts twice here; the count check
    /// replaces these with the target's real counts).
    #[serde(default)]
    pub copied: Map<String, Value>,
    /// When the directory last heard of the progress.
    #[serde(default)]
    pub reported_at: i64,
}

/// Progress reaches the directory at most this often (one write on the far primary).
pub const REPORT_EVERY_MS: i64 = 1_000;

pub const MAX_FAILURES: u32 = 5;

impl Plan {
    pub fn new(move_id: i64, account_id: i64, from: &str, to: &str, region: &str) -> Plan {
        Plan {
            move_id,
            account_id,
            from: from.into(),
            to: to.into(),
            region: region.into(),
            phase: Phase::Prepare,
            table: 0,
            after: None,
            switched_at: None,
            error: None,
            failures: 0,
            batch_rows: 100,
            step_ms: 0,
            grace_ms: 30_000,
            drop_a_row: false,
            copied: Map::new(),
            reported_at: 0,
        }
    }

    /// With this deployment's pacing (`MOVE_BATCH_ROWS`, `MOVE_STEP_MS`, `MOVE_GRACE_MS`).
    pub fn paced(self, config: &Config) -> Plan {
        Plan {
            batch_rows: config.move_batch_rows,
            step_ms: config.move_step_ms,
            grace_ms: config.move_grace_ms,
            drop_a_row: config.move_drops_a_row,
            ..self
        }
    }

    /// A step failed with `why`: before the switch, five in a row fail the move (the
    /// account goes back to its shard); after it the move can only go forward, so it
    /// keeps trying.
    pub fn failed_step(&mut self, why: String) {
        self.failures += 1;
        if self.failures >= MAX_FAILURES && self.before_switch() {
            self.fail(why);
        }
    }

    pub fn fail(&mut self, why: String) {
        self.error = Some(why);
        self.phase = Phase::Failing;
        // The emptying of the target has not started (the mover starts it at the end).
        self.table = 0;
        self.after = None;
    }

    /// Counts `n` rows copied of `table`; whether the directory is due to hear of it.
    pub fn count_copied(&mut self, table: &str, n: usize, now: i64) -> bool {
        let total = self.copied.get(table).and_then(Value::as_i64).unwrap_or(0) + n as i64;
        self.copied.insert(table.to_string(), Value::from(total));
        let due = now - self.reported_at >= REPORT_EVERY_MS;
        if due {
            self.reported_at = now;
        }
        due
    }

    pub fn before_switch(&self) -> bool {
        matches!(self.phase, Phase::Prepare | Phase::Copy | Phase::Verify)
    }
}

/// Why the target may not take over, if it may not: any table (or the account's row)
/// whose count differs between the shards, named with both counts.
pub fn mismatch(source: &Map<String, Value>, target: &Map<String, Value>) -> Option<String> {
    let mut diffs = vec![];
    for (table, n) in source {
        let m = target.get(table).cloned().unwrap_or(Value::Null);
        if n.as_i64() != m.as_i64() {
            diffs.push(format!("{table}: {n} in the source, {m} in the target"));
        }
    }
    (!diffs.is_empty()).then(|| format!("row counts differ ({})", diffs.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn counts(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn counts_must_agree_table_by_table() {
        let a = counts(json!({"cards": 3, "leads": 10, "accounts": 1}));
        assert_eq!(mismatch(&a, &a.clone()), None);
        let b = counts(json!({"cards": 3, "leads": 9, "accounts": 1}));
        assert_eq!(
            mismatch(&a, &b).as_deref(),
            Some("row counts differ (leads: 10 in the source, 9 in the target)")
        );
        let missing = counts(json!({"cards": 3, "accounts": 1}));
        assert!(mismatch(&a, &missing)
            .unwrap()
            .contains("leads: 10 in the source, null"));
    }

    #[test]
    fn failures_fail_the_move_only_before_the_switch() {
        let mut p = Plan::new(1, 2, "SHARD_A", "SHARD_B", "eu");
        p.phase = Phase::Copy;
        for _ in 0..MAX_FAILURES - 1 {
            p.failed_step("d1 down".into());
        }
        assert_eq!(p.phase, Phase::Copy, "four failures in a row are retried");
        p.failed_step("d1 down".into());
        assert_eq!(
            (p.phase, p.error.as_deref()),
            (Phase::Failing, Some("d1 down"))
        );
        let mut q = Plan::new(1, 2, "SHARD_A", "SHARD_B", "eu");
        q.phase = Phase::Empty;
        for _ in 0..MAX_FAILURES * 2 {
            q.failed_step("d1 down".into());
        }
        assert_eq!(
            q.phase,
            Phase::Empty,
            "after the switch a move only goes forward"
        );
    }

    #[test]
    fn progress_is_counted_and_reported_at_most_once_a_second() {
        let mut p = Plan::new(1, 2, "SHARD_A", "SHARD_B", "eu");
        assert!(
            p.count_copied("leads", 100, 5_000),
            "the first page is reported"
        );
        assert!(!p.count_copied("leads", 100, 5_500));
        assert!(p.count_copied("leads", 50, 6_000));
        assert_eq!(Value::Object(p.copied.clone()), json!({"leads": 250}));
    }

    #[test]
    fn a_plan_survives_its_storage() {
        let mut p = Plan::new(7, 3, "SHARD_WNAM_1", "SHARD_EU_1", "eu");
        p.phase = Phase::Copy;
        p.table = 2;
        p.after = Some(json!(41));
        let text = serde_json::to_string(&p).unwrap();
        assert!(text.contains("\"phase\":\"copy\""), "{text}");
        assert_eq!(serde_json::from_str::<Plan>(&text).unwrap(), p);
    }
}
