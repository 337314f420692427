#!/usr/bin/env python3
"""Capacity of a shard: bytes per row measured, and the arithmetic of README "Capacity".

1. Measures. Builds a SQLite database from the shard's migrations (migrations/shard/*.sql
   when that folder exists, else migrations/*.sql; every file, in name order), creates one
   account and inserts ROWS representative rows of each kind in the order they arrive in
   production (a full card with two translations, a lead from the card's form, a
   lead.created and a card.updated event with the JSON snapshot the worker writes, a
   webhook attempt that succeeded, a kept idempotent answer, sealed). After each kind it
   reads SQLite's `dbstat` (bytes of every page of the table and of each of its indexes,
   free space in those pages included) and the file's size; bytes per row = the growth
   divided by ROWS. Lead, webhook and delivery ids are account-scoped
   (account_id * 2^31 + n, design of issue 31), so they are stored as 6-byte integers.
2. Models a typical account (PROFILE below: what "typical" means) and prints rows and bytes
   per account per day, the bytes an account holds after 1, 3 and 5 years, accounts per
   10 GB shard, the D1 statements per request type and per account per day (and the
   accounts a shard's busiest instance takes), the accounts the daily prune keeps up with,
   the directory's last_used_at writes, and shards for 10,000 and 100,000 accounts.

Run: python3 bench/capacity.py [REPO]  (standard library only; a few seconds; prints
Markdown; REPO: measure another checkout's migrations).
Pages of 4096 bytes, SQLite's default; D1 does not document the page size it uses.
"""

import base64
import glob
import json
import os
import random
import sqlite3
import sys
import tempfile

ROWS = 10_000
ACCOUNT = 4_321           # a mid-range account id: 4-byte ids in a fleet of 10k accounts
ACCOUNT_ID_BASE = ACCOUNT * 2**31
START_MS = 1_790_000_000_000
GB = 10**9                # D1's limit is "10 GB" per database; taken as 10^9-byte GB

# --- What "typical" means -----------------------------------------------------------------
# An account that uses the API and webhooks: the enterprise plan (the only one with
# api_access), a team with 20 cards, a CRM sync and two webhooks. Smaller accounts (free:
# 1 card; pro: 5) hold a fraction of this; the bytes scale with leads and changes per day.
PROFILE = {
    "cards": 20,
    "card_changes_per_day": 2,        # createCard/patchCard/deleteCard, each one event
    "leads_per_day": 10,              # each of the 20 cards takes a lead every 2 days
    "webhooks": 2,                    # both subscribed to "*": 2 attempts per event
    "retry_share": 0.05,              # attempts that fail once and are made again
    "idempotent_writes_per_day": 2,   # the card changes, sent with an Idempotency-Key
    "event_retention_days": 30,       # EVENT_RETENTION_DAYS (src/upkeep.rs, daily cron)
    "delivery_retention_days": 30,    # DELIVERY_RETENTION_MS (src/domain/webhook.rs)
    "idempotency_keep_days": 1,       # KEEP_MS, 24 h (src/domain/idempotency.rs)
    "lead_retention_days": None,      # accounts.lead_retention_days: NULL = kept until erased
    # Requests per account per day (for the query ceiling).
    "feed_polls_per_day": 1_440,      # a CRM sync reading the feed once a minute
    "api_reads_per_day": 100,         # getCard, listCards, listLeads by people and scripts
    "page_views_per_day": 500,        # 20 cards x 25 views (page, vCard, QR)
}
# The daily prune (17 3 * * *) removes what passed retention, so a row lives up to a day
# longer than its retention.
PRUNE_LAG_DAYS = 1
# Traffic of one region's accounts bunches into its working hours: busiest minute = this
# times the day's average (8 busy hours: x3; the busiest minute of those: x2).
PEAK_FACTOR = 6
# D1: "If your average query takes 1 ms, you can run approximately 1,000 queries per
# second" (developers.cloudflare.com/d1/platform/limits, FAQ). Each statement of a batch
# counted as one query.
QUERIES_PER_S = 1_000
# src/upkeep.rs: events::prune and webhooks::prune take at most 20 steps of 1,000 rows a run,
# idempotency::prune one statement of 5,000; upkeep runs once a day (17 3 * * *).
PRUNED_PER_RUN = {"events": 20_000, "webhook attempts": 20_000, "kept answers": 5_000}
# Plan to act at this share of 10 GB: room to take accounts moved in, and deleted rows free
# pages for reuse inside the file rather than shrinking it.
FILL = 0.7

# D1 statements per request on the account's shard, from src/store/ (each request is one
# batch unless noted). "primary": statements that must run at the shard's primary (writes,
# and the queue consumer, which uses Db::primary); reads go to the nearest replica.
STATEMENTS = {
    #  request                      total  primary  where
    "getCard":                     (2, 0),   # cards::get_with_leads_sql: card, leads
    "listCards / listLeads":       (2, 0),   # count + page
    "listEvents (feed poll)":      (2, 0),   # events::list_sql: account state + events
    "card page / vCard / QR":      (2, 0),   # cards::by_slug_sql: card, account
    "createCard / patchCard":      (4, 4),   # change, event, sequence, webhook fan-out
    "  + Idempotency-Key":         (2, 2),   # claim, then keep the answer (2 more batches)
    # the card (2, from a replica), then lead, event, sequence, fan-out (leads::create)
    "lead post":                   (6, 4),
    # claim 4 + finish 2 or 3 (webhooks::claim_sql, finish_sql)
    "webhook attempt":             (6.5, 6.5),
}


# --- Representative rows ------------------------------------------------------------------

def card_values(i, rnd):
    first, last = rnd.choice(["Anna", "James", "Camille", "Lucía", "Piotr", "Giulia"]), \
        rnd.choice(["Schmidt", "O'Neill", "Durand", "García", "Nowak", "Rossi"])
    slug = f"{first.lower()}-{last.lower()}-{i}".replace("'", "").replace("í", "i")
    translations = {
        "de": {"title": f"{first} {last}, Vertrieb", "job_title": "Leiterin Vertrieb",
               "bio": "Ich helfe Teams, schneller und verlässlicher zu verkaufen.",
               "tagline": "Vertrieb, der zuhört."},
        "fr": {"title": f"{first} {last}, ventes", "job_title": "Directrice commerciale",
               "bio": "J'aide les équipes à vendre plus vite et plus sereinement.",
               "tagline": "Des ventes à l'écoute."},
    }
    social = [{"platform": "linkedin", "url": f"https://www.linkedin.com/in/{slug}"},
              {"platform": "x", "url": f"https://x.com/{slug[:15]}"},
              {"platform": "github", "url": f"https://github.com/{slug}"}]
    design = {"theme": "light", "accent_color": "#0b5fff", "button_style": "filled",
              "font": "system", "avatar_url": f"https://cdn.acme.example/avatars/{slug}.jpg",
              "logo_url": "https://cdn.acme.example/logo.svg",
              "cover_url": "https://cdn.acme.example/covers/team.jpg"}
    now = START_MS + i * 60_000
    return {
        "id": 1_000_000 + i, "account_id": ACCOUNT, "slug": slug,
        "title": f"{first} {last}", "first_name": first, "last_name": last,
        "job_title": "Head of Sales", "company": "Acme GmbH",
        "bio": "I help teams sell faster and with less guesswork. Ask me about pricing, "
               "pilots and how we onboard new customers in a week.",
        "email": f"{slug}@acme.example", "phone": "+49 30 1234567",
        "website": "https://acme.example", "booking_url": f"https://cal.example/{slug}",
        "video_url": f"https://video.example/{slug}-intro",
        "address": "Friedrichstraße 1, 10117 Berlin, Germany", "tagline": "Sales that listens.",
        "company_registration": "HRB 123456 B", "vat_id": "DE123456789",
        "social_links": json.dumps(social), "design_config": json.dumps(design),
        "section_visibility": json.dumps({"bio": True, "contact": True, "social": True}),
        "template_id": "modern", "card_type": "employee", "is_public": 1,
        "is_password_protected": 0, "show_branding": 0, "show_lead_form": 1,
        "seo_title": f"{first} {last} | Acme", "seo_description": "Head of Sales at Acme GmbH.",
        "seo_indexable": 1, "status": "active", "language": "en",
        "translations": json.dumps(translations, ensure_ascii=False),
        "published_at": now, "expires_at": None, "created_at": now, "updated_at": now,
    }


def lead_values(n, card_id, rnd):
    name = rnd.choice(["Maria Weber", "Tom Baker", "Élodie Martin", "Javier Ruiz",
                       "Kasia Zielińska", "Priya Shah", "Lukas Huber"])
    email = f"{name.split()[0].lower()}.{n}@example.org"
    now = START_MS + n * 8_640_000  # 10 a day
    return {
        "id": ACCOUNT_ID_BASE + n, "account_id": ACCOUNT, "card_id": card_id, "name": name,
        "email": email, "phone": "+44 20 7946 0000",
        "message": "Met you at the conference in Berlin; could we book a demo next week? "
                   "We are about 40 people in sales.",
        "note": None, "source": rnd.choice(["page", "qr"]), "consent_at": now,
        "created_at": now, "updated_at": now, "email_key": email,
    }


def event_id(rnd):
    return "evt_" + "".join(rnd.choice("0123456789abcdef") for _ in range(32))


def sealed(text, rnd):
    raw = bytes(rnd.getrandbits(8) for _ in range(12 + len(text.encode()) + 16))
    return "gcm1:" + base64.b64encode(raw).decode()


# --- Measurement --------------------------------------------------------------------------

def migrations(root):
    shard = os.path.join(root, "migrations", "shard")
    folder = shard if os.path.isdir(shard) else os.path.join(root, "migrations")
    files = sorted(glob.glob(os.path.join(folder, "*.sql")))
    if not files:
        sys.exit(f"no migrations under {folder}")
    return folder, files


def insert(db, table, row):
    cols = [c for c in row]
    db.execute(f"INSERT INTO {table} ({', '.join(cols)}) VALUES "
               f"({', '.join('?' for _ in cols)})", [row[c] for c in cols])


def sizes(db, path):
    """{table: bytes of its pages and its indexes' pages}, and the file's size."""
    owner = dict(db.execute("SELECT name, tbl_name FROM sqlite_master "
                            "WHERE type IN ('table', 'index')"))
    per = {}
    for name, bytes_ in db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"):
        table = owner.get(name, name)
        per[table] = per.get(table, 0) + bytes_
    return per, os.path.getsize(path)


def measure(root):
    folder, files = migrations(root)
    tmp = tempfile.mkdtemp(prefix="capacity-")
    path = os.path.join(tmp, "shard.sqlite")
    db = sqlite3.connect(path, isolation_level=None)
    for f in files:
        db.executescript(open(f, encoding="utf-8").read())
    cols = {r[1] for r in db.execute("PRAGMA table_info(accounts)")}
    account = {"id": ACCOUNT, "name": "Acme GmbH", "plan": "enterprise",
               "created_at": START_MS}
    if "state" in cols:
        account["state"] = "live"
    insert(db, "accounts", account)
    card_cols = [r[1] for r in db.execute("PRAGMA table_info(cards)")]
    lead_cols = [r[1] for r in db.execute("PRAGMA table_info(leads)")
                 if r[1] != "email_key"]
    rnd = random.Random(31)
    results = []

    def step(label, table, rows):
        per0, file0 = sizes(db, path)
        db.execute("BEGIN")
        for row in rows:
            insert(db, table, row)
        db.execute("COMMIT")
        per1, file1 = sizes(db, path)
        results.append((label, table, (per1[table] - per0.get(table, 0)) / ROWS,
                        (file1 - file0) / ROWS))

    step("card (full, 2 translations)", "cards", (card_values(i, rnd) for i in range(ROWS)))
    card_snapshot = "json_object(" + ", ".join(f"'{c}', c.{c}" for c in card_cols) + ")"
    lead_snapshot = ("json_object('lead', json_object(" +
                     ", ".join(f"'{c}', l.{c}" for c in lead_cols) +
                     "), 'card', json_object('id', c.id, 'slug', c.slug, 'title', c.title, "
                     "'first_name', c.first_name, 'last_name', c.last_name))")
    step("lead", "leads",
         (lead_values(n, 1_000_000 + rnd.randrange(20), rnd) for n in range(1, ROWS + 1)))

    def events(kind, snapshot, source, start):
        for n in range(ROWS):
            key = ACCOUNT_ID_BASE + 1 + n if kind == "lead.created" else 1_000_000 + n % 20
            obj = db.execute(f"SELECT {snapshot} FROM {source}", (key,)).fetchone()[0]
            yield {"id": event_id(rnd), "account_id": ACCOUNT, "sequence": start + n,
                   "type": kind, "created_at": START_MS + (start + n) * 7_200_000,
                   "object": obj,
                   "lead_id": key if kind == "lead.created" else None}
    step("event lead.created (snapshot: lead + card summary)", "events",
         list(events("lead.created", lead_snapshot,
                     "leads l JOIN cards c ON c.id = l.card_id WHERE l.id = ?", 1)))
    step("event card.updated (snapshot: the whole card)", "events",
         list(events("card.updated", card_snapshot, "cards c WHERE c.id = ?", ROWS + 1)))
    event_ids = [r[0] for r in db.execute("SELECT id FROM events ORDER BY sequence")]
    insert(db, "webhooks", {"id": ACCOUNT_ID_BASE + 2**30, "account_id": ACCOUNT,
                            "url": "https://crm.example.com/hooks/cards", "events": '["*"]',
                            "secret": sealed("whsec_" + "x" * 43, rnd),
                            "origin": "https://cards.example.com",
                            "created_at": START_MS, "updated_at": START_MS})

    def delivery(n):
        at = START_MS + n * 3_456_000
        return {"id": ACCOUNT_ID_BASE + 2**30 + 1 + n, "account_id": ACCOUNT,
                "webhook_id": ACCOUNT_ID_BASE + 2**30, "event_id": event_ids[n],
                "event_type": "lead.created", "attempt": 1, "status": "succeeded",
                "response_status": 200, "error": None, "due_at": at, "claimed_at": at + 40,
                "created_at": at, "completed_at": at + 180}
    step("webhook attempt (succeeded)", "deliveries", (delivery(n) for n in range(ROWS)))

    card_json = db.execute(f"SELECT {card_snapshot} FROM cards c WHERE c.id = 1000000"
                           ).fetchone()[0]
    answer = json.dumps({"data": json.loads(card_json), "message": "Card updated successfully."})

    def kept(n):
        return {"account_id": ACCOUNT, "key": f"{rnd.getrandbits(128):032x}-{n}",
                "method": "PATCH", "path": f"/api/v1/cards/{1_000_000 + n % 20}",
                "digest": f"{rnd.getrandbits(256):064x}", "created_at": START_MS + n * 43_200_000,
                "status": 200,
                "headers": '{"content-type":"application/json","etag":"\\"x\\""}',
                "body": sealed(answer, rnd), "token_id": 77, "holds_secret": 0}
    step("kept idempotent answer (patchCard, sealed)", "idempotency_keys",
         (kept(n) for n in range(ROWS)))
    page = db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    return folder, files, results, page, path


# --- Arithmetic ---------------------------------------------------------------------------

def main():
    # The repository whose migrations to measure: this one, or the one named.
    root = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    folder, files, results, page, path = measure(root)
    print(f"Schema: {len(files)} migrations from {os.path.relpath(folder, root)}/ "
          f"({os.path.basename(files[0])} .. {os.path.basename(files[-1])}); "
          f"{ROWS:,} rows of each kind; SQLite {sqlite3.sqlite_version}, "
          f"{page}-byte pages.\n")
    print("| row | table | bytes/row (table + its indexes, dbstat) | bytes/row (file growth) |")
    print("|---|---|---:|---:|")
    b = {}
    for label, table, stat, grow in results:
        print(f"| {label} | {table} | {stat:,.0f} | {grow:,.0f} |")
        b[label.split(" (")[0]] = stat
    card, lead = b["card"], b["lead"]
    ev_lead, ev_card = b["event lead.created"], b["event card.updated"]
    delivery, kept = b["webhook attempt"], b["kept idempotent answer"]

    p = PROFILE
    events_day = p["leads_per_day"] + p["card_changes_per_day"]
    attempts_day = events_day * p["webhooks"] * (1 + p["retry_share"])
    days_ev = p["event_retention_days"] + PRUNE_LAG_DAYS
    days_dl = p["delivery_retention_days"] + PRUNE_LAG_DAYS
    days_ik = p["idempotency_keep_days"] + PRUNE_LAG_DAYS
    event_bytes_day = p["leads_per_day"] * ev_lead + p["card_changes_per_day"] * ev_card
    rows = [
        # kind, rows written/day, bytes written/day, rows held (steady), bytes held (steady)
        ("cards", 0, 0, p["cards"], p["cards"] * card),
        ("leads (kept until erased)", p["leads_per_day"], p["leads_per_day"] * lead, None, None),
        ("events", events_day, event_bytes_day, events_day * days_ev, event_bytes_day * days_ev),
        ("webhook attempts", attempts_day, attempts_day * delivery,
         attempts_day * days_dl, attempts_day * delivery * days_dl),
        ("kept idempotent answers", p["idempotent_writes_per_day"],
         p["idempotent_writes_per_day"] * kept, p["idempotent_writes_per_day"] * days_ik,
         p["idempotent_writes_per_day"] * kept * days_ik),
    ]
    print("\nTypical account: " + ", ".join(f"{k} {v}" for k, v in PROFILE.items()) + ".\n")
    print("| rows | written/day | bytes written/day | held (steady) | bytes held (steady) |")
    print("|---|---:|---:|---:|---:|")
    for kind, rd, bd, rh, bh in rows:
        held = "grows" if rh is None else f"{rh:,.0f}"
        bheld = "grows" if bh is None else f"{bh:,.0f}"
        print(f"| {kind} | {rd:,.1f} | {bd:,.0f} | {held} | {bheld} |")
    steady = sum(r[4] for r in rows if r[4] is not None)
    growth = p["leads_per_day"] * lead
    written = sum(r[2] for r in rows)
    print(f"| total | {sum(r[1] for r in rows):,.1f} | {written:,.0f} | | "
          f"{steady:,.0f} + leads |")
    print(f"\nPer account: {written / 1e3:,.0f} kB written a day; held: {steady / 1e6:.2f} MB "
          f"that stays level (cards, 31 days of events and attempts, 2 days of kept answers) "
          f"+ {growth / 1e3:,.1f} kB a day of leads that stays until erased.\n")

    print("| account age | MB per account | accounts per 10 GB | accounts at "
          f"{FILL:.0%} (plan) |")
    print("|---|---:|---:|---:|")
    per_shard = {}
    for years in (1, 3, 5):
        held = steady + growth * 365 * years
        per_shard[years] = int(FILL * 10 * GB / held)
        print(f"| {years} year{'s' if years > 1 else ''} | {held / 1e6:.2f} | "
              f"{10 * GB / held:,.0f} | {per_shard[years]:,} |")

    # Queries.
    st = STATEMENTS
    reads = (p["feed_polls_per_day"] * st["listEvents (feed poll)"][0]
             + p["api_reads_per_day"] * st["getCard"][0]
             + p["page_views_per_day"] * st["card page / vCard / QR"][0])
    changes = p["card_changes_per_day"] * (st["createCard / patchCard"][0]
                                           + st["  + Idempotency-Key"][0])
    leads_q = p["leads_per_day"] * st["lead post"][0]
    hooks = attempts_day * st["webhook attempt"][0]
    total = reads + changes + leads_q + hooks
    primary = changes + p["leads_per_day"] * st["lead post"][1] + hooks

    def peak(per_day):
        return per_day / 86_400 * PEAK_FACTOR

    print("\n| D1 statements per request (shard) | total | at the primary |")
    print("|---|---:|---:|")
    for name, (t, pr) in st.items():
        print(f"| {name.strip()} | {t:g} | {pr:g} |")
    by_queries = int(QUERIES_PER_S / peak(total))
    by_primary = int(QUERIES_PER_S / peak(primary))
    print(f"\nPer typical account a day: {total:,.0f} statements, {reads:,.0f} of them reads "
          f"({p['feed_polls_per_day'] * 2:,} the feed polls) and {primary:,.0f} at the primary; "
          f"at the busiest minute (x{PEAK_FACTOR}) {peak(total):.3f}/s and "
          f"{peak(primary):.4f}/s.")
    print(f"Accounts per shard at {QUERIES_PER_S:,} statements/s: {by_queries:,} on the "
          f"busiest instance (a shard's accounts are read from its region, so one instance, "
          f"the primary or that region's replica, takes nearly all their reads); "
          f"{by_primary:,} for the primary's writes alone.")

    # The daily upkeep removes a bounded number of rows per database and run.
    by_prune = {
        "events": int(PRUNED_PER_RUN["events"] / events_day),
        "webhook attempts": int(PRUNED_PER_RUN["webhook attempts"] / attempts_day),
        "kept answers": int(PRUNED_PER_RUN["kept answers"] / p["idempotent_writes_per_day"]),
    }
    print("Daily upkeep (src/upkeep.rs, one run a day): removes at most " +
          ", ".join(f"{PRUNED_PER_RUN[k]:,} {k}" for k in PRUNED_PER_RUN) +
          " per database; that keeps up with " +
          ", ".join(f"{v:,} accounts ({k})" for k, v in by_prune.items()) + ".")
    print(f"Directory: a token's object writes last_used_at at most once a minute "
          f"(src/durable/rate_limiter), so tokens in use all day (a sync polling once a "
          f"minute) write 1/60 per second each: {10_000 / 60:,.0f}/s for 10,000 accounts, "
          f"{100_000 / 60:,.0f}/s for 100,000, against the directory's ~{QUERIES_PER_S:,}.\n")

    print("| accounts | shards by storage (3 years, 70 % fill) | by queries (busiest "
          "instance) | by the daily prune as it is |")
    print("|---:|---:|---:|---:|")
    worst_prune = min(by_prune.values())
    for n in (10_000, 100_000):
        print(f"| {n:,} | {-(-n // per_shard[3])} | {-(-n // by_queries)} | "
              f"{-(-n // worst_prune)} |")
    os.remove(path)
    os.rmdir(os.path.dirname(path))


if __name__ == "__main__":
    main()
