#!/usr/bin/env python3
"""Latency model: modelled p50 of API requests for clients in each D1 region.

Not a measurement. Every API request is, on its critical path:

    client <-> edge RTT          the Worker runs at the Cloudflare location nearest the client
  + worker CPU                   local CPU ms per request of the endpoint (bench/results.md)
  + gate                         call to the token's Durable Object (auth + rate limit); the
                                 object lives in the client's region: one intra-region RTT,
                                 its CPU, and the confirmation of the limiter's storage write
                                 (the object holds its answer until the write is durable)
  + D1 round trip(s)             RTT from the Worker's region to the D1 instance's region
                                 (published inter-region table) + query execution; a write
                                 also waits for the primary's durable commit
  [+ bookmark hand-off]          writes with sessions, before issue 31: one more call to the
                                 token's object

Part 1, one database (primary in WNAM, a read replica in every region), three designs:
  before         gate, then D1; all D1 work at the primary.
  sessions       reads from the replica in the client's region; writes at the primary, then
                 the bookmark hand-off; still sequential.
  parallel gate  as sessions, but a read starts with the gate: max(gate, D1) instead of the
                 sum. Writes as sessions (a write must not run before the gate admits it).
Each endpoint makes exactly one D1 round trip (one batch) on its critical path.

Part 2, data regions (issue 31, regions.md 5): an account HOMED in each region, i.e. its
shard's primary is there (wnam enam weur eeur apac oc; eu is a jurisdiction shard, see
EU_INSTANCES), from clients in every region:
  before  today's code, which is part 1's "parallel gate": one database with its primary in
          WNAM whatever the account's region; reads max(gate, nearest replica); writes gate,
          one batch at the WNAM primary, then the hand-off.
  after   shards: reads max(gate, the nearest instance of the account's shard that may hold
          its data); patchCard (a write to the shard alone) gate, then one batch at the
          shard's primary, no hand-off (the write's bookmark reaches the token's object with
          the next gate call); createCard gate, then the slug reserved at the DIRECTORY's
          primary (one round trip; the card id comes from it, so the shard write waits for
          it), then one batch at the shard's primary. Marking the slug live happens after the
          answer and is not counted.
It prints a getCard, a createCard and a patchCard table (rows: home region, plus the
"before" row, which is the same for every home; columns: the client's region), the createCard
of an eu account with the directory's primary elsewhere, and at the end the eu account's
numbers from Frankfurt (WEUR) and Tokyo (APAC) that issue 31's closing note asks for.

Run: python3 bench/geo.py  (standard library only; prints Markdown tables).
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
# 2026-11-24 01:00 UTC, local workerd): getCard (20 leads), listCards 15, createCard,
# patchCard. Over-counts: locally the D1 and Durable Object simulators run in the same
# process (bench/README.md).
WORKER_CPU_MS = {"getCard": 2.12, "listCards": 2.36, "createCard": 3.28, "patchCard": 3.19}
WRITES = {"createCard", "patchCard"}

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
# The single database's primary today (part 1, and "before" in part 2).
PRIMARY = "WNAM"

# Part 2. Where each home's shard has its primary. The eu shard is created with
# `--jurisdiction eu`, which takes no location hint; assumption: its primary sits in western
# Europe (Frankfurt or thereabouts), modelled as the WEUR column (London in the RTT table;
# Frankfurt - London is a neighbouring-region hop, ~10 ms, the INTRA_REGION_RTT_MS above).
HOMES = {"WNAM": "WNAM", "ENAM": "ENAM", "WEUR": "WEUR", "EEUR": "EEUR",
         "APAC": "APAC", "OC": "OC", "EU": "WEUR"}
# Where a shard's data may be read from: the primary and its read replicas. A shard with a
# location hint gets a replica in every D1 region (D1 places one in each supported region).
# A jurisdiction shard runs and stores its data inside the jurisdiction only (that is what
# the jurisdiction promises), so its replicas are assumed to be in EU data centres: WEUR
# and EEUR. A reader elsewhere reads across to the nearest of those. Set EU_REPLICAS_GLOBAL
# to model the opposite assumption (replicas of an eu database near every reader).
EU_INSTANCES = ("WEUR", "EEUR")
EU_REPLICAS_GLOBAL = False
# The directory's primary (D1 binding DIRECTORY): createCard reserves the slug there before
# the shard write. Assumption: WNAM, where today's single database is and where
# DEFAULT_DATA_REGION puts new accounts. It is one round trip on every createCard (and
# deleteCard) from anywhere; part 2 prints the eu account's createCard with it elsewhere.
DIRECTORY_PRIMARY = "WNAM"

# The closing note of issue 31: an eu account, from Frankfurt and from Tokyo.
FRANKFURT, TOKYO = "WEUR", "APAC"

# --- Model --------------------------------------------------------------------------------


def rtt(src, dst):
    return INTRA_REGION_RTT_MS if src == dst else RTT_MS[src][REGIONS.index(dst)]


def gate():
    return INTRA_REGION_RTT_MS + DO_CPU_MS + WRITE_CONFIRM_MS


def handoff():  # the new bookmark, kept in the object's memory (no storage write assumed)
    return INTRA_REGION_RTT_MS + DO_CPU_MS


def d1(region, endpoint, at):
    return rtt(region, at) + D1_EXEC_MS + (WRITE_CONFIRM_MS if endpoint in WRITES else 0.0)


def base(endpoint):
    return CLIENT_EDGE_RTT_MS + WORKER_CPU_MS[endpoint]


def model(region, endpoint):
    """Part 1: (before, sessions, parallel gate) in ms for a client in `region`."""
    before = base(endpoint) + gate() + d1(region, endpoint, PRIMARY)
    if endpoint in WRITES:
        sessions = parallel = base(endpoint) + gate() + d1(region, endpoint, PRIMARY) + handoff()
    else:
        sessions = base(endpoint) + gate() + d1(region, endpoint, region)
        parallel = base(endpoint) + max(gate(), d1(region, endpoint, region))
    return before, sessions, parallel


def instances(home, eu_global=None):
    """D1 regions holding a readable copy of the shard of an account homed in `home`."""
    if eu_global is None:
        eu_global = EU_REPLICAS_GLOBAL
    if home == "EU" and not eu_global:
        return EU_INSTANCES
    return REGIONS


def before(client, endpoint):
    """Part 2, today: part 1's parallel gate, whatever the account's home."""
    return model(client, endpoint)[2]


def after(home, client, endpoint, directory=None, eu_global=None):
    """Part 2, shards: ms for an account homed in `home` and a client in `client`."""
    primary = HOMES[home]
    if endpoint not in WRITES:
        read = min(d1(client, endpoint, at) for at in instances(home, eu_global))
        return base(endpoint) + max(gate(), read)
    ms = base(endpoint) + gate() + d1(client, endpoint, primary)
    if endpoint == "createCard":  # the slug reserved in the directory first
        ms += d1(client, endpoint, directory or DIRECTORY_PRIMARY)
    return ms


def matrix(endpoint):
    head = " | ".join(REGIONS)
    print(f"**{endpoint}**, ms by the client's region:\n")
    print(f"| account homed in | {head} |")
    print("|---|" + "---:|" * len(REGIONS))
    cells = " | ".join(f"{before(c, endpoint):.0f}" for c in REGIONS)
    print(f"| before (one database, primary {PRIMARY}; any home) | {cells} |")
    for home in HOMES:
        cells = " | ".join(f"{after(home, c, endpoint):.0f}" for c in REGIONS)
        print(f"| after: {home.lower()} | {cells} |")
    print()


def main():
    print(f"## 1. One database (D1 primary in {PRIMARY}; replicas in every region)\n")
    print("| client region | endpoint | before | sessions | parallel gate | parallel/before |")
    print("|---|---|---:|---:|---:|---:|")
    for region in REGIONS:
        for endpoint in ("getCard", "listCards", "createCard"):
            b, s, p = model(region, endpoint)
            print(f"| {region} | {endpoint} | {b:.0f} | {s:.0f} | {p:.0f} | {p / b:.2f} |")
    b, s, p = model("APAC", "getCard")
    verdict = "yes" if p <= b / 2 else "no"
    print(f"\nAPAC getCard: {b:.1f} -> {s:.1f} -> {p:.1f} ms; "
          f"parallel gate at most half of before: {verdict} ({p / b:.2f}x)\n")

    replicas = "in every region" if EU_REPLICAS_GLOBAL else "/".join(EU_INSTANCES) + " only"
    print("## 2. Data regions: an account homed in each region, before and after issue 31\n")
    print(f"after: the shard's primary in the home region (eu: {HOMES['EU']}, replicas "
          f"{replicas}); directory primary {DIRECTORY_PRIMARY}; no bookmark hand-off.\n")
    for endpoint in ("getCard", "createCard", "patchCard"):
        matrix(endpoint)
    print("createCard of an eu account with the directory's primary elsewhere, ms:\n")
    print("| directory primary | " + " | ".join(REGIONS) + " |")
    print("|---|" + "---:|" * len(REGIONS))
    for directory in REGIONS:
        cells = " | ".join(f"{after('EU', c, 'createCard', directory):.0f}" for c in REGIONS)
        print(f"| {directory} | {cells} |")

    print("\n## The eu account (issue 31's closing note)\n")
    print("| modelled p50, ms | from Frankfurt (WEUR): before | after "
          "| from Tokyo (APAC): before | after |")
    print("|---|---:|---:|---:|---:|")
    for endpoint in ("getCard", "createCard"):
        row = [before(FRANKFURT, endpoint), after("EU", FRANKFURT, endpoint),
               before(TOKYO, endpoint), after("EU", TOKYO, endpoint)]
        print(f"| {endpoint} | " + " | ".join(f"{v:.0f}" for v in row) + " |")
    print(f"\n(eu shard's primary modelled at {HOMES['EU']}; its replicas {replicas}; "
          f"directory primary {DIRECTORY_PRIMARY}.)")
    other = after("EU", TOKYO, "getCard", eu_global=not EU_REPLICAS_GLOBAL)
    opposite = "inside the EU only" if EU_REPLICAS_GLOBAL else "near every reader"
    print(f"With the opposite assumption (replicas of the eu shard {opposite}), getCard of "
          f"the eu account from Tokyo would be {other:.0f} ms; nothing else in this table "
          "changes.")


if __name__ == "__main__":
    main()
