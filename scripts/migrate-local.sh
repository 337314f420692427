#!/usr/bin/env bash
# Applies the D1 migrations of every local database of a wrangler.toml: the directory
# (migrations/directory) and each shard binding SHARD_* (migrations/shard).
#   scripts/migrate-local.sh --persist-to DIR [--config wrangler.toml]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
wrangler="$here/node_modules/.bin/wrangler"
config="$here/wrangler.toml"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --config) config=$2; shift 2;;
    *) args+=("$1"); shift;;
  esac
done
# The top-level bindings only (before the first [env.*] table).
bindings=$(awk '/^\[env\./{exit} /^binding = "(DIRECTORY|SHARD_[A-Z0-9_]+)"/{gsub(/"/,"",$3); print $3}' "$config")
[ -n "$bindings" ] || { echo "no DIRECTORY or SHARD_* binding in $config" >&2; exit 1; }
# The OpenAPI document goes to local KV beside the migrations (scripts/openapi-kv.sh).
scripts_dir=$(dirname "$0")
"$scripts_dir/openapi-kv.sh" --local --config "$config" "${args[@]}" >/dev/null &
kv=$!
for b in $bindings; do
  # One retry: local D1's runtime has failed a fresh database's first migration with an
  # internal assertion ("false == true") on a busy machine (once in three clean-clone runs). The
  # applied migrations are recorded, so a second run goes on from the one that failed.
  for attempt in 1 2; do
    if out=$(CI=true "$wrangler" d1 migrations apply "$b" --local --config "$config" "${args[@]}" 2>&1); then
      break
    fi
    if [ "$attempt" = 2 ]; then
      echo "$out" >&2
      echo "==> migrations of $b failed" >&2
      exit 1
    fi
    echo "==> migrations of $b failed once; trying again" >&2
  done
  echo "==> $b migrated"
done
wait $kv || exit 1
