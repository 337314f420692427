#!/usr/bin/env python3
"""Latency one rate-limiter call adds to an API request (p50), in local workerd.

Sequential requests over one keep-alive connection, interleaved so drift hits both sides:
  gated:   GET /api/v1/cards/x with a token -> authentication + rate limit in the token's
           Durable Object (one call), then a 404 without touching D1;
  ungated: GET /api/v1/nope -> the same worker's JSON 404, answered before authentication.
The difference of the medians is the cost of the gate call. Run: python3 bench/limiter_latency.py
(after `make build`); LATENCY_N sets the number of requests per side (default 500).
"""

import http.client
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import ROOT, WRANGLER, Worker  # noqa: E402
from bench import http as call  # noqa: E402

N = int(os.environ.get("LATENCY_N", "500"))
ADMIN = "latency-admin-token"


def timed(conn, path, headers):
    start = time.perf_counter()
    conn.request("GET", path, headers=headers)
    resp = conn.getresponse()
    resp.read()
    elapsed = (time.perf_counter() - start) * 1000
    return resp.status, elapsed


def main():
    state = tempfile.mkdtemp(prefix="cardapi-latency-")
    subprocess.run([os.path.join(ROOT, "scripts/migrate-local.sh"), "--persist-to", state],
                   cwd=ROOT, env={**os.environ, "CI": "true"}, check=True, capture_output=True)
    worker = Worker("api", os.path.join(ROOT, "wrangler.toml"),
                    {"ADMIN_TOKEN": ADMIN, "VISITOR_SALT": "x", "TOKEN_PEPPER": "bench", "RATE_LIMIT_PER_MINUTE": "100000000"}, state)
    try:
        account = call("POST", worker.base + "/admin/v1/accounts", ADMIN,
                       {"name": "Latency", "plan": "enterprise"})["data"]["id"]
        token = call("POST", f"{worker.base}/admin/v1/accounts/{account}/tokens", ADMIN,
                     {"name": "latency", "scopes": ["cards:read"]})["data"]["token"]
        conn = http.client.HTTPConnection("127.0.0.1", worker.port, timeout=30)
        gated_h = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        plain_h = {"Accept": "application/json"}
        for _ in range(50):  # warm-up: isolate, Durable Object, auth cache
            timed(conn, "/api/v1/cards/x", gated_h)
            timed(conn, "/api/v1/nope", plain_h)
        gated, ungated = [], []
        for _ in range(N):
            status, ms = timed(conn, "/api/v1/cards/x", gated_h)
            assert status == 404, status
            gated.append(ms)
            status, ms = timed(conn, "/api/v1/nope", plain_h)
            assert status == 404, status
            ungated.append(ms)
        q = lambda xs, p: statistics.quantiles(xs, n=100)[p - 1]  # noqa: E731
        for name, xs in (("gated (auth + limiter DO call)", gated), ("ungated (404 before auth)", ungated)):
            print(f"{name:34} p50 {statistics.median(xs):6.2f} ms  p90 {q(xs, 90):6.2f} ms  p99 {q(xs, 99):6.2f} ms")
        print(f"limiter call adds p50 {statistics.median(gated) - statistics.median(ungated):.2f} ms "
              f"per request ({N} sequential requests per side, keep-alive, local workerd)")
    finally:
        worker.stop()
        subprocess.run(["rm", "-rf", state])


if __name__ == "__main__":
    main()
