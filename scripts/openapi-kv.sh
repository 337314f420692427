#!/usr/bin/env bash
# Stores the OpenAPI document (openapi.json, compact) in the ANALYTICS KV namespace under
# the key build.rs names: `openapi:` and 16 hex digits of the file's SHA-256. The worker
# serves /api/v1/openapi.json from there; it is not in the upload (README, "Size").
# The rest of the arguments go to `wrangler kv key put`:
#   scripts/openapi-kv.sh --local --persist-to DIR [--config wrangler.toml]   (migrate-local.sh)
#   scripts/openapi-kv.sh --remote --env production                          (deploy.py)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
key="openapi:$(sha256sum "$here/openapi.json" | cut -c1-16)"
doc=$(mktemp)
trap 'rm -f "$doc"' EXIT
python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], "w"), separators=(",", ":"), ensure_ascii=False)' \
  "$here/openapi.json" "$doc"
if ! out=$(CI=true "$here/node_modules/.bin/wrangler" kv key put --binding ANALYTICS "$key" --path "$doc" "$@" 2>&1); then
  echo "$out" >&2
  echo "==> storing the OpenAPI document in KV ($key) failed" >&2
  exit 1
fi
echo "==> OpenAPI document stored in KV as $key"
