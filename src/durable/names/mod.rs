//! `Names`: one object per root name (regions.md 6) hands out its slugs (`anna`, `anna-2`,
//! `anna-2-3`, ...: `domain::slug::root_of`), so two creates of one name anywhere in the
//! world are answered one after the other and never share a slug, and a create needs no
//! trip to the directory's primary. The object is named by a keyed hash of the root and
//! created with no jurisdiction (one authority per name, wherever its writers are); it
//! lives near the first place that asked for it. It stores each slug's part after the
//! root, its account, a state and a time: never the name. The rules are
//! `domain::names`'; this file stores and fetches.
//!
//! A crash between a step of a create or a delete and the next leaves an entry `pending`
//! or `deleting`. A create that meets one older than `SLUG_SETTLE_MS` asks the account's
//! shard: the card there, the slug is live; not there, it is free (a create) or retired
//! (a delete). So no slug blocks a name for ever, and no card loses its slug.

pub mod client;

use worker::{durable_object, DurableObject, Env, Request, Response, Result, State as Ctx};

use crate::db::{Directory, Shard};
use crate::domain::names::{settled, verdict, Ask, Entry, Op, State, Verdict};
use crate::domain::slug::nth;
use crate::store::{accounts, cards};

/// Suffixes a create tries before it gives up (a name taken this often is a fault).
const MAX_TRIES: u32 = 100_000;

/// The storage key that says the directory's slugs of the root are in.

#[durable_object(fetch)]
pub struct Names {
    state: Ctx,
    env: Env,
}

/// A slug's storage key: its part after the root (`-2`), behind a mark so that `""` is a
/// key like any other.
fn key(rest: &str) -> String {
    format!("s{rest}")
}

impl Names {
    /// Storage calls keep the object's input gate shut: no other call runs between this
    /// read and the write that follows it.
    async fn entry(&self, rest: &str) -> Result<Option<Entry>> {
        let text = self.state.storage().get::<String>(&key(rest)).await?;
        Ok(text.as_deref().and_then(Entry::decode))
    }

    async fn put(&self, rest: &str, e: Entry) -> Result<()> {
        self.state.storage().put(&key(rest), e.encode()).await
    }

    /// An entry left `pending` or `deleting`: its card in the account's shard, or not.
    /// Applied only if the entry is still what it was (the shard's answer opened the
    /// input gate).
    async fn settle(&self, root: &str, rest: &str, e: Entry) -> Result<()> {
        let slug = format!("{root}{rest}");
        let dir = Directory::primary(&self.env)?;
        let there = match accounts::shard_of(&dir, e.account).await? {
            Some(shard) => cards::named(
                &Shard::primary(&self.env, &shard)?,
                e.account,
                None,
                Some(&slug),
            )
            .await?
            .is_some(),
            None => false,
        };
        if self.entry(rest).await? != Some(e) {
            return Ok(());
        }
        match settled(&e, there) {
            Some(now) => self.put(rest, now).await,
            None => self.state.storage().delete(&key(rest)).await.map(|_| ()),
        }
    }

    /// The first slug of the base the account may take (`domain::names::verdict`).
    async fn reserve(&self, ask: &Ask, now: i64) -> Result<String> {
        for n in 1..=MAX_TRIES {
            let rest = nth(&ask.rest, n);
            loop {
                let e = self.entry(&rest).await?;
                match verdict(e.as_ref(), ask.account, now, ask.settle_ms) {
                    Verdict::Take => {
                        let e = Entry {
                            account: ask.account,
                            state: State::Pending,
                            at: now,
                        };
                        self.put(&rest, e).await?;
                        return Ok(rest);
                    }
                    Verdict::Settle => {
                        if let Some(e) = e {
                            self.settle(&ask.root, &rest, e).await?;
                        }
                    }
                    Verdict::Next => break,
                }
            }
        }
        Err(worker::Error::RustError(format!(
            "no free slug in {MAX_TRIES} tries"
        )))
    }

    /// The slug's part after the root and its entry, if it has one.
    async fn answer(&self, ask: Ask) -> Result<Option<(String, Entry)>> {
        let now = js_sys::Date::now() as i64;
        let rest = match ask.op {
            Op::Reserve => self.reserve(&ask, now).await?,
            _ => ask.rest.clone(),
        };
        let found = self.entry(&rest).await?;
        let mine = found.filter(|e| e.account == ask.account);
        let set = |state| Entry {
            account: ask.account,
            state,
            at: now,
        };
        let after = match ask.op {
            Op::Reserve | Op::Find => found,
            // Only a reservation goes live: a `live` mark that arrives after the card was
            // deleted (it follows the answer) changes nothing.
            Op::Live => mine.map(|e| match e.state {
                State::Pending => Entry {
                    state: State::Live,
                    ..e
                },
                _ => e,
            }),
            Op::Release => match mine {
                Some(e) if e.state == State::Pending => {
                    self.state.storage().delete(&key(&rest)).await?;
                    None
                }
                other => other,
            },
            // Another account's slug is not this account's to retire.
            Op::Deleting if found.is_none() || mine.is_some() => Some(set(State::Deleting)),
            Op::Retire if found.is_none() || mine.is_some() => Some(set(State::Retired)),
            Op::Deleting | Op::Retire => found,
        };
        if matches!(ask.op, Op::Live | Op::Deleting | Op::Retire) && after != found {
            if let Some(e) = after {
                self.put(&rest, e).await?;
            }
        }
        Ok(after.map(|e| (rest, e)))
    }
}

impl DurableObject for Names {
    fn new(state: Ctx, env: Env) -> Self {
        Self { state, env }
    }

    /// Answers an [`Ask`]: the slug's part after the root and its entry (200), or none
    /// (404).
    async fn fetch(&self, mut req: Request) -> Result<Response> {
        let Some(ask) = Ask::decode(&req.text().await?) else {
            return Response::error("bad call", 400);
        };
        match self.answer(ask).await? {
            Some((rest, e)) => Response::ok(format!("{rest}\n{}", e.encode())),
            None => Response::error("no such entry", 404),
        }
    }
}
