#!/usr/bin/env python3
"""Checks that an environment of wrangler.toml can be deployed, before anything is.

    python3 scripts/preflight.py staging|production [--offline] [--allow-placeholders] [--config PATH]
    python3 scripts/preflight.py --self-test [--config PATH]

Refuses (exit 1) when a D1 or KV id is still the all-zero placeholder (or two D1 bindings
share a database) or PUBLIC_BASE_URL names an example host, PUBLIC_BASE_URL is not an
https origin, a local-only var (WEBHOOKS_ALLOW_PRIVATE, the test-only ones,
DURABLE_OBJECT_JURISDICTIONS) is set, a binding the worker needs is missing (DIRECTORY
among them), SHARDS and the SHARD_* D1 bindings disagree (a listed binding missing, a
binding not listed, an unknown region, DEFAULT_DATA_REGION without a shard), or (online) a
required secret is not set on the environment (`wrangler secret list`).
`make test` runs it with --offline and --allow-placeholders (the repository holds
placeholders), and --self-test, which proves that each of those problems is refused.
--config reads another wrangler.toml. One line per check, then a verdict.
`scripts/deploy.py` runs it first.
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
DURABLE_OBJECTS = {"RATE_LIMITER", "ANALYTICS_AGGREGATOR", "THROTTLE", "MOVER", "SYNCER", "NAMES"}
QUEUES = {"WEBHOOKS", "WEBHOOKS_DLQ"}
# src/domain/region.rs (`Region::as_str`); the self-test holds the two together.
REGIONS = ("wnam", "enam", "weur", "eeur", "apac", "oc", "eu", "fedramp")
SHARD_PREFIX = "SHARD_"
ENVIRONMENTS = ("staging", "production")
WRANGLER = "node_modules/.bin/wrangler"


def load(name, path="wrangler.toml", config=None):
    """The environment `name` of the wrangler.toml at `path` (or of `config`, one already read)."""
    if config is None:
        try:
            with open(path, "rb") as f:
                config = tomllib.load(f)
        except (OSError, tomllib.TOMLDecodeError) as e:
            sys.exit(f"cannot read {path}: {e}")
    env = config.get("env", {}).get(name)
    if env is None:
        sys.exit(f"{path} has no [env.{name}]")
    return env


def placeholder_id(value):
    return not value or set(str(value).replace("-", "")) == {"0"}


def example_host(host):
    host = (host or "").lower()
    return host in ("example.com", "example.org", "example.net") or host.endswith(
        (".example.com", ".example.org", ".example.net", ".example"))


def shards(env):
    """What the worker would make of the environment's SHARDS and DEFAULT_DATA_REGION
    (src/domain/region.rs, `Topology::parse`): {check: problem or None}."""
    vars_ = env.get("vars", {})
    text = str(vars_.get("SHARDS", "")).strip()
    d1 = {d.get("binding") for d in env.get("d1_databases", [])}
    entries, malformed = [], []
    for entry in (e.strip() for e in text.split(",")):
        if not entry:
            continue
        binding, eq, region = (p.strip() for p in entry.partition("="))
        if not eq or not binding.startswith(SHARD_PREFIX) or binding == SHARD_PREFIX:
            malformed.append(entry)
        else:
            entries.append((binding, region))
    named = [b for b, _ in entries]
    twice = sorted({b for b in named if named.count(b) > 1})
    form = ("not set" if not text else f"entries not SHARD_*=region: {malformed}" if malformed
            else f"names {twice} twice" if twice else "names no shard" if not entries else None)
    unknown = [f"{b}={r}" for b, r in entries if r not in REGIONS]
    regions = [r for _, r in entries if r in REGIONS]
    default = str(vars_.get("DEFAULT_DATA_REGION", "")).strip() or (regions[0] if regions else "")
    return {
        "form": form,
        "missing": sorted(set(named) - d1) or None,
        "unlisted": sorted(b for b in d1 if b and b.startswith(SHARD_PREFIX) and b not in named) or None,
        "unknown": unknown or None,
        "default": (None if default in regions else "unset, and SHARDS has no shard" if not default
                    else f"{default!r} is none of {' '.join(REGIONS)}" if default not in REGIONS
                    else f"{default!r} has no shard in SHARDS"),
    }


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

    d1 = env.get("d1_databases", [])
    directory = next((d for d in d1 if d.get("binding") == "DIRECTORY"), None)
    check(directory is not None, "D1 binding DIRECTORY",
          f"add [[env.{name}.d1_databases]] binding = \"DIRECTORY\" (migrations/directory)")
    kv = next((k for k in env.get("kv_namespaces", []) if k.get("binding") == "ANALYTICS"), None)
    check(kv is not None, "KV binding ANALYTICS", f"add [[env.{name}.kv_namespaces]]")
    topology = shards(env)
    where = f"[env.{name}.vars]"
    check(not topology["form"], "SHARDS lists the shards as SHARD_*=region",
          f"SHARDS in {where}: {topology['form']}")
    check(not topology["missing"], "every binding SHARDS names is a D1 binding",
          f"SHARDS names {topology['missing']}: add [[env.{name}.d1_databases]] for each")
    check(not topology["unlisted"], "SHARDS names every SHARD_* D1 binding",
          f"add {topology['unlisted']} with their regions to SHARDS, or remove the bindings")
    check(not topology["unknown"], "SHARDS gives known regions",
          f"{topology['unknown']}: a region is one of {' '.join(REGIONS)}")
    check(not topology["default"], "DEFAULT_DATA_REGION has a shard",
          f"DEFAULT_DATA_REGION in {where}: {topology['default']}")
    base, admin = urls(env)
    if not allow_placeholders:
        ids_ok = (d1 and kv is not None and not any(placeholder_id(d.get("database_id")) for d in d1)
                  and not placeholder_id(kv.get("id")))
        check(ids_ok, "D1 and KV ids are real", "a placeholder id is set; put the ids printed by "
              f"`wrangler d1 create` and `wrangler kv namespace create` in [env.{name}]")
        ids = [d.get("database_id") for d in d1 if not placeholder_id(d.get("database_id"))]
        shared = sorted({d.get("binding") for d in d1 if ids.count(d.get("database_id")) > 1})
        check(not shared, "each D1 binding has its own database",
              f"{shared} share a database_id: each shard is its own `wrangler d1 create`")
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
    check("DURABLE_OBJECT_JURISDICTIONS" not in env.get("vars", {}),
          "Durable Object jurisdictions not switched off",
          f"remove DURABLE_OBJECT_JURISDICTIONS from {where} (local workerd only): deployed, "
          "the objects of eu and fedramp accounts must be created in their jurisdiction")
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


def self_test(path="wrangler.toml"):
    """Each problem the preflight exists for is refused, and nothing else is."""
    def refused(env, what, **kw):
        opts = {"offline": True, "allow_placeholders": True, **kw}
        failed = [w for ok, w, _ in checks("x", env, **opts) if not ok]
        expected = [what] if isinstance(what, str) else what
        return failed == expected, failed

    rust = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "domain",
                             "region.rs")).read()
    as_str = rust[rust.index("fn as_str"):rust.index("fn parse")]
    assert tuple(re.findall(r'=> "(\w+)"', as_str)) == REGIONS, "REGIONS differs from region.rs"

    with open(path, "rb") as f:  # read once: PATH may be a pipe, <(git show main:wrangler.toml)
        config = tomllib.load(f)
    cases = 0
    for name in ENVIRONMENTS:
        good = load(name, path, config)
        assert not [w for ok, w, _ in checks(name, good, True, True) if not ok], f"{name} as committed"

        def variant(edit, base=good):
            env = copy.deepcopy(base)
            edit(env)
            return env

        def real_ids(e):
            for i, d in enumerate(e["d1_databases"]):
                d.update(database_id=f"4b1c2d3e-0000-4000-8000-{i + 1:012d}")
            e["kv_namespaces"][0].update(id="0123456789abcdef0123456789abcdef")

        def add_d1(binding):
            return lambda e: e["d1_databases"].append(
                {"binding": binding, "database_name": binding.lower(), "database_id": "0",
                 "migrations_dir": "migrations/shard"})

        def drop_d1(binding):
            return lambda e: e.update(d1_databases=[d for d in e["d1_databases"] if d["binding"] != binding])

        def set_var(**kw):
            return lambda e: e["vars"].update(kw)

        real = variant(lambda e: (real_ids(e), e["vars"].update(PUBLIC_BASE_URL="https://cards.acme.io",
                                                                ADMIN_HOSTS="admin.cards.acme.io")))
        shards_var = good["vars"]["SHARDS"]
        first_shard = shards_var.split(",")[0].split("=")[0].strip()
        expectations = [
            (variant(lambda e: e["vars"].update(PUBLIC_BASE_URL="https://cards.acme.io", ADMIN_HOSTS="admin.acme.io")),
             "D1 and KV ids are real", {"allow_placeholders": False}),
            (variant(lambda e: e["d1_databases"][1].update(database_id=e["d1_databases"][0]["database_id"]), real),
             "each D1 binding has its own database", {"allow_placeholders": False}),
            (variant(lambda e: e["vars"].pop("PUBLIC_BASE_URL")), "PUBLIC_BASE_URL is an https origin", {}),
            (variant(lambda e: e["vars"].update(PUBLIC_BASE_URL="")), "PUBLIC_BASE_URL is an https origin", {}),
            (variant(lambda e: e["vars"].update(PUBLIC_BASE_URL="http://cards.acme.io")), "PUBLIC_BASE_URL is an https origin", {}),
            (variant(lambda e: e["vars"].update(WEBHOOKS_ALLOW_PRIVATE="true")), "no local-only vars", {}),
            (variant(lambda e: e.pop("triggers")), "cron triggers (sweeper, retention, upkeep)", {}),
            (variant(lambda e: e["durable_objects"]["bindings"].pop()), "Durable Object bindings", {}),
            (variant(lambda e: e.pop("kv_namespaces")), "KV binding ANALYTICS", {}),
            # Data regions: (a) the local switch, (b) a listed binding missing, (c) a binding
            # not listed, (d) no directory, (e) an unknown region, a default region without a
            # shard; and SHARDS itself missing or malformed.
            (variant(set_var(DURABLE_OBJECT_JURISDICTIONS="off")), "Durable Object jurisdictions not switched off", {}),
            (variant(set_var(DURABLE_OBJECT_JURISDICTIONS="on")), "Durable Object jurisdictions not switched off", {}),
            (variant(set_var(SHARDS=shards_var + ",SHARD_OC_1=oc")), "every binding SHARDS names is a D1 binding", {}),
            (variant(drop_d1(first_shard)), "every binding SHARDS names is a D1 binding", {}),
            (variant(add_d1("SHARD_OC_1")), "SHARDS names every SHARD_* D1 binding", {}),
            (variant(drop_d1("DIRECTORY")), "D1 binding DIRECTORY", {}),
            (variant(set_var(SHARDS=shards_var.replace("=apac", "=mars"))), "SHARDS gives known regions", {}),
            (variant(lambda e: (add_d1("SHARD_OC_1")(e), set_var(SHARDS=shards_var + ",SHARD_OC_1=OC")(e))),
             "SHARDS gives known regions", {}),
            (variant(set_var(DEFAULT_DATA_REGION="oc")), "DEFAULT_DATA_REGION has a shard", {}),
            (variant(set_var(DEFAULT_DATA_REGION="mars")), "DEFAULT_DATA_REGION has a shard", {}),
            (variant(set_var(SHARDS=f"{shards_var},{first_shard}=eu")), "SHARDS lists the shards as SHARD_*=region", {}),
            (variant(set_var(SHARDS=shards_var + ",DB=wnam")),
             ["SHARDS lists the shards as SHARD_*=region"], {}),
            (variant(lambda e: e["vars"].pop("SHARDS")),
             ["SHARDS lists the shards as SHARD_*=region", "SHARDS names every SHARD_* D1 binding",
              "DEFAULT_DATA_REGION has a shard"], {}),
            (real, "secrets set", {"allow_placeholders": False, "offline": False,
                                   "secrets": lambda n: ({"ADMIN_TOKEN", "VISITOR_SALT"}, None)}),
            (real, "secrets set", {"allow_placeholders": False, "offline": False,
                                   "secrets": lambda n: (None, "not logged in")}),
            (variant(real_ids), "hostnames are real", {"allow_placeholders": False}),
        ]
        for env, what, kw in expectations:
            ok, failed = refused(env, what, **kw)
            assert ok, f"{name}: expected only {what!r} refused, got {failed}"
            cases += 1
        # A complete, real configuration passes, secrets included; DEFAULT_DATA_REGION may
        # be left out (the first listed shard's region).
        everything = lambda n: (set(REQUIRED_SECRETS), None)
        assert all(ok for ok, _, _ in checks(name, real, False, False, everything)), name
        unset = variant(lambda e: e["vars"].pop("DEFAULT_DATA_REGION"))
        assert all(ok for ok, _, _ in checks(name, unset, True, True)), name
    print(f"==> preflight self-test: {cases} refusals and 4 acceptances as expected")


def main():
    args = sys.argv[1:]
    path = "wrangler.toml"
    if "--config" in args:
        at = args.index("--config")
        if at + 1 >= len(args):
            sys.exit(__doc__)
        path = args[at + 1]
        del args[at:at + 2]
    if args == ["--self-test"]:
        return self_test(path)
    if not args or args[0] not in ENVIRONMENTS:
        sys.exit(__doc__)
    name, offline, allow = args[0], "--offline" in args, "--allow-placeholders" in args
    if "--urls" in args:
        base, admin = urls(load(name, path))
        print(f"BASE_URL={base}\nADMIN_URL={admin}")
        return
    if not report(name, checks(name, load(name, path), offline, allow), offline, allow):
        sys.exit(1)


if __name__ == "__main__":
    main()
