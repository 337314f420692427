#!/usr/bin/env python3
"""Checks that an environment of wrangler.toml can be deployed, before anything is.

    python3 scripts/preflight.py staging|production [--offline] [--allow-placeholders]

Refuses (exit 1) when a D1 or KV id is still the all-zero placeholder, PUBLIC_BASE_URL is
not an https origin, a local-only var (WEBHOOKS_ALLOW_PRIVATE, the test-only ones) is set,
a binding the worker needs is missing, or (online) a required secret is not set on the
environment (`wrangler secret list`). `make test` runs it with --offline and
--allow-placeholders (the repository holds placeholders) and checks that without the
latter it refuses them. One line per check, then a verdict.
"""
import json
import subprocess
import sys
import tomllib

REQUIRED_SECRETS = ["ADMIN_TOKEN", "VISITOR_SALT", "TOKEN_PEPPER"]
LOCAL_ONLY_VARS = ["WEBHOOKS_ALLOW_PRIVATE", "WEBHOOKS_FAULT", "RETENTION_DAY_MS"]
DURABLE_OBJECTS = {"RATE_LIMITER", "ANALYTICS_AGGREGATOR", "THROTTLE"}
QUEUES = {"WEBHOOKS", "WEBHOOKS_DLQ"}


def placeholder(value):
    return not value or set(str(value).replace("-", "")) == {"0"}


def main():
    args = sys.argv[1:]
    if not args or args[0] not in ("staging", "production"):
        sys.exit(__doc__)
    name, offline, allow_placeholders = args[0], "--offline" in args, "--allow-placeholders" in args
    env = tomllib.load(open("wrangler.toml", "rb")).get("env", {}).get(name)
    if env is None:
        sys.exit(f"wrangler.toml has no [env.{name}]")
    problems = []

    def check(ok, what, hint=""):
        print(f"  {'ok  ' if ok else 'FAIL'} {what}" + ("" if ok else f": {hint}"))
        if not ok:
            problems.append(what)

    print(f"==> preflight for {name}")
    dbs = env.get("d1_databases", [])
    db = next((d for d in dbs if d.get("binding") == "DB"), None)
    check(db is not None, "D1 binding DB", "add [[env.%s.d1_databases]]" % name)
    kv = next((k for k in env.get("kv_namespaces", []) if k.get("binding") == "ANALYTICS"), None)
    check(kv is not None, "KV binding ANALYTICS", "add [[env.%s.kv_namespaces]]" % name)
    ids_ok = db is not None and kv is not None and not placeholder(db.get("database_id")) and not placeholder(kv.get("id"))
    if allow_placeholders:
        print("  skip ids: placeholders allowed (--allow-placeholders)")
    else:
        check(ids_ok, "D1 and KV ids are real", "a placeholder id is set; put the ids printed by "
              "`wrangler d1 create` and `wrangler kv namespace create` in [env.%s]" % name)
    objects = {b.get("name") for b in env.get("durable_objects", {}).get("bindings", [])}
    check(DURABLE_OBJECTS <= objects, "Durable Object bindings", f"missing {sorted(DURABLE_OBJECTS - objects)}")
    queues = {p.get("binding") for p in env.get("queues", {}).get("producers", [])}
    consumers = env.get("queues", {}).get("consumers", [])
    check(QUEUES <= queues and len(consumers) == 1 and consumers[0].get("dead_letter_queue"),
          "webhook queue, consumer and dead-letter queue", "see the top-level [[queues.*]] entries")
    check(bool(env.get("triggers", {}).get("crons")), "cron triggers (sweeper, retention, upkeep)", "add [env.%s.triggers]" % name)
    vars_ = env.get("vars", {})
    base = vars_.get("PUBLIC_BASE_URL", "")
    check(base.startswith("https://") and len(base) > len("https://"), "PUBLIC_BASE_URL is an https origin", repr(base))
    local = [v for v in LOCAL_ONLY_VARS if v in vars_]
    check(not local, "no local-only vars", f"remove {local}")
    if offline:
        print("  skip secrets: --offline")
    else:
        out = subprocess.run(["node_modules/.bin/wrangler", "secret", "list", "--env", name, "--format", "json"],
                             capture_output=True, text=True)
        names = set()
        if out.returncode == 0:
            names = {s.get("name") for s in json.loads(out.stdout or "[]")}
        missing = [s for s in REQUIRED_SECRETS if s not in names]
        check(out.returncode == 0 and not missing, "secrets set",
              f"missing {missing}: `npx wrangler secret put <NAME> --env {name}`" if out.returncode == 0 else out.stderr.strip()[-200:])
    if problems:
        print(f"==> preflight for {name}: REFUSED ({len(problems)} problem(s))")
        sys.exit(1)
    print(f"==> preflight for {name}: ready")


if __name__ == "__main__":
    main()
