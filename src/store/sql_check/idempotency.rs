//! Kept answers: migration 0007 and the secrets kept before it.

use rusqlite::Connection;

use super::*;

/// Migration 0007 removes the plaintext secrets kept before it and marks their rows, so
/// they are refused rather than replayed; other kept answers stay as they were.
#[test]
fn kept_secrets_from_before_0007_are_removed() {
    let conn = Connection::open_in_memory().expect("in-memory SQLite");
    let mut files: Vec<_> = std::fs::read_dir(root().join("migrations/shard"))
        .expect("migrations/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sql"))
        .collect();
    files.sort();
    let name = |p: &std::path::PathBuf| p.file_name().map(|n| n.to_string_lossy().into_owned());
    let at = files
        .iter()
        .position(|p| name(p).as_deref() == Some("0007_idempotency_token.sql"))
        .expect("migration 0007");
    for file in &files[..at] {
        let sql = std::fs::read_to_string(file).expect("read migration");
        conn.execute_batch(&sql).expect("earlier migration");
    }
    conn.execute_batch(
        "INSERT INTO accounts (name, plan, created_at) VALUES ('a', 'enterprise', 0);
         INSERT INTO idempotency_keys (account_id, key, method, path, digest, created_at, status, headers, body) VALUES
           (1, 'hook', 'POST', '/api/v1/webhooks', 'd', 0, 201, 'application/json',
            '{\"data\":{\"id\":1,\"secret\":\"whsec_plain\"},\"message\":\"ok\"}'),
           (1, 'card', 'POST', '/api/v1/cards', 'd', 0, 201, 'application/json', '{\"data\":{\"id\":2}}'),
           (1, 'gone', 'DELETE', '/api/v1/cards/2', 'd', 0, 204, 'application/json', ''),
           (1, 'busy', 'POST', '/api/v1/webhooks', 'd', 0, NULL, NULL, NULL);",
    )
    .expect("rows kept before 0007");
    let sql = std::fs::read_to_string(&files[at]).expect("read 0007");
    conn.execute_batch(&sql)
        .expect("0007 applies over kept rows");
    let mut s = conn
        .prepare(
            "SELECT key, holds_secret, token_id IS NULL, body FROM idempotency_keys ORDER BY key",
        )
        .expect("select");
    let rows: Vec<(String, i64, bool, Option<String>)> = s
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .expect("query")
        .map(|r| r.expect("row"))
        .collect();
    assert_eq!(
        rows,
        vec![
            ("busy".into(), 0, true, None),
            ("card".into(), 0, true, Some(r#"{"data":{"id":2}}"#.into())),
            ("gone".into(), 0, true, Some(String::new())),
            ("hook".into(), 1, true, None),
        ]
    );
}
