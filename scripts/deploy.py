#!/usr/bin/env python3
"""Deploys one environment: preflight, remote D1 migrations, the OpenAPI document into KV,
deploy, smoke check.

    ADMIN_TOKEN=<that environment's operator token> python3 scripts/deploy.py staging|production
    (or `make deploy ENV=staging ADMIN_TOKEN=...`)

Refuses before touching anything when the preflight does (placeholder ids or hostnames,
missing secrets, PUBLIC_BASE_URL not https, local-only vars) or ADMIN_TOKEN is not given
(the smoke check needs it; a secret cannot be read back from Cloudflare). Migrations run
before the new code, so they must keep the previous version working (add, never rename or
drop in the same release). When the smoke check fails it says how to roll back.
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import preflight  # noqa: E402

WRANGLER = preflight.WRANGLER


def run(what, cmd, env=None):
    print(f"==> {what}: {' '.join(cmd)}", flush=True)
    started = time.monotonic()
    code = subprocess.call(cmd, env={**os.environ, "CI": "true", **(env or {})})
    if code != 0:
        print(f"==> {what} failed (exit {code})")
    else:
        print(f"==> {what}: done in {time.monotonic() - started:.0f} s", flush=True)
    return code == 0


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in preflight.ENVIRONMENTS:
        sys.exit(__doc__)
    name = sys.argv[1]
    env = preflight.load(name)
    if not preflight.report(name, preflight.checks(name, env, False, False), False, False):
        sys.exit(f"==> deploy of {name}: REFUSED by the preflight; nothing was changed")
    admin_token = os.environ.get("ADMIN_TOKEN", "")
    if not admin_token:
        sys.exit(f"==> deploy of {name}: REFUSED: give ADMIN_TOKEN (the value set with "
                 f"`wrangler secret put ADMIN_TOKEN --env {name}`) for the smoke check; nothing was changed")
    base, admin = preflight.urls(env)

    # The directory, then every shard (regions.md 1): each binding has its migrations_dir.
    for binding in [d["binding"] for d in env.get("d1_databases", [])]:
        if not run(f"applying D1 migrations of {binding} (remote)",
                   [WRANGLER, "d1", "migrations", "apply", binding, "--remote", "--env", name]):
            sys.exit(f"==> deploy of {name}: FAILED at the migrations of {binding}; the running version "
                     "is unchanged. D1 applies each migration file in a transaction; see `wrangler d1 "
                     f"migrations list {binding} --remote --env {name}` for what is applied.")
    # The OpenAPI document is served from KV under a key named by its content (build.rs):
    # stored before the upload, so the new version finds it from its first request.
    if not run("storing the OpenAPI document in KV (remote)",
               [os.path.join(os.path.dirname(__file__), "openapi-kv.sh"), "--remote", "--env", name]):
        sys.exit(f"==> deploy of {name}: FAILED at storing the OpenAPI document; the running version "
                 "is unchanged (the migrations above are applied).")
    if not run("deploying", [WRANGLER, "deploy", "--env", name]):
        sys.exit(f"==> deploy of {name}: FAILED at the upload; the previous version still serves "
                 "(the migrations above are applied and must be compatible with it).")
    # A new version reaches every location within seconds; a short pause keeps the smoke
    # check from meeting the old one.
    time.sleep(5)
    if not run("smoke check", [sys.executable, os.path.join(os.path.dirname(__file__), "smoke.py")],
               {"BASE_URL": base, "ADMIN_URL": admin, "ADMIN_TOKEN": admin_token}):
        print(f"""==> deploy of {name}: DEPLOYED BUT THE SMOKE CHECK FAILED
    Roll back to the previous version:
      npx wrangler rollback --env {name}
    (`npx wrangler deployments list --env {name}` shows the versions.) The D1 migrations are
    not rolled back; if one of them is at fault, restore the database with Time Travel
    (README, "Operating": restore D1).""")
        sys.exit(1)
    print(f"==> deploy of {name}: DONE, {base} passed the smoke check")


if __name__ == "__main__":
    main()
