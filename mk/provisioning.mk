# Provisioning measurements. Included by the Makefile (-include mk/*.mk).
#
#   make bench-provisioning   linked-clone pools of BENCH_DESKTOPS desktops on the 4-host vcsim cluster at each
#                             concurrency in BENCH_CONCURRENCY: prints a table, writes var/bench-provisioning.json

BENCH_DESKTOPS ?= 200
BENCH_CONCURRENCY ?= 1,4,8,16

.PHONY: bench-provisioning

## bench-provisioning: time linked-clone pools of 200 desktops on vcsim at concurrency 1/4/8/16
bench-provisioning: .venv/.synced $(VCSIM)
	@mkdir -p var
	$(PY) -m lab.bench_provisioning --desktops $(BENCH_DESKTOPS) --concurrency $(BENCH_CONCURRENCY) \
	    --json var/bench-provisioning.json
