#!/usr/bin/env python3
"""Latency model: modelled p50 of getCard, listCards and createCard for clients in each D1 region.

Not a measurement. Every API request is, on its critical path:

    client <-> edge RTT          the Worker runs at the Cloudflare location nearest the client
  + worker CPU                   local CPU ms per request of the endpoint (bench/results.md)
  + gate                         call to the token's Durable Object (auth + rate limit); the
                                 object lives in the client's region: one intra-region RTT,
                                 its CPU, and the confirmation of the limiter's storage write
                                 (the object holds its answer until the write is durable)
  + D1 round trip                RTT from the Worker's region to the D1 instance's region
                                 (published inter-region table) + query execution; a write
                                 also waits for the primary's durable commit
  [+ bookmark hand-off]          writes with sessions: one more call to the token's object

Designs:
  before         gate, then D1; all D1 work at the primary.
  sessions       reads from the replica in the client's region; writes at the primary, then
                 the bookmark hand-off; still sequential.
  parallel gate  as sessions, but a read starts with the gate: max(gate, D1) instead of the
                 sum. Writes as sessions (a write must not run before the gate admits it).
Each endpoint makes exactly one D1 round trip (one batch) on its critical path.
Run: python3 bench/geo.py  (standard library only; prints a Markdown table).
"""

# --- Inputs -------------------------------------------------------------------------------

# Inter-region round trips, ms: Microsoft, "Azure network round-trip latency statistics",
# monthly P50 over the 30 days ending 2026-07-30,
#   https://learn.microsoft.com/en-us/azure/networking/azure-network-latency
# Row = source (the Worker's region), column = destination, as published (not symmetrised).
# Each D1 region stands for one Azure region (a city near Cloudflare data centres there):
AZURE_REGION = {
    "ENAM": "East US (Virginia)",
    "WNAM": "West US (California)",
    "WEUR": "UK South (London)",
    "EEUR": "Poland Central (Warsaw)",
    "APAC": "Japan East (Tokyo)",
    "OC": "Australia East (Sydney)",
}
REGIONS = list(AZURE_REGION)
RTT_MS = {  # None: same region, see INTRA_REGION_RTT_MS
    #       ENAM  WNAM  WEUR  EEUR  APAC   OC
    "ENAM": (None, 69, 78, 100, 162, 201),
    "WNAM": (67, None, 140, 161, 108, 140),
    "WEUR": (78, 140, None, 29, 229, 261),
    "EEUR": (102, 161, 29, None, 249, 278),
    "APAC": (162, 107, 230, 250, None, 103),
    "OC": (202, 140, 261, 278, 104, None),
}

# Worker <-> a Durable Object or D1 replica in the same D1 region. Assumption: the object or
# replica is in a nearby data centre, not always the Worker's own. The same table gives 8-12
# ms between neighbouring regions (East US - East US 2 8, UK South - West Europe 11, Japan
# East - Japan West 11, Australia East - Australia Central 8): 10 ms.
INTRA_REGION_RTT_MS = 10.0

# Client <-> nearest Cloudflare location. Assumption (a typical last-mile p50, not a
# measurement): Cloudflare's Agents Week 2026 network update quotes user RTTs of 12 ms
# (Wroclaw) to 37 ms (Malang); summary at
#   https://sysdesign-wiki.pages.dev/sources/2026-04-17-cloudflare-agents-week-network-performance-update/
# It is added to every design alike, so it only dilutes the ratios.
CLIENT_EDGE_RTT_MS = 20.0

# Worker CPU per request: "CPU ms/req" of the last `make bench` run (bench/results.md,
# 2026-11-23 00:24 UTC, local workerd). Over-counts: locally the D1 and Durable Object
# simulators run in the same process (~2.6 ms of it, bench/README.md).
WORKER_CPU_MS = {"getCard": 5.59, "listCards": 6.26, "createCard": 5.30}
WRITES = {"createCard"}

# Token object CPU per call: +1.1-1.3 ms measured locally (bench/README.md, cost table).
DO_CPU_MS = 1.2
# Confirmation of a durable write (the limiter's window on every gate call; a D1 write at the
# primary). A Durable Object holds its output until followers in nearby data centres confirm
# ("Zero-latency SQLite storage in every Durable Object",
# https://blog.cloudflare.com/sqlite-in-durable-objects/). Assumption: 3 ms.
WRITE_CONFIRM_MS = 3.0
# D1 query execution per batch: one D1 round trip, even `SELECT 1`, costs 1.3-1.4 ms locally
# (bench/README.md); taken as the execution time of these indexed one-batch queries.
D1_EXEC_MS = 1.4
# The D1 primary's region.
PRIMARY = "WNAM"

# --- Model --------------------------------------------------------------------------------


def rtt(src, dst):
    return INTRA_REGION_RTT_MS if src == dst else RTT_MS[src][REGIONS.index(dst)]


def gate():
    return INTRA_REGION_RTT_MS + DO_CPU_MS + WRITE_CONFIRM_MS


def handoff():  # the new bookmark, kept in the object's memory (no storage write assumed)
    return INTRA_REGION_RTT_MS + DO_CPU_MS


def d1(region, endpoint, at):
    return rtt(region, at) + D1_EXEC_MS + (WRITE_CONFIRM_MS if endpoint in WRITES else 0.0)


def model(region, endpoint):
    """(before, sessions, parallel gate) in ms for a client in `region`."""
    base = CLIENT_EDGE_RTT_MS + WORKER_CPU_MS[endpoint]
    before = base + gate() + d1(region, endpoint, PRIMARY)
    if endpoint in WRITES:
        sessions = parallel = base + gate() + d1(region, endpoint, PRIMARY) + handoff()
    else:
        sessions = base + gate() + d1(region, endpoint, region)
        parallel = base + max(gate(), d1(region, endpoint, region))
    return before, sessions, parallel


def main():
    print(f"Modelled p50 latency, ms (D1 primary in {PRIMARY}; replicas in every region)\n")
    print("| client region | endpoint | before | sessions | parallel gate | parallel/before |")
    print("|---|---|---:|---:|---:|---:|")
    for region in REGIONS:
        for endpoint in WORKER_CPU_MS:
            b, s, p = model(region, endpoint)
            print(f"| {region} | {endpoint} | {b:.0f} | {s:.0f} | {p:.0f} | {p / b:.2f} |")
    b, s, p = model("APAC", "getCard")
    verdict = "yes" if p <= b / 2 else "no"
    print(f"\nAPAC getCard: {b:.1f} -> {s:.1f} -> {p:.1f} ms; "
          f"parallel gate at most half of before: {verdict} ({p / b:.2f}x)")


if __name__ == "__main__":
    main()
