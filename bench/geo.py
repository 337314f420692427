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
of an eu account with the directory's primary elsewhere, and the eu account's numbers from
Frankfurt (WEUR) and Tokyo (APAC) that issue 31's closing note asks for. Part 2 models the
code as issue 31 left it: since teams (issue 43) createCard and patchCard also read the
card's template from the shard before writing (src/ops/cards.rs `templated`), which part 2
leaves out and part 3 counts where it says so.

Part 3, creates at home (issue 45, regions.md 6), as built:
  old     part 2's createCard: gate, the slug reserved at the DIRECTORY's primary, then one
          batch at the shard's primary. These are the figures issue 45 quotes.
  new     the Names Durable Object of the card's name reserves the slug while the gate is
          asked (a token this isolate has seen: its hint names the account, as for the
          early read of extensions.md 6; a slug held for a request the gate refuses, or
          that makes no card, is released), then one batch at the shard's primary inserts
          the card (its id is the account's next, made there). An account without a default
          template reads none: the insert is refused while it has one, and only then is
          the template read and the insert made again. After the answer, not counted: the
          Names object marks the slug live, and the routing row (keyed hash of the slug ->
          account, shard, card id) goes to the directory. A Names object call is what the
          gate is: a round trip to where the object is, its CPU (DO_CPU_MS, the token
          object's) and the confirmation of its storage write (the reservation is durable
          before it answers).
  Variants: the token's first request in an isolate (no hint: gate, then the Names call);
  an account with a default template (+ the refused batch and the template read); the
  external-id upsert that creates and SCIM's create (gate, their own read first, one
  statement at the shard's primary, SHARD_STATEMENT, then the Names call: no hold).
  Where the Names object of a name is (an object stays where it was created, near the
  place that first asked for it; Cloudflare, "Durable Objects data location"):
    at home       the common case: the name was first asked for in the account's home
                  region; one intra-region round trip.
    elsewhere     another continent asked for the name first (CONTINENT): one round trip
                  from the client to that region; the median and the worst of those regions.
    first use     a name nobody ever asked for: the object is created near the caller, but
                  idFromName's first use makes the runtime check that no other location
                  created it at the same moment ("this round-the-world check can take up to
                  a few hundred milliseconds", Cloudflare, Durable Object Namespace,
                  newUniqueId). Modelled as one round trip from the caller to the farthest
                  region (first_use_check); an upper figure, not measured.
  Card page right after a create (GET /c/{slug}, no slug cached in the isolate): the
  directory's routing row (App::directory reads at the directory's primary), then, if the
  routing row is not written yet, the Names object of the name (a read: no storage write
  to confirm; at home), then the card from the nearest instance of the account's shard,
  then the view handed to the account's analytics object (the page waits for it since
  issue 46; assumed in the home region, eu: the EU jurisdiction, WEUR), which confirms its
  write. Worker CPU: "public page" of the same bench run (PAGE_CPU_MS).
It prints, per home region, old and new createCard from the home region and whether it
meets TARGET_MS; the variants above from the home region; the new createCard by client
region beside the old; and the card page with and without the routing row.

Run: python3 bench/geo.py  (standard library only; prints Markdown tables).
"""

import statistics

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

# Part 3 (issue 45). The target: createCard at most 60 ms modelled p50 from the home region.
TARGET_MS = 60.0
# "Another continent" for a Names object that someone else created first.
CONTINENT = {"ENAM": "America", "WNAM": "America", "WEUR": "Europe", "EEUR": "Europe",
             "APAC": "Asia", "OC": "Oceania"}
# Worker CPU of a card page: "public page" CPU ms/req of the same bench run as WORKER_CPU_MS.
PAGE_CPU_MS = 3.09
# One statement at the shard's primary that writes nothing to confirm (the template read;
# the upsert's read of its external id; SCIM's read of userName keys still to fill, which
# finds none once the account's names are keyed): a round trip to the primary and
# D1_EXEC_MS.
SHARD_STATEMENT = "template read, external-id read, userName-key read"

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


# --- Part 3: creates at home (issue 45) ----------------------------------------------------


def names_call(client, at):
    """A reservation in the Names object at `at`: round trip, CPU, durable write."""
    return rtt(client, at) + DO_CPU_MS + WRITE_CONFIRM_MS


def first_use_check(client):
    """idFromName's first use of a name: modelled as one round trip to the farthest region."""
    return max(rtt(client, r) for r in REGIONS)


def statement(client, home):
    """One statement at the shard's primary with nothing to confirm (SHARD_STATEMENT)."""
    return rtt(client, HOMES[home]) + D1_EXEC_MS


def old_create(home, client):
    """Part 2's createCard (issue 31): gate, directory primary, shard primary."""
    return after(home, client, "createCard")


def new_create(home, client, names_at=None, first_use=False, path="built"):
    """Issue 45's createCard as built. `names_at`: where the name's object is (default:
    home). `path`:
      "built"     a token this isolate has seen (the common case: an integration's second
                  request on): the Names call starts alongside the gate (router::admission,
                  ops::cards::hold), then one batch; an account without a default template
                  reads none (the batch's insert refuses while there is one).
      "cold"      the token's first request in this isolate: gate, then the Names call.
      "template"  "built" for an account with a default template: the first batch is
                  refused, the template read, the batch made again.
      "read"      the external-id upsert that creates, and SCIM's create: gate, their read
                  (SHARD_STATEMENT), the Names call, the batch."""
    primary = HOMES[home]
    reserve = names_call(client, names_at or primary)
    if first_use:
        reserve += first_use_check(client)
    batch = d1(client, "createCard", primary)
    front = {
        "built": max(gate(), reserve),
        "cold": gate() + reserve,
        "template": max(gate(), reserve) + batch + statement(client, home),
        "read": gate() + statement(client, home) + reserve,
    }[path]
    return base("createCard") + front + batch


def elsewhere(home, client, **kw):
    """new_create with the name's object on another continent than the home's: (median,
    worst, worst's region) over those regions."""
    far = [r for r in REGIONS if CONTINENT[r] != CONTINENT[HOMES[home]]]
    ms = sorted((new_create(home, client, names_at=r, **kw), r) for r in far)
    return statistics.median(m for m, _ in ms), ms[-1][0], ms[-1][1]


def page(home, client, routed=True, directory="primary"):
    """GET /c/{slug} with no slug cached in the isolate. `routed`: the routing row is
    written; else the Names object (at home) names the account. `directory`: "primary"
    (App::directory) or "replica" (the nearest)."""
    primary = HOMES[home]
    at = DIRECTORY_PRIMARY if directory == "primary" else client
    ms = CLIENT_EDGE_RTT_MS + PAGE_CPU_MS + rtt(client, at) + D1_EXEC_MS
    if not routed:
        ms += rtt(client, primary) + DO_CPU_MS
    ms += min(rtt(client, i) + D1_EXEC_MS for i in instances(home))
    return ms + rtt(client, primary) + DO_CPU_MS + WRITE_CONFIRM_MS


def verdict(ms):
    if ms <= TARGET_MS:
        return f"meets {TARGET_MS:.0f} ms"
    return f"misses {TARGET_MS:.0f} ms by {ms - TARGET_MS:.0f} ms"


def part3():
    print("## 3. Creates at home (issue 45): createCard with a Names object\n")
    print(f"Names object call at home {names_call('WNAM', 'WNAM'):.1f} ms (as the gate); "
          f"one shard statement at home {statement('WNAM', 'WNAM'):.1f} ms; the batch at "
          f"home {d1('WNAM', 'createCard', 'WNAM'):.1f} ms; target {TARGET_MS:.0f} ms.\n")
    print("**From the home region**: old (gate, directory, shard: the figures issue 45 "
          "quotes); new as built (the Names call alongside the gate, then the batch) with "
          "the name's object at home; the token's first request in an isolate (gate, then "
          "Names); the name's object on another continent; a name never asked for before. "
          "ms:\n")
    print(f"| home | old | new | <= {TARGET_MS:.0f} | token's first request in the isolate | "
          "Names object on another continent: median | worst | first use of the name (up "
          "to) |")
    print("|---|---:|---:|---|---:|---:|---:|---:|")
    yes = lambda ms: "yes" if ms <= TARGET_MS else "no"
    for home in HOMES:
        c = HOMES[home]
        o, n = old_create(home, c), new_create(home, c)
        cold = new_create(home, c, path="cold")
        med, worst, where = elsewhere(home, c)
        first = new_create(home, c, first_use=True)
        print(f"| {home.lower()} | {o:.0f} | {n:.0f} | {yes(n)} | {cold:.0f} | {med:.0f} | "
              f"{worst:.0f} ({where}) | {first:.0f} |")
    print()
    for home in HOMES:
        c = HOMES[home]
        o, n = old_create(home, c), new_create(home, c)
        article = "an" if home[0] in "AEIOU" else "a"
        print(f"- createCard of {article} {home.lower()} account from {c}: old {o:.0f} ms, new "
              f"{n:.0f} ms: {verdict(n)}.")
    print()
    print("**By path, from the home region** (ms; a weur home; the 'at home' column is the "
          "same for every home, each step being local):\n")
    print("| path | at home | another continent: median | worst | first use of the name "
          "(up to) |")
    print("|---|---:|---:|---:|---:|")
    rows = [
        ("createCard as built: Names alongside the gate, then the batch", "built"),
        ("createCard, the token's first request in the isolate: gate, Names, batch", "cold"),
        ("createCard for an account with a default template: + a refused batch and the "
         "template read", "template"),
        ("upsert that creates, SCIM create: gate, their read, Names, batch", "read"),
    ]
    home = "WEUR"
    for label, path in rows:
        at = new_create(home, home, path=path)
        med, worst, where = elsewhere(home, home, path=path)
        first = new_create(home, home, first_use=True, path=path)
        print(f"| {label} | {at:.0f} | {med:.0f} | {worst:.0f} ({where}) | {first:.0f} |")
    print()

    head = " | ".join(REGIONS)
    print("**createCard by the client's region**, old and new (as built, the name's object "
          "in the home region), ms:\n")
    print(f"| account homed in | {head} |")
    print("|---|" + "---:|" * len(REGIONS))
    cells = " | ".join(f"{before(c, 'createCard'):.0f}" for c in REGIONS)
    print(f"| before (one database, primary {PRIMARY}; any home) | {cells} |")
    for home in HOMES:
        for label, f in (("old", old_create), ("new", new_create)):
            cells = " | ".join(f"{f(home, c):.0f}" for c in REGIONS)
            print(f"| {label}: {home.lower()} | {cells} |")
    print()

    print("**Card page** (GET /c/{slug}, the slug not cached in the isolate), ms by the "
          "visitor's region; the routing row read at the directory's primary "
          f"({DIRECTORY_PRIMARY}), as App::directory does:\n")
    print(f"| account homed in | {head} |")
    print("|---|" + "---:|" * len(REGIONS))
    for home in HOMES:
        for label, routed in (("routing row written", True), ("right after create", False)):
            cells = " | ".join(f"{page(home, c, routed):.0f}" for c in REGIONS)
            print(f"| {home.lower()}: {label} | {cells} |")
    saved = [page("WEUR", c) - page("WEUR", c, directory="replica") for c in REGIONS]
    extra = page("WEUR", "WEUR", False) - page("WEUR", "WEUR")
    print(f"\nRight after a create the page makes one more call, to the name's Names object "
          f"({extra:.1f} ms from the home region, a round trip to the home from elsewhere). "
          "Reading the routing row at the nearest directory replica instead (a replica that "
          "has not seen a new row only sends the page to the Names object) would take, by "
          "the visitor's region, "
          + ", ".join(f"{r} {v:.0f}" for r, v in zip(REGIONS, saved)) + " ms off every row.")


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
    print("\nSince teams (issue 43) createCard and patchCard also read the template at the "
          f"shard's primary before writing: +{statement('WNAM', 'WNAM'):.1f} ms from the "
          "home region, left out of part 2 (as issue 31 modelled it); part 3 counts it.\n")
    part3()


if __name__ == "__main__":
    main()
