-- The change feed (extensions.md 1) and idempotent writes (extensions.md 3).

-- Each account numbers its events 1, 2, 3, ... The counter is bumped in the same D1 batch
-- (one transaction) as the change and its event, and D1 runs transactions one at a time,
-- so concurrent writes of one account get consecutive numbers with no gap.
ALTER TABLE accounts ADD COLUMN event_sequence INTEGER NOT NULL DEFAULT 0;
-- The highest sequence removed by retention: a cursor before it has missed events (410).
ALTER TABLE accounts ADD COLUMN events_pruned_through INTEGER NOT NULL DEFAULT 0;

CREATE TABLE events (
    id         TEXT    PRIMARY KEY,           -- evt_ + 128 random bits, hex
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    sequence   INTEGER NOT NULL,
    type       TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    -- Snapshot of the row(s) as JSON, rendered like the API renders them when read.
    object     TEXT    NOT NULL
);
-- The feed: an account's events in sequence order (also makes sequences unique).
CREATE UNIQUE INDEX events_account_sequence ON events (account_id, sequence);
-- Retention: the oldest events first.
CREATE INDEX events_created ON events (created_at);

-- listLeads?updated_since=: an account's leads by update time.
CREATE INDEX leads_account_updated ON leads (account_id, updated_at);

CREATE TABLE idempotency_keys (
    account_id  INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    key         TEXT    NOT NULL,
    method      TEXT    NOT NULL,
    path        TEXT    NOT NULL,
    -- SHA-256 of the request body's canonical JSON.
    digest      TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    -- NULL while the first request runs; then the kept response.
    status      INTEGER,
    headers     TEXT,
    body        TEXT,
    PRIMARY KEY (account_id, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_created ON idempotency_keys (created_at);
