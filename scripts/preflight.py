#!/usr/bin/env python3
"""Checks that an environment of wrangler.toml can be deployed, before anything is.

    python3 scripts/preflight.py staging|production [--offline] [--allow-placeholders]
    python3 scripts/preflight.py --self-test

Refuses (exit 1) when a D1 or KV id is still the all-zero placeholder or PUBLIC_BASE_URL
names an example host, PUBLIC_BASE_URL is not an https origin, a local-only var
(WEBHOOKS_ALLOW_PRIVATE, the test-only ones) is set, a binding the worker needs is missing,
or (online) a required secret is not set on the environment (`wrangler secret list`).
`make test` runs it with --offline and --allow-placeholders (the repository holds
placeholders), and --self-test, which proves that each of those problems is refused.
One line per check, then a verdict. `scripts/deploy.py` runs it first.
"""
import copy
import json
import os
import re
import subprocess
import sys
import tomllib
from urllib.parse import urlsplit

REQUIRED_SECRETS = ["ADMIN_TOKEN", "VISITOR_SALT", "TOKEN_PEPPER"]
LOCAL_ONLY_VARS = ["WEBHOOKS_ALLOW_PRIVATE", "WEBHOOKS_FAULT", "RETENTION_DAY_MS"]
DURABLE_OBJECTS = {"RATE_LIMITER", "ANALYTICS_AGGREGATOR", "THROTTLE"}
QUEUES = {"WEBHOOKS", "WEBHOOKS_DLQ"}
ENVIRONMENTS = ("staging", "production")
WRANGLER = "node_modules/.bin/wrangler"


def load(name, path="wrangler.toml"):
    with open(path, "rb") as f:
        env = tomllib.load(f).get("env", {}).get(name)
    if env is None:
        sys.exit(f"wrangler.toml has no [env.{name}]")
    return env


def placeholder_id(value):
    return not value or set(str(value).replace("-", "")) == {"0"}


def example_host(host):
    host = (host or "").lower()
    return host in ("example.com", "example.org", "example.net") or host.endswith(
        (".example.com", ".example.org", ".example.net", ".example"))


def urls(env):
    """The deployment's public origin and the origin of its operator API."""
    vars_ = env.get("vars", {})
    base = vars_.get("PUBLIC_BASE_URL", "").rstrip("/")
    hosts = [h.strip() for h in vars_.get("ADMIN_HOSTS", "").split(",") if h.strip()]
    return base, (f"https://{hosts[0]}" if hosts else base)


def secrets_set(name):
    """The names of the environment's secrets, or an error text."""
    out = subprocess.run([WRANGLER, "secret", "list", "--env", name, "--format", "json"],
                         capture_output=True, text=True, env={**os.environ, "CI": "true"})
    if out.returncode != 0:
        text = re.sub(r"\x1b\[[0-9;]*m", "", out.stderr + out.stdout)
        lines = [l.strip(" ▲✘") for l in text.splitlines() if l.strip() and "Logs were written" not in l]
        return None, "`wrangler secret list` failed: " + " ".join(lines)[:300]
    try:
        return {s.get("name") for s in json.loads(out.stdout or "[]")}, None
    except ValueError:
        return None, f"unexpected answer: {out.stdout[:200]}"


def checks(name, env, offline, allow_placeholders, secrets=secrets_set):
    """(ok, what, hint) for every check of one environment."""
    out = []

    def check(ok, what, hint=""):
        out.append((bool(ok), what, hint))

    db = next((d for d in env.get("d1_databases", []) if d.get("binding") == "DB"), None)
    check(db is not None, "D1 binding DB", f"add [[env.{name}.d1_databases]]")
    kv = next((k for k in env.get("kv_namespaces", []) if k.get("binding") == "ANALYTICS"), None)
    check(kv is not None, "KV binding ANALYTICS", f"add [[env.{name}.kv_namespaces]]")
    base, admin = urls(env)
    if not allow_placeholders:
        ids_ok = (db is not None and kv is not None and not placeholder_id(db.get("database_id"))
                  and not placeholder_id(kv.get("id")))
        check(ids_ok, "D1 and KV ids are real", "a placeholder id is set; put the ids printed by "
              f"`wrangler d1 create` and `wrangler kv namespace create` in [env.{name}]")
        hosts = [urlsplit(base).hostname, urlsplit(admin).hostname]
        check(not any(example_host(h) for h in hosts), "hostnames are real",
              f"PUBLIC_BASE_URL / ADMIN_HOSTS / routes of [env.{name}] still name example hosts")
    objects = {b.get("name") for b in env.get("durable_objects", {}).get("bindings", [])}
    check(DURABLE_OBJECTS <= objects, "Durable Object bindings", f"missing {sorted(DURABLE_OBJECTS - objects)}")
    queues = {p.get("binding") for p in env.get("queues", {}).get("producers", [])}
    consumers = env.get("queues", {}).get("consumers", [])
    check(QUEUES <= queues and len(consumers) == 1 and consumers[0].get("dead_letter_queue"),
          "webhook queue, consumer and dead-letter queue", "see the top-level [[queues.*]] entries")
    check(bool(env.get("triggers", {}).get("crons")), "cron triggers (sweeper, retention, upkeep)",
          f"add [env.{name}.triggers]")
    parts = urlsplit(base)
    check(parts.scheme == "https" and parts.hostname and parts.path in ("", "/"),
          "PUBLIC_BASE_URL is an https origin",
          f"set PUBLIC_BASE_URL in [env.{name}.vars] to https://<public host> (now {base!r})")
    local = [v for v in LOCAL_ONLY_VARS if v in env.get("vars", {})]
    check(not local, "no local-only vars", f"remove {local}")
    if not offline:
        names, error = secrets(name)
        missing = [s for s in REQUIRED_SECRETS if s not in (names or set())]
        check(names is not None and not missing, "secrets set",
              error if names is None else f"missing {missing}: `npx wrangler secret put <NAME> --env {name}`")
    return out


def report(name, results, offline, allow_placeholders):
    print(f"==> preflight for {name}")
    if allow_placeholders:
        print("  skip ids and hostnames: placeholders allowed (--allow-placeholders)")
    for ok, what, hint in results:
        print(f"  {'ok  ' if ok else 'FAIL'} {what}" + ("" if ok else f": {hint}"))
    if offline:
        print("  skip secrets: --offline")
    failed = [what for ok, what, _ in results if not ok]
    if failed:
        print(f"==> preflight for {name}: REFUSED ({len(failed)} problem(s))")
    else:
        print(f"==> preflight for {name}: ready")
    return not failed


def self_test():
    """Each problem the preflight exists for is refused, and nothing else is."""
    def refused(env, what, **kw):
        opts = {"offline": True, "allow_placeholders": True, **kw}
        failed = [w for ok, w, _ in checks("x", env, **opts) if not ok]
        return failed == [what], failed

    cases = 0
    for name in ENVIRONMENTS:
        good = load(name)
        assert not [w for ok, w, _ in checks(name, good, True, True) if not ok], f"{name} as committed"

        def variant(edit):
            env = copy.deepcopy(good)
            edit(env)
            return env

        real = variant(lambda e: (e["d1_databases"][0].update(database_id="4b1c2d3e-0000-4000-8000-000000000001"),
                                  e["kv_namespaces"][0].update(id="0123456789abcdef0123456789abcdef"),
                                  e["vars"].update(PUBLIC_BASE_URL="https://cards.acme.io",
                                                   ADMIN_HOSTS="admin.cards.acme.io")))
        expectations = [
            (variant(lambda e: e["vars"].update(PUBLIC_BASE_URL="https://cards.acme.io", ADMIN_HOSTS="admin.acme.io")),
             "D1 and KV ids are real", {"allow_placeholders": False}),
            (variant(lambda e: e["vars"].pop("PUBLIC_BASE_URL")), "PUBLIC_BASE_URL is an https origin", {}),
            (variant(lambda e: e["vars"].update(PUBLIC_BASE_URL="")), "PUBLIC_BASE_URL is an https origin", {}),
            (variant(lambda e: e["vars"].update(PUBLIC_BASE_URL="http://cards.acme.io")), "PUBLIC_BASE_URL is an https origin", {}),
            (variant(lambda e: e["vars"].update(WEBHOOKS_ALLOW_PRIVATE="true")), "no local-only vars", {}),
            (variant(lambda e: e.pop("triggers")), "cron triggers (sweeper, retention, upkeep)", {}),
            (variant(lambda e: e["durable_objects"]["bindings"].pop()), "Durable Object bindings", {}),
            (variant(lambda e: e.pop("kv_namespaces")), "KV binding ANALYTICS", {}),
            (real, "secrets set", {"allow_placeholders": False, "offline": False,
                                   "secrets": lambda n: ({"ADMIN_TOKEN", "VISITOR_SALT"}, None)}),
            (real, "secrets set", {"allow_placeholders": False, "offline": False,
                                   "secrets": lambda n: (None, "not logged in")}),
            (variant(lambda e: e["d1_databases"][0].update(database_id="4b1c2d3e-0000-4000-8000-000000000001")
                     or e["kv_namespaces"][0].update(id="0123456789abcdef0123456789abcdef")),
             "hostnames are real", {"allow_placeholders": False}),
        ]
        for env, what, kw in expectations:
            ok, failed = refused(env, what, **kw)
            assert ok, f"{name}: expected only {what!r} refused, got {failed}"
            cases += 1
        # A complete, real configuration passes, secrets included.
        everything = lambda n: (set(REQUIRED_SECRETS), None)
        assert all(ok for ok, _, _ in checks(name, real, False, False, everything)), name
    print(f"==> preflight self-test: {cases} refusals and 2 acceptances as expected")


def main():
    args = sys.argv[1:]
    if args == ["--self-test"]:
        return self_test()
    if not args or args[0] not in ENVIRONMENTS:
        sys.exit(__doc__)
    name, offline, allow = args[0], "--offline" in args, "--allow-placeholders" in args
    if "--urls" in args:
        base, admin = urls(load(name))
        print(f"BASE_URL={base}\nADMIN_URL={admin}")
        return
    if not report(name, checks(name, load(name), offline, allow), offline, allow):
        sys.exit(1)


if __name__ == "__main__":
    main()
