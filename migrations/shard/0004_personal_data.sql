-- Personal data (extensions.md 8): retention, consent, and erasure that reaches the change
-- feed's copies in one statement per table.

-- Days an account keeps its leads (NULL: no limit); the cron erases older ones.
ALTER TABLE accounts ADD COLUMN lead_retention_days INTEGER
    CHECK (lead_retention_days IS NULL OR lead_retention_days BETWEEN 1 AND 3650);
-- When set, the lead form asks for consent and links here.
ALTER TABLE accounts ADD COLUMN privacy_policy_url TEXT;

-- When the visitor consented (NULL: no consent was asked for).
ALTER TABLE leads ADD COLUMN consent_at INTEGER;
-- listLeads?email= and erase by email: an account's leads of one address, any case.
CREATE INDEX leads_account_email ON leads (account_id, email COLLATE NOCASE);

-- The lead an event is about (lead.created, lead.deleted): erasing a lead redacts the
-- snapshots that carry it with one indexed UPDATE instead of a scan of the JSON.
ALTER TABLE events ADD COLUMN lead_id INTEGER;
UPDATE events SET lead_id = json_extract(object, '$.lead.id') WHERE type = 'lead.created';
CREATE INDEX events_lead ON events (lead_id) WHERE lead_id IS NOT NULL;
