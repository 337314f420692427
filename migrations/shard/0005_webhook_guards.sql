-- Webhooks keep to their scopes and their account's access (issue 29).

-- The token answerable for a webhook: the one that created it or last set its url, events
-- or status. Revoking that token disables the webhook. NULL on webhooks made before this
-- column existed (they keep delivering until changed).
ALTER TABLE webhooks ADD COLUMN token_id INTEGER;
CREATE INDEX webhooks_token ON webhooks (token_id) WHERE token_id IS NOT NULL;

-- 1 on an attempt asked for by redeliverEvent: at most 5 of those per webhook and event in
-- an hour (counted through deliveries_event).
ALTER TABLE deliveries ADD COLUMN redelivery INTEGER NOT NULL DEFAULT 0;

-- 1 on a pending attempt that waits because its account has no API access; restoring
-- access resumes them (found through deliveries_parked).
ALTER TABLE deliveries ADD COLUMN parked INTEGER NOT NULL DEFAULT 0;
CREATE INDEX deliveries_parked ON deliveries (account_id) WHERE parked = 1;
