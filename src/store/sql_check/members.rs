//! The account area's directory rows: an invite and the registration it allows (once),
//! sessions (their limits, sign-out), sign-ins guarded by the passkey's counter,
//! challenges taken once, passkeys added, renamed and removed (never the last), members
//! removed (never the last owner), and each ceremony's entry in the security log.

use serde_json::json;

use super::*;
use crate::domain::member::{Purpose, Role, SESSION_IDLE_MS, SESSION_MAX_MS, SESSION_TOUCH_MS};
use crate::domain::security::{Actor, By};
use crate::store::members::{
    self, InviteRow, MemberRow, NewInvite, NewPasskey, PasskeyOwner, PasskeyRow, SessionRow,
    TokenName,
};
use crate::store::security;

fn kinds(db: &mut Db, acc: i64) -> Vec<String> {
    let rows = db.exec("security::list_sql", &security::list_sql(acc));
    rows.iter()
        .map(|r| r["kind"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn passkey<'a>(credential: &'a str, name: &'a str) -> NewPasskey<'a> {
    NewPasskey {
        credential_id: credential,
        public_key: "cose",
        sign_count: 0,
        name,
    }
}

pub(super) fn members_and_sessions(db: &mut Db, acc: i64, now: i64) {
    db.in_dir(|db| in_directory(db, acc, now));
}

fn in_directory(db: &mut Db, acc: i64, now: i64) {
    let operator = By::new(Actor::Operator, None);
    let new_invite = |email: &'static str, hash: &'static str, role: Role| NewInvite {
        account_id: acc,
        email,
        role,
        code_hash: hash,
        expires_at: now + 1000,
    };
    // An invite, found by its code's hash.
    let made = db.batch(
        "members::invite_sql",
        &members::invite_sql(
            &new_invite("ada@acme.example", "code-1", Role::Owner),
            &operator,
            now,
        ),
    );
    let invite: InviteRow = one("members::invite_sql", made[0].clone());
    assert_eq!((invite.role.as_str(), invite.used_at), ("owner", None));
    let rows = db.exec(
        "members::open_invite_sql",
        &members::open_invite_sql("code-1"),
    );
    assert_eq!(
        one::<InviteRow>("members::open_invite_sql", rows).id,
        invite.id
    );
    // No invite of another account's id.
    let none = db.batch(
        "members::invite_sql",
        &members::invite_sql(
            &NewInvite {
                account_id: acc + 1000,
                ..new_invite("x@acme.example", "code-x", Role::Member)
            },
            &operator,
            now,
        ),
    );
    assert!(none[0].is_empty());

    // A challenge, taken once, only for its ceremony and subject, only while fresh.
    let c = "challenge-register";
    let register = Purpose::Register;
    db.batch(
        "members::challenge_sql",
        &members::challenge_sql(c, register, Some(invite.id), now),
    );
    let take = |db: &mut Db, p, subject, at| {
        db.exec(
            "members::take_challenge_sql",
            &members::take_challenge_sql(c, p, subject, at),
        )
    };
    assert!(take(db, Purpose::SignIn, Some(invite.id), now).is_empty());
    assert!(take(db, register, Some(invite.id + 1), now).is_empty());
    assert!(
        take(db, register, Some(invite.id), now + 300_001).is_empty(),
        "expired"
    );
    assert_eq!(take(db, register, Some(invite.id), now).len(), 1);
    assert!(take(db, register, Some(invite.id), now).is_empty(), "once");
    // Expired challenges are swept when new ones are made.
    db.batch(
        "members::challenge_sql",
        &members::challenge_sql("old", Purpose::SignIn, None, now - 400_000),
    );
    db.batch(
        "members::challenge_sql",
        &members::challenge_sql("new", Purpose::SignIn, None, now),
    );
    let left = db.exec(
        "check",
        &Stmt::new(
            "SELECT COUNT(*) AS n FROM challenges WHERE challenge = 'old'",
            vec![],
        ),
    );
    assert_eq!(left[0]["n"], 0);

    // The registration: member, passkey, session and log entry, once per invite.
    let key = passkey("cred-1", "Passkey");
    let join = |db: &mut Db, session: &str, at: i64| {
        db.batch(
            "members::join_sql",
            &members::join_sql(invite.id, "handle-1", &key, session, Some("DE"), at),
        )
    };
    let late = join(db, "session-late", now + 2000);
    assert!(late[1].is_empty(), "an expired invite makes no member");
    let joined = join(db, "session-1", now);
    assert_eq!(joined[1].len(), 1, "the member");
    let again = db.batch(
        "members::join_sql",
        &members::join_sql(
            invite.id,
            "handle-2",
            &passkey("cred-2", "P"),
            "session-2",
            None,
            now,
        ),
    );
    assert!(again[1].is_empty(), "an invite works once");
    let rows = db.exec(
        "members::open_invite_sql",
        &members::open_invite_sql("code-1"),
    );
    assert_eq!(
        one::<InviteRow>("members::open_invite_sql", rows).used_at,
        Some(now)
    );
    // The address is a member now: no new invite for it.
    let dup = db.batch(
        "members::invite_sql",
        &members::invite_sql(
            &new_invite("ada@acme.example", "code-2", Role::Member),
            &operator,
            now,
        ),
    );
    assert!(dup[0].is_empty() && dup[1].is_empty());

    // Sessions: valid within both limits, touched at most once a minute.
    let session = |db: &mut Db, hash: &str, at: i64| {
        let results = db.batch("members::session_sql", &members::session_sql(hash, at));
        decode::<SessionRow>("members::session_sql", results[1].clone())
    };
    let found = session(db, "session-1", now + 1);
    assert_eq!(found.len(), 1);
    let member = found[0].clone();
    assert_eq!(
        (
            member.email.as_str(),
            member.role.as_str(),
            member.account_id
        ),
        ("ada@acme.example", "owner", acc)
    );
    assert!(
        session(db, "session-1", now + SESSION_IDLE_MS + 1).is_empty(),
        "idle"
    );
    // Used within the idle limit, it lasts, but never past the absolute one.
    let mut at = now;
    while at + SESSION_IDLE_MS / 2 < now + SESSION_MAX_MS {
        at += SESSION_IDLE_MS / 2;
        assert_eq!(session(db, "session-1", at).len(), 1, "at {}", at - now);
    }
    assert!(
        session(db, "session-1", now + SESSION_MAX_MS + 1).is_empty(),
        "7 days at most"
    );
    assert!(session(db, "nobody", now).is_empty());
    let _ = SESSION_TOUCH_MS;

    // A sign-in: the counter moves on only from what the check read.
    let rows = db.exec("members::passkey_sql", &members::passkey_sql("cred-1"));
    let owner: PasskeyOwner = one("members::passkey_sql", rows);
    assert_eq!((owner.handle.as_str(), owner.sign_count), ("handle-1", 0));
    let sign_in = |db: &mut Db, found: &PasskeyOwner, count: i64, hash: &str| {
        db.batch(
            "members::sign_in_sql",
            &members::sign_in_sql(found, count, hash, None, now),
        )
    };
    sign_in(db, &owner, 5, "session-3");
    assert_eq!(session(db, "session-3", now).len(), 1);
    // A second use of the same read (a cloned authenticator racing): no session.
    sign_in(db, &owner, 6, "session-4");
    assert!(session(db, "session-4", now).is_empty());
    db.exec(
        "members::failed_sql",
        &members::failed_sql(acc, &By::new(Actor::Visitor, Some("FR".into())), now),
    );

    // Passkeys: added, listed, renamed, removed but never the last.
    let by = By::new(member.actor(), None);
    let added = db.batch(
        "members::add_passkey_sql",
        &members::add_passkey_sql("handle-1", &passkey("cred-9", "Phone"), None, now),
    );
    assert_eq!(added.len(), 2);
    db.exec(
        "members::insert_passkey_sql",
        &members::insert_passkey_sql(
            "handle-1",
            &passkey("cred-10", "Key"),
            now,
            security::When::Always,
        ),
    );
    let rows = db.exec(
        "members::credentials_sql",
        &members::credentials_sql(member.member_id),
    );
    assert_eq!(rows.len(), 3);
    let rows = db.exec(
        "members::passkeys_sql",
        &members::passkeys_sql(member.member_id),
    );
    let keys: Vec<PasskeyRow> = decode("members::passkeys_sql", rows);
    assert_eq!(keys.len(), 3);
    let renamed = db.exec(
        "members::rename_passkey_sql",
        &members::rename_passkey_sql(member.member_id, keys[1].id, "Work phone"),
    );
    assert_eq!(renamed.len(), 1);
    let not_theirs = db.exec(
        "members::rename_passkey_sql",
        &members::rename_passkey_sql(member.member_id + 1, keys[1].id, "x"),
    );
    assert!(not_theirs.is_empty());
    for key in &keys {
        db.batch(
            "members::remove_passkey_sql",
            &members::remove_passkey_sql(member.member_id, key.id, &by, acc, now),
        );
    }
    let rows = db.exec(
        "members::passkeys_sql",
        &members::passkeys_sql(member.member_id),
    );
    assert_eq!(rows.len(), 1, "the last passkey stays");

    // A second member (through a member invite), then removals: never the last owner.
    db.batch(
        "members::invite_sql",
        &members::invite_sql(
            &new_invite("bob@acme.example", "code-3", Role::Member),
            &by,
            now,
        ),
    );
    let rows = db.exec(
        "members::open_invite_sql",
        &members::open_invite_sql("code-3"),
    );
    let bob_invite: InviteRow = one("members::open_invite_sql", rows);
    db.batch(
        "members::join_sql",
        &members::join_sql(
            bob_invite.id,
            "handle-3",
            &passkey("cred-3", "P"),
            "session-5",
            None,
            now,
        ),
    );
    let rows = db.exec("members::members_sql", &members::members_sql(acc));
    let all: Vec<MemberRow> = decode("members::members_sql", rows);
    assert_eq!(all.len(), 2);
    let bob = all
        .iter()
        .find(|m| m.email == "bob@acme.example")
        .expect("bob")
        .id;
    let remove = |db: &mut Db, id: i64| {
        db.batch(
            "members::remove_member_sql",
            &members::remove_member_sql(acc, id, &by, now),
        )
    };
    assert!(
        remove(db, member.member_id)[3].is_empty(),
        "the last owner stays"
    );
    assert_eq!(remove(db, bob)[3].len(), 1);
    assert!(
        session(db, "session-5", now).is_empty(),
        "their sessions go with them"
    );
    let rows = db.exec("members::passkey_sql", &members::passkey_sql("cred-3"));
    assert!(rows.is_empty(), "and their passkeys");

    // Sign-out ends the session on the server.
    db.batch(
        "members::end_session_sql",
        &members::end_session_sql("session-3", acc, &by, now),
    );
    assert!(session(db, "session-3", now).is_empty());

    // Every ceremony left its entry, with the member's address and country where known.
    let mut logged = kinds(db, acc);
    logged.sort();
    logged.dedup();
    for kind in [
        "member_invited",
        "sign_in",
        "sign_in_failed",
        "passkey_added",
        "passkey_removed",
        "member_removed",
        "sign_out",
    ] {
        assert!(logged.iter().any(|k| k == kind), "{kind} in {logged:?}");
    }
    let rows = db.exec("security::list_sql", &security::list_sql(acc));
    let invited_in = rows
        .iter()
        .find(|r| r["kind"] == "sign_in" && r["detail"] == "invite" && r["country"] == "DE")
        .expect("the registration's sign-in");
    assert_eq!(invited_in["actor_name"], json!("ada@acme.example"));

    let rows = db.exec("members::token_names_sql", &members::token_names_sql(acc));
    let names: Vec<TokenName> = decode("members::token_names_sql", rows);
    assert!(!names.is_empty(), "the account's tokens, revoked ones too");

    // A member's entry is written only after a statement that changed a row.
    let before = kinds(db, acc).len();
    let nothing = Stmt::new("UPDATE members SET role = role WHERE id = -1", vec![]);
    let entry = members::member_log_sql(
        "handle-1",
        crate::domain::security::Kind::SignIn,
        None,
        None,
        now,
    );
    db.batch("members::member_log_sql", &[nothing, entry.clone()]);
    assert_eq!(kinds(db, acc).len(), before);
    let something = Stmt::new(
        "UPDATE members SET role = role WHERE handle = 'handle-1'",
        vec![],
    );
    db.batch("members::member_log_sql", &[something, entry]);
    assert_eq!(kinds(db, acc).len(), before + 1);
}
