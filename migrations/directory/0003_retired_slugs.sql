-- Retired slugs (regions.md 1, product.md 1): a deleted card's slug is printed on business
-- cards and QR codes, so for 365 days no other account may take it (a new card of that
-- name elsewhere gets the next free suffix) and its page answers 404; the account that
-- deleted it gets it back if it makes a card of that name again. After 365 days the row
-- goes (the daily upkeep) and the name is free for anyone.
CREATE TABLE retired_slugs (
    slug       TEXT    PRIMARY KEY,
    -- The account that deleted it (kept after that account is deleted too).
    account_id INTEGER NOT NULL,
    retired_at INTEGER NOT NULL
);
CREATE INDEX retired_slugs_at ON retired_slugs (retired_at);

-- Set when a delete makes a live row pending (the card is about to go): if the sweeper
-- then finds no card, the slug was published and is retired, not released.
ALTER TABLE slugs ADD COLUMN deleting_at INTEGER;
