# Web measurements. Included by the Makefile (-include mk/*.mk).
#
#   make bench-web   build web/dist, serve it through the real api and load each page cold in headless
#                    Chromium: per page the JS/CSS bytes and the time to its heading; prints a table, writes
#                    var/bench-web.json and fails when a page misses the 1 s target (median of its cold loads)

BENCH_WEB_RUNS ?= 5

.PHONY: bench-web

## bench-web: load every page cold in headless chromium through the api; fails over 1 s a page
bench-web: .venv/.synced web
	@mkdir -p var
	$(PY) -m lab.bench_web --dist web/dist --runs $(BENCH_WEB_RUNS) --json var/bench-web.json
