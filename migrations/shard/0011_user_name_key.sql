-- A SCIM userName is unique per account and found in any case of any script (issue 46, 4).
-- The NOCASE index of 0009 folded A-Z only and normalised nothing: `ÄRZTE-u@…` and
-- `ärzte-u@…`, composed and decomposed forms, full-width forms and a leading space made
-- separate Users, and `userName eq` missed them. The key (src/domain/scim/user_name.rs:
-- NFKC, full case folding, no spaces at either end) is computed by the worker on every
-- SCIM write and from a filter's value, and compared with =; the name stays as written.
ALTER TABLE cards ADD COLUMN scim_user_key TEXT;

-- A printable-ASCII name's key is its trim(lower()) (a unit test of the key holds it to
-- that). Names NOCASE told apart can be one key now (" ada" and "ada"): the oldest card
-- keeps the key, the others get 'DUPLICATE {id} {key}', which no name keys to (a key has
-- no capital letters), so this index can be unique; such a User stays, found by its id,
-- until it is renamed or deleted. Any other name stays NULL here and is keyed by the
-- worker before the account's next SCIM write or userName filter
-- (store::cards::fill_user_keys), so none is missed meanwhile.
UPDATE cards SET scim_user_key = iif(k.n = 1, k.key, 'DUPLICATE ' || cards.id || ' ' || k.key)
FROM (SELECT id, trim(lower(scim_user_name)) AS key,
             row_number() OVER (PARTITION BY account_id, trim(lower(scim_user_name))
                                ORDER BY id) AS n
      FROM cards WHERE scim_user_name NOT GLOB '*[^ -~]*') AS k
WHERE cards.id = k.id;

DROP INDEX cards_account_user_name;
CREATE UNIQUE INDEX cards_account_user_key ON cards (account_id, scim_user_key)
    WHERE scim_user_key IS NOT NULL;
-- The names still to key, by account; empty once every account's are keyed.
CREATE INDEX cards_user_key_missing ON cards (account_id)
    WHERE scim_user_name IS NOT NULL AND scim_user_key IS NULL;
