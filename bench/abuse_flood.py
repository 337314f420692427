#!/usr/bin/env python3
"""Re-runs the attacks of the abuse-resistance issue against the release worker in local
workerd and prints what got through (extensions.md 5).

1. Lead flood: one visitor (one CF-Connecting-IP) posts FLOOD_LEADS leads of 4 KB to one card.
   Prints how many were stored and how many refused with 429.
2. Token flood: FLOOD_TOKENS well-formed tokens this service never minted, sent from 8
   threads, while one thread measures a real token's latency (GET /api/v1/cards). Prints the
   real token's p50/p90 before and during the flood, and how many token Durable Objects exist
   on disk afterwards (one per token that ever reached the gate).

Run after `make build`: python3 bench/abuse_flood.py
"""

import http.client
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import ROOT, WRANGLER, Worker  # noqa: E402
from bench import http as call  # noqa: E402

FLOOD_LEADS = int(os.environ.get("FLOOD_LEADS", "200"))
FLOOD_TOKENS = int(os.environ.get("FLOOD_TOKENS", "2000"))
ADMIN = "flood-admin-token"


def request(conn, method, path, headers, body=None):
    start = time.perf_counter()
    conn.request(method, path, body=body, headers=headers)
    resp = conn.getresponse()
    resp.read()
    return resp.status, (time.perf_counter() - start) * 1000


def object_files(state, cls):
    d = os.path.join(state, "v3", "do", f"digital-business-card-api-{cls}")
    if not os.path.isdir(d):
        return 0
    return sum(1 for f in os.listdir(d) if f.endswith(".sqlite") and f != "metadata.sqlite")


def lead_flood(worker, token):
    card = call("POST", worker.base + "/api/v1/cards", token,
                {"first_name": "Flood", "last_name": "Target", "show_lead_form": True})["data"]
    conn = http.client.HTTPConnection("127.0.0.1", worker.port, timeout=30)
    body = json.dumps({"name": "Flood", "email": "flood@example.com", "message": "x" * 4000})
    headers = {"Content-Type": "application/json", "CF-Connecting-IP": "203.0.113.66",
               "User-Agent": "flood"}
    statuses = {}
    start = time.perf_counter()
    for _ in range(FLOOD_LEADS):
        status, _ = request(conn, "POST", f"/c/{card['slug']}/leads", headers, body)
        statuses[status] = statuses.get(status, 0) + 1
    elapsed = time.perf_counter() - start
    total = call("GET", f"{worker.base}/api/v1/leads?card_id={card['id']}", token)["meta"]["total"]
    print(f"lead flood: {FLOOD_LEADS} posts from one visitor in {elapsed:.1f} s -> "
          f"stored {total}, answers {dict(sorted(statuses.items()))}")


def token_flood(worker, token, state):
    conn = http.client.HTTPConnection("127.0.0.1", worker.port, timeout=30)
    real = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    for _ in range(50):
        request(conn, "GET", "/api/v1/cards", real)
    quiet = [request(conn, "GET", "/api/v1/cards", real)[1] for _ in range(200)]
    objects_before = object_files(state, "RateLimiter")
    done = threading.Event()
    refused = [0]
    lock = threading.Lock()
    per_thread = FLOOD_TOKENS // 8

    def flood():
        c = http.client.HTTPConnection("127.0.0.1", worker.port, timeout=30)
        for _ in range(per_thread):
            forged = "dbc_" + secrets.token_hex(32) + secrets.token_hex(8)
            status, _ = request(c, "GET", "/api/v1/cards",
                                {"Authorization": f"Bearer {forged}", "Accept": "application/json"})
            if status == 401:
                with lock:
                    refused[0] += 1

    threads = [threading.Thread(target=flood) for _ in range(8)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    during = []
    while any(t.is_alive() for t in threads):
        during.append(request(conn, "GET", "/api/v1/cards", real)[1])
    elapsed = time.perf_counter() - start
    done.set()
    q = lambda xs, p: statistics.quantiles(xs, n=100)[p - 1]  # noqa: E731
    print(f"token flood: {per_thread * 8} forged tokens in {elapsed:.1f} s "
          f"({per_thread * 8 / elapsed:.0f}/s), {refused[0]} refused with 401")
    print(f"  real token before: p50 {statistics.median(quiet):.2f} ms, p90 {q(quiet, 90):.2f} ms")
    print(f"  real token during: p50 {statistics.median(during):.2f} ms, p90 {q(during, 90):.2f} ms "
          f"({len(during)} requests)")
    print(f"  token Durable Objects on disk: {objects_before} before, "
          f"{object_files(state, 'RateLimiter')} after")


def main():
    state = tempfile.mkdtemp(prefix="cardapi-flood-")
    subprocess.run([os.path.join(ROOT, "scripts/migrate-local.sh"), "--persist-to", state],
                   cwd=ROOT, env={**os.environ, "CI": "true"}, check=True, capture_output=True)
    worker = Worker("api", os.path.join(ROOT, "wrangler.toml"),
                    {"ADMIN_TOKEN": ADMIN, "VISITOR_SALT": "x", "TOKEN_PEPPER": "flood",
                     "RATE_LIMIT_PER_MINUTE": "100000000"}, state)
    try:
        account = call("POST", worker.base + "/admin/v1/accounts", ADMIN,
                       {"name": "Flood", "plan": "enterprise"})["data"]["id"]
        token = call("POST", f"{worker.base}/admin/v1/accounts/{account}/tokens", ADMIN,
                     {"name": "flood", "scopes": ["cards:write", "leads:read"]})["data"]["token"]
        lead_flood(worker, token)
        token_flood(worker, token, state)
    finally:
        worker.stop()
        subprocess.run(["rm", "-rf", state])


if __name__ == "__main__":
    main()
