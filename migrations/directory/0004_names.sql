-- Creates at home (regions.md 6). A slug is reserved, and retired when its card goes, by
-- its name's Durable Object (durable::names), near its writers; card ids come from the
-- account's shard. What stays here is each card's routing row, keyed by a keyed hash of
-- its slug and written after createCard answers (state is always 'live', reserved_at is
-- when it was written). The retirements and the pending rows' index go.
DROP INDEX slugs_pending;
DROP TABLE retired_slugs;
