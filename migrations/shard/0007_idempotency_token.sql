-- Kept idempotent responses (extensions.md 3) that hold a webhook signing secret are
-- replayed only to the token that made the request; kept bodies are sealed at rest.

-- The token whose request holds the key. NULL: kept before this migration, when bodies
-- were stored in plaintext; a row with a token has a sealed body (`gcm1:`, as webhook
-- secrets).
ALTER TABLE idempotency_keys ADD COLUMN token_id INTEGER;
-- 1 when the request's route answers with a secret (createWebhook, rotateWebhookSecret).
ALTER TABLE idempotency_keys ADD COLUMN holds_secret INTEGER NOT NULL DEFAULT 0;

-- Kept plaintext secrets go now rather than in 24 hours. Their rows stay (a retry with the
-- key must not create a second webhook) but have no token, so no request can prove it made
-- them: a repeat is refused (422 on Idempotency-Key) until the row expires. CASE, not AND:
-- json_type fails on text that is not JSON and SQLite does not promise to test AND in order.
UPDATE idempotency_keys SET holds_secret = 1, body = NULL
 WHERE CASE WHEN json_valid(body) THEN json_type(body, '$.data.secret') = 'text' ELSE 0 END;
