# Developer commands. `make dev` and `make test` set up everything they need on a fresh
# machine (Rust wasm target, pinned worker-build and wasm-bindgen-cli, npm tooling).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
# A recipe that fails leaves no target behind (a half-built build/index.js would look current).
.DELETE_ON_ERROR:
# A login shell environment (BASH_ENV) is not sourced by the recipes: under -u it can fail.
unexport BASH_ENV
.DEFAULT_GOAL := help

PORT ?= 8787
WORKER_BUILD_VERSION := 0.8.7
# wasm-bindgen-cli must match the wasm-bindgen crate exactly, so it is read from the lockfile.
WASM_BINDGEN_VERSION := $(shell awk '/^name = "wasm-bindgen"$$/{getline; gsub(/[^0-9.]/, ""); print; exit}' Cargo.lock)
CARGO_BIN := $(HOME)/.cargo/bin
NODE_BIN := $(CURDIR)/node_modules/.bin
DEV_STATE := .wrangler/state
export PATH := $(CARGO_BIN):$(PATH)

# worker-build fetches these from the internet by default; point it at pinned local copies.
# build.rs minifies the account area's CSS and JS with the same esbuild (src/area/assets/
# are in SOURCES; cargo reruns build.rs when one changes).
export WASM_BINDGEN_BIN := $(CARGO_BIN)/wasm-bindgen
export ESBUILD_BIN := $(NODE_BIN)/esbuild
export WASM_OPT_BIN := $(NODE_BIN)/wasm-opt

SOURCES := $(shell find src -type f) Cargo.toml Cargo.lock openapi.json \
  scripts/wasm-order-names.mjs scripts/strip-wasm-names.mjs scripts/wasm-leb.mjs build.rs

SCHEMATHESIS_VERSION := 4.32.5
OPENAPI_VALIDATOR_VERSION := 0.9.0
OPENAPI_PYTHON_CLIENT_VERSION := 0.29.1
# vCard parser of the e2e tests (tests/e2e/public.rs reads both vCard versions with it).
VOBJECT_VERSION := 0.9.9
# SCIM 2.0 conformance checker of the contract run (tests/contract/scim.sh): the `scim2 test`
# command of scim2-cli runs scim2-tester.
SCIM2_TESTER_VERSION := 0.5.2
SCIM2_CLI_VERSION := 0.6.0

.PHONY: help tools build record-size size-top wasm-name dev wallet-dev seed smoke deploy test unit-e2e unit lint fmt migrate-local contract browser config-check bench geo move-time clean

help:
	@echo "make dev    install what is missing, build, migrate local D1, serve on 127.0.0.1:$(PORT)"
	@echo "make seed   fill the local database with demo accounts, cards, leads and a year of analytics"
	@echo "make test   lint, unit tests and end-to-end tests against the real worker in workerd"
	@echo "make smoke BASE_URL=https://... ADMIN_TOKEN=...   end-to-end check of any deployment"
	@echo "make deploy ENV=staging|production ADMIN_TOKEN=...  preflight, migrate, deploy, smoke"
	@echo "make bench  load benchmark (see bench/README.md)"
	@echo "make geo    latency model of the API from every D1 region (see bench/README.md)"
	@echo "make move-time  time a local move of 1,000 cards + 100,000 leads wnam -> eu (see bench/README.md)"

tools: .tools/stamp

.tools/stamp: Cargo.lock package.json package-lock.json
	@echo "==> checking toolchain"
	@rustup target list --installed | grep -qx wasm32-unknown-unknown \
	  || { echo "==> adding the wasm32-unknown-unknown target"; rustup target add wasm32-unknown-unknown; }
	@if ! worker-build --version 2>/dev/null | grep -qw "$(WORKER_BUILD_VERSION)"; then \
	  echo "==> installing worker-build $(WORKER_BUILD_VERSION) (takes ~5 min once)"; \
	  cargo install worker-build --version $(WORKER_BUILD_VERSION) --locked; fi
	@if [ "$$(wasm-bindgen --version 2>/dev/null | awk '{print $$2}')" != "$(WASM_BINDGEN_VERSION)" ]; then \
	  echo "==> installing wasm-bindgen-cli $(WASM_BINDGEN_VERSION) (takes ~3 min once)"; \
	  cargo install wasm-bindgen-cli --version $(WASM_BINDGEN_VERSION); fi
	@if [ ! -x "$(NODE_BIN)/wrangler" ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then \
	  echo "==> installing pinned npm tooling (wrangler, esbuild, binaryen)"; \
	  npm ci --no-audit --no-fund --loglevel=error; fi
	@mkdir -p .tools && touch $@

# Release build of the worker into build/; skipped when nothing changed. The uploaded module
# carries no names (strip-wasm-names.mjs, ~9 KiB gzip): build/index_bg.named.wasm, the same
# module with every name, names a stack trace's `wasm-function[N]` (`make wasm-name`).
# Every new build then reports the upload (JS and wasm, gzip) against its 640 KiB budget
# and the change against the recorded figure (bench/upload.json), the startup CPU (least of
# 3 runs, budget 15 ms) and crates that must stay out, and fails over a budget
# (scripts/upload-report.mjs, ~15 s); the stamp keeps an unchanged build from being measured
# again by every target that needs `build`. wrangler's own build command is
# `make -s build/index.js`: the report's dry run must not run the report.
build: build/.upload-report

build/.upload-report: build/index.js
	@node scripts/upload-report.mjs
	@touch $@

build/index.js: $(SOURCES) | .tools/stamp
	@echo "==> building the worker (release wasm)"
	@worker-build --release
	@# worker-build's wasm-opt runs before wasm-bindgen rewrites the module; one more pass
	@# over the final module (names kept) takes ~1 KiB gzip more off the upload. It ends
	@# with the functions in order of crate, then name (wasm-order-names.mjs keys the names
	@# for --reorder-functions-by-name): alike code within gzip's 32 KiB window of each
	@# other, ~7.6 KiB gzip less for the same code.
	@node scripts/wasm-order-names.mjs key build/index_bg.wasm
	@$(WASM_OPT_BIN) -g -Oz --gufa -Oz --reorder-functions-by-name \
	  --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
	  --enable-mutable-globals --enable-reference-types --enable-multivalue \
	  build/index_bg.wasm -o build/index_bg.named.wasm
	@node scripts/wasm-order-names.mjs unkey build/index_bg.named.wasm
	@# The module with every name stays for stack traces (`make wasm-name`), the report's
	@# crate check and `make size-top`; the upload is the same module without them.
	@node scripts/strip-wasm-names.mjs build/index_bg.named.wasm build/index_bg.wasm
	@ls -l build/index_bg.wasm | awk '{printf "==> wasm: %d bytes", $$5}'; \
	  gzip -9c build/index_bg.wasm | wc -c | awk '{printf ", %d gzipped\n", $$1}'

# The recorded upload figure the next builds compare against (bench/upload.json): run it in
# the commit that changes the size, with WHAT="what bought the bytes" when it grew.
record-size: build
	@node scripts/upload-report.mjs --record

# The module's twenty largest functions and modules before its names are trimmed
# (bench/README.md, "Where the bytes are"). scripts/size-top.mjs reads the wasm sections
# itself: twiggy 0.7, the last release, refuses the module wasm-bindgen writes.
size-top: build
	@node scripts/size-top.mjs build/index_bg.named.wasm 20

# Names the functions of a stack trace of the uploaded module (it carries no names):
# `make wasm-name N=1234` prints one, `make wasm-name < trace.txt` rewrites a pasted trace.
# Needs the build of the commit that is deployed (`git checkout <commit> && make build`: the
# build is reproducible, so its function indices are the deployed ones).
wasm-name: build/index_bg.named.wasm
	@node scripts/wasm-name.mjs $(N)

build/index_bg.named.wasm: build/index.js

# Local secrets, each a fresh random value: nobody can guess a developer's admin token.
.dev.vars:
	@rand() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }; \
	  sed -e "s/^ADMIN_TOKEN=.*/ADMIN_TOKEN=$$(rand)/" \
	      -e "s/^VISITOR_SALT=.*/VISITOR_SALT=$$(rand)/" \
	      -e "s/^TOKEN_PEPPER=.*/TOKEN_PEPPER=$$(rand)/" .dev.vars.example > .dev.vars
	@echo "==> created .dev.vars with random ADMIN_TOKEN, VISITOR_SALT and TOKEN_PEPPER"

# A local wallet signing identity (README, "Wallet passes"), made with openssl when
# .dev.vars has none: its vars and secrets into .dev.vars, root.pem and google-public.pem
# (to verify what the worker signs) into target/wallet-dev/. Both are git-ignored.
wallet-dev: .dev.vars
	@scripts/wallet-dev.sh --dev-vars .dev.vars target/wallet-dev

migrate-local: tools
	@echo "==> applying D1 migrations to the local directory and shards"
	@scripts/migrate-local.sh --persist-to $(DEV_STATE)

dev: tools build .dev.vars wallet-dev migrate-local
	@admin=$$(grep '^ADMIN_TOKEN=' .dev.vars | cut -d= -f2-); \
	echo ""; \
	echo "==> serving on http://127.0.0.1:$(PORT)"; \
	echo "    Mint a first API token through the operator API:"; \
	echo "      curl -s -X POST http://127.0.0.1:$(PORT)/admin/v1/accounts -H 'Authorization: Bearer $$admin' -d '{\"name\":\"Acme\",\"plan\":\"enterprise\"}'"; \
	echo "      curl -s -X POST http://127.0.0.1:$(PORT)/admin/v1/accounts/1/tokens -H 'Authorization: Bearer $$admin' -d '{\"name\":\"crm\",\"scopes\":[\"cards:write\",\"leads:read\",\"analytics:read\",\"webhooks:write\",\"leads:write\"]}'"; \
	echo "      curl -s http://127.0.0.1:$(PORT)/api/v1/cards -H 'Authorization: Bearer <token>'"; \
	echo "    Or fill the database with demo accounts, cards, leads and a year of analytics:"; \
	echo "      make seed   (in another terminal; it prints a token and the card URLs)"; \
	echo ""; \
	echo "==> the account area: http://localhost:$(PORT)/app (passkeys need localhost, not 127.0.0.1)"; \
	echo "    Invite the first owner of account 1, then open the url it answers in a browser:"; \
	echo "      curl -s -X POST http://localhost:$(PORT)/admin/v1/accounts/1/invites -H 'Authorization: Bearer $$admin' -d '{\"email\":\"you@example.com\",\"role\":\"owner\"}'"; \
	echo ""
	@echo "    Webhooks: private and http:// URLs allowed, retries after 2, 10 and 60 s. The cron"; \
	echo "    triggers do not fire by themselves locally; run the sweeper with"; \
	echo "      curl 'http://127.0.0.1:$(PORT)/__scheduled?cron=*+*+*+*+*'"; \
	echo ""
	@$(NODE_BIN)/wrangler dev --ip 127.0.0.1 --port $(PORT) --persist-to $(DEV_STATE) --show-interactive-dev-session=false \
	  --test-scheduled --var WEBHOOKS_ALLOW_PRIVATE:true --var WEBHOOK_RETRY_SCHEDULE:2,10,60

# Demo data in the local database `make dev` serves (through its server when it runs).
seed: tools build .dev.vars migrate-local
	@mkdir -p target
	@python3 scripts/seed.py

# A throw-away account, card, lead, analytics and feed read, token revoked, all deleted.
smoke:
	@[ -n "$${BASE_URL:-}" ] && [ -n "$${ADMIN_TOKEN:-}" ] \
	  || { echo "usage: make smoke BASE_URL=https://cards.example.com ADMIN_TOKEN=... [ADMIN_URL=https://admin...]"; exit 2; }
	@BASE_URL="$(BASE_URL)" ADMIN_TOKEN="$(ADMIN_TOKEN)" ADMIN_URL="$(ADMIN_URL)" python3 scripts/smoke.py

# Refuses before changing anything unless the preflight passes (README, "Deploying").
deploy: tools build
	@case "$(ENV)" in staging|production) ;; \
	  *) echo "usage: make deploy ENV=staging|production ADMIN_TOKEN=<that environment's operator token>"; exit 2;; esac
	@ADMIN_TOKEN="$(ADMIN_TOKEN)" python3 scripts/deploy.py $(ENV)

fmt:
	cargo fmt --all

lint: tools
	@echo "==> cargo fmt --check"
	@cargo fmt --all -- --check
	@echo "==> cargo clippy (wasm32, -D warnings)"
	@cargo clippy --quiet --target wasm32-unknown-unknown --all-features -- -D warnings

unit:
	@echo "==> unit tests (native)"
	@cargo test --quiet --lib --test layers

# Python tools of the contract check and the e2e tests, pinned, in a project-local
# virtualenv. The client that openapi-python-client generates runs on its dependencies
# (httpx, attrs).
.venv/stamp: Makefile
	@echo "==> installing schemathesis $(SCHEMATHESIS_VERSION), openapi-spec-validator $(OPENAPI_VALIDATOR_VERSION), openapi-python-client $(OPENAPI_PYTHON_CLIENT_VERSION), vobject $(VOBJECT_VERSION), scim2-tester $(SCIM2_TESTER_VERSION) and scim2-cli $(SCIM2_CLI_VERSION) into .venv"
	@python3 -m venv .venv
	@.venv/bin/pip install --quiet --disable-pip-version-check \
	  schemathesis==$(SCHEMATHESIS_VERSION) openapi-spec-validator==$(OPENAPI_VALIDATOR_VERSION) \
	  openapi-python-client==$(OPENAPI_PYTHON_CLIENT_VERSION) vobject==$(VOBJECT_VERSION) \
	  scim2-tester==$(SCIM2_TESTER_VERSION) scim2-cli==$(SCIM2_CLI_VERSION)
	@touch $@

# openapi.json validated; Python and TypeScript clients generated from it (target/clients) and
# a sync run with each against the running worker; then schemathesis drives it with every check,
# and scim2-tester checks /scim/v2 (tests/contract/scim.sh).
contract: tools build .venv/stamp
	@bash tests/contract/run.sh

# The card pages in Debian's Chromium (playwright-core): screenshots of every template in two
# languages at 390 and 1280 px into target/screenshots/, axe-core, the lead form by clicking.
# Then the account area's flow (tests/browser/app.mjs): passkeys with a virtual authenticator,
# every page's screenshot (app-*.png) and axe-core.
browser: tools build
	@command -v chromium >/dev/null || { echo "==> installing chromium (Debian)"; \
	  (apt-get install -y chromium || (apt-get update && apt-get install -y chromium)) >/dev/null; }
	@rm -rf target/screenshots
	@node tests/browser/run.mjs
	@node tests/browser/app.mjs

# Load benchmark against local workerd; wrk comes from Debian's packages. Then, when the
# team's JavaScript peer is checked out beside the project, the same API side by side with
# it, on the one-database checkout bench/peer_checkout.py makes (the yardstick seeds one
# `DB`). Its CPU ratios go into bench/results.md too; PEER=0 skips it, REPEATS=3 is its own
# default, 1 here to keep the run short.
PEER_RUN := $(wildcard ../shared/peer/run.sh)
bench: tools build
	@command -v wrk >/dev/null || { echo "==> installing wrk"; (apt-get install -y wrk || (apt-get update && apt-get install -y wrk)) >/dev/null; }
	@python3 bench/bench.py
	@if [ -n "$(PEER_RUN)" ] && [ "$${PEER:-1}" != 0 ]; then \
	  echo "==> against the JavaScript peer ($(PEER_RUN))"; mkdir -p target; \
	  REPEATS=$${REPEATS:-1} bash $(PEER_RUN) $$(python3 bench/peer_checkout.py) | tee target/peer.txt; \
	  { echo; echo "## Against the JavaScript peer (CPU ms per request, Rust / JS)"; echo; \
	    grep -E '^\|' target/peer.txt; echo; grep '^RESULT' target/peer.txt; } >> bench/results.md; \
	fi

# Latency model from every D1 region (no build, standard-library Python only).
geo:
	python3 bench/geo.py

# Time of an account move between shards (issue 31) in local workerd: 1,000 cards and
# 100,000 leads wnam -> eu, MOVE_GRACE_MS=0; MOVE_BATCH_ROWS=500 make move-time for bigger pages.
move-time: tools build
	@python3 bench/move_time.py

# The deployed environments' configuration, offline: the preflight's self-test, a deploy
# with the committed placeholders stopping at the preflight before any remote step, the
# preflight (placeholder ids allowed here) and a `wrangler deploy --dry-run` of each
# environment, so a broken [env.*] fails CI before a deploy would.
config-check: tools build
	@python3 scripts/preflight.py --self-test
	@out=$$(ADMIN_TOKEN=x python3 scripts/deploy.py staging 2>&1) && { echo "$$out"; echo "deploy did not refuse placeholders"; exit 1; }; \
	  if ! grep -q "REFUSED by the preflight; nothing was changed" <<<"$$out" || grep -q "==> applying" <<<"$$out"; then \
	    echo "$$out"; echo "deploy went past a refusing preflight"; exit 1; fi; \
	  echo "==> deploy refuses a placeholder configuration before any remote step"
	@for env in staging production; do \
	  python3 scripts/preflight.py $$env --offline --allow-placeholders >/dev/null \
	    || { python3 scripts/preflight.py $$env --offline --allow-placeholders; exit 1; }; \
	  if python3 scripts/preflight.py $$env --offline >/dev/null; then \
	    echo "preflight for $$env accepted placeholder ids"; exit 1; fi; \
	  CI=true $(NODE_BIN)/wrangler deploy --dry-run --env $$env --outdir target/dry-run-$$env >target/dry-run-$$env.log 2>&1 \
	    || { cat target/dry-run-$$env.log; exit 1; }; \
	  echo "==> $$env: preflight and deploy --dry-run passed"; \
	done

# End-to-end tests start their own `wrangler dev` servers on free ports with fresh state.
# The seed test runs the built example: a nested `cargo run` would wait on this run's lock.
# Each stage is timed; the times and the total are printed at the end (README, "Tests").
test:
	@start=$$(date +%s); times=""; \
	stage() { local name=$$1 t=$$(date +%s); shift; "$$@"; \
	  times+=$$(printf '    %-13s %4d s' "$$name" $$(( $$(date +%s) - t )))$$'\n'; }; \
	stage setup $(MAKE) --no-print-directory tools .venv/stamp; \
	stage lint $(MAKE) --no-print-directory lint; \
	stage build $(MAKE) --no-print-directory build; \
	stage config-check $(MAKE) --no-print-directory config-check; \
	stage unit+e2e $(MAKE) --no-print-directory unit-e2e; \
	stage contract $(MAKE) --no-print-directory contract; \
	stage browser $(MAKE) --no-print-directory browser; \
	echo "==> stage times"; printf '%s' "$$times"; \
	echo "==> make test passed in $$(( ($$(date +%s) - start) / 60 )) min $$(( ($$(date +%s) - start) % 60 )) s"

unit-e2e: tools build
	@echo "==> unit and end-to-end tests"
	@cargo build --quiet --example seed-analytics
	@cargo test --all-targets -- --test-threads=4

clean:
	rm -rf build target .wrangler .tools .venv
