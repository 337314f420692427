"""Schemathesis hooks of the contract check (loaded through schemathesis.toml).

An Idempotency-Key may serve one request only: the same key with another method, path or
body is a 422 (extensions.md 3). Schemathesis draws keys from the header's schema, so
unrelated requests of a run would share keys such as "0" and be refused for a reason no
schema can express. In every request schemathesis means to be valid, the key is therefore
replaced by a fresh one just before the call. Requests meant to be invalid keep what was drawn:
they are refused anyway, and rewriting them would make schemathesis re-judge them as valid (and,
for instance, put back an Authorization header a missing-header test had left out). Replays are
tested end to end in tests/e2e/feed.rs.

The feed's `after` is an opaque cursor: only one the service handed out is valid (one past the
newest event is a 422 on `after`, one before the retained events a 410), which no schema can
express either. Valid requests therefore start from the first cursor, `cur_0`; the cursor rules
are tested end to end in tests/e2e/feed.rs.

An external id is unique within the account (provisioning.md 1): a card body that reuses one
another card of the run already has is a 422 on `external_id`, again for a reason no schema can
express. Valid card bodies therefore get a fresh one; uniqueness is tested end to end in
tests/e2e/cards.rs.
"""

import re
import uuid

import schemathesis

_WELL_FORMED = re.compile(r"[\x20-\x7e]{1,255}")


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.meta is not None and not case.meta.generation.mode.is_positive:
        return
    headers = case.headers or {}
    for name in list(headers):
        if name.lower() == "idempotency-key":
            value = headers[name]
            if isinstance(value, str) and _WELL_FORMED.fullmatch(value):
                headers[name] = f"contract-{uuid.uuid4().hex}"
    body = case.body
    if isinstance(body, dict) and isinstance(body.get("external_id"), str):
        body["external_id"] = f"contract-{uuid.uuid4().hex}"
    query = case.query or {}
    if "after" in query:
        query["after"] = "cur_0"
