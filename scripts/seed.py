#!/usr/bin/env python3
"""`make seed`: a realistic local service in one command.

Fills the local database (.wrangler/state, the one `make dev` serves) with one demo account
per plan (free, pro, business, enterprise), cards in several languages, templates and
colours, leads captured through the real lead form, today's views and clicks through the
real card pages, and a year of earlier analytics in KV; then prints an API token and the
card URLs. Uses the `make dev` server when one answers on PORT, else starts one for the
duration. Each run adds another set of demo accounts.

The tests point it elsewhere: SEED_BASE_URL (a running worker), SEED_STATE (its
--persist-to directory), ADMIN_TOKEN (else .dev.vars), SEED_ANALYTICS_BIN (a built
`seed-analytics` example; else `cargo run`).
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STATE = os.environ.get("SEED_STATE") or os.path.join(ROOT, ".wrangler", "state")
WRANGLER = os.path.join(ROOT, "node_modules", ".bin", "wrangler")
PORT = int(os.environ.get("PORT", "8787"))
UAS = [
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
    "Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
]
REFERERS = [None, "https://www.linkedin.com/feed/", "https://www.google.com/", None, "https://x.com/home"]

PLANS = [("free", "Demo Free (solo)"), ("pro", "Demo Pro (consultant)"),
         ("business", "Demo Business (agency)"), ("enterprise", "Demo Enterprise (Acme GmbH)")]

# The enterprise demo's cards: every language family, template and theme appears.
CARDS = [
    {"first_name": "Anna", "last_name": "Schmidt", "job_title": "Head of Sales", "company": "Acme GmbH",
     "language": "de", "template_id": "classic", "email": "anna.schmidt@acme.example",
     "phone": "+49 30 1234567", "website": "https://acme.example", "address": "Friedrichstr. 1, 10117 Berlin",
     "bio": "Ich helfe Teams, schneller zu verkaufen.", "booking_url": "https://cal.example/anna",
     "social_links": [{"platform": "linkedin", "url": "https://www.linkedin.com/in/anna-schmidt"}],
     "design_config": {"theme": "light", "accent_color": "#0b5fff", "button_style": "filled"}},
    {"first_name": "James", "last_name": "O'Neill", "job_title": "Solutions Architect", "company": "Acme Ltd",
     "language": "en", "template_id": "modern", "email": "james@acme.example", "phone": "+44 20 7946 0000",
     "website": "https://acme.example/uk", "video_url": "https://video.example/james-intro",
     "social_links": [{"platform": "github", "url": "https://github.com/james-example"},
                      {"platform": "x", "url": "https://x.com/james_example"}],
     "design_config": {"theme": "dark", "accent_color": "#ff6b35", "font": "rounded"}},
    {"first_name": "Camille", "last_name": "Durand", "job_title": "Directrice marketing", "company": "Acme France",
     "language": "fr", "template_id": "minimal", "email": "camille@acme.example",
     "bio": "Marque, contenu et communauté.",
     "design_config": {"theme": "auto", "accent_color": "#2e7d32", "font": "serif", "button_style": "outline"}},
    {"first_name": "Lucía", "last_name": "García", "job_title": "Key Account Manager", "company": "Acme Iberia",
     "language": "es", "template_id": "modern", "email": "lucia@acme.example", "phone": "+34 91 123 45 67",
     "social_links": [{"platform": "instagram", "url": "https://instagram.com/lucia.example"}],
     "design_config": {"theme": "light", "accent_color": "#8e24aa"}},
    {"first_name": "Piotr", "last_name": "Nowak", "job_title": "Inżynier wsparcia", "company": "Acme Polska",
     "language": "pl", "template_id": "classic", "email": "piotr@acme.example",
     "design_config": {"theme": "dark", "accent_color": "#00897b"}},
    {"first_name": "Giulia", "last_name": "Rossi", "job_title": "Product Designer", "company": "Acme Italia",
     "language": "it", "template_id": "minimal", "email": "giulia@acme.example", "website": "https://giulia.example",
     "translations": {"en": {"job_title": "Product Designer", "bio": "Design systems and research."}},
     "design_config": {"theme": "light", "accent_color": "#c62828", "font": "serif"}},
]
SMALL_CARDS = {
    "free": [{"first_name": "Sam", "last_name": "Solo", "job_title": "Photographer", "language": "en",
              "email": "sam@solo.example"}],
    "pro": [{"first_name": "Eva", "last_name": "Novák", "job_title": "Consultant", "language": "cs",
             "email": "eva@novak.example", "template_id": "modern", "design_config": {"accent_color": "#1565c0"}}],
    "business": [{"first_name": "Lars", "last_name": "Berg", "job_title": "Account Director", "language": "sv",
                  "email": "lars@agency.example", "template_id": "minimal"},
                 {"first_name": "Mette", "last_name": "Hansen", "job_title": "Strateg", "language": "da",
                  "email": "mette@agency.example", "template_id": "classic"}],
}
LEADS = [("Maria Weber", "maria.weber@example.org", "Gern ein Angebot für 20 Lizenzen."),
         ("Tom Baker", "tom.baker@example.net", "Could we book a demo next week?"),
         ("Élodie Martin", "elodie.martin@example.org", "Intéressée par un partenariat."),
         ("Javier Ruiz", "javier.ruiz@example.com", "¿Tienen precios para ONG?"),
         ("Kasia Zielińska", "kasia.z@example.org", "Prośba o kontakt."),
         ("Marco Bianchi", "marco.bianchi@example.net", "Portfolio review?"),
         ("Priya Shah", "priya.shah@example.com", "Met you at the conference, let's talk."),
         ("Lukas Huber", "lukas.huber@example.org", "Rückruf erbeten.")]


def say(text):
    print(text, flush=True)


def call(method, url, token=None, body=None, headers=None, form=False):
    data = None
    hdrs = {"User-Agent": UAS[0]}
    if body is not None:
        data = json.dumps(body).encode()
        hdrs["Content-Type"] = "application/json"
    if token:
        hdrs["Authorization"] = f"Bearer {token}"
    hdrs.update(headers or {})
    req = urllib.request.Request(url, data=data, method=method, headers=hdrs)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def must(status, text, want, what):
    if status != want:
        sys.exit(f"==> seed failed: {what}: HTTP {status}: {text[:300]}")
    return json.loads(text) if text.startswith("{") else text


def admin_token():
    if os.environ.get("ADMIN_TOKEN"):
        return os.environ["ADMIN_TOKEN"]
    try:
        for line in open(os.path.join(ROOT, ".dev.vars")):
            if line.startswith("ADMIN_TOKEN="):
                return line.split("=", 1)[1].strip()
    except OSError:
        pass
    sys.exit("==> seed: no ADMIN_TOKEN in .dev.vars (run `make seed`, which creates it)")


def answers(base):
    try:
        with urllib.request.urlopen(base + "/", timeout=2) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError):
        return False


def start_server():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(os.path.join(ROOT, "target", "seed-wrangler.log"), "w")
    proc = subprocess.Popen(
        [WRANGLER, "dev", "--ip", "127.0.0.1", "--port", str(port), "--persist-to", STATE,
         "--show-interactive-dev-session=false", "--inspector-port", "0"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        env={**os.environ, "CI": "true"})
    base = f"http://127.0.0.1:{port}"
    for _ in range(240):
        if answers(base):
            return base, proc
        if proc.poll() is not None:
            break
        time.sleep(0.5)
    sys.exit("==> seed: the worker did not start; see target/seed-wrangler.log")


def stop_server(proc):
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def visit(base, slug, n, i):
    """A visitor opens the page (and clicks something now and then)."""
    ip = f"203.0.113.{(i * 7 + n) % 250 + 1}"
    headers = {"User-Agent": UAS[(i + n) % len(UAS)], "CF-Connecting-IP": ip}
    referer = REFERERS[(i + n) % len(REFERERS)]
    if referer:
        headers["Referer"] = referer
    call("GET", f"{base}/c/{slug}", headers=headers)
    if n % 3 == 0:
        call("GET", f"{base}/c/{slug}/vcard", headers=headers)


def main():
    token_admin = admin_token()
    local = os.environ.get("SEED_BASE_URL") or f"http://127.0.0.1:{PORT}"
    proc = None
    if answers(local):
        base = local
        say(f"==> seeding through the running worker at {base}")
    else:
        say("==> starting the worker for seeding (make dev is not running)")
        base, proc = start_server()
    try:
        made = seed(base, token_admin)
    finally:
        if proc:
            # Give the aggregator a moment to flush today's counts before stopping.
            time.sleep(2)
            stop_server(proc)
    year_of_analytics(made["account"], made["card_ids"])
    report(made)


def seed(base, token_admin):
    adm = lambda m, p, b=None: call(m, f"{base}/admin/v1{p}", token_admin, b)
    scopes = ["cards:read", "cards:write", "leads:read", "leads:write", "analytics:read", "webhooks:write"]
    made = {}
    for plan, name in PLANS:
        # Only enterprise has API access; the others get it for the seeding and lose it after.
        account = must(*adm("POST", "/accounts", {"name": name, "plan": plan, "features": {"api_access": True}}),
                       201, f"account {plan}")["data"]
        policy = {"privacy_policy_url": "https://acme.example/privacy"} if plan == "enterprise" else {}
        if policy:
            must(*adm("PATCH", f"/accounts/{account['id']}", policy), 200, "privacy policy")
        token = must(*adm("POST", f"/accounts/{account['id']}/tokens", {"name": "demo", "scopes": scopes}),
                     201, f"token {plan}")["data"]["token"]
        cards = CARDS if plan == "enterprise" else SMALL_CARDS[plan]
        created = []
        for body in cards:
            body = {**body, "show_lead_form": plan != "free"}
            status, text = call("POST", f"{base}/api/v1/cards", token, body)
            if status == 422:
                # Keys the running version does not know yet are dropped, not fatal.
                body = {k: v for k, v in body.items() if k not in ("design_config", "translations")}
                status, text = call("POST", f"{base}/api/v1/cards", token, body)
            created.append(must(status, text, 201, f"card {body['first_name']}")["data"])
        must(*adm("PATCH", f"/accounts/{account['id']}", {"features": {"api_access": None}}), 200, "plan features")
        say(f"  account {account['id']:>3} {plan:<10} {len(created)} card(s)")
        made[plan] = {"account": account, "token": token, "cards": created}
    enterprise = made["enterprise"]
    leads = 0
    for i, card in enumerate(enterprise["cards"]):
        for n in range(12 + 3 * (len(enterprise["cards"]) - i)):
            visit(base, card["slug"], n, i)
        for j, (name, email, message) in enumerate(LEADS[i:i + 3]):
            body = {"name": name, "email": email, "message": message, "consent": "on"}
            status, text = call("POST", f"{base}/c/{card['slug']}/leads", body=body,
                                headers={"CF-Connecting-IP": f"198.51.100.{i * 10 + j + 1}",
                                         "User-Agent": UAS[j % len(UAS)]})
            must(status, text, 201, f"lead for {card['slug']}")
            leads += 1
    say(f"  {leads} leads through the lead forms, today's views and clicks through the card pages")
    made["account"] = enterprise["account"]["id"]
    made["card_ids"] = [c["id"] for c in enterprise["cards"]]
    made["base"] = base
    return made


def year_of_analytics(account, card_ids):
    say("==> writing a year of earlier analytics (KV counter documents)")
    out = os.path.join(STATE, "seed-analytics.json")
    with open(out, "w") as f:
        built = os.environ.get("SEED_ANALYTICS_BIN")
        cmd = [built] if built else ["cargo", "run", "--quiet", "--example", "seed-analytics", "--"]
        subprocess.run(cmd + [str(account), *map(str, card_ids)], cwd=ROOT, stdout=f, check=True)
    docs = len(json.load(open(out)))
    config = os.path.join(STATE, "wrangler.toml")
    config = ["--config", config] if os.path.exists(config) else []
    subprocess.run([WRANGLER, "kv", "bulk", "put", out, "--binding", "ANALYTICS", "--local",
                    "--persist-to", STATE, *config], cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "CI": "true"})
    say(f"  {docs} month documents for account {account}")


def report(made):
    e = made["enterprise"]
    base = os.environ.get("SEED_BASE_URL") or f"http://127.0.0.1:{PORT}"
    say("")
    say(f"==> seeded. Serve it with `make dev`, then (on {base}):")
    say(f"    API token of '{e['account']['name']}' (account {e['account']['id']}):")
    say(f"      {e['token']}")
    say(f"      curl -s {base}/api/v1/cards -H 'Authorization: Bearer {e['token']}'")
    say(f"      curl -s '{base}/api/v1/analytics/views?period=365d' -H 'Authorization: Bearer {e['token']}'")
    say("    Card pages:")
    for plan, _ in PLANS:
        for c in made[plan]["cards"]:
            say(f"      {base}/c/{c['slug']}  ({plan}, {c['language']}, {c.get('template_id') or 'classic'})")


if __name__ == "__main__":
    main()
