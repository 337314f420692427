//! Moves: the directory's move rows, the fence, and an account copied page by page into
//! another shard and back, every row and id kept, the emptied shard left with none.

use serde_json::json;

use super::*;
use crate::store::moves::{self, MoveRow, TABLES};

/// Every table's rows of the account, as `SELECT *` reads them, in key order.
fn snapshot(db: &mut Db, acc: i64) -> Vec<Vec<Value>> {
    (0..TABLES.len())
        .map(|t| db.exec("moves::page_sql", &moves::page_sql(t, acc, None, 100_000)))
        .collect()
}

/// Copies the account from `from` to `to` in pages of two rows, twice over (a restart
/// copying again writes nothing twice), and checks the counts agree.
fn copy(from: &mut Db, to: &mut Db, acc: i64) {
    let row = from.exec("moves::account_row_sql", &moves::account_row_sql(acc));
    let row = row[0].as_object().cloned().expect("the account's row");
    to.exec(
        "moves::copy_account_sql",
        &moves::copy_account_sql(&row).expect("plain columns"),
    );
    for _ in 0..2 {
        for t in 0..TABLES.len() {
            let mut after: Option<SqlValue> = None;
            loop {
                let rows = from.exec(
                    "moves::page_sql",
                    &moves::page_sql(t, acc, after.clone(), 2),
                );
                let Some(last) = rows.last() else { break };
                after = Some(match &last[TABLES[t].1] {
                    Value::String(s) => SqlValue::Text(s.clone()),
                    v => SqlValue::Int(v.as_i64().expect("an integer key")),
                });
                let rows: Vec<Map<String, Value>> =
                    rows.iter().filter_map(|r| r.as_object().cloned()).collect();
                to.exec(
                    "moves::insert_sql",
                    &moves::insert_sql(t, &rows).expect("plain columns"),
                );
            }
        }
    }
    let a = from.exec("moves::counts_sql", &moves::counts_sql(acc));
    let b = to.exec("moves::counts_sql", &moves::counts_sql(acc));
    let (a, b) = (a[0].as_object().unwrap(), b[0].as_object().unwrap());
    assert_eq!(crate::domain::moving::mismatch(a, b), None);
}

/// Empties the account out of `db` as a finished move does.
fn empty(db: &mut Db, acc: i64) {
    for t in (0..TABLES.len()).rev() {
        db.exec("moves::empty_sql", &moves::empty_sql(t, acc, 500));
    }
    db.exec("moves::drop_account_sql", &moves::drop_account_sql(acc));
    let left = db.exec("moves::counts_sql", &moves::counts_sql(acc));
    for (table, n) in left[0].as_object().unwrap() {
        assert_eq!(n, &json!(0), "{table} keeps rows of a moved account");
    }
}

pub(super) fn account_moves_and_back(db: &mut Db, acc: i64, now: i64) {
    let started = db.in_dir(|db| {
        let results = db.batch(
            "moves::start_sql",
            &moves::start_sql(acc, "SHARD_A", "SHARD_B", "eu", now),
        );
        let m: MoveRow = one("moves::start_sql", results[0].clone());
        let moving = db.exec("accounts::get_sql", &accounts_get(acc));
        assert_eq!(
            moving[0]["moving"],
            json!(m.id),
            "the account is marked moving"
        );
        let running = db.exec("moves::running_sql", &moves::running_sql(10));
        assert_eq!(decode::<MoveRow>("moves::running_sql", running).len(), 1);
        m
    });
    let before = snapshot(db, acc);
    assert!(
        before.iter().map(Vec::len).sum::<usize>() > 8,
        "the account has rows to move"
    );

    // The fence: once moving, any write of the account fails in its shard.
    db.exec("moves::set_state_sql", &moves::set_state_sql(acc, "moving"));
    db.exec("moves::set_state_sql", &moves::set_state_sql(acc, "moving"));
    let refused = db
        .conn
        .execute("UPDATE cards SET title = 'x' WHERE account_id = ?1", [acc])
        .expect_err("a write of a moving account");
    assert!(refused.to_string().contains("account_moving"), "{refused}");

    let mut target = Db::new();
    copy(db, &mut target, acc);
    assert_eq!(
        snapshot(&mut target, acc),
        before,
        "every row, column and id kept"
    );
    target.exec("moves::set_state_sql", &moves::set_state_sql(acc, "live"));
    db.in_dir(|db| {
        db.batch("moves::flip_sql", &moves::flip_sql(acc, "SHARD_B", "eu"));
        db.exec(
            "moves::progress_sql",
            &moves::progress_sql(started.id, r#"{"cards":1}"#),
        );
        db.batch(
            "moves::end_sql",
            &moves::end_sql(started.id, "done", None, now + 1),
        );
        let m: MoveRow = one(
            "moves::get_sql",
            db.exec("moves::get_sql", &moves::get_sql(started.id)),
        );
        assert_eq!((m.status.as_str(), m.finished_at), ("done", Some(now + 1)));
        assert_eq!(m.view().copied, json!({"cards": 1}));
        let a = db.exec("accounts::get_sql", &accounts_get(acc));
        assert_eq!(
            (a[0]["shard"].clone(), a[0]["moving"].clone()),
            (json!("SHARD_B"), Value::Null)
        );
    });
    db.exec("moves::set_state_sql", &moves::set_state_sql(acc, "gone"));
    let refused = db
        .conn
        .execute("UPDATE cards SET title = 'x' WHERE account_id = ?1", [acc])
        .expect_err("a write reaching the old shard");
    assert!(refused.to_string().contains("account_moving"), "{refused}");
    empty(db, acc);

    // And back, so the rest of the scenario finds the account at home.
    target.exec("moves::set_state_sql", &moves::set_state_sql(acc, "moving"));
    copy(&mut target, db, acc);
    db.exec("moves::set_state_sql", &moves::set_state_sql(acc, "live"));
    assert_eq!(snapshot(db, acc), before);
    target.exec("moves::set_state_sql", &moves::set_state_sql(acc, "gone"));
    empty(&mut target, acc);
    db.ran.extend(std::mem::take(&mut target.ran));
}

fn accounts_get(acc: i64) -> Stmt {
    crate::store::accounts::get_sql(acc)
}
