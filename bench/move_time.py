#!/usr/bin/env python3
"""`make move-time`: how long a move of a large account between shards takes (issue 31,
regions.md 4), locally.

Migrates a fresh state dir, serves the built worker (bench/serve.mjs, as `make bench`),
creates an enterprise account in wnam, seeds 1,000 cards and 100,000 leads into its shard by
SQL (slugs into the directory), starts `POST /admin/v1/accounts/{id}/move {"data_region":
"eu"}`, polls `GET /admin/v1/moves/{id}` until the move ends and prints the time, the rows
copied per table and rows/s. The time is the move's own, started_at to finished_at; the
poller sees the end later, since locally the worker answers no request while an alarm of
the mover runs its steps (up to its 5 s budget, a lone request longer). It then checks through the API that the account answers from
its new shard (cards and leads totals), and, with the worker stopped, that the old shard
holds none of its rows. Fails (exit 1) unless the move ends "done".

MOVE_GRACE_MS is 0, so the grace wait between the directory's switch and the emptying of
the old shard (30 s by default) is not in the time. Environment: MOVE_BATCH_ROWS (default
100, the worker's default), MOVE_CARDS, MOVE_LEADS (1,000 and 100,000), MOVE_TIMEOUT
(seconds, default 1800), MOVE_STEP_MS (see below).
"""
import datetime as dt
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import ROOT, WRANGLER, Worker, http, sql_str  # noqa: E402

ADMIN = "move-time-admin-token"
CARDS = int(os.environ.get("MOVE_CARDS", "1000"))
LEADS = int(os.environ.get("MOVE_LEADS", "100000"))
BATCH = int(os.environ.get("MOVE_BATCH_ROWS", "100"))
TIMEOUT = float(os.environ.get("MOVE_TIMEOUT", "1800"))
# MOVE_STEP_MS (unset by default): a pause between the mover's steps, each then its own
# alarm; 1 keeps the local worker answering polls during the move (a diagnostic).
STEP = os.environ.get("MOVE_STEP_MS", "")
POLL_TIMEOUT = 20
FROM_REGION, TO_REGION = "wnam", "eu"
ENV = {**os.environ, "CI": "true"}


def d1_file(state, binding, name, statements):
    path = os.path.join(state, f"seed-{name}.sql")
    with open(path, "w") as f:
        f.write("\n".join(statements))
    subprocess.run([WRANGLER, "d1", "execute", binding, "--local", "--persist-to", state, "--file", path],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL, env=ENV)
    os.remove(path)


def d1_query(state, binding, sql):
    out = subprocess.run([WRANGLER, "d1", "execute", binding, "--local", "--persist-to", state,
                          "--command", sql, "--json"],
                         cwd=ROOT, check=True, capture_output=True, text=True, env=ENV).stdout
    return json.loads(out)[0]["results"]


def seed(api, state):
    """The account (wnam), a token reading cards and leads, its cards and leads by SQL."""
    account = http("POST", api.base + "/admin/v1/accounts", ADMIN,
                   {"name": "Move time", "plan": "enterprise", "card_limit": 1000000,
                    "data_region": FROM_REGION})["data"]
    aid, shard = account["id"], account["shard"]
    token = http("POST", f"{api.base}/admin/v1/accounts/{aid}/tokens", ADMIN,
                 {"name": "move-time", "scopes": ["cards:read", "leads:read"]})["data"]["token"]
    now = int(time.time() * 1000)
    rnd = random.Random(31)
    links = sql_str(json.dumps([{"platform": p, "url": f"https://{p}.example/u", "label": None}
                                for p in ("linkedin", "github", "x")]))
    # Card ids come from the directory's slugs (a fresh state: 1..CARDS are free).
    slugs = [f"({i},'move-card-{i}',{aid},{sql_str(shard)},'live',{now})" for i in range(1, CARDS + 1)]
    d1_file(state, "DIRECTORY", "slugs", [
        "INSERT INTO slugs (card_id, slug, account_id, shard, state, reserved_at) VALUES "
        + ",\n".join(slugs[c:c + 200]) + ";" for c in range(0, len(slugs), 200)])
    cards = []
    for i in range(1, CARDS + 1):
        t = now - (CARDS - i) * 60_000
        cards.append("(" + ",".join([
            str(i), str(aid), sql_str(f"move-card-{i}"), sql_str(f"Move Card{i}"), "'Move'", sql_str(f"Card{i}"),
            "'Head of Moves'", "'Move Ltd'", sql_str("Bio " * 60), sql_str(f"card{i}@move.example"),
            "'+49 30 1234567'", "'https://move.example'", "'https://cal.example/m'", "'https://video.example/m'",
            "'Main Street 1, 10115 Berlin'", links, "'{\"theme\":\"dark\",\"color\":\"#112233\"}'",
            "'classic'", "'Move Card'", "'A card that moves'", "'en'", str(t), str(t), str(t)]) + ")")
    d1_file(state, shard, "cards", [
        "INSERT INTO cards (id, account_id, slug, title, first_name, last_name, job_title, company, bio, "
        "email, phone, website, booking_url, video_url, address, social_links, design_config, template_id, "
        "seo_title, seo_description, language, published_at, created_at, updated_at) VALUES "
        + ",\n".join(cards[c:c + 100]) + ";" for c in range(0, len(cards), 100)])
    # Leads in files of 20,000 (one big file makes wrangler hold it all at once).
    for part in range(0, LEADS, 20_000):
        statements = []
        for c in range(part, min(part + 20_000, LEADS), 200):
            rows = []
            for n in range(c, min(c + 200, LEADS)):
                t = now - rnd.randint(0, 365 * 86_400_000)
                rows.append(f"({aid * 2**31 + n + 1},{aid},{n % CARDS + 1},{sql_str(f'Lead {n}')},"
                            f"{sql_str(f'lead{n}@example.com')},'+1 555 0100',"
                            f"'Please call me back about the offer.','lead_form',{t},{t})")
            statements.append("INSERT INTO leads (id, account_id, card_id, name, email, phone, message, source, "
                              "created_at, updated_at) VALUES " + ",\n".join(rows) + ";")
        d1_file(state, shard, f"leads-{part}", statements)
    return aid, shard, token


def get_move(api, move_id):
    """GET /admin/v1/moves/{id}: (the move, None), or (None, why) when the worker does not
    answer within POLL_TIMEOUT or answers 5xx. Locally the worker answers nothing while the
    mover's alarm runs its steps (up to the mover's 5 s budget per alarm), and some of the
    requests held so answer 500 "Network connection lost" (miniflare)."""
    req = urllib.request.Request(f"{api.base}/admin/v1/moves/{move_id}")
    req.add_header("Authorization", f"Bearer {ADMIN}")
    try:
        with urllib.request.urlopen(req, timeout=POLL_TIMEOUT) as r:
            return json.loads(r.read())["data"], None
    except urllib.error.HTTPError as e:
        if e.code < 500:
            raise
        return None, f"HTTP {e.code}: {(e.read().decode(errors='replace').splitlines() or [''])[0][:80]}"
    except (TimeoutError, urllib.error.URLError) as e:
        return None, f"no answer ({e})"


def iso_seconds(text):
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def total(api, token, path):
    return http("GET", api.base + path, token)["meta"]["total"]


def main():
    if not os.path.exists(os.path.join(ROOT, "build", "index_bg.wasm")):
        sys.exit("build/ is missing: run `make build` first (make move-time does)")
    state = tempfile.mkdtemp(prefix="cardapi-move-time.")
    ok = False
    api = None
    try:
        print(f"==> migrating a fresh local state ({state})", flush=True)
        subprocess.run([os.path.join(ROOT, "scripts", "migrate-local.sh"), "--persist-to", state],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL, env=ENV)
        print(f"==> starting the worker (MOVE_BATCH_ROWS={BATCH}, MOVE_GRACE_MS=0"
              + (f", MOVE_STEP_MS={STEP}" if STEP else "") + ")", flush=True)
        api = Worker("api", os.path.join(ROOT, "wrangler.toml"),
                     {"ADMIN_TOKEN": ADMIN, "VISITOR_SALT": "move-time", "TOKEN_PEPPER": "move-time",
                      "RATE_LIMIT_PER_MINUTE": "100000000", "MOVE_BATCH_ROWS": str(BATCH), "MOVE_GRACE_MS": "0",
                      **({"MOVE_STEP_MS": STEP} if STEP else {})},
                     state)
        t0 = time.time()
        print(f"==> seeding {CARDS:,} cards and {LEADS:,} leads by SQL", flush=True)
        aid, source, token = seed(api, state)
        cards0, leads0 = total(api, token, "/api/v1/cards?per_page=1"), total(api, token, "/api/v1/leads?per_page=1")
        assert (cards0, leads0) == (CARDS, LEADS), (cards0, leads0)
        print(f"    account {aid} in {source}: {cards0:,} cards, {leads0:,} leads ({time.time() - t0:.0f} s)", flush=True)

        print(f"==> moving account {aid} {FROM_REGION} -> {TO_REGION}", flush=True)
        cpu0, _ = api.cpu_seconds()
        start = time.time()
        move = http("POST", f"{api.base}/admin/v1/accounts/{aid}/move", ADMIN, {"data_region": TO_REGION})["data"]
        timeline = []  # (seconds, leads copied) of answered polls while copying
        last_print = 0.0
        answered, failed = [], []  # seconds each answered GET of the move took; the others' outcomes
        while True:
            asked = time.time()
            polled, why = get_move(api, move["id"])
            now = time.time()
            if polled is None:
                failed.append(why)
                print(f"    {asked - start:6.1f} s  GET of the move: {why} after {now - asked:.1f} s", flush=True)
            else:
                move = polled
                answered.append(now - asked)
                copied = move.get("copied") or {}
                if move["status"] == "copying" and (not timeline or timeline[-1][1] != copied.get("leads")):
                    timeline.append((now - start, copied.get("leads") or 0))
                if move["status"] != "copying":
                    break
                if now - last_print >= 10:
                    last_print = now
                    print(f"    {now - start:6.1f} s  {move['status']}  "
                          + ", ".join(f"{k} {v:,}" for k, v in copied.items() if v), flush=True)
            if now - start > TIMEOUT:
                sys.exit(f"FAILED: the move is still {move['status']!r} after {TIMEOUT:.0f} s: {json.dumps(move)}")
            time.sleep(0.25)
        observed = now - start
        cpu = api.cpu_seconds()[0] - cpu0
        copied = move.get("copied") or {}
        rows = sum(v for v in copied.values() if isinstance(v, int))
        seconds = iso_seconds(move["finished_at"]) - iso_seconds(move["started_at"]) if move.get("finished_at") else observed

        print(f"\nMove of account {aid}: {move['from_shard']} -> {move['to_shard']}, "
              f"MOVE_BATCH_ROWS={BATCH}{f', MOVE_STEP_MS={STEP}' if STEP else ''}, MOVE_GRACE_MS=0 (the grace wait, 30 s by default, is not counted)")
        print(f"  status:        {move['status']}" + (f" ({move['error']})" if move.get("error") else ""))
        print(f"  total:         {seconds:.1f} s (the move's started_at {move['started_at']} to finished_at "
              f"{move['finished_at']}); seen by the poller after {observed:.1f} s")
        if timeline:
            shown, last = [], None
            for i, (t, n) in enumerate(timeline):  # a point every 5 s or more, and the last
                if last is None or t - last >= 5 or i == len(timeline) - 1:
                    shown.append((t, n))
                    last = t
            print("  leads seen:    " + ", ".join(f"{n:,} at {t:.1f} s" for t, n in shown)
                  + " (answered polls while copying)")
        print("  copied:        " + ", ".join(f"{k} {v:,}" for k, v in copied.items()))
        print(f"  rows/s:        {rows / seconds:,.0f} ({rows:,} rows over the whole move: copy, count check, "
              f"switch, emptying of the old shard)")
        print(f"  polls:         {len(answered)} answered (slowest {max(answered):.1f} s, median "
              f"{sorted(answered)[len(answered) // 2]:.2f} s), {len(failed)} failed"
              + (f" ({'; '.join(sorted(set(failed)))})" if failed else ""))
        print(f"  workerd CPU:   {cpu:.1f} s over {observed:.1f} s ({cpu / observed * 100:.0f} % of one core)")
        if move["status"] != "done":
            sys.exit(f"FAILED: the move ended {move['status']!r}: {move.get('error')}")
        if copied.get("cards") != CARDS or copied.get("leads") != LEADS:
            sys.exit(f"FAILED: the move reports {copied}, expected cards {CARDS}, leads {LEADS}")

        # The account answers from its new shard.
        account = http("GET", f"{api.base}/admin/v1/accounts/{aid}", ADMIN)["data"]
        cards1 = total(api, token, "/api/v1/cards?per_page=1")
        leads1 = total(api, token, "/api/v1/leads?per_page=1")
        print(f"  after:         account shard {account.get('shard')}, data_region {account.get('data_region')}; "
              f"API: {cards1:,} cards, {leads1:,} leads")
        if account.get("shard") != move["to_shard"] or account.get("data_region") != TO_REGION:
            sys.exit(f"FAILED: the directory has the account in {account.get('shard')} / {account.get('data_region')}")
        if (cards1, leads1) != (CARDS, LEADS):
            sys.exit(f"FAILED: after the move the API answers {cards1} cards, {leads1} leads")
        target = move["to_shard"]
        api.stop()
        api = None
        # Both shards, read with the worker stopped (two runtimes on one SQLite file clash).
        count = ("SELECT (SELECT COUNT(*) FROM cards WHERE account_id = {a}) AS cards, "
                 "(SELECT COUNT(*) FROM leads WHERE account_id = {a}) AS leads, "
                 "(SELECT COUNT(*) FROM accounts WHERE id = {a}) AS accounts").format(a=aid)
        old, new = d1_query(state, source, count)[0], d1_query(state, target, count)[0]
        print(f"  shards:        {source} {old}; {target} {new}")
        if any(old.values()) or (new["cards"], new["leads"]) != (CARDS, LEADS):
            sys.exit("FAILED: the old shard still holds rows of the account, or the new one misses some")
        print(f"\nRESULT move of {CARDS:,} cards + {LEADS:,} leads, MOVE_BATCH_ROWS={BATCH}"
              f"{f', MOVE_STEP_MS={STEP}' if STEP else ''}: {seconds:.1f} s, "
              f"{rows / seconds:,.0f} rows/s, done")
        ok = True
    finally:
        if api is not None:
            api.stop()
        if ok:
            shutil.rmtree(state, ignore_errors=True)
        else:
            print(f"(state and worker log kept in {state})", file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except urllib.error.HTTPError as e:  # one the script did not expect
        sys.exit(f"FAILED: HTTP {e.code} from {e.url}: {e.read().decode(errors='replace')[:500]}")
