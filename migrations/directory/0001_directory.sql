-- The directory (regions.md 1): what must be found before an account's shard is known.
-- Accounts (the operator's truth; each shard keeps a copy of its accounts' rows), API
-- token hashes, card slugs (unique across every shard) and account moves. No card content,
-- lead, event, webhook or delivery is ever stored here.

CREATE TABLE accounts (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    name                TEXT    NOT NULL,
    plan                TEXT    NOT NULL CHECK (plan IN ('free', 'pro', 'business', 'enterprise')),
    -- NULL means "the plan's value"; set by the operator to override it.
    card_limit          INTEGER CHECK (card_limit IS NULL OR card_limit >= 0),
    api_access          INTEGER CHECK (api_access IN (0, 1)),
    advanced_analytics  INTEGER CHECK (advanced_analytics IN (0, 1)),
    white_label         INTEGER CHECK (white_label IN (0, 1)),
    lead_form           INTEGER CHECK (lead_form IN (0, 1)),
    lead_retention_days INTEGER CHECK (lead_retention_days IS NULL OR lead_retention_days BETWEEN 1 AND 3650),
    privacy_policy_url  TEXT,
    created_at          INTEGER NOT NULL,
    -- A region of SHARDS and the binding of the shard that holds the account's data.
    data_region         TEXT    NOT NULL,
    shard               TEXT    NOT NULL,
    -- The running move's id: the account's writes answer 503 until it ends.
    moving              INTEGER
);
CREATE INDEX accounts_shard ON accounts (shard);

CREATE TABLE tokens (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id   INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name         TEXT    NOT NULL,
    -- SHA-256 of the plaintext, hex; the plaintext is never stored.
    token_hash   TEXT    NOT NULL,
    -- Space-separated scope names.
    scopes       TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
);
CREATE UNIQUE INDEX tokens_hash ON tokens (token_hash);
CREATE INDEX tokens_account ON tokens (account_id, id);

-- One row per card: the card's id is allocated here, so ids are unique across shards and
-- survive moves. 'pending' while createCard or deleteCard runs between the directory and
-- the shard; the sweeper settles a pending row older than a few minutes by looking at the
-- shard (card there: live; not there: released), so a crash in between neither leaves a
-- card without its slug nor a slug that blocks a name for ever.
CREATE TABLE slugs (
    card_id     INTEGER PRIMARY KEY AUTOINCREMENT,
    slug        TEXT    NOT NULL,
    account_id  INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    shard       TEXT    NOT NULL,
    state       TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'live')),
    reserved_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX slugs_slug ON slugs (slug);
CREATE INDEX slugs_account ON slugs (account_id);
CREATE INDEX slugs_pending ON slugs (reserved_at) WHERE state = 'pending';

-- Account moves between shards (regions.md 4). `copied`: JSON {table: rows}.
CREATE TABLE moves (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id  INTEGER NOT NULL,
    from_shard  TEXT    NOT NULL,
    to_shard    TEXT    NOT NULL,
    to_region   TEXT    NOT NULL,
    status      TEXT    NOT NULL DEFAULT 'copying' CHECK (status IN ('copying', 'done', 'failed')),
    copied      TEXT    NOT NULL DEFAULT '{}',
    error       TEXT,
    started_at  INTEGER NOT NULL,
    finished_at INTEGER
);
-- At most one running move per account: a second start is a conflict (409).
CREATE UNIQUE INDEX moves_running ON moves (account_id) WHERE status = 'copying';
