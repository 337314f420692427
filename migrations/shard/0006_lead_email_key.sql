-- listLeads?email= and erase by email match an address in any case of any script (issue
-- 29): SQLite's NOCASE folds A-Z only. The key is computed by the worker
-- (src/domain/email_key.rs) on every insert and from the query value, and compared with =.
ALTER TABLE leads ADD COLUMN email_key TEXT;

-- A pure-ASCII address's key is its ASCII lower case, which lower() computes exactly (a
-- unit test of email_key holds it to that). Any other stays NULL here and is keyed by the
-- worker: before every match on the account's leads and by the every-minute cron, so no
-- query misses a lead meanwhile.
UPDATE leads SET email_key = lower(email) WHERE email NOT GLOB '*[^ -~]*';

DROP INDEX leads_account_email;
CREATE INDEX leads_account_email_key ON leads (account_id, email_key);
-- The cron's backlog of leads without a key; empty once it is worked off.
CREATE INDEX leads_email_key_missing ON leads (id) WHERE email_key IS NULL;
