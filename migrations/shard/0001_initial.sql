-- Accounts, API tokens, cards and leads. Timestamps are Unix milliseconds (UTC);
-- booleans are 0/1; free-form objects are JSON text.

CREATE TABLE accounts (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    name               TEXT    NOT NULL,
    plan               TEXT    NOT NULL CHECK (plan IN ('free', 'pro', 'business', 'enterprise')),
    -- NULL means "the plan's value"; set by the operator to override it.
    card_limit         INTEGER CHECK (card_limit IS NULL OR card_limit >= 0),
    api_access         INTEGER CHECK (api_access IN (0, 1)),
    advanced_analytics INTEGER CHECK (advanced_analytics IN (0, 1)),
    white_label        INTEGER CHECK (white_label IN (0, 1)),
    lead_form          INTEGER CHECK (lead_form IN (0, 1)),
    created_at         INTEGER NOT NULL
);

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

CREATE TABLE cards (
    id                    INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id            INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    slug                  TEXT    NOT NULL,
    title                 TEXT    NOT NULL,
    first_name            TEXT    NOT NULL,
    last_name             TEXT    NOT NULL,
    job_title             TEXT,
    company               TEXT,
    bio                   TEXT,
    email                 TEXT,
    phone                 TEXT,
    website               TEXT,
    booking_url           TEXT,
    video_url             TEXT,
    address               TEXT,
    tagline               TEXT,
    company_registration  TEXT,
    vat_id                TEXT,
    social_links          TEXT    NOT NULL DEFAULT '[]',
    design_config         TEXT    NOT NULL DEFAULT '{}',
    section_visibility    TEXT    NOT NULL DEFAULT '{}',
    template_id           TEXT,
    card_type             TEXT,
    is_public             INTEGER NOT NULL DEFAULT 1 CHECK (is_public IN (0, 1)),
    is_password_protected INTEGER NOT NULL DEFAULT 0 CHECK (is_password_protected IN (0, 1)),
    show_branding         INTEGER NOT NULL DEFAULT 1 CHECK (show_branding IN (0, 1)),
    show_lead_form        INTEGER NOT NULL DEFAULT 0 CHECK (show_lead_form IN (0, 1)),
    seo_title             TEXT,
    seo_description       TEXT,
    seo_indexable         INTEGER NOT NULL DEFAULT 1 CHECK (seo_indexable IN (0, 1)),
    status                TEXT    NOT NULL DEFAULT 'active'
                                  CHECK (status IN ('active', 'draft', 'archived')),
    language              TEXT    NOT NULL DEFAULT 'en',
    translations          TEXT    NOT NULL DEFAULT '{}',
    published_at          INTEGER,
    expires_at            INTEGER,
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL
);
-- Slugs are unique across the whole service (public URLs).
CREATE UNIQUE INDEX cards_slug ON cards (slug);
-- listCards: an account's cards, most recently updated first; also the card-limit count.
CREATE INDEX cards_account_updated ON cards (account_id, updated_at DESC, id DESC);

CREATE TABLE leads (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    -- Denormalised from the card so listLeads is one index range per account.
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    card_id    INTEGER NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    name       TEXT,
    email      TEXT,
    phone      TEXT,
    message    TEXT,
    note       TEXT,
    source     TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
-- listLeads across the account, newest first.
CREATE INDEX leads_account_created ON leads (account_id, created_at DESC, id DESC);
-- getCard's leads and listLeads with card_id.
CREATE INDEX leads_card_created ON leads (card_id, created_at DESC, id DESC);
