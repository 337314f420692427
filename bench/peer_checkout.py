#!/usr/bin/env python3
"""Prepares the checkout the team's JavaScript peer yardstick (../shared/peer/run.sh) runs on.

The yardstick predates data regions: it seeds one D1 database bound as `DB` through the
project's wrangler.toml, and gives the peer the schema in `<checkout>/migrations/*.sql`.
This project has a directory and shards instead (README, "Data regions"). So the checkout
made here (target/peer-checkout, with links to build/, node_modules/ and package.json) has:

- `migrations/`: the single-database schema the peer was written for (shard migrations
  0001-0007, which still create `tokens`);
- `migrations-bench/`: that schema plus the directory's and shards' additions in one
  database (accounts carry their region and shard, slugs and moves, the shard triggers);
  a trigger files a seeded card's slug, as createCard would have;
- `wrangler.toml`: the project's top-level configuration with `DB`, `DIRECTORY` and one
  shard `SHARD_WNAM_1` bound to that one local database (same id, so one SQLite file).

Our worker still makes every call of the sharded design (createCard reserves its slug in the
name's Names object, writes the shard, then the routing row through the DIRECTORY binding):
only the two databases are one file, so the comparison counts every D1 call it makes. Run: python3 bench/peer_checkout.py
(prints the checkout's path); `make bench` does it before running the yardstick.
"""

import glob
import os
import re
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "target", "peer-checkout")
DB_ID = "00000000-0000-0000-0000-0000000000be"
SHARD = "SHARD_WNAM_1"


def directory_tables():
    """The directory's slugs and moves tables (and their indexes), from its migration."""
    text = open(os.path.join(ROOT, "migrations", "directory", "0001_directory.sql")).read()
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("--"))
    keep = [s.strip() + ";" for s in text.split(";")
            if re.search(r"\b(TABLE|INDEX) (slugs|moves|slugs_\w+|moves_\w+)\b", s)]
    return "\n".join(keep)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(os.path.join(OUT, "migrations"))
    os.makedirs(os.path.join(OUT, "migrations-bench"))
    for name in ("build", "node_modules", "package.json", ".dev.vars.example"):
        if os.path.exists(os.path.join(ROOT, name)):
            os.symlink(os.path.join(ROOT, name), os.path.join(OUT, name))
    shard = sorted(glob.glob(os.path.join(ROOT, "migrations", "shard", "*.sql")))
    for path in shard:
        name = os.path.basename(path)
        text = open(path).read()
        if name < "0008":
            shutil.copy(path, os.path.join(OUT, "migrations", name))
        else:
            # Tokens stay (the one database is the directory too).
            text = text.replace("DROP TABLE tokens;", "")
        open(os.path.join(OUT, "migrations-bench", name), "w").write(text)
    extra = f"""-- The directory's additions, in the same database (bench/peer_checkout.py).
ALTER TABLE accounts ADD COLUMN data_region TEXT NOT NULL DEFAULT 'wnam';
ALTER TABLE accounts ADD COLUMN shard TEXT NOT NULL DEFAULT '{SHARD}';
ALTER TABLE accounts ADD COLUMN moving INTEGER;
{directory_tables()}
-- A card seeded straight into the table gets a routing row, as createCard writes one after
-- its answer. Only seeded cards: those the worker makes (ids from 2^31 on, regions.md 6)
-- get their own, under a keyed hash of the slug.
CREATE TRIGGER bench_card_slug AFTER INSERT ON cards WHEN NEW.id < 2147483648
BEGIN INSERT OR IGNORE INTO slugs (card_id, slug, account_id, shard, state, reserved_at)
  VALUES (NEW.id, NEW.slug, NEW.account_id, '{SHARD}', 'live', NEW.created_at); END;
"""
    open(os.path.join(OUT, "migrations-bench", "9999_bench_directory.sql"), "w").write(extra)

    toml = open(os.path.join(ROOT, "wrangler.toml")).read()
    toml = toml.split("\n[env.")[0]
    toml = re.sub(r"\[build\]\n(?:(?!\n\[).)*\n", "", toml, flags=re.S)
    toml = re.sub(r"\[\[d1_databases\]\]\n(?:[^\[\n].*\n|\n)*", "", toml)
    toml = re.sub(r'^SHARDS = .*$', f'SHARDS = "{SHARD}=wnam"', toml, flags=re.M)
    for binding in ("DB", "DIRECTORY", SHARD):
        toml += (f'\n[[d1_databases]]\nbinding = "{binding}"\ndatabase_name = "cardapi-bench"\n'
                 f'database_id = "{DB_ID}"\nmigrations_dir = "migrations-bench"\n')
    open(os.path.join(OUT, "wrangler.toml"), "w").write(toml)
    print(OUT)


if __name__ == "__main__":
    main()
