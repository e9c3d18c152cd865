# arcvsa: the one entry point. `make demo` runs the product, `make test` passes the tests.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

PY        := .venv/bin/python
UV        := python3 -m uv
VCSIM_VERSION := v0.46.3
GOBIN     := $(shell go env GOPATH 2>/dev/null || echo $$HOME/go)/bin
VCSIM     := $(GOBIN)/vcsim
export VCSIM

# Host packages every tier needs; the image/OVA fragments add theirs.
APT_PACKAGES := chromium ca-certificates
-include mk/*.mk
APT_ALL := $(sort $(APT_PACKAGES) $(IMAGE_APT_PACKAGES) $(OVA_APT_PACKAGES) $(STORAGE_APT_PACKAGES) $(BENCH_APT_PACKAGES))

.PHONY: help setup apt demo test lint typecheck unit integration e2e web openapi openapi-check clean

help:
	@echo "make setup   install everything this machine needs (idempotent)"
	@echo "make demo    run arcvsa on vcsim with the web UI"
	@echo "make test    linters, unit, integration (vcsim), web checks and browser e2e"
	@echo "make bench   the benchmark: four stacks, three VDI workloads, one run (PROFILE=smoke|NAME)"

## setup ---------------------------------------------------------------------------------------
setup: apt .venv/.synced web/node_modules/.synced $(VCSIM)

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

$(VCSIM):
	go install github.com/vmware/govmomi/vcsim@$(VCSIM_VERSION)

# Re-pin the Python dependencies after editing pyproject.toml. The lock keeps hashes, not registry URLs.
# requirements.runtime.lock (what the appliance image ships) is the runtime subset of the same pins.
lock:
	$(UV) pip compile -q pyproject.toml --group dev --generate-hashes --universal -o requirements.lock
	$(UV) pip compile -q pyproject.toml --generate-hashes --universal -c requirements.lock \
		-o requirements.runtime.lock

## product -------------------------------------------------------------------------------------
web: web/node_modules/.synced
	cd web && npm run --silent build

demo: setup web image
	$(PY) -m lab.demo

## checks --------------------------------------------------------------------------------------
openapi: .venv/.synced
	$(PY) -m api.openapi api/openapi.json
	cd web && npm run --silent gen:api

# The committed OpenAPI and the TS client generated from it must match the code.
openapi-check: .venv/.synced web/node_modules/.synced
	@mkdir -p var
	$(PY) -m api.openapi var/openapi.check.json
	@diff -u api/openapi.json var/openapi.check.json || { echo "api/openapi.json is stale: run make openapi"; exit 1; }
	cd web && npm run --silent check:api

lint: setup
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy
	cd web && npm run --silent lint && echo 'eslint: no problems' && npm run --silent typecheck && echo 'tsc: no errors'

typecheck: setup web/node_modules/.synced
	$(PY) -m mypy
	cd web && npm run --silent typecheck

unit: setup
	$(PY) -m pytest -q tests/unit

integration: setup
	$(PY) -m pytest -q -m integration tests/integration

e2e: setup web
	$(PY) -m pytest -q tests/e2e

# Each stage's start in the log: `make test` has a 45-minute budget on a fresh machine, and this shows
# where the minutes go.
stamp = @date -u +'== make test %T: $(1)'

test: setup
	@mkdir -p var
	$(call stamp,lint)
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory openapi-check
	$(MAKE) --no-print-directory web
	$(call stamp,pytest)
	$(PY) -m pytest -n 2 tests/unit tests/integration
	$(PY) -m pytest tests/e2e
	$(call stamp,security-smoke)
	$(MAKE) --no-print-directory security-smoke
	$(call stamp,lab-smoke (image build first))
	$(MAKE) --no-print-directory lab-smoke
	$(call stamp,reliability-smoke)
	$(MAKE) --no-print-directory reliability-smoke
	$(call stamp,bench-smoke)
	$(MAKE) --no-print-directory bench-smoke
	$(call stamp,ova-test)
	$(MAKE) --no-print-directory ova-test
	$(call stamp,done)

clean:
	rm -rf var dist web/dist
