//! The account area's rows in the directory (account-area.md 1): members, invites,
//! passkeys, sessions and WebAuthn challenges. Each ceremony's writes are one batch guarded
//! by a claim row (the invite still open, the challenge still there, the passkey's counter
//! unchanged), so two racing requests cannot both succeed.

use worker::Result;

use super::row::impl_row;
use super::security::{log_sql, Log, Of, When};
use super::{batch, row_count, rows_of, select, select_first, Stmt};
use crate::db::Directory;
use crate::domain::member::{Purpose, Role, SESSION_IDLE_MS, SESSION_MAX_MS, SESSION_TOUCH_MS};
use crate::domain::security::{Actor, By, Kind};

/// A member as the Members page lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberRow {
    pub id: i64,
    pub email: String,
    pub role: String,
    pub created_at: i64,
}
impl_row!(MemberRow {
    id,
    email,
    role,
    created_at
});

/// A signed-in member and their account, as one session lookup finds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    pub member_id: i64,
    pub email: String,
    pub role: String,
    pub handle: String,
    pub account_id: i64,
    pub created_at: i64,
}
impl_row!(SessionRow {
    member_id,
    email,
    role,
    handle,
    account_id,
    created_at
});

impl SessionRow {
    pub fn role(&self) -> Role {
        Role::parse(&self.role).unwrap_or(Role::Member)
    }

    pub fn actor(&self) -> Actor {
        Actor::Member {
            id: self.member_id,
            email: self.email.clone(),
        }
    }
}

/// The session of this id hash if it is still valid (idle and absolute limits), its
/// `seen_at` moved on at most once a [`SESSION_TOUCH_MS`]; one round trip.
pub fn session_sql(id_hash: &str, now: i64) -> Vec<Stmt> {
    vec![
        Stmt::new(
            "UPDATE sessions SET seen_at = ?2 \
             WHERE id_hash = ?1 AND seen_at < ?3 AND seen_at > ?4 AND created_at > ?5",
            vec![
                id_hash.into(),
                now.into(),
                (now - SESSION_TOUCH_MS).into(),
                (now - SESSION_IDLE_MS).into(),
                (now - SESSION_MAX_MS).into(),
            ],
        ),
        Stmt::new(
            "SELECT s.member_id, m.email, m.role, m.handle, s.account_id, s.created_at \
             FROM sessions s JOIN members m ON m.id = s.member_id \
             WHERE s.id_hash = ?1 AND s.seen_at > ?2 AND s.created_at > ?3",
            vec![
                id_hash.into(),
                (now - SESSION_IDLE_MS).into(),
                (now - SESSION_MAX_MS).into(),
            ],
        ),
    ]
}

pub async fn session(db: &Directory, id_hash: &str, now: i64) -> Result<Option<SessionRow>> {
    let results = batch(db, session_sql(id_hash, now)).await?;
    Ok(rows_of(&results, 1)?.into_iter().next())
}

/// Ends a session (sign-out) and logs it.
pub fn end_session_sql(id_hash: &str, account_id: i64, by: &By, now: i64) -> Vec<Stmt> {
    vec![
        Stmt::new(
            "DELETE FROM sessions WHERE id_hash = ?1 AND account_id = ?2",
            vec![id_hash.into(), account_id.into()],
        ),
        log_sql(
            Log::Directory,
            &Of::Account(account_id, None),
            Kind::SignOut,
            by,
            now,
            When::Changed,
        ),
    ]
}

pub async fn end_session(
    db: &Directory,
    id_hash: &str,
    account_id: i64,
    by: &By,
    now: i64,
) -> Result<()> {
    batch(db, end_session_sql(id_hash, account_id, by, now)).await?;
    Ok(())
}

/// An invite as its link finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InviteRow {
    pub id: i64,
    pub account_id: i64,
    pub account_name: String,
    pub email: String,
    pub role: String,
    pub expires_at: i64,
    pub used_at: Option<i64>,
}
impl_row!(InviteRow {
    id,
    account_id,
    account_name,
    email,
    role,
    expires_at,
    used_at
});

/// An invite to write: the code is only its hash here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewInvite<'a> {
    pub account_id: i64,
    pub email: &'a str,
    pub role: Role,
    pub code_hash: &'a str,
    pub expires_at: i64,
}

/// A new invite of the account, unless the address is a member already (no row then);
/// logged as `by`'s.
pub fn invite_sql(invite: &NewInvite, by: &By, now: i64) -> Vec<Stmt> {
    let account_id = invite.account_id;
    vec![
        Stmt::new(
            "INSERT INTO invites (account_id, email, role, code_hash, created_at, expires_at) \
             SELECT ?1, ?2, ?3, ?4, ?5, ?6 \
             WHERE EXISTS (SELECT 1 FROM accounts WHERE id = ?1) \
               AND NOT EXISTS (SELECT 1 FROM members WHERE account_id = ?1 AND email = ?2) \
             RETURNING id, account_id, \
                 (SELECT name FROM accounts WHERE id = ?1) AS account_name, email, role, \
                 expires_at, used_at",
            vec![
                account_id.into(),
                invite.email.into(),
                invite.role.as_str().into(),
                invite.code_hash.into(),
                now.into(),
                invite.expires_at.into(),
            ],
        ),
        log_sql(
            Log::Directory,
            &Of::Account(account_id, Some(invite.email.to_string())),
            Kind::MemberInvited,
            by,
            now,
            When::Changed,
        ),
    ]
}

pub async fn invite(
    db: &Directory,
    invite: &NewInvite<'_>,
    by: &By,
    now: i64,
) -> Result<Option<InviteRow>> {
    let results = batch(db, invite_sql(invite, by, now)).await?;
    Ok(rows_of(&results, 0)?.into_iter().next())
}

pub fn open_invite_sql(code_hash: &str) -> Stmt {
    Stmt::new(
        "SELECT i.id, i.account_id, a.name AS account_name, i.email, i.role, i.expires_at, \
             i.used_at \
         FROM invites i JOIN accounts a ON a.id = i.account_id WHERE i.code_hash = ?1",
        vec![code_hash.into()],
    )
}

/// The invite of this code's hash, used or not.
pub async fn open_invite(db: &Directory, code_hash: &str) -> Result<Option<InviteRow>> {
    select_first(db, open_invite_sql(code_hash)).await
}

/// A challenge for a ceremony (`subject`: the invite or member it is for), and the
/// expired ones of any ceremony swept away (a few at a time: an index range).
pub fn challenge_sql(
    challenge: &str,
    purpose: Purpose,
    subject: Option<i64>,
    now: i64,
) -> Vec<Stmt> {
    vec![
        Stmt::new(
            "DELETE FROM challenges WHERE challenge IN \
             (SELECT challenge FROM challenges WHERE expires_at < ?1 LIMIT +100)",
            vec![now.into()],
        ),
        Stmt::new(
            "INSERT INTO challenges (challenge, purpose, subject, expires_at) \
             VALUES (?1, ?2, ?3, ?4)",
            vec![
                challenge.into(),
                purpose.as_str().into(),
                subject.into(),
                (now + purpose.lifetime_ms()).into(),
            ],
        ),
    ]
}

pub async fn challenge(
    db: &Directory,
    challenge: &str,
    purpose: Purpose,
    subject: Option<i64>,
    now: i64,
) -> Result<()> {
    batch(db, challenge_sql(challenge, purpose, subject, now)).await?;
    Ok(())
}

struct Taken {
    challenge: String,
}
impl_row!(Taken { challenge });

/// Takes a challenge: it is gone whatever comes of the ceremony, so it works once.
pub fn take_challenge_sql(
    challenge: &str,
    purpose: Purpose,
    subject: Option<i64>,
    now: i64,
) -> Stmt {
    Stmt::new(
        "DELETE FROM challenges WHERE challenge = ?1 AND purpose = ?2 \
           AND subject IS ?3 AND expires_at > ?4 RETURNING challenge",
        vec![
            challenge.into(),
            purpose.as_str().into(),
            subject.into(),
            now.into(),
        ],
    )
}

/// Whether the challenge was there, unexpired, for this ceremony (and now is not).
pub async fn take_challenge(
    db: &Directory,
    challenge: &str,
    purpose: Purpose,
    subject: Option<i64>,
    now: i64,
) -> Result<bool> {
    let taken: Option<Taken> =
        select_first(db, take_challenge_sql(challenge, purpose, subject, now)).await?;
    Ok(taken.is_some_and(|t| t.challenge == challenge))
}

/// A passkey as the ceremonies write it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPasskey<'a> {
    pub credential_id: &'a str,
    pub public_key: &'a str,
    pub sign_count: i64,
    pub name: &'a str,
}

/// What a registration through an invite writes, in one batch: the invite claimed (still
/// open), the member it names, their passkey and a session; logged as a sign-in. Every
/// statement after the claim writes only if the one before did (`changes()`).
pub fn join_sql(
    invite_id: i64,
    handle: &str,
    passkey: &NewPasskey,
    session_hash: &str,
    country: Option<&str>,
    now: i64,
) -> Vec<Stmt> {
    vec![
        Stmt::new(
            "UPDATE invites SET used_at = ?2 \
             WHERE id = ?1 AND used_at IS NULL AND expires_at > ?2",
            vec![invite_id.into(), now.into()],
        ),
        Stmt::new(
            "INSERT INTO members (account_id, email, role, handle, created_at) \
             SELECT account_id, email, role, ?2, ?3 FROM invites \
             WHERE id = ?1 AND changes() > 0 RETURNING id",
            vec![invite_id.into(), handle.into(), now.into()],
        ),
        insert_passkey_sql(handle, passkey, now, When::Changed),
        Stmt::new(
            "INSERT INTO sessions (id_hash, member_id, account_id, created_at, seen_at) \
             SELECT ?1, id, account_id, ?3, ?3 FROM members \
             WHERE handle = ?2 AND changes() > 0",
            vec![session_hash.into(), handle.into(), now.into()],
        ),
        member_log_sql(handle, Kind::SignIn, Some("invite"), country, now),
    ]
}

/// The member's new passkey; with [`When::Changed`] only if the statement before wrote.
pub fn insert_passkey_sql(handle: &str, passkey: &NewPasskey, now: i64, when: When) -> Stmt {
    let guard = match when {
        When::Changed => " AND changes() > 0",
        When::Always => "",
    };
    Stmt::new(
        format!(
            "INSERT INTO passkeys (member_id, account_id, credential_id, public_key, \
                 sign_count, name, created_at) \
             SELECT id, account_id, ?2, ?3, ?4, ?5, ?6 FROM members WHERE handle = ?1{guard}"
        ),
        vec![
            handle.into(),
            passkey.credential_id.into(),
            passkey.public_key.into(),
            passkey.sign_count.into(),
            passkey.name.into(),
            now.into(),
        ],
    )
}

/// An entry of the member of `handle` in the directory's log, written only if the
/// statement before wrote.
pub fn member_log_sql(
    handle: &str,
    kind: Kind,
    detail: Option<&str>,
    country: Option<&str>,
    now: i64,
) -> Stmt {
    Stmt::new(
        "INSERT INTO security_log (account_id, at, kind, actor, actor_name, detail, country) \
         SELECT account_id, ?2, ?3, 'member:' || id, email, ?4, ?5 FROM members \
         WHERE handle = ?1 AND changes() > 0",
        vec![
            handle.into(),
            now.into(),
            kind.as_str().into(),
            detail.map(str::to_string).into(),
            country.map(str::to_string).into(),
        ],
    )
}

struct Joined {
    id: i64,
}
impl_row!(Joined { id });

/// The member made, or `None` when the invite was used or had expired meanwhile.
pub async fn join(
    db: &Directory,
    invite_id: i64,
    handle: &str,
    passkey: &NewPasskey<'_>,
    session_hash: &str,
    country: Option<&str>,
    now: i64,
) -> Result<Option<i64>> {
    let stmts = join_sql(invite_id, handle, passkey, session_hash, country, now);
    let results = batch(db, stmts).await?;
    let joined: Option<Joined> = rows_of(&results, 1)?.into_iter().next();
    Ok(joined.map(|j| j.id))
}

/// A passkey as a sign-in finds it by its credential id, with its member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasskeyOwner {
    pub passkey_id: i64,
    pub public_key: String,
    pub sign_count: i64,
    pub member_id: i64,
    pub handle: String,
    pub account_id: i64,
}
impl_row!(PasskeyOwner {
    passkey_id,
    public_key,
    sign_count,
    member_id,
    handle,
    account_id
});

pub fn passkey_sql(credential_id: &str) -> Stmt {
    Stmt::new(
        "SELECT p.id AS passkey_id, p.public_key, p.sign_count, p.member_id, m.handle, \
             m.account_id \
         FROM passkeys p JOIN members m ON m.id = p.member_id WHERE p.credential_id = ?1",
        vec![credential_id.into()],
    )
}

pub async fn passkey(db: &Directory, credential_id: &str) -> Result<Option<PasskeyOwner>> {
    select_first(db, passkey_sql(credential_id)).await
}

/// A sign-in: the passkey's counter moved on only if it is still what the check read
/// (a racing use of a cloned authenticator loses), then a new session; logged.
pub fn sign_in_sql(
    found: &PasskeyOwner,
    new_count: i64,
    session_hash: &str,
    country: Option<&str>,
    now: i64,
) -> Vec<Stmt> {
    vec![
        Stmt::new(
            "UPDATE passkeys SET sign_count = ?3, last_used_at = ?4 \
             WHERE id = ?1 AND sign_count = ?2",
            vec![
                found.passkey_id.into(),
                found.sign_count.into(),
                new_count.into(),
                now.into(),
            ],
        ),
        Stmt::new(
            "INSERT INTO sessions (id_hash, member_id, account_id, created_at, seen_at) \
             SELECT ?1, id, account_id, ?3, ?3 FROM members \
             WHERE handle = ?2 AND changes() > 0",
            vec![
                session_hash.into(),
                found.handle.as_str().into(),
                now.into(),
            ],
        ),
        member_log_sql(&found.handle, Kind::SignIn, None, country, now),
    ]
}

/// Whether the session was made.
pub async fn sign_in(
    db: &Directory,
    found: &PasskeyOwner,
    new_count: i64,
    session_hash: &str,
    country: Option<&str>,
    now: i64,
) -> Result<bool> {
    let results = batch(
        db,
        sign_in_sql(found, new_count, session_hash, country, now),
    )
    .await?;
    Ok(changed(&results, 1))
}

/// Whether statement `i` of a batch changed a row.
fn changed(results: &[worker::D1Result], i: usize) -> bool {
    results
        .get(i)
        .and_then(|r| r.meta().ok().flatten())
        .and_then(|m| m.changes)
        .is_some_and(|n| n > 0)
}

/// A failed sign-in of a known passkey's account (an unknown passkey names no account).
pub fn failed_sql(account_id: i64, by: &By, now: i64) -> Stmt {
    log_sql(
        Log::Directory,
        &Of::Account(account_id, None),
        Kind::SignInFailed,
        by,
        now,
        When::Always,
    )
}

pub async fn failed(db: &Directory, account_id: i64, by: &By, now: i64) -> Result<()> {
    batch(db, vec![failed_sql(account_id, by, now)]).await?;
    Ok(())
}

/// A passkey added by a signed-in member; logged.
pub fn add_passkey_sql(
    handle: &str,
    passkey: &NewPasskey,
    country: Option<&str>,
    now: i64,
) -> Vec<Stmt> {
    vec![
        insert_passkey_sql(handle, passkey, now, When::Always),
        member_log_sql(handle, Kind::PasskeyAdded, Some(passkey.name), country, now),
    ]
}

pub async fn add_passkey(
    db: &Directory,
    handle: &str,
    passkey: &NewPasskey<'_>,
    country: Option<&str>,
    now: i64,
) -> Result<()> {
    batch(db, add_passkey_sql(handle, passkey, country, now)).await?;
    Ok(())
}

/// A member's passkey as their page lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasskeyRow {
    pub id: i64,
    pub name: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
}
impl_row!(PasskeyRow {
    id,
    name,
    created_at,
    last_used_at
});

pub fn passkeys_sql(member_id: i64) -> Stmt {
    Stmt::new(
        "SELECT id, name, created_at, last_used_at FROM passkeys WHERE member_id = ?1 ORDER BY id",
        vec![member_id.into()],
    )
}

pub async fn passkeys(db: &Directory, member_id: i64) -> Result<Vec<PasskeyRow>> {
    select(db, passkeys_sql(member_id)).await
}

/// The credential ids of the member's passkeys (a new one must not be one of them).
pub fn credentials_sql(member_id: i64) -> Stmt {
    Stmt::new(
        "SELECT credential_id FROM passkeys WHERE member_id = ?1",
        vec![member_id.into()],
    )
}

struct Credential {
    credential_id: String,
}
impl_row!(Credential { credential_id });

pub async fn credentials(db: &Directory, member_id: i64) -> Result<Vec<String>> {
    let rows: Vec<Credential> = select(db, credentials_sql(member_id)).await?;
    Ok(rows.into_iter().map(|r| r.credential_id).collect())
}

pub fn rename_passkey_sql(member_id: i64, id: i64, name: &str) -> Stmt {
    Stmt::new(
        "UPDATE passkeys SET name = ?3 WHERE id = ?2 AND member_id = ?1 RETURNING id",
        vec![member_id.into(), id.into(), name.into()],
    )
}

/// Whether the member has such a passkey (now named `name`).
pub async fn rename_passkey(db: &Directory, member_id: i64, id: i64, name: &str) -> Result<bool> {
    let rows: Vec<Joined> = select(db, rename_passkey_sql(member_id, id, name)).await?;
    Ok(!rows.is_empty())
}

/// Removes one of the member's passkeys, never their last; logged.
pub fn remove_passkey_sql(
    member_id: i64,
    id: i64,
    by: &By,
    account_id: i64,
    now: i64,
) -> Vec<Stmt> {
    vec![
        Stmt::new(
            "DELETE FROM passkeys WHERE id = ?2 AND member_id = ?1 \
               AND (SELECT COUNT(*) FROM passkeys WHERE member_id = ?1) > 1 RETURNING id",
            vec![member_id.into(), id.into()],
        ),
        log_sql(
            Log::Directory,
            &Of::Account(account_id, None),
            Kind::PasskeyRemoved,
            by,
            now,
            When::Changed,
        ),
    ]
}

/// Whether it was removed (`false`: no such passkey, or the member's last).
pub async fn remove_passkey(
    db: &Directory,
    member_id: i64,
    id: i64,
    by: &By,
    account_id: i64,
    now: i64,
) -> Result<bool> {
    let results = batch(db, remove_passkey_sql(member_id, id, by, account_id, now)).await?;
    Ok(row_count(&results, 0)? > 0)
}

pub fn members_sql(account_id: i64) -> Stmt {
    Stmt::new(
        "SELECT id, email, role, created_at FROM members WHERE account_id = ?1 ORDER BY id",
        vec![account_id.into()],
    )
}

pub async fn members(db: &Directory, account_id: i64) -> Result<Vec<MemberRow>> {
    select(db, members_sql(account_id)).await
}

/// Removes a member with their passkeys and sessions, never the account's last owner;
/// logged with their address.
pub fn remove_member_sql(account_id: i64, member_id: i64, by: &By, now: i64) -> Vec<Stmt> {
    let keep_an_owner = "(role != 'owner' OR (SELECT COUNT(*) FROM members \
                         WHERE account_id = ?1 AND role = 'owner') > 1)";
    vec![
        Stmt::new(
            format!(
                "INSERT INTO security_log (account_id, at, kind, actor, actor_name, detail, \
                     country) \
                 SELECT ?1, ?3, ?4, ?5, ?6, email, ?7 FROM members \
                 WHERE id = ?2 AND account_id = ?1 AND {keep_an_owner}"
            ),
            vec![
                account_id.into(),
                member_id.into(),
                now.into(),
                Kind::MemberRemoved.as_str().into(),
                by.actor.stored().into(),
                by.actor.name().map(str::to_string).into(),
                by.country.clone().into(),
            ],
        ),
        Stmt::new(
            format!(
                "DELETE FROM sessions WHERE member_id = (SELECT id FROM members \
                 WHERE id = ?2 AND account_id = ?1 AND {keep_an_owner})"
            ),
            vec![account_id.into(), member_id.into()],
        ),
        Stmt::new(
            format!(
                "DELETE FROM passkeys WHERE member_id = (SELECT id FROM members \
                 WHERE id = ?2 AND account_id = ?1 AND {keep_an_owner})"
            ),
            vec![account_id.into(), member_id.into()],
        ),
        Stmt::new(
            format!(
                "DELETE FROM members WHERE id = ?2 AND account_id = ?1 AND {keep_an_owner} \
                 RETURNING id"
            ),
            vec![account_id.into(), member_id.into()],
        ),
    ]
}

/// Whether the member was removed (`false`: no such member, or the last owner).
pub async fn remove_member(
    db: &Directory,
    account_id: i64,
    member_id: i64,
    by: &By,
    now: i64,
) -> Result<bool> {
    let results = batch(db, remove_member_sql(account_id, member_id, by, now)).await?;
    Ok(row_count(&results, 3)? > 0)
}

/// Names of the account's tokens (revoked ones too), for the security log's entries of
/// tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenName {
    pub id: i64,
    pub name: String,
}
impl_row!(TokenName { id, name });

pub fn token_names_sql(account_id: i64) -> Stmt {
    Stmt::new(
        "SELECT id, name FROM tokens WHERE account_id = ?1",
        vec![account_id.into()],
    )
}

pub async fn token_names(db: &Directory, account_id: i64) -> Result<Vec<TokenName>> {
    select(db, token_names_sql(account_id)).await
}
