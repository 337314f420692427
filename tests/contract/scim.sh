#!/usr/bin/env bash
# SCIM 2.0 conformance (provisioning.md 2): scim2-tester, through scim2-cli's `test` command,
# against a running service. Usage: tests/contract/scim.sh SCIM_BASE_URL TOKEN
# (e.g. http://127.0.0.1:8787/scim/v2, a token with the `scim` scope). The token should be the
# only one of its account: the checker creates and deletes users and looks for each one it
# made in the first page of GET /Users.
#
# `scim2 test` prints no summary and exits 1 on any result but SUCCESS, SKIPPED included, so
# the verdict is taken here. A failure is any ERROR, CRITICAL or DEVIATION, and any SKIPPED
# except `search_with_attributes`: that one is POST {base}/.search across all resource types,
# which RFC 7644 3.4.3 leaves optional (a 501 skips it). Any other skip means the server
# announced less than provisioning.md promises (e.g. patch unsupported skips every PATCH check).
set -euo pipefail
cd "$(dirname "$0")/../.."
url=${1:?usage: scim.sh SCIM_BASE_URL TOKEN}
token=${2:?usage: scim.sh SCIM_BASE_URL TOKEN}
venv=${VENV:-$PWD/.venv}
log=target/contract-scim.log
mkdir -p target

echo "==> scim2-tester against $url (full output: $log)"
# Through the environment, not argv: other users of the machine can read command lines.
rc=0
SCIM_CLI_HEADERS="Authorization: Bearer $token" "$venv/bin/scim2" --url "$url" test --verbose \
  >"$log" 2>&1 || rc=$?

"$venv/bin/python" - "$log" "$rc" <<'EOF'
import re, sys
from importlib.metadata import version

log, rc = sys.argv[1], int(sys.argv[2])
text = open(log, encoding="utf-8", errors="replace").read()
status_line = re.compile(r"^(SUCCESS|COMPLIANT|ACCEPTABLE|DEVIATION|ERROR|CRITICAL|SKIPPED) (\w+)$")
OPTIONAL_SKIPS = {"search_with_attributes"}

results = []  # [status, check, reason lines]
for line in text.splitlines():
    m = status_line.match(line)
    if m:
        results.append([m[1], m[2], []])
    elif results:
        results[-1][2].append(line)

passed = [r for r in results if r[0] in ("SUCCESS", "COMPLIANT", "ACCEPTABLE")]
skipped = [r for r in results if r[0] == "SKIPPED" and r[1] in OPTIONAL_SKIPS]
failed = [r for r in results if r not in passed and r not in skipped]
for status, check, reason in failed:
    print(f"{status} {check}")
    print("\n".join(reason[:12]))
if not results:  # discovery failed: scim2 printed one error and ran no check
    print(text.strip())
skips = f" ({', '.join(sorted({r[1] for r in skipped}))})" if skipped else ""
print(f"==> scim2-tester {version('scim2-tester')}: {len(results)} checks, {len(passed)} passed, "
      f"{len(skipped)} skipped{skips}, {len(failed)} failed")
ok = results and not failed
# scim2 itself agreeing (exit 0) while we found failures, or the reverse beyond our tolerated
# skips, would mean the output format changed under us.
if rc == 0 and not ok:
    print("scim2 exited 0 but its output did not parse as a pass")
sys.exit(0 if ok else 1)
EOF
