-- Webhooks (extensions.md 4): subscriptions and one row per delivery attempt.

CREATE TABLE webhooks (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id      INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    url             TEXT    NOT NULL,
    -- JSON array of event types, or ["*"].
    events          TEXT    NOT NULL,
    description     TEXT,
    status          TEXT    NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
    -- Signing secrets, sealed (AES-256-GCM under a key derived from TOKEN_PEPPER): the
    -- service must sign with them, so they cannot be hashed, but a copy of the database
    -- alone does not reveal them.
    secret          TEXT    NOT NULL,
    -- The secret replaced by the last rotation, still signed with until previous_until.
    previous_secret TEXT,
    previous_until  INTEGER,
    -- Origin of the card URLs in payloads when PUBLIC_BASE_URL is unset (local use): the
    -- origin the webhook was created through.
    origin          TEXT    NOT NULL,
    -- Start of the current run of failed attempts; NULL after any success. Five days of
    -- nothing but failures disables the webhook.
    failing_since   INTEGER,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);
-- listWebhooks, the 10-per-account count, and fan-out at commit (enabled ones).
CREATE INDEX webhooks_account ON webhooks (account_id, status);

-- One row per attempt. A pending row is the outbox: written in the same D1 batch as the
-- change and its event, so an event committed is an event that will be delivered, whether
-- or not the queue message that follows the commit was ever sent (the sweeper re-sends).
CREATE TABLE deliveries (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id      INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    webhook_id      INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id        TEXT    NOT NULL,
    event_type      TEXT    NOT NULL,
    attempt         INTEGER NOT NULL,
    status          TEXT    NOT NULL DEFAULT 'pending'
                            CHECK (status IN ('pending', 'succeeded', 'failed')),
    response_status INTEGER,
    error           TEXT,
    -- When the attempt is due, and when a consumer took it (a claim older than a minute
    -- is a crashed consumer's, and the attempt is taken again).
    due_at          INTEGER NOT NULL,
    claimed_at      INTEGER,
    created_at      INTEGER NOT NULL,
    completed_at    INTEGER
);
-- listDeliveries: a webhook's attempts, newest first.
CREATE INDEX deliveries_webhook ON deliveries (webhook_id, id DESC);
-- The sweeper: attempts still to make, by due time.
CREATE INDEX deliveries_pending ON deliveries (due_at) WHERE status = 'pending';
-- Retention (30 days) and the next attempt number of a redelivery.
CREATE INDEX deliveries_created ON deliveries (created_at);
CREATE INDEX deliveries_event ON deliveries (webhook_id, event_id);
