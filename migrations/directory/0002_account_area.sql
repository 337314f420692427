-- The account area (account-area.md): members, their passkeys and sessions, invites and the
-- WebAuthn challenges in flight. They hold no lead data, so they live in the directory
-- (regions.md), found before an account's shard is known. Secrets are kept hashed: an
-- invite's code and a session's id are SHA-256 hex of random values only their holders have.

CREATE TABLE members (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    -- Lowercased; one member per address and account.
    email      TEXT    NOT NULL,
    role       TEXT    NOT NULL CHECK (role IN ('owner', 'member')),
    -- The WebAuthn user handle (16 random bytes, base64url): names the member to their
    -- passkeys without their address.
    handle     TEXT    NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX members_account_email ON members (account_id, email);
CREATE UNIQUE INDEX members_handle ON members (handle);

CREATE TABLE invites (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    email      TEXT    NOT NULL,
    role       TEXT    NOT NULL CHECK (role IN ('owner', 'member')),
    code_hash  TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    -- Set once, by the registration that used it: an invite works once.
    used_at    INTEGER
);
CREATE UNIQUE INDEX invites_code ON invites (code_hash);
CREATE INDEX invites_account ON invites (account_id, id);

CREATE TABLE passkeys (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    member_id     INTEGER NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    account_id    INTEGER NOT NULL,
    -- base64url of the credential id the authenticator chose.
    credential_id TEXT    NOT NULL,
    -- The public key in domain::webauthn's stored form.
    public_key    TEXT    NOT NULL,
    sign_count    INTEGER NOT NULL DEFAULT 0,
    name          TEXT    NOT NULL,
    created_at    INTEGER NOT NULL,
    last_used_at  INTEGER
);
CREATE UNIQUE INDEX passkeys_credential ON passkeys (credential_id);
CREATE INDEX passkeys_member ON passkeys (member_id);

CREATE TABLE sessions (
    id_hash    TEXT    PRIMARY KEY,
    member_id  INTEGER NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    account_id INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    seen_at    INTEGER NOT NULL
);
CREATE INDEX sessions_member ON sessions (member_id);

-- One-time WebAuthn challenges (base64url of 32 random bytes), each for one ceremony and,
-- for a registration, one invite or member; taken with DELETE ... RETURNING.
CREATE TABLE challenges (
    challenge  TEXT    PRIMARY KEY,
    purpose    TEXT    NOT NULL CHECK (purpose IN ('register', 'sign_in', 'add_passkey')),
    subject    INTEGER,
    expires_at INTEGER NOT NULL
);
CREATE INDEX challenges_expiry ON challenges (expires_at);

-- The account's security events written with the changes of the directory (sign-ins,
-- tokens, members); those of the shard's data (webhooks, erasures) are in the shard's
-- table of the same shape. The newest 200 per account are kept.
CREATE TABLE security_log (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    at         INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    -- 'member:{id}', 'token:{id}', 'operator' or 'visitor', and the member's address or the
    -- token's name then (a token's name is looked up when it was not known).
    actor      TEXT    NOT NULL,
    actor_name TEXT,
    -- What it was about: a token's or webhook's name, an address invited, a count.
    detail     TEXT,
    -- ISO 3166-1 alpha-2 of the request; never an IP address.
    country    TEXT
);
CREATE INDEX security_log_account ON security_log (account_id, at);
CREATE TRIGGER security_log_bound AFTER INSERT ON security_log
BEGIN
    DELETE FROM security_log WHERE account_id = NEW.account_id AND id NOT IN
        (SELECT id FROM security_log WHERE account_id = NEW.account_id
         ORDER BY at DESC, id DESC LIMIT 200);
END;
