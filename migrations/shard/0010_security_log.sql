-- The account's security events written with the changes of its shard's data (webhooks
-- created, deleted and their secrets rotated; leads erased), in the same batch as the
-- change (account-area.md 2). Same shape as the directory's table; random ids, so a move
-- copies an account's rows into a shard that holds others'. The newest 200 per account
-- are kept.
CREATE TABLE security_log (
    id         TEXT    PRIMARY KEY,
    account_id INTEGER NOT NULL,
    at         INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    actor      TEXT    NOT NULL,
    actor_name TEXT,
    detail     TEXT,
    country    TEXT
);
CREATE INDEX security_log_account ON security_log (account_id, at);
CREATE INDEX security_log_account_id ON security_log (account_id, id);
CREATE TRIGGER security_log_bound AFTER INSERT ON security_log
BEGIN
    DELETE FROM security_log WHERE account_id = NEW.account_id AND id NOT IN
        (SELECT id FROM security_log WHERE account_id = NEW.account_id
         ORDER BY at DESC, id DESC LIMIT 200);
END;

CREATE TRIGGER security_log_fence_insert BEFORE INSERT ON security_log
BEGIN SELECT CASE
    WHEN s IS NULL THEN RAISE(ABORT, 'account_not_in_shard')
    WHEN s NOT IN ('live', 'arriving') THEN RAISE(ABORT, 'account_moving') END
  FROM (SELECT (SELECT state FROM accounts WHERE id = NEW.account_id) AS s); END;

CREATE TRIGGER security_log_fence_delete BEFORE DELETE ON security_log
WHEN (SELECT state FROM accounts WHERE id = OLD.account_id) = 'moving'
BEGIN SELECT RAISE(ABORT, 'account_moving'); END;
