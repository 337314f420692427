#!/usr/bin/env python3
"""Latency the aggregator's acknowledgement adds to a card page (p50, p95), in local workerd.

A counted view waits for the account's analytics Durable Object to hold the event durably
before the page answers (issue 46, 7: `public::tracking::send`). Sequential requests over
one keep-alive connection per worker, interleaved so drift hits every side alike:
  counted:   GET /c/{slug} as a browser -> the page, after the aggregator's 204;
  uncounted: GET /c/{slug} as a crawler -> the same page, no event at all.
LATENCY_BEFORE=DIR also serves another build (a copy of its build/ with wrangler.toml
beside it; e.g. of the code before issue 46, which handed the event over in `waitUntil`)
on state of its own, its two sides interleaved with these. Run: python3
bench/view_latency.py after `make build`; LATENCY_N sets the requests per side (default
300). README "Analytics" gives the numbers.
"""

import http.client
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import ROOT, Worker  # noqa: E402
from bench import http as call  # noqa: E402

N = int(os.environ.get("LATENCY_N", "300"))
ADMIN = "latency-admin-token"
BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"
CRAWLER = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"


def timed(conn, path, ua, n):
    start = time.perf_counter()
    # A visitor of its own per request, as real traffic: each counted view is a new one.
    conn.request("GET", path, headers={"User-Agent": f"{ua} v/{n}"})
    resp = conn.getresponse()
    resp.read()
    return resp.status, (time.perf_counter() - start) * 1000


def serve(name, config, states):
    """A migrated state directory (added to `states`) and the worker on it, with an
    account's card: (worker, connection, page path)."""
    state = tempfile.mkdtemp(prefix=f"cardapi-view-latency-{name}-")
    states.append(state)
    subprocess.run([os.path.join(ROOT, "scripts/migrate-local.sh"), "--persist-to", state],
                   cwd=ROOT, env={**os.environ, "CI": "true"}, check=True, capture_output=True)
    worker = Worker(name, config, {"ADMIN_TOKEN": ADMIN, "VISITOR_SALT": "x", "TOKEN_PEPPER": "bench"},
                    state)
    account = call("POST", worker.base + "/admin/v1/accounts", ADMIN,
                   {"name": "Latency", "plan": "enterprise"})["data"]["id"]
    token = call("POST", f"{worker.base}/admin/v1/accounts/{account}/tokens", ADMIN,
                 {"name": "latency", "scopes": ["cards:write"]})["data"]["token"]
    slug = call("POST", worker.base + "/api/v1/cards", token,
                {"first_name": "View", "last_name": "Latency"})["data"]["slug"]
    conn = http.client.HTTPConnection("127.0.0.1", worker.port, timeout=30)
    return worker, conn, f"/c/{slug}"


def main():
    builds = [("this build", os.path.join(ROOT, "wrangler.toml"))]
    if os.environ.get("LATENCY_BEFORE"):
        builds.append(("before", os.path.join(os.environ["LATENCY_BEFORE"], "wrangler.toml")))
    served, states = [], []
    try:
        for name, config in builds:
            served.append((name, *serve(name.replace(" ", "-"), config, states)))
        sides = [(f"{name}: {what}", conn, page, ua)
                 for name, _, conn, page in served
                 for what, ua in (("counted", BROWSER), ("uncounted (crawler)", CRAWLER))]
        for i in range(50):  # warm-up: isolate, the aggregator, the card's reads
            for _, conn, page, ua in sides:
                timed(conn, page, ua, -i)
        times = {label: [] for label, _, _, _ in sides}
        for i in range(N):
            for label, conn, page, ua in sides:
                status, ms = timed(conn, page, ua, i)
                assert status == 200, status
                times[label].append(ms)
        q = lambda xs, p: statistics.quantiles(xs, n=100)[p - 1]  # noqa: E731
        for label, xs in times.items():
            print(f"{label:34} p50 {statistics.median(xs):6.2f} ms  p95 {q(xs, 95):6.2f} ms  p99 {q(xs, 99):6.2f} ms")
        for name, *_ in served:
            counted, uncounted = times[f"{name}: counted"], times[f"{name}: uncounted (crawler)"]
            print(f"{name}: a counted page takes p50 {statistics.median(counted) - statistics.median(uncounted):+.2f} ms "
                  f"against an uncounted one")
        print(f"({N} sequential requests per line, interleaved, keep-alive, local workerd)")
    finally:
        for _, worker, _, _ in served:
            worker.stop()
        for state in states:
            subprocess.run(["rm", "-rf", state])


if __name__ == "__main__":
    main()
