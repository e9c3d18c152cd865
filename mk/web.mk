# Web measurements. Included by the Makefile (-include mk/*.mk).
#
#   make bench-web   build web/dist, serve it through the real api and load each page cold in headless
#                    Chromium: per page the JS/CSS bytes and the time to its heading; prints a table, writes
#                    var/bench-web.json and fails when a page misses the 1 s target (median of its cold loads)
#   make bench-fleet the manager's fleet view over 32 appliances (the real api on recorded outputs), all
#                    answering and with one dead: prints a table, writes var/bench-fleet.json

BENCH_WEB_RUNS ?= 5

.PHONY: bench-web bench-fleet

## bench-web: load every page cold in headless chromium through the api; fails over 1 s a page
bench-web: .venv/.synced web
	@mkdir -p var
	$(PY) -m lab.bench_web --dist web/dist --runs $(BENCH_WEB_RUNS) --json var/bench-web.json

# The appliances' replays and their api server are test support (tests/fixtures, tests/support).
## bench-fleet: time the fleet view over 32 recorded appliances, all answering and with one dead
bench-fleet: .venv/.synced $(VCSIM)
	@mkdir -p var
	PYTHONPATH=tests $(PY) -m lab.bench_fleet --appliances 32 --json var/bench-fleet.json
