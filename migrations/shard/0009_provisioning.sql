-- Provisioning (provisioning.md). Three columns of a card, each NULL until set:
--   external_id: the integrator's own id (section 1);
--   scim_user_name: a SCIM User's userName (section 2), unique and filtered on;
--   scim_user: the User's attributes as SCIM last wrote them (JSON), so a User reads back
--     as written (types, primary flags, displayName, address parts) where the card's own
--     fields did not change since. The card API shows neither.
-- Uniqueness within an account is the indexes' (not a check in code): D1 runs one write at a
-- time, so of two racing writes of one value the second's batch fails whole, and the worker
-- answers it as taken. userName compares case-insensitively (RFC 7643 2.1: caseExact false);
-- NOCASE folds ASCII only, which is what identity providers send as user names in practice.
ALTER TABLE cards ADD COLUMN external_id TEXT;
ALTER TABLE cards ADD COLUMN scim_user_name TEXT;
ALTER TABLE cards ADD COLUMN scim_user TEXT;
CREATE UNIQUE INDEX cards_account_external_id ON cards (account_id, external_id)
    WHERE external_id IS NOT NULL;
CREATE UNIQUE INDEX cards_account_user_name ON cards (account_id, scim_user_name COLLATE NOCASE)
    WHERE scim_user_name IS NOT NULL;
