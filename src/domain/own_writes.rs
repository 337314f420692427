//! Read-your-writes without a hand-off call after the write (regions.md 5, extensions.md 6):
//! what the token's object keeps about the token's writes, and where a read must start.
//!
//! The gate marks the token when it admits a write and hands the write a mark id. The
//! writing isolate keeps `(mark, bookmark)` once the write is answered and sends it with
//! its next gate call for that token (a [`Settle`]), which clears that mark and raises the
//! token's bookmark. While any mark is outstanding, the token's reads start at the primary.
//!
//! **Invariant.** Let W be a write the gate admitted at time t. Its mark is stored under
//! its own id (never reused) before W runs, and stays until W's settle clears it or it
//! expires at t + [`MARK_EXPIRY_MS`] (past [`MAX_MARKS`], `primary_until` holds every read
//! at the primary until then instead); while it stays, every read starts at the primary.
//! W's settle clears W's mark only, and leaves the kept bookmark no older than W's. So a
//! read admitted after W was answered starts at the primary or after a bookmark no older
//! than W's, and sees W, unless W's bookmark did not arrive within the bound. A write
//! whose outcome is unknown (it reached D1 and failed) settles its bookmark but not its
//! mark ([`Settle::after_write`]).
//!
//! **The bound.** A mark whose bookmark never comes (the isolate went away, or never
//! calls the gate for this token again) expires [`MARK_EXPIRY_MS`] after it was made; from
//! then on that write is seen only if the replicas lag by less than that. Every other
//! anomaly (clock steps, marks beyond [`MAX_MARKS`], lost settles) errs towards the primary.
//!
//! **Order of bookmarks.** D1 bookmarks of one database are ordered as strings: D1's own
//! session keeps the newer of two bookmarks by string comparison (workerd's `d1-api`,
//! `D1DatabaseSession._updateBookmark`). They are fixed-width lowercase hex fields joined
//! by `-`, for which byte order and that comparison agree; [`newer`] uses byte order.

/// Milliseconds a mark lasts without its bookmark: the one window in which read-your-writes
/// rests on replica lag instead (regions.md 5 asks for at least 60 s).
pub const MARK_EXPIRY_MS: i64 = 120_000;

/// Marks kept one by one (the state is rewritten whole on a change). Beyond, a new mark
/// sends every read to the primary for the whole bound instead.
pub const MAX_MARKS: usize = 32;

/// One outstanding write: its id and when it was admitted (ms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    pub id: u64,
    pub at: i64,
}

/// What a writing isolate hands back: the write's mark (none if the gate was unreachable
/// when it was admitted) and its session's bookmark (none if it reached no D1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settle {
    pub mark: Option<u64>,
    pub bookmark: Option<String>,
}

impl Settle {
    /// What a finished write hands back, from its `mark`, whether it `touched` D1, the
    /// session's `bookmark` and whether it `failed` (a 5xx). A write that never reached
    /// D1 changed nothing: its mark goes. One that reached it and failed, or brought no
    /// bookmark back, may have committed unseen: its mark stays until it expires, and
    /// only its bookmark goes. `None`: nothing to hand back.
    pub fn after_write(
        mark: Option<u64>,
        touched: bool,
        bookmark: Option<String>,
        failed: bool,
    ) -> Option<Settle> {
        let known = !touched || (bookmark.is_some() && !failed);
        let mark = mark.filter(|_| known);
        (mark.is_some() || bookmark.is_some()).then_some(Settle { mark, bookmark })
    }
}

/// Where a token's next read starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadStart {
    /// A write may be in flight or answered without its bookmark known here.
    Primary,
    /// A replica at least as new as the token's newest settled write.
    After(String),
    /// The token never wrote (that this object knows): any replica.
    Anywhere,
}

/// The token's writes as its object keeps them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnWrites {
    /// The newest bookmark of a settled write.
    pub bookmark: Option<String>,
    /// Outstanding marks, oldest first.
    pub marks: Vec<Mark>,
    /// The id of the next mark; ids are never reused.
    pub next_id: u64,
    /// Reads start at the primary until then (ms): marks that did not fit in [`MAX_MARKS`],
    /// or a move of the account to another shard.
    pub primary_until: i64,
    /// The shard the bookmark and marks are of (regions.md): a bookmark of one D1 database
    /// means nothing to another.
    pub shard: String,
    /// The first mark id admitted on that shard: a later settle of an older mark carries
    /// the old shard's bookmark, which is not kept.
    pub shard_since: u64,
}

/// Whether `a` is a newer bookmark than `b` (see the module's note on their order).
pub fn newer(a: &str, b: &str) -> bool {
    a.as_bytes() > b.as_bytes()
}

/// A D1 bookmark is a short printable token; anything else is never kept (it would
/// outrank real ones).
fn plausible(b: &str) -> bool {
    !b.is_empty() && b.len() <= 256 && b.bytes().all(|c| c.is_ascii_graphic())
}

impl OwnWrites {
    /// Marks a write admitted at `now`; its id goes back with the write's [`Settle`].
    pub fn admit_write(&mut self, now: i64) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        if self.marks.len() >= MAX_MARKS {
            self.primary_until = self.primary_until.max(now + MARK_EXPIRY_MS);
        } else {
            self.marks.push(Mark { id, at: now });
        }
        id
    }

    /// A write's bookmark arrived: its mark (only its own) goes, and the kept bookmark
    /// becomes the newer of the two. An unknown mark (expired, settled, never kept)
    /// clears nothing. Whether anything changed.
    pub fn settle(&mut self, settle: &Settle) -> bool {
        let before = self.marks.len();
        if let Some(id) = settle.mark {
            self.marks.retain(|m| m.id != id);
        }
        let mut changed = self.marks.len() != before;
        // A write admitted before the account moved brings the old shard's bookmark.
        let this_shard = match settle.mark {
            Some(id) => id >= self.shard_since,
            None => self.shard_since == 0,
        };
        if let Some(b) = settle
            .bookmark
            .as_deref()
            .filter(|b| plausible(b) && this_shard)
        {
            if self.bookmark.as_deref().is_none_or(|kept| newer(b, kept)) {
                self.bookmark = Some(b.to_string());
                changed = true;
            }
        }
        changed
    }

    /// The account's data is in `shard` at `now`. If it moved since (regions.md 4), the kept
    /// bookmark is of the old shard: it goes, and reads start at the new shard's primary
    /// for the bound (the move wrote there, and its replicas may lag). Whether anything
    /// changed.
    pub fn on_shard(&mut self, shard: &str, now: i64) -> bool {
        if self.shard == shard {
            return false;
        }
        if !self.shard.is_empty() {
            self.bookmark = None;
            self.primary_until = self.primary_until.max(now + MARK_EXPIRY_MS);
            self.shard_since = self.next_id;
        }
        self.shard = shard.to_string();
        true
    }

    /// Forgets marks made [`MARK_EXPIRY_MS`] or more before `now`. Whether any went.
    pub fn expire(&mut self, now: i64) -> bool {
        let before = self.marks.len();
        self.marks.retain(|m| live(m.at, now));
        self.marks.len() != before
    }

    /// Where a read admitted at `now` starts.
    pub fn read_start(&self, now: i64) -> ReadStart {
        if now < self.primary_until || self.marks.iter().any(|m| live(m.at, now)) {
            return ReadStart::Primary;
        }
        match &self.bookmark {
            Some(b) => ReadStart::After(b.clone()),
            None => ReadStart::Anywhere,
        }
    }

    /// The state as its object stores it: `next_id;primary_until;marks;shard@since;bookmark`,
    /// the marks as `id:at` pairs joined by `,`, the bookmark last and empty when none.
    pub fn to_text(&self) -> String {
        let marks: Vec<String> = self
            .marks
            .iter()
            .map(|m| format!("{}:{}", m.id, m.at))
            .collect();
        format!(
            "{};{};{};{}@{};{}",
            self.next_id,
            self.primary_until,
            marks.join(","),
            self.shard,
            self.shard_since,
            self.bookmark.as_deref().unwrap_or_default()
        )
    }

    /// The state from [`Self::to_text`]. Text that does not parse (never written so)
    /// loses nothing it could have held: reads start at the primary for the whole bound
    /// from `now`, and ids go on from the clock (in ms times 1024), above any counted one.
    pub fn from_text(text: &str, now: i64) -> OwnWrites {
        let mut parts = text.splitn(5, ';');
        let (next, until, marks, shard, bookmark) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        );
        let parsed = (|| {
            Some(OwnWrites {
                next_id: next?.parse().ok()?,
                primary_until: until?.parse().ok()?,
                marks: parse_marks(marks?)?,
                shard: shard?.split_once('@')?.0.to_string(),
                shard_since: shard?.split_once('@')?.1.parse().ok()?,
                bookmark: Some(bookmark?.to_string()).filter(|b| plausible(b)),
            })
        })();
        parsed.unwrap_or(OwnWrites {
            bookmark: None,
            marks: vec![],
            next_id: (now.max(0) as u64).saturating_mul(1024),
            primary_until: now + MARK_EXPIRY_MS,
            shard: String::new(),
            shard_since: 0,
        })
    }
}

/// `id:at` pairs joined by `,`; `None` if one does not parse.
fn parse_marks(text: &str) -> Option<Vec<Mark>> {
    text.split(',')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (id, at) = pair.split_once(':')?;
            Some(Mark {
                id: id.parse().ok()?,
                at: at.parse().ok()?,
            })
        })
        .collect()
}

/// A mark made at `at` still holds at `now`. A clock that stepped back keeps it (errs
/// towards the primary).
fn live(at: i64, now: i64) -> bool {
    now - at < MARK_EXPIRY_MS
}

#[cfg(test)]
mod tests {
    use super::*;

    const B1: &str = "00000085-0000024c-00004c6d-8e61117bf38d7adb71b934ebbf891683";
    const B2: &str = "00000085-0000024c-00004c6e-0a1b2c3d4e5f60718293a4b5c6d7e8f9";
    const B3: &str = "00000086-00000001-00000001-00000000000000000000000000000000";

    fn settle(mark: u64, bookmark: &str) -> Settle {
        Settle {
            mark: Some(mark),
            bookmark: Some(bookmark.into()),
        }
    }

    #[test]
    fn a_write_whose_outcome_is_unknown_keeps_its_mark() {
        let b = || Some(B1.to_string());
        // Answered with its bookmark: the mark goes.
        assert_eq!(
            Settle::after_write(Some(3), true, b(), false),
            Some(settle(3, B1))
        );
        // Refused before D1 (validation, scope, a moving account): nothing was written.
        let untouched = Settle {
            mark: Some(3),
            bookmark: None,
        };
        assert_eq!(
            Settle::after_write(Some(3), false, None, true),
            Some(untouched)
        );
        // Reached D1 and failed, or no bookmark came back: it may have committed.
        let kept = Settle {
            mark: None,
            bookmark: b(),
        };
        assert_eq!(Settle::after_write(Some(3), true, b(), true), Some(kept));
        assert_eq!(Settle::after_write(Some(3), true, None, false), None);
        // Admitted while the gate was unreachable: no mark, the bookmark still goes.
        let unmarked = Settle {
            mark: None,
            bookmark: b(),
        };
        assert_eq!(Settle::after_write(None, true, b(), false), Some(unmarked));
        assert_eq!(Settle::after_write(None, false, None, false), None);
    }

    #[test]
    fn a_token_that_never_wrote_reads_anywhere() {
        assert_eq!(OwnWrites::default().read_start(0), ReadStart::Anywhere);
    }

    #[test]
    fn a_write_sends_reads_to_the_primary_until_its_bookmark_comes() {
        let mut w = OwnWrites::default();
        let id = w.admit_write(1_000);
        assert_eq!(w.read_start(1_001), ReadStart::Primary);
        assert!(w.settle(&settle(id, B1)));
        assert_eq!(w.read_start(1_002), ReadStart::After(B1.into()));
        assert!(w.marks.is_empty());
    }

    #[test]
    fn one_writes_bookmark_does_not_clear_anothers_mark() {
        let mut w = OwnWrites::default();
        let a = w.admit_write(1_000);
        let b = w.admit_write(1_010);
        assert_ne!(a, b);
        // b answered first, its isolate called again: a is still in flight.
        w.settle(&settle(b, B2));
        assert_eq!(w.read_start(1_020), ReadStart::Primary);
        // a's bookmark is older than b's: the kept one stays the newest.
        w.settle(&settle(a, B1));
        assert_eq!(w.read_start(1_030), ReadStart::After(B2.into()));
        // A settle that comes twice, or for a mark never made, clears nothing else.
        let c = w.admit_write(1_040);
        assert!(!w.settle(&settle(a, B1)));
        assert!(!w.settle(&settle(99, B1)));
        assert_eq!(w.read_start(1_050), ReadStart::Primary);
        w.settle(&settle(c, B3));
        assert_eq!(w.read_start(1_060), ReadStart::After(B3.into()));
    }

    #[test]
    fn a_mark_whose_bookmark_never_comes_expires_after_the_bound() {
        let mut w = OwnWrites::default();
        w.settle(&Settle {
            mark: None,
            bookmark: Some(B1.into()),
        });
        let lost = w.admit_write(10_000);
        let last = 10_000 + MARK_EXPIRY_MS - 1;
        assert_eq!(w.read_start(last), ReadStart::Primary);
        assert!(!w.expire(last));
        assert_eq!(w.read_start(last + 1), ReadStart::After(B1.into()));
        assert!(w.expire(last + 1));
        // A later write's mark is not cleared by the lost one's late bookmark.
        let next = w.admit_write(last + 5);
        w.settle(&settle(lost, B2));
        assert_eq!(w.read_start(last + 6), ReadStart::Primary);
        w.settle(&settle(next, B3));
        assert_eq!(w.read_start(last + 7), ReadStart::After(B3.into()));
        // Each mark expires on its own: a lost one does not hold a newer one's reads.
        let old = w.admit_write(100_000);
        let new = w.admit_write(100_000 + MARK_EXPIRY_MS / 2);
        w.settle(&settle(new, B3));
        assert_eq!(
            w.read_start(100_000 + MARK_EXPIRY_MS),
            ReadStart::After(B3.into())
        );
        assert!(w.marks.iter().any(|m| m.id == old));
    }

    #[test]
    fn a_clock_that_steps_back_keeps_marks() {
        let mut w = OwnWrites::default();
        w.admit_write(50_000);
        assert_eq!(w.read_start(1_000), ReadStart::Primary);
        assert!(!w.expire(1_000));
    }

    #[test]
    fn marks_beyond_the_cap_hold_every_read_at_the_primary_for_the_bound() {
        let mut w = OwnWrites::default();
        let ids: Vec<u64> = (0..MAX_MARKS as i64).map(|i| w.admit_write(i)).collect();
        let over = w.admit_write(1_000);
        assert_eq!(w.marks.len(), MAX_MARKS);
        for id in ids.iter().chain([&over]) {
            w.settle(&settle(*id, B1));
        }
        assert!(w.marks.is_empty());
        assert_eq!(w.read_start(1_000 + MARK_EXPIRY_MS - 1), ReadStart::Primary);
        assert_eq!(
            w.read_start(1_000 + MARK_EXPIRY_MS),
            ReadStart::After(B1.into())
        );
    }

    #[test]
    fn the_kept_bookmark_is_the_newest_and_plausible() {
        let mut w = OwnWrites::default();
        for b in [B2, B1, B3, B2] {
            w.settle(&Settle {
                mark: None,
                bookmark: Some(b.into()),
            });
        }
        assert_eq!(w.bookmark.as_deref(), Some(B3));
        for bad in ["", "zz z", "é", &"z".repeat(257)] {
            assert!(!w.settle(&Settle {
                mark: None,
                bookmark: Some(bad.into()),
            }));
        }
        assert_eq!(w.bookmark.as_deref(), Some(B3));
        assert!(newer(B2, B1) && !newer(B1, B2) && !newer(B1, B1));
    }

    #[test]
    fn a_move_drops_the_old_shards_bookmark_and_reads_the_new_primary_for_the_bound() {
        let now = 1_700_000_000_000;
        let mut w = OwnWrites::default();
        assert!(w.on_shard("SHARD_A", now), "the first shard is recorded");
        w.settle(&settle(0, B1));
        assert!(!w.on_shard("SHARD_A", now));
        assert_eq!(w.read_start(now), ReadStart::After(B1.into()));
        assert!(w.on_shard("SHARD_B", now + 10));
        assert_eq!(w.bookmark, None);
        assert_eq!(
            w.read_start(now + 10 + MARK_EXPIRY_MS - 1),
            ReadStart::Primary
        );
        assert_eq!(w.read_start(now + 10 + MARK_EXPIRY_MS), ReadStart::Anywhere);
    }

    #[test]
    fn the_state_round_trips_through_its_text() {
        let now = 1_700_000_000_000;
        let mut w = OwnWrites::default();
        assert_eq!(OwnWrites::from_text(&w.to_text(), now), w);
        w.admit_write(5);
        w.admit_write(now);
        assert_eq!(OwnWrites::from_text(&w.to_text(), now), w);
        w.settle(&settle(0, "odd;one:out,x"));
        w.primary_until = now + 7;
        assert_eq!(
            w.to_text(),
            "2;1700000000007;1:1700000000000;@0;odd;one:out,x"
        );
        w.on_shard("SHARD_A", now);
        assert_eq!(OwnWrites::from_text(&w.to_text(), now), w);
        assert_eq!(OwnWrites::from_text(&w.to_text(), now), w);
    }

    #[test]
    fn a_state_that_does_not_parse_holds_reads_at_the_primary_with_fresh_ids() {
        let now = 1_700_000_000_000;
        for bad in [
            "",
            "1;2",
            "x;0;;@0;",
            "1;0;1:x;@0;",
            "1;0;5;@0;",
            "1;0;;b",
            "1;0;;A@x;",
        ] {
            let mut w = OwnWrites::from_text(bad, now);
            assert_eq!(w.read_start(now + MARK_EXPIRY_MS - 1), ReadStart::Primary);
            assert_eq!(w.read_start(now + MARK_EXPIRY_MS), ReadStart::Anywhere);
            assert!(w.admit_write(now) > 1_000_000_000_000, "{bad:?}");
        }
    }
}
