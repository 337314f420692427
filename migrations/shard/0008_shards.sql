-- Shards (regions.md 1). Tokens live in the directory now. Each shard keeps a copy of its
-- accounts' rows (plan and features for the card pages and deliveries, the feed's
-- sequence) with two more columns:
--   last_id: lead, webhook and delivery ids are account_id * 2^31 + n, n counted per
--     account, so an account's rows keep their ids when it moves into another shard;
--   state: 'live'; 'moving' while a move copies it out (every write of the account is
--     refused, below); 'arriving' while it is copied in; 'gone' once the directory points
--     elsewhere (only deletions pass: the move empties the old shard).
DROP TABLE tokens;
ALTER TABLE accounts ADD COLUMN last_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN state TEXT NOT NULL DEFAULT 'live'
    CHECK (state IN ('live', 'moving', 'arriving', 'gone'));

-- The fence: a write of an account that is not live (or arriving) here fails inside its
-- own transaction, whatever path it came by (API, card page, queue consumer, cron), so a
-- move can never miss a row. The worker maps 'account_moving' to 503 + Retry-After.
CREATE TRIGGER accounts_fence BEFORE UPDATE ON accounts
WHEN OLD.state IN ('moving', 'gone') AND NEW.state = OLD.state
BEGIN SELECT RAISE(ABORT, 'account_moving'); END;

CREATE TRIGGER cards_fence_insert BEFORE INSERT ON cards
BEGIN SELECT CASE
    WHEN s IS NULL THEN RAISE(ABORT, 'account_not_in_shard')
    WHEN s NOT IN ('live', 'arriving') THEN RAISE(ABORT, 'account_moving') END
  FROM (SELECT (SELECT state FROM accounts WHERE id = NEW.account_id) AS s); END;

CREATE TRIGGER cards_fence_update BEFORE UPDATE ON cards
BEGIN SELECT CASE
    WHEN s IS NULL THEN RAISE(ABORT, 'account_not_in_shard')
    WHEN s NOT IN ('live', 'arriving') THEN RAISE(ABORT, 'account_moving') END
  FROM (SELECT (SELECT state FROM accounts WHERE id = OLD.account_id) AS s); END;

CREATE TRIGGER cards_fence_delete BEFORE DELETE ON cards
WHEN (SELECT state FROM accounts WHERE id = OLD.account_id) = 'moving'
BEGIN SELECT RAISE(ABORT, 'account_moving'); END;

CREATE TRIGGER leads_fence_insert BEFORE INSERT ON leads
BEGIN SELECT CASE
    WHEN s IS NULL THEN RAISE(ABORT, 'account_not_in_shard')
    WHEN s NOT IN ('live', 'arriving') THEN RAISE(ABORT, 'account_moving') END
  FROM (SELECT (SELECT state FROM accounts WHERE id = NEW.account_id) AS s); END;

CREATE TRIGGER leads_fence_update BEFORE UPDATE ON leads
BEGIN SELECT CASE
    WHEN s IS NULL THEN RAISE(ABORT, 'account_not_in_shard')
    WHEN s NOT IN ('live', 'arriving') THEN RAISE(ABORT, 'account_moving') END
  FROM (SELECT (SELECT state FROM accounts WHERE id = OLD.account_id) AS s); END;

CREATE TRIGGER leads_fence_delete BEFORE DELETE ON leads
WHEN (SELECT state FROM accounts WHERE id = OLD.account_id) = 'moving'
BEGIN SELECT RAISE(ABORT, 'account_moving'); END;

CREATE TRIGGER events_fence_insert BEFORE INSERT ON events
BEGIN SELECT CASE
    WHEN s IS NULL THEN RAISE(ABORT, 'account_not_in_shard')
    WHEN s NOT IN ('live', 'arriving') THEN RAISE(ABORT, 'account_moving') END
  FROM (SELECT (SELECT state FROM accounts WHERE id = NEW.account_id) AS s); END;

CREATE TRIGGER events_fence_update BEFORE UPDATE ON events
BEGIN SELECT CASE
    WHEN s IS NULL THEN RAISE(ABORT, 'account_not_in_shard')
    WHEN s NOT IN ('live', 'arriving') THEN RAISE(ABORT, 'account_moving') END
  FROM (SELECT (SELECT state FROM accounts WHERE id = OLD.account_id) AS s); END;

CREATE TRIGGER events_fence_delete BEFORE DELETE ON events
WHEN (SELECT state FROM accounts WHERE id = OLD.account_id) = 'moving'
BEGIN SELECT RAISE(ABORT, 'account_moving'); END;

CREATE TRIGGER webhooks_fence_insert BEFORE INSERT ON webhooks
BEGIN SELECT CASE
    WHEN s IS NULL THEN RAISE(ABORT, 'account_not_in_shard')
    WHEN s NOT IN ('live', 'arriving') THEN RAISE(ABORT, 'account_moving') END
  FROM (SELECT (SELECT state FROM accounts WHERE id = NEW.account_id) AS s); END;

CREATE TRIGGER webhooks_fence_update BEFORE UPDATE ON webhooks
BEGIN SELECT CASE
    WHEN s IS NULL THEN RAISE(ABORT, 'account_not_in_shard')
    WHEN s NOT IN ('live', 'arriving') THEN RAISE(ABORT, 'account_moving') END
  FROM (SELECT (SELECT state FROM accounts WHERE id = OLD.account_id) AS s); END;

CREATE TRIGGER webhooks_fence_delete BEFORE DELETE ON webhooks
WHEN (SELECT state FROM accounts WHERE id = OLD.account_id) = 'moving'
BEGIN SELECT RAISE(ABORT, 'account_moving'); END;

CREATE TRIGGER deliveries_fence_insert BEFORE INSERT ON deliveries
BEGIN SELECT CASE
    WHEN s IS NULL THEN RAISE(ABORT, 'account_not_in_shard')
    WHEN s NOT IN ('live', 'arriving') THEN RAISE(ABORT, 'account_moving') END
  FROM (SELECT (SELECT state FROM accounts WHERE id = NEW.account_id) AS s); END;

CREATE TRIGGER deliveries_fence_update BEFORE UPDATE ON deliveries
BEGIN SELECT CASE
    WHEN s IS NULL THEN RAISE(ABORT, 'account_not_in_shard')
    WHEN s NOT IN ('live', 'arriving') THEN RAISE(ABORT, 'account_moving') END
  FROM (SELECT (SELECT state FROM accounts WHERE id = OLD.account_id) AS s); END;

CREATE TRIGGER deliveries_fence_delete BEFORE DELETE ON deliveries
WHEN (SELECT state FROM accounts WHERE id = OLD.account_id) = 'moving'
BEGIN SELECT RAISE(ABORT, 'account_moving'); END;

CREATE TRIGGER idempotency_keys_fence_insert BEFORE INSERT ON idempotency_keys
BEGIN SELECT CASE
    WHEN s IS NULL THEN RAISE(ABORT, 'account_not_in_shard')
    WHEN s NOT IN ('live', 'arriving') THEN RAISE(ABORT, 'account_moving') END
  FROM (SELECT (SELECT state FROM accounts WHERE id = NEW.account_id) AS s); END;

CREATE TRIGGER idempotency_keys_fence_update BEFORE UPDATE ON idempotency_keys
BEGIN SELECT CASE
    WHEN s IS NULL THEN RAISE(ABORT, 'account_not_in_shard')
    WHEN s NOT IN ('live', 'arriving') THEN RAISE(ABORT, 'account_moving') END
  FROM (SELECT (SELECT state FROM accounts WHERE id = OLD.account_id) AS s); END;

CREATE TRIGGER idempotency_keys_fence_delete BEFORE DELETE ON idempotency_keys
WHEN (SELECT state FROM accounts WHERE id = OLD.account_id) = 'moving'
BEGIN SELECT RAISE(ABORT, 'account_moving'); END;

-- The per-account id counter follows every insert (a move's copies included).
CREATE TRIGGER leads_last_id AFTER INSERT ON leads
BEGIN UPDATE accounts SET last_id = MAX(last_id, NEW.id - NEW.account_id * 2147483648)
  WHERE id = NEW.account_id; END;
CREATE TRIGGER webhooks_last_id AFTER INSERT ON webhooks
BEGIN UPDATE accounts SET last_id = MAX(last_id, NEW.id - NEW.account_id * 2147483648)
  WHERE id = NEW.account_id; END;
CREATE TRIGGER deliveries_last_id AFTER INSERT ON deliveries
BEGIN UPDATE accounts SET last_id = MAX(last_id, NEW.id - NEW.account_id * 2147483648)
  WHERE id = NEW.account_id; END;
