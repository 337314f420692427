//! The slugs of one root name as its object keeps them (regions.md 6, `durable::names`):
//! what a call asks, what an entry is, and whether a create may take a slug. Pure, so the
//! rules are tested here; the object only stores and fetches.
//!
//! The wire and storage forms are lines of text: the object is on every create's path, and
//! a text form costs the upload less than a serde one per type.

/// Milliseconds a deleted card's slug stays retired: 365 days (regions.md 1).
pub const RETIRED_MS: i64 = 365 * 24 * 3_600_000;

/// What a call to a root's object does with a slug.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// The first free slug of the base (its `rest` after the root), held for the account
    /// while its card is made.
    Reserve,
    /// The card is made: the slug is its.
    Live,
    /// The card was not made: the name is free again.
    Release,
    /// The card is about to go: until `Retire`, a create that meets it asks the shard.
    Deleting,
    /// The card is gone: no other account takes the slug for [`RETIRED_MS`].
    Retire,
    /// Whose slug it is, if anyone's.
    Find,
}

const OPS: [(Op, &str); 6] = [
    (Op::Reserve, "reserve"),
    (Op::Live, "live"),
    (Op::Release, "release"),
    (Op::Deleting, "deleting"),
    (Op::Retire, "retire"),
    (Op::Find, "find"),
];

/// Where a slug's entry stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Pending,
    Live,
    Deleting,
    Retired,
}

const STATES: [(State, &str); 4] = [
    (State::Pending, "pending"),
    (State::Live, "live"),
    (State::Deleting, "deleting"),
    (State::Retired, "retired"),
];

fn name_of<T: PartialEq + Copy>(table: &[(T, &'static str)], v: T) -> &'static str {
    table.iter().find(|(t, _)| *t == v).map_or("", |(_, n)| n)
}

fn parse_of<T: Copy>(table: &[(T, &str)], s: &str) -> Option<T> {
    table.iter().find(|(_, n)| *n == s).map(|(t, _)| *t)
}

impl State {
    pub fn as_str(self) -> &'static str {
        name_of(&STATES, self)
    }
}

/// A call: the root travels so that the object can ask the shard about a slug (and, once,
/// the directory about the root's slugs from before it); the object never stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ask {
    pub op: Op,
    pub root: String,
    pub rest: String,
    pub account: i64,
    /// How old a `pending` or `deleting` entry must be before a create asks the shard
    /// about it (`SLUG_SETTLE_MS`: longer than any request runs).
    pub settle_ms: i64,
}

impl Ask {
    pub fn encode(&self) -> String {
        let op = name_of(&OPS, self.op);
        format!(
            "{op}\n{}\n{}\n{}\n{}",
            self.root, self.rest, self.account, self.settle_ms
        )
    }

    pub fn decode(text: &str) -> Option<Ask> {
        let mut l = text.split('\n');
        let ask = Ask {
            op: parse_of(&OPS, l.next()?)?,
            root: l.next()?.to_string(),
            rest: l.next()?.to_string(),
            account: l.next()?.parse().ok()?,
            settle_ms: l.next()?.parse().ok()?,
        };
        l.next().is_none().then_some(ask)
    }
}

/// A slug's entry: its account, where it stands and since when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub account: i64,
    pub state: State,
    pub at: i64,
}

impl Entry {
    pub fn encode(&self) -> String {
        format!("{} {} {}", self.state.as_str(), self.account, self.at)
    }

    pub fn decode(text: &str) -> Option<Entry> {
        let mut w = text.split(' ');
        let entry = Entry {
            state: parse_of(&STATES, w.next()?)?,
            account: w.next()?.parse().ok()?,
            at: w.next()?.parse().ok()?,
        };
        w.next().is_none().then_some(entry)
    }
}

/// What a create does with a slug it meets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Free: reserve it.
    Take,
    /// Left `pending` or `deleting` longer than a request runs: ask the shard, then look
    /// again.
    Settle,
    /// Another card's, or retired by another account less than a year ago: the next.
    Next,
}

/// Whether `account`'s create at `now` may take a slug whose entry is `entry`: a slug
/// nobody has; one retired by the account itself (it gets it back) or more than a year
/// ago.
pub fn verdict(entry: Option<&Entry>, account: i64, now: i64, settle_ms: i64) -> Verdict {
    let Some(e) = entry else {
        return Verdict::Take;
    };
    match e.state {
        State::Retired if e.account == account || e.at <= now - RETIRED_MS => Verdict::Take,
        State::Pending | State::Deleting if e.at <= now - settle_ms => Verdict::Settle,
        _ => Verdict::Next,
    }
}

/// What an entry left on its way becomes once the shard has said whether its card is
/// there: the card's (live); else free (`None`: a create that never made it) or retired
/// (a delete that went through).
pub fn settled(e: &Entry, card_there: bool) -> Option<Entry> {
    let state = match (card_there, e.state) {
        (true, _) => State::Live,
        (false, State::Deleting | State::Retired) => State::Retired,
        (false, State::Pending | State::Live) => return None,
    };
    Some(Entry { state, ..*e })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(state: State, account: i64, at: i64) -> Entry {
        Entry { account, state, at }
    }

    #[test]
    fn calls_and_entries_survive_their_text_forms() {
        for op in OPS.map(|(o, _)| o) {
            let ask = Ask {
                op,
                root: "jurgen-gross".into(),
                rest: "-2".into(),
                account: 42,
                settle_ms: 300_000,
            };
            assert_eq!(Ask::decode(&ask.encode()), Some(ask));
        }
        let bare = Ask {
            op: Op::Find,
            root: "anna".into(),
            rest: String::new(),
            account: 0,
            settle_ms: 0,
        };
        assert_eq!(Ask::decode(&bare.encode()), Some(bare));
        assert_eq!(Ask::decode("reserve\nanna\n\n1"), None, "a line short");
        assert_eq!(Ask::decode("take\nanna\n\n1\n0"), None, "no such op");
        assert_eq!(Ask::decode("find\nanna\n\nx\n0"), None);
        for state in STATES.map(|(s, _)| s) {
            let e = entry(state, 7, 1_700_000_000_000);
            assert_eq!(Entry::decode(&e.encode()), Some(e));
        }
        assert_eq!(Entry::decode("live 7"), None);
        assert_eq!(Entry::decode("gone 7 1"), None);
    }

    #[test]
    fn a_create_takes_a_free_or_its_own_or_a_long_retired_slug() {
        let (me, other, now, settle) = (1, 2, 1_000 * RETIRED_MS, 300_000);
        assert_eq!(verdict(None, me, now, settle), Verdict::Take);
        let retired = |by, at| entry(State::Retired, by, at);
        assert_eq!(
            verdict(Some(&retired(me, now)), me, now, settle),
            Verdict::Take
        );
        assert_eq!(
            verdict(Some(&retired(other, now - RETIRED_MS + 1)), me, now, settle),
            Verdict::Next,
            "not another account's for 365 days"
        );
        assert_eq!(
            verdict(Some(&retired(other, now - RETIRED_MS)), me, now, settle),
            Verdict::Take
        );
        assert_eq!(
            verdict(Some(&entry(State::Live, me, 0)), me, now, settle),
            Verdict::Next,
            "a live slug is never taken, whoever asks"
        );
        for state in [State::Pending, State::Deleting] {
            let fresh = entry(state, other, now - settle + 1);
            assert_eq!(verdict(Some(&fresh), me, now, settle), Verdict::Next);
            let stale = entry(state, other, now - settle);
            assert_eq!(verdict(Some(&stale), me, now, settle), Verdict::Settle);
        }
    }

    #[test]
    fn a_settled_entry_follows_its_card() {
        let at = 5;
        let pending = entry(State::Pending, 1, at);
        let deleting = entry(State::Deleting, 1, at);
        assert_eq!(settled(&pending, true), Some(entry(State::Live, 1, at)));
        assert_eq!(settled(&pending, false), None, "never made: free");
        assert_eq!(settled(&deleting, true), Some(entry(State::Live, 1, at)));
        assert_eq!(
            settled(&deleting, false),
            Some(entry(State::Retired, 1, at)),
            "gone: retired since the delete began"
        );
    }
}
