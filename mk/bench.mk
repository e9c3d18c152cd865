# Benchmarks and calibration. Included by the Makefile (-include mk/*.mk).
#
#   make bench                       provisioning storm, boot storm and steady state on the four stacks
#                                    (bare LUN, arcvsa, OpenZFS defaults, XFS+knfsd NAS VM) in one run:
#                                    prints the table, writes bench/results/bench.json and .png
#   make bench PROFILE=steady-state  one workload (any name in bench/profiles/workloads, or a YAML path)
#   make bench PROFILE=vsan-scenarios  a sweep (also hcibench-sweep, ceph-clients, streaming)
#   make bench PROFILE=smoke         the 2-minute version `make test` runs (bare LUN and arcvsa)
#
# Needs root (mmdebstrap makes the Debian 13 tree fio 3.39 with its nfs engine runs from) and the image.

# libnfs-utils brings the host's libnfs, which bench.syncwrite's FILE_SYNC desktops load.
APT_PACKAGES += mmdebstrap qemu-utils qemu-system-x86 lz4 libnfs-utils
PROFILE ?= provisioning-storm,boot-storm,steady-state
BENCH_JSON ?= bench/results/bench.json
# The smoke run: the three workloads at their smoke size (the boot storm's cold cache is a pool export
# and import, seconds).
BENCH_SMOKE_PROFILE := provisioning-storm,boot-storm,steady-state

.PHONY: bench bench-smoke

# setup: on a fresh machine `make bench` alone installs what it runs (apt, uv, npm; idempotent after).
## bench: the benchmark: four stacks, three VDI workloads, one run (PROFILE=smoke|NAME; about an hour)
bench: setup image
ifeq ($(PROFILE),smoke)
	$(PY) -m bench --smoke --profile $(BENCH_SMOKE_PROFILE) --lun-gib 1.5 --json var/bench/smoke.json
else
	$(PY) -m bench --profile $(PROFILE) --json $(BENCH_JSON)
endif

# In `make test`: the smoke run, then its JSON checked (tests/lab/test_bench_smoke.py).
## bench-smoke: the short benchmark `make test` runs, then its JSON checked
bench-smoke: image
	ARCVSA_LAB_REQUIRED=1 $(PY) -m pytest -m lab -s tests/lab/test_bench_smoke.py
