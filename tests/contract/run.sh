#!/usr/bin/env bash
# Contract check: validates openapi.json with openapi-spec-validator; generates a Python
# client (openapi-python-client) and TypeScript types (openapi-typescript, compiled with
# tsc --strict) from it into target/clients, failing on any generator warning; starts the
# built worker in local workerd, runs a short sync with each client (sync_client.py,
# sync_client.ts), then schemathesis with every check, driven by the document. Fails on any
# 5xx, any response the document does not describe, and any request the service judges
# otherwise than the document (schemathesis.toml and hooks.py say where state decides). Then
# scim2-tester checks the SCIM service provider at /scim/v2 (scim.sh).
# Arguments are passed on to schemathesis (e.g. --continue-on-failure).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
venv=$root/.venv
bin=$root/node_modules/.bin
wrangler=$bin/wrangler
clients=$root/target/clients
max_examples=${CONTRACT_MAX_EXAMPLES:-25}

# Every exit, including one from `set -e`, ends with a verdict line.
verdict() {
  if [ "$1" -eq 0 ]; then echo "==> contract: PASSED"; else echo "==> contract: FAILED (exit $1)"; fi
}

echo "==> openapi-spec-validator"
"$venv/bin/openapi-spec-validator" openapi.json

# A free port below Linux's ephemeral range (32768-60999): one picked there can become the
# source port of an outgoing connection before wrangler binds it.
free_port() { python3 -c '
import random, socket
while True:
    p = random.randrange(20000, 32000)
    try:
        socket.socket().bind(("127.0.0.1", p)); print(p); break
    except OSError:
        pass'; }
port=$(free_port); inspector=$(free_port)
while [ "$inspector" = "$port" ]; do inspector=$(free_port); done
state=$(mktemp -d "${TMPDIR:-/tmp}/cardapi-contract.XXXXXX")
admin=contract-admin-$RANDOM$RANDOM
pid=""
cleanup() {
  local rc=$?
  if [ -n "$pid" ]; then kill -TERM -"$pid" 2>/dev/null || true; sleep 1; kill -KILL -"$pid" 2>/dev/null || true; fi
  if [ "$rc" -ne 0 ] && [ -f "$state/wrangler.log" ]; then
    mkdir -p target && cp "$state/wrangler.log" target/contract-wrangler.log
    echo "==> the worker's log: target/contract-wrangler.log"
  fi
  rm -rf "$state"
  verdict "$rc"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Typed clients from the document, into target/clients (not committed). A warning of either
# generator means a client that lacks operations or models (or types them `never`): a failure.
echo "==> generating clients (openapi-python-client, openapi-typescript)"
rm -rf "$clients" && mkdir -p "$clients/python" "$clients/ts"
"$venv/bin/openapi-python-client" generate --path openapi.json --meta none --fail-on-warning \
  --config tests/contract/openapi-python-client.yaml --output-path "$clients/python/cardapi_client" \
  >"$clients/python.log" 2>&1 || { cat "$clients/python.log"; echo "openapi-python-client failed or warned"; exit 1; }
if grep -qE 'Warning|WARNING|Unable to' "$clients/python.log"; then
  cat "$clients/python.log"; echo "openapi-python-client warned"; exit 1
fi
"$bin/openapi-typescript" openapi.json -o "$clients/ts/schema.d.ts" >"$clients/ts.log" 2>&1 \
  || { cat "$clients/ts.log"; echo "openapi-typescript failed"; exit 1; }
if grep -vE '^(✨ openapi-typescript [0-9.]+|🚀 openapi\.json → .*)$' "$clients/ts.log" | grep -q .; then
  cat "$clients/ts.log"; echo "openapi-typescript warned"; exit 1
fi
# Free-form objects must come out as open objects, not `Record<string, never>` (only the
# empty `$defs` may).
if grep -n 'Record<string, never>' "$clients/ts/schema.d.ts" | grep -v 'export type \$defs'; then
  echo "openapi-typescript typed a schema as never"; exit 1
fi
cp tests/contract/sync_client.ts "$clients/ts/"
echo '{"type":"module"}' >"$clients/ts/package.json"
"$bin/tsc" --strict --noUncheckedIndexedAccess --exactOptionalPropertyTypes --target es2022 \
  --module nodenext --moduleResolution nodenext --lib es2022,dom --outDir "$clients/ts/js" \
  "$clients/ts/sync_client.ts"

scripts/migrate-local.sh --persist-to "$state" >/dev/null
# The limit is raised so schemathesis measures the API, not the limiter (tested in e2e).
# Webhook attempts are recorded but not sent (WEBHOOKS_FAULT=drop-send): schemathesis
# subscribes random public URLs, and with no network each attempt is a failed DNS lookup
# that workerd logs with a stack trace, thousands per run, enough to push requests past
# schemathesis' 10 s timeout. Delivery is tested end to end in tests/e2e/webhooks.rs.
setsid "$wrangler" dev --ip 127.0.0.1 --port "$port" --inspector-port "$inspector" \
  --persist-to "$state" --show-interactive-dev-session=false \
  --var "ADMIN_TOKEN:$admin" --var VISITOR_SALT:contract --var TOKEN_PEPPER:contract --var RATE_LIMIT_PER_MINUTE:1000000 \
  --var WEBHOOKS_FAULT:drop-send \
  >"$state/wrangler.log" 2>&1 </dev/null &
pid=$!
base=http://127.0.0.1:$port
for _ in $(seq 1 240); do
  curl -fs "$base/" >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { cat "$state/wrangler.log"; exit 1; }
  sleep 0.5
done
curl -fs "$base/" >/dev/null || { echo "worker did not start"; cat "$state/wrangler.log"; exit 1; }

json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
account=$(curl -fs -X POST "$base/admin/v1/accounts" -H "Authorization: Bearer $admin" \
  -d '{"name":"Contract","plan":"enterprise","card_limit":100000}' | json "['data']['id']")
token=$(curl -fs -X POST "$base/admin/v1/accounts/$account/tokens" -H "Authorization: Bearer $admin" \
  -d '{"name":"schemathesis","scopes":["cards:read","cards:write","leads:read","analytics:read","webhooks:write","leads:write","templates:write"]}' | json "['data']['token']")
# Seed two cards, a lead, a view, a click and a webhook, so reads of id 1 find something and the
# analytics objects have keys in every map.
slug=$(curl -fs -X POST "$base/api/v1/cards" -H "Authorization: Bearer $token" \
  -d '{"first_name":"Contract","last_name":"Seed","email":"seed@example.com","show_lead_form":true}' | json "['data']['slug']")
curl -fs -X POST "$base/api/v1/cards" -H "Authorization: Bearer $token" \
  -d '{"first_name":"Second","last_name":"Card","language":"de"}' >/dev/null
curl -fs -X POST "$base/c/$slug/leads" -H 'Content-Type: application/json' \
  -d '{"name":"Lead","email":"lead@example.com"}' >/dev/null
curl -fs "$base/c/$slug" -H 'Referer: https://www.linkedin.com/feed' -A 'Mozilla/5.0 (iPhone)' >/dev/null
curl -fs -o /dev/null "$base/c/$slug/go/email"
curl -fs -X POST "$base/api/v1/webhooks" -H "Authorization: Bearer $token" \
  -d '{"url":"https://hooks.example.com/contract","events":["*"]}' >/dev/null

echo "==> sync through the generated clients"
PYTHONPATH="$clients/python" "$venv/bin/python" tests/contract/sync_client.py "$base" "$token"
node "$clients/ts/js/sync_client.js" "$base" "$token"

echo "==> schemathesis against $base (max $max_examples examples per operation)"
"$venv/bin/schemathesis" --config-file tests/contract/schemathesis.toml run openapi.json --url "$base" \
  -H "Authorization: Bearer $token" \
  --checks all \
  --max-examples "$max_examples" --seed 20261122 --workers 1 \
  --suppress-health-check all --no-color "$@"

# SCIM gets an account of its own: the checker looks for the users it creates in the first
# page of GET /Users, which schemathesis' cards would crowd out.
scim_account=$(curl -fs -X POST "$base/admin/v1/accounts" -H "Authorization: Bearer $admin" \
  -d '{"name":"Contract SCIM","plan":"enterprise","card_limit":100000}' | json "['data']['id']")
scim_token=$(curl -fs -X POST "$base/admin/v1/accounts/$scim_account/tokens" -H "Authorization: Bearer $admin" \
  -d '{"name":"scim2-tester","scopes":["scim"]}' | json "['data']['token']")
bash tests/contract/scim.sh "$base/scim/v2" "$scim_token"
