#!/usr/bin/env bash
# A local wallet signing identity (wallet.md 3), made with openssl: a test root CA, an
# intermediate standing in for Apple's WWDR, a Pass Type ID certificate and key issued by
# it, and a Google test key. Nothing here is trusted by a phone; it lets people and tests
# verify what the local worker signs.
#
#   scripts/wallet-dev.sh DIR                 writes the identity into DIR
#   scripts/wallet-dev.sh --dev-vars FILE DIR  the same when missing, and its vars into FILE
#
# DIR gets root.pem and google-public.pem (to verify with), wallet.vars (the vars and
# secrets, one NAME="value" a line, PEMs with \n escapes as .dev.vars reads them), the
# private keys (pass.key, wwdr.key, google.key) and, for the tests of a misconfigured
# identity, expired-pass.pem (the pass certificate's key, valid 2020 only) and other.key
# (a key that matches no certificate). DIR and FILE are git-ignored (target/, .dev.vars).
# With --dev-vars it is idempotent: an identity already in FILE whose DIR still has
# root.pem is kept; otherwise a new one replaces FILE's wallet lines.
set -euo pipefail

dev_vars=""
if [ "${1:-}" = "--dev-vars" ]; then
  dev_vars=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
  shift 2
fi
dir=${1:?usage: scripts/wallet-dev.sh [--dev-vars FILE] DIR}
# The names wallet.vars sets, so an old identity's lines can be taken out of FILE.
names="APPLE_PASS_TYPE_ID APPLE_TEAM_ID APPLE_PASS_CERT APPLE_PASS_KEY APPLE_WWDR_CERT \
GOOGLE_WALLET_ISSUER_ID GOOGLE_WALLET_SERVICE_ACCOUNT GOOGLE_WALLET_KEY"

if [ -n "$dev_vars" ] && [ -f "$dir/root.pem" ] && grep -q '^APPLE_PASS_CERT=' "$dev_vars" 2>/dev/null; then
  echo "==> wallet identity: kept ($dev_vars, $dir/root.pem)"
  exit 0
fi

command -v openssl >/dev/null || { echo "wallet-dev.sh needs openssl" >&2; exit 1; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
umask 077

pass_type_id=pass.dev.cardapi.local
team_id=DEVTEAM123

# openssl ca issues with exact dates (x509 -req cannot backdate the expired certificate).
cat > ca.cnf <<'EOF'
[ca]
default_ca = local
[local]
database = index.txt
new_certs_dir = .
serial = serial
default_md = sha256
policy = any
copy_extensions = none
unique_subject = no
[any]
UID = optional
commonName = optional
organizationalUnitName = optional
organizationName = optional
countryName = optional
[intermediate]
basicConstraints = critical,CA:TRUE,pathlen:0
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[pass]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EOF
touch index.txt
echo 1000 > serial

quiet() { local out; out=$("$@" 2>&1) || { echo "$out" >&2; echo "==> failed: $*" >&2; exit 1; }; }
key() { quiet openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1"; }
# issue CA-CERT CA-KEY CSR EXTENSIONS START END OUT
issue() {
  quiet openssl ca -batch -config ca.cnf -cert "$1" -keyfile "$2" -in "$3" -extensions "$4" \
    -startdate "$5" -enddate "$6" -preserveDN -notext -out "$7"
}

key root.key
quiet openssl req -x509 -new -key root.key -sha256 -days 3650 -out root.pem \
  -subj "/CN=Card API wallet test root (local only)/O=Card API development" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"

now=$(date -u +%Y%m%d%H%M%SZ)
later=$(date -u -d '+3 years' +%Y%m%d%H%M%SZ)
key wwdr.key
quiet openssl req -new -key wwdr.key -out wwdr.csr \
  -subj "/CN=Stand-in for Apple Worldwide Developer Relations (local only)/OU=G4/O=Card API development/C=US"
issue root.pem root.key wwdr.csr intermediate "$now" "$later" wwdr.pem

# Apple's Pass Type ID certificates name the pass type (UID) and the team (OU).
key pass.key
quiet openssl req -new -key pass.key -out pass.csr \
  -subj "/UID=$pass_type_id/CN=Pass Type ID: $pass_type_id/OU=$team_id/O=Card API development/C=US"
issue wwdr.pem wwdr.key pass.csr pass "$now" "$later" pass.pem
issue wwdr.pem wwdr.key pass.csr pass 20200101000000Z 20210101000000Z expired-pass.pem

key google.key
quiet openssl pkey -in google.key -pubout -out google-public.pem
key other.key

# One line per value; a PEM's newlines as \n inside double quotes (dotenv expands them).
pem() { awk 'NF{printf "%s\\n", $0}' "$1"; }
{
  echo "APPLE_PASS_TYPE_ID=$pass_type_id"
  echo "APPLE_TEAM_ID=$team_id"
  echo "APPLE_PASS_CERT=\"$(pem pass.pem)\""
  echo "APPLE_PASS_KEY=\"$(pem pass.key)\""
  echo "APPLE_WWDR_CERT=\"$(pem wwdr.pem)\""
  echo "GOOGLE_WALLET_ISSUER_ID=3388000000022000000"
  echo "GOOGLE_WALLET_SERVICE_ACCOUNT=wallet-dev@cardapi-local.iam.gserviceaccount.com"
  echo "GOOGLE_WALLET_KEY=\"$(pem google.key)\""
} > wallet.vars

cp root.pem wwdr.pem wwdr.key pass.pem pass.key expired-pass.pem google.key google-public.pem \
  other.key wallet.vars "$dir/"
echo "==> wallet identity: made in $dir (root.pem to verify passes, google-public.pem for JWTs)"

if [ -n "$dev_vars" ]; then
  touch "$dev_vars"
  pattern=$(echo "$names" | tr -s ' ' '\n' | sed 's/.*/^&=/' | paste -sd'|')
  grep -Ev "$pattern" "$dev_vars" > kept.vars || true
  cat kept.vars wallet.vars > "$dev_vars"
  echo "==> wallet identity: its vars and secrets are in $dev_vars"
fi
