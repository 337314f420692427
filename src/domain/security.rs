//! The account's security log (account-area.md 2): who did what that touches the safety of
//! the account, written in the same batch as the change it records, whichever door the
//! change came through (the account area, `/api/v1`, `/admin/v1`).

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    SignIn,
    SignInFailed,
    SignOut,
    PasskeyAdded,
    PasskeyRemoved,
    TokenCreated,
    TokenRevoked,
    WebhookCreated,
    WebhookDeleted,
    WebhookSecretRotated,
    MemberInvited,
    MemberRemoved,
    LeadsErased,
}

impl Kind {
    pub const ALL: [Kind; 13] = [
        Kind::SignIn,
        Kind::SignInFailed,
        Kind::SignOut,
        Kind::PasskeyAdded,
        Kind::PasskeyRemoved,
        Kind::TokenCreated,
        Kind::TokenRevoked,
        Kind::WebhookCreated,
        Kind::WebhookDeleted,
        Kind::WebhookSecretRotated,
        Kind::MemberInvited,
        Kind::MemberRemoved,
        Kind::LeadsErased,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::SignIn => "sign_in",
            Kind::SignInFailed => "sign_in_failed",
            Kind::SignOut => "sign_out",
            Kind::PasskeyAdded => "passkey_added",
            Kind::PasskeyRemoved => "passkey_removed",
            Kind::TokenCreated => "token_created",
            Kind::TokenRevoked => "token_revoked",
            Kind::WebhookCreated => "webhook_created",
            Kind::WebhookDeleted => "webhook_deleted",
            Kind::WebhookSecretRotated => "webhook_secret_rotated",
            Kind::MemberInvited => "member_invited",
            Kind::MemberRemoved => "member_removed",
            Kind::LeadsErased => "leads_erased",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// Who made a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actor {
    /// A member of the account, signed in to the account area, with their address.
    Member { id: i64, email: String },
    /// An API token (its name is looked up when the log is shown).
    Token(i64),
    /// The operator API.
    Operator,
    /// Someone not signed in (a failed sign-in).
    Visitor,
}

impl Actor {
    /// The stored form: `member:{id}`, `token:{id}`, `operator` or `visitor`.
    pub fn stored(&self) -> String {
        match self {
            Actor::Member { id, .. } => format!("member:{id}"),
            Actor::Token(id) => format!("token:{id}"),
            Actor::Operator => "operator".into(),
            Actor::Visitor => "visitor".into(),
        }
    }

    /// The name the log shows, when known at the time of the change.
    pub fn name(&self) -> Option<&str> {
        match self {
            Actor::Member { email, .. } => Some(email),
            Actor::Token(_) | Actor::Operator | Actor::Visitor => None,
        }
    }

    /// The token of a stored `token:{id}`.
    pub fn token_of(stored: &str) -> Option<i64> {
        stored.strip_prefix("token:")?.parse().ok()
    }
}

/// Who asks for a change, and from which country (`request.cf.country`; never an address).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct By {
    pub actor: Actor,
    pub country: Option<String>,
}

impl By {
    pub fn new(actor: Actor, country: Option<String>) -> By {
        By { actor, country }
    }
}

/// One entry as the log keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub at: i64,
    pub kind: String,
    pub actor: String,
    pub actor_name: Option<String>,
    pub detail: Option<String>,
    pub country: Option<String>,
}

/// Entries kept per account, in each of the two logs (directory and shard).
pub const KEPT: i64 = 200;

/// The newest [`KEPT`] of both logs, newest first. Each comes newest first (as the store
/// lists it), so they are merged as they are, not sorted again (a sort would bring ~3 KB
/// of code into the module for this alone); at the same time `a`'s entry comes first.
pub fn merged(a: Vec<Entry>, b: Vec<Entry>) -> Vec<Entry> {
    let mut out = Vec::with_capacity(KEPT as usize);
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    while out.len() < KEPT as usize {
        let from_a = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => x.at >= y.at,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        out.extend(if from_a { a.next() } else { b.next() });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip() {
        for k in Kind::ALL {
            assert_eq!(Kind::parse(k.as_str()), Some(k));
        }
        assert_eq!(Kind::parse("nope"), None);
    }

    #[test]
    fn actors_are_stored_without_secrets() {
        let m = Actor::Member {
            id: 3,
            email: "ada@acme.example".into(),
        };
        assert_eq!(m.stored(), "member:3");
        assert_eq!(m.name(), Some("ada@acme.example"));
        assert_eq!(Actor::Token(7).stored(), "token:7");
        assert_eq!(Actor::token_of("token:7"), Some(7));
        assert_eq!(Actor::token_of("member:7"), None);
        assert_eq!(Actor::Operator.name(), None);
    }

    #[test]
    fn merged_keeps_the_newest_of_both() {
        let e = |at| Entry {
            at,
            kind: "sign_in".into(),
            actor: "visitor".into(),
            actor_name: None,
            detail: None,
            country: None,
        };
        // Each log newest first, as the store lists them.
        let a: Vec<Entry> = (0..150).rev().map(|i| e(i * 2)).collect();
        let b: Vec<Entry> = (0..150).rev().map(|i| e(i * 2 + 1)).collect();
        let m = merged(a, b);
        assert_eq!(m.len(), 200);
        assert_eq!(m[0].at, 299);
        assert_eq!(m[199].at, 100);
        assert!(m.windows(2).all(|w| w[0].at > w[1].at));
        // One log empty, the other short; ties keep the first log's entry first.
        assert_eq!(merged(vec![], vec![e(2), e(1)]).len(), 2);
        let mut first = e(5);
        first.kind = "token_created".into();
        let m = merged(vec![first, e(1)], vec![e(5), e(3)]);
        let order: Vec<(i64, &str)> = m.iter().map(|x| (x.at, x.kind.as_str())).collect();
        assert_eq!(
            order,
            [
                (5, "token_created"),
                (5, "sign_in"),
                (3, "sign_in"),
                (1, "sign_in")
            ]
        );
    }
}
