#!/usr/bin/env python3
"""Smoke check of a running deployment, end to end, leaving nothing behind.

    BASE_URL=https://cards.example.com ADMIN_TOKEN=... python3 scripts/smoke.py
    (or `make smoke BASE_URL=... ADMIN_TOKEN=...`)

ADMIN_URL (default BASE_URL) is where /admin/v1 is served when ADMIN_HOSTS keeps it on
another host. It creates a throw-away account ("smoke-<time>") and a token, then a card;
opens its page, posts a lead through the form, reads the lead, the analytics and the
change feed; deletes the card, revokes the token, checks that the token is refused, and
deletes the account. One line per step, then a verdict; exit 0 only when every step
passed. Whatever happens, the account it made is deleted before it exits.

Standard library only, so it runs wherever Python 3.8+ does.
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid

# A browser's User-Agent: the public pages do not count or accept leads from bots.
BROWSER = ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
           "Chrome/120.0 Safari/537.36 cardapi-smoke")
ANALYTICS_WAIT_S = 20


class StepFailed(Exception):
    pass


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(NoRedirect)


def request(method, url, token=None, body=None, headers=None):
    """(status, headers, text); never raises for an HTTP status."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("User-Agent", BROWSER)
    req.add_header("Accept", "application/json, text/html")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with OPENER.open(req, timeout=30) as r:
            return r.status, r.headers, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode("utf-8", "replace")
    except (urllib.error.URLError, OSError) as e:
        raise StepFailed(f"{method} {url}: {getattr(e, 'reason', e)}") from None


def expect(status, want, text, what):
    if status != want:
        raise StepFailed(f"{what}: HTTP {status} (expected {want}): {text[:300]}")


def body_of(text, what):
    try:
        return json.loads(text)
    except ValueError:
        raise StepFailed(f"{what}: not JSON: {text[:200]}") from None


class Smoke:
    def __init__(self, base, admin_url, admin_token):
        self.base, self.admin_url, self.admin_token = base, admin_url, admin_token
        self.account = self.token = self.token_id = self.card = None
        self.passed = 0

    def api(self, method, path, body=None, headers=None):
        return request(method, f"{self.base}/api/v1{path}", self.token, body, headers)

    def admin(self, method, path, body=None):
        return request(method, f"{self.admin_url}/admin/v1{path}", self.admin_token, body)

    def step(self, name, fn):
        started = time.monotonic()
        detail = fn()
        self.passed += 1
        ms = (time.monotonic() - started) * 1000
        print(f"  ok   {name:<22} {ms:7.0f} ms  {detail}", flush=True)

    # The steps, in order.

    def create_account(self):
        name = time.strftime("smoke-%Y%m%dT%H%M%SZ", time.gmtime())
        s, _, t = self.admin("POST", "/accounts", {"name": name, "plan": "enterprise"})
        if s in (401, 404):
            raise StepFailed(f"operator API answered {s}: check ADMIN_TOKEN and ADMIN_URL "
                             "(ADMIN_HOSTS may serve /admin/v1 on another host)")
        expect(s, 201, t, "create account")
        self.account = body_of(t, "account")["data"]["id"]
        return f"account {self.account} ({name})"

    def mint_token(self):
        scopes = ["cards:read", "cards:write", "leads:read", "leads:write", "analytics:read"]
        s, _, t = self.admin("POST", f"/accounts/{self.account}/tokens",
                             {"name": "smoke", "scopes": scopes})
        expect(s, 201, t, "create token")
        data = body_of(t, "token")["data"]
        self.token, self.token_id = data["token"], data["id"]
        return f"token {self.token_id}"

    def create_card(self):
        key = str(uuid.uuid4())
        card = {"first_name": "Smoke", "last_name": "Check", "email": "smoke@example.com",
                "show_lead_form": True}
        s, _, t = self.api("POST", "/cards", card, {"Idempotency-Key": key})
        expect(s, 201, t, "create card")
        self.card = body_of(t, "card")["data"]
        s2, h2, t2 = self.api("POST", "/cards", card, {"Idempotency-Key": key})
        expect(s2, 201, t2, "replayed create card")
        if body_of(t2, "replay")["data"]["id"] != self.card["id"]:
            raise StepFailed("an Idempotency-Key replay created a second card")
        return f"card {self.card['id']} /c/{self.card['slug']} (replay answered the same)"

    def open_page(self):
        s, h, t = request("GET", f"{self.base}/c/{self.card['slug']}?src=smoke")
        expect(s, 200, t, "card page")
        if "Smoke" not in t or not h.get("Content-Type", "").startswith("text/html"):
            raise StepFailed("the card page does not show the card")
        return f"{len(t)} bytes of HTML"

    def post_lead(self):
        lead = {"name": "Smoke Visitor", "email": "visitor@smoke.example", "message": "hello"}
        s, _, t = request("POST", f"{self.base}/c/{self.card['slug']}/leads", body=lead)
        expect(s, 201, t, "lead form")
        return "lead captured"

    def read_leads(self):
        s, _, t = self.api("GET", "/leads?email=visitor@smoke.example")
        expect(s, 200, t, "list leads")
        leads = body_of(t, "leads")["data"]
        if len(leads) != 1 or leads[0]["card_id"] != self.card["id"]:
            raise StepFailed(f"expected the one lead of card {self.card['id']}, got {leads}")
        return f"lead {leads[0]['id']}"

    def read_analytics(self):
        # Views are counted after the page is answered; give them a moment.
        deadline = time.monotonic() + ANALYTICS_WAIT_S
        while True:
            s, _, t = self.api("GET", f"/analytics/views?card_id={self.card['id']}&period=7d")
            expect(s, 200, t, "analytics")
            views = body_of(t, "analytics")["data"]["total_views"]
            if views >= 1 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        if views < 1:
            raise StepFailed(f"the page view is not counted after {ANALYTICS_WAIT_S} s")
        return f"{views} view(s)"

    def read_feed(self):
        s, _, t = self.api("GET", "/events?per_page=100")
        expect(s, 200, t, "change feed")
        types = [e["type"] for e in body_of(t, "feed")["data"]]
        if types[:2] != ["card.created", "lead.created"]:
            raise StepFailed(f"expected card.created then lead.created, got {types}")
        return f"{len(types)} event(s): {', '.join(types)}"

    def delete_card(self):
        s, _, t = self.api("DELETE", f"/cards/{self.card['id']}")
        expect(s, 200, t, "delete card")
        s, _, t = request("GET", f"{self.base}/c/{self.card['slug']}")
        expect(s, 404, t, "the deleted card's page")
        return "card and its lead deleted, page 404"

    def revoke_token(self):
        s, _, t = self.admin("DELETE", f"/tokens/{self.token_id}")
        expect(s, 200, t, "revoke token")
        s, _, t = self.api("GET", "/cards")
        expect(s, 401, t, "a revoked token")
        return "revoked, refused at once"

    def delete_account(self):
        s, _, t = self.admin("DELETE", f"/accounts/{self.account}")
        expect(s, 200, t, "delete account")
        self.account = None
        return "nothing left behind"


def main():
    base = os.environ.get("BASE_URL", "").rstrip("/")
    admin_token = os.environ.get("ADMIN_TOKEN", "")
    if not base or not admin_token:
        sys.exit("usage: BASE_URL=https://... ADMIN_TOKEN=... [ADMIN_URL=https://...] "
                 "python3 scripts/smoke.py")
    admin_url = (os.environ.get("ADMIN_URL") or base).rstrip("/")
    smoke = Smoke(base, admin_url, admin_token)
    steps = [
        ("create account", smoke.create_account),
        ("mint token", smoke.mint_token),
        ("create card", smoke.create_card),
        ("open card page", smoke.open_page),
        ("post lead", smoke.post_lead),
        ("read leads", smoke.read_leads),
        ("read analytics", smoke.read_analytics),
        ("read change feed", smoke.read_feed),
        ("delete card", smoke.delete_card),
        ("revoke token", smoke.revoke_token),
        ("delete account", smoke.delete_account),
    ]
    print(f"==> smoke check of {base}" + (f" (operator API at {admin_url})" if admin_url != base else ""))
    started = time.monotonic()
    failed_at = None
    for name, fn in steps:
        try:
            smoke.step(name, fn)
        except StepFailed as e:
            failed_at = name
            print(f"  FAIL {name:<22} {e}", flush=True)
            break
        except (KeyError, TypeError, IndexError, AttributeError) as e:
            failed_at = name
            print(f"  FAIL {name:<22} unexpected answer ({type(e).__name__}: {e})", flush=True)
            break
    if smoke.account is not None:
        # Clean up what a failed run made; its own failure is reported, not raised.
        try:
            s, _, t = smoke.admin("DELETE", f"/accounts/{smoke.account}")
            print(f"  cleanup: account {smoke.account} " + ("deleted" if s == 200 else f"NOT deleted (HTTP {s})"))
        except StepFailed as e:
            print(f"  cleanup: account {smoke.account} NOT deleted ({e})")
    took = time.monotonic() - started
    if failed_at:
        print(f"==> smoke: FAILED at '{failed_at}' ({smoke.passed} of {len(steps)} steps passed, {took:.1f} s)")
        sys.exit(1)
    print(f"==> smoke: PASSED ({len(steps)} steps in {took:.1f} s)")


if __name__ == "__main__":
    main()
