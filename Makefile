# arcvsa: the one entry point. `make demo` runs the product, `make test` passes the tests.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

PY        := .venv/bin/python
UV        := python3 -m uv
GOBIN     := $(shell go env GOPATH 2>/dev/null || echo $$HOME/go)/bin
VCSIM     := $(GOBIN)/arcvsa-vcsim
export VCSIM

# Host packages every tier needs. Each fragment adds its own the same way: `APT_PACKAGES += ...`.
APT_PACKAGES := chromium ca-certificates
-include mk/*.mk
APT_ALL := $(sort $(APT_PACKAGES))

.PHONY: help setup apt demo test check lint typecheck unit integration e2e web openapi openapi-check lock clean

# Every target has one `## target: what it does` line above it; `make help` prints them, so the list
# cannot drift from the targets (tests/unit/test_make_help.py checks every .PHONY target has one).
## help: this list
help:
	@awk 'match($$0, /^## [A-Za-z0-9_.-]+: /) { printf "  make %-20s %s\n", substr($$0, 4, RLENGTH - 5), substr($$0, RLENGTH + 1) }' \
		$(MAKEFILE_LIST)

# setup ----------------------------------------------------------------------------------------
## setup: install everything this machine needs: apt packages, the Python venv, web modules, vcsim (idempotent)
setup: apt .venv/.synced web/node_modules/.synced $(VCSIM)

## apt: install the apt packages every fragment declares (APT_PACKAGES) that are missing
apt:
	@missing=$$(dpkg-query -W -f='$${Package} $${Status}\n' $(APT_ALL) 2>/dev/null \
	    | awk '$$4 != "installed" {print $$1}'; for p in $(APT_ALL); do \
	    dpkg-query -W $$p >/dev/null 2>&1 || echo $$p; done | sort -u); \
	if [ -n "$$missing" ]; then \
	    echo "apt: installing $$missing"; \
	    apt-get update -qq; \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

.venv/.synced: requirements.lock pyproject.toml
	@python3 -m uv --version >/dev/null 2>&1 || python3 -m pip install -q uv
	@[ -x $(PY) ] || $(UV) venv -q .venv
	$(UV) pip sync -q --python $(PY) requirements.lock
	$(UV) pip install -q --python $(PY) --no-deps -e .
	@touch $@

web/node_modules/.synced: web/package-lock.json web/package.json
	cd web && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# The lab's vCenter: govmomi's simulator (pinned in tools/labvcsim/go.mod) with VDI-sized hosts.
$(VCSIM): tools/labvcsim/main.go tools/labvcsim/go.mod tools/labvcsim/go.sum
	cd tools/labvcsim && go build -trimpath -o $(VCSIM) .

# Re-pin the Python dependencies after editing pyproject.toml. The lock keeps hashes, not registry URLs.
# requirements.runtime.lock (what the appliance image ships) is the runtime subset of the same pins.
## lock: re-pin the Python dependencies (requirements.lock, requirements.runtime.lock) from pyproject.toml
lock:
	$(UV) pip compile -q pyproject.toml --group dev --generate-hashes --universal -o requirements.lock
	$(UV) pip compile -q pyproject.toml --generate-hashes --universal -c requirements.lock \
		-o requirements.runtime.lock
	$(UV) pip compile -q tools/sslyze/requirements.in --generate-hashes --python-version 3.11 \
		-o tools/sslyze/requirements.lock

# product --------------------------------------------------------------------------------------
## web: build the web UI into web/dist
web: web/node_modules/.synced
	cd web && npm run --silent build

## demo: run arcvsa on https://127.0.0.1:8443/ against vcsim, with the lab appliance booted beside it
demo: setup web ova
	$(PY) -m lab.demo

# checks ---------------------------------------------------------------------------------------
## openapi: regenerate api/openapi.json and the web's TypeScript client from the api's code
openapi: .venv/.synced
	$(PY) -m api.openapi api/openapi.json
	cd web && npm run --silent gen:api

# The committed OpenAPI and the TS client generated from it must match the code.
## openapi-check: fail when api/openapi.json or the TS client is stale
openapi-check: .venv/.synced web/node_modules/.synced
	@mkdir -p var
	$(PY) -m api.openapi var/openapi.check.json
	@diff -u api/openapi.json var/openapi.check.json || { echo "api/openapi.json is stale: run make openapi"; exit 1; }
	cd web && npm run --silent check:api

## lint: ruff (check and format), mypy, eslint and tsc
lint: setup
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy
	cd web && npm run --silent lint && echo 'eslint: no problems' && npm run --silent typecheck && echo 'tsc: no errors'

## typecheck: mypy and tsc only
typecheck: setup web/node_modules/.synced
	$(PY) -m mypy
	cd web && npm run --silent typecheck

## unit: the unit tests (seconds each, no root, no vcsim)
unit: setup
	$(PY) -m pytest -q tests/unit

## integration: the integration tests against vcsim and real daemons
integration: setup
	$(PY) -m pytest -q -m integration tests/integration

## e2e: the browser tests (Playwright + Debian's chromium) against the real api and vcsim
e2e: setup web
	$(PY) -m pytest -q tests/e2e

# Each stage's start in the log: `make test` has a 45-minute budget on a fresh machine, and this shows
# where the minutes go.
stamp = @date -u +'== make test %T: $(1)'

## test: everything CI runs: lint, unit, integration, e2e, security, lab, reliability, bench smokes, OVA (about 45 min)
test: setup
	@mkdir -p var
	$(call stamp,lint)
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory openapi-check
	$(MAKE) --no-print-directory web
	$(call stamp,pytest)
	$(PY) -m pytest -n 4 --dist worksteal tests/unit tests/integration
	$(PY) -m pytest tests/e2e
	$(call stamp,mutation-validators)
	$(MAKE) --no-print-directory mutation-validators
	$(call stamp,security-smoke)
	$(MAKE) --no-print-directory security-smoke
	$(call stamp,image)
	$(MAKE) --no-print-directory image
# Two lanes side by side, each target's output printed whole when it ends: the appliances boot one
# at a time (lab/boot_slot.py), and one lane's tests run while the other's machine boots; the OVA's
# test (no VM) follows the reliability smoke in the second lane.
	$(call stamp,lab-smoke beside reliability-smoke then ova-test)
	$(MAKE) --no-print-directory -j2 --output-sync=target lab-smoke test-lane-reliability-ova
	$(call stamp,bench-smoke)
	$(MAKE) --no-print-directory bench-smoke
	$(call stamp,done)

.PHONY: test-lane-reliability-ova
## test-lane-reliability-ova: make test's second lab lane: the reliability smoke, then the OVA test
test-lane-reliability-ova: image $(NFSWRITER) $(GOVC) $(VCSIM)
	$(MAKE) --no-print-directory reliability-smoke
	$(MAKE) --no-print-directory ova-test

# For contributors before a commit: what `make test` runs first, without the VM tiers (a few minutes).
## check: lint, type checks, the OpenAPI drift check and the unit tests (minutes; before every commit)
check: setup
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory openapi-check
	$(PY) -m pytest -q -n 2 tests/unit

## clean: remove var/, dist/ and web/dist (build/ keeps the image cache: make image-clean)
clean:
	rm -rf var dist web/dist
