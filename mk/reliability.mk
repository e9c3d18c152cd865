# Reliability: power cuts and NFS server restarts on the lab appliance. Included by the
# Makefile (-include mk/*.mk).
#
#   make reliability        RELIABILITY_CYCLES power-cut cycles (each checks a pool with a SLOG and one
#                           without, FILE_SYNC and UNSTABLE+COMMIT writers on each), then a ganesha and a
#                           knfsd restart under load, then RELIABILITY_RECONCILE_CUTS power cuts in the
#                           middle of a burst of api changes (exports, NFS server, tuning, iSCSI; each
#                           judged by reliability/convergence.py); prints the table, writes
#                           var/reliability/reliability.json
#   make reliability-smoke  the short version for `make test` (about 5 min): 1 power-cut cycle (killed
#                           right after a txg sync started) and one ganesha restart
#   RELIABILITY_SEED=N      replay a run's kill moments (the seed is printed)
#   .venv/bin/python -m reliability --report A.json B.json   one table over several runs' JSON
#   make soak               SOAK_DESKTOPS simulated desktops (fio over NFS) for SOAK_SECONDS, a FILE_SYNC
#                           writer, wrk on the api and the guest's memory sampled; prints the table,
#                           writes var/reliability/soak.json (about 45 min; not in `make test`). The
#                           desktops and wrk reach the VM over a tap link (lab/tap.py), as over a NIC;
#                           SOAK_NETWORK=user: through qemu's user-mode forwards (also when the host
#                           cannot make a tap device, which the table then says)
#
# Boots the lab VM: run it under the lab lock (flock /tmp/arcvsa-lab.lock make reliability).

# The writer (tools/nfswriter) is C against libnfs's RPC layer; sha256 from libcrypto.
APT_PACKAGES += gcc libnfs-dev libssl-dev libnfs-utils wrk iproute2

RELIABILITY_CYCLES ?= 20
RELIABILITY_RECONCILE_CUTS ?= 5
RELIABILITY_SEED ?=
RELIABILITY_ARGS = $(if $(RELIABILITY_SEED),--seed $(RELIABILITY_SEED))
NFSWRITER := build/nfswriter/nfswriter

.PHONY: reliability reliability-smoke nfswriter soak soak-ab

## nfswriter: build tools/nfswriter, the libnfs writer that logs every acknowledged write
nfswriter: $(NFSWRITER)

$(NFSWRITER): tools/nfswriter/nfswriter.c
	@mkdir -p $(dir $@)
	gcc -O2 -Wall -Wextra -Werror -std=gnu11 -o $@ $< -lnfs -lcrypto

# LUN faults first (tests/lab/faults: mirror degrade and resilver, stripe suspend and resume; their
# figures go into the table), then the power cuts, the restarts and the cuts during api changes.
## reliability: LUN faults, 20 power cuts, NFS restarts under load, 5 cuts during api changes (about 70 min)
reliability: image $(NFSWRITER)
	ARCVSA_LAB_REQUIRED=1 $(PY) -m pytest -q -s -p no:cacheprovider -m lab tests/lab/faults
	$(PY) -m reliability --cycles $(RELIABILITY_CYCLES) --restarts ganesha,knfsd \
		--reconcile-cuts $(RELIABILITY_RECONCILE_CUTS) --lun-faults var/reliability/lun-faults.json \
		--json var/reliability/reliability.json $(RELIABILITY_ARGS)

# The verification rule and the api's files after a power cut are unit tests (tests/unit); this is the
# lab run.
## reliability-smoke: one power cut and one ganesha restart (in make test; about 5 min)
reliability-smoke: image $(NFSWRITER)
	$(PY) -m reliability --cycles 1 --restarts ganesha \
		--json var/reliability/smoke.json $(RELIABILITY_ARGS)

SOAK_DESKTOPS ?= 100
SOAK_SECONDS ?= 1800
SOAK_IOPS ?= 3
SOAK_NETWORK ?= tap
# The soak's fio is bench's (the Debian 13 tree with the nfs engine, made on first use; needs root).
## soak: 100 simulated desktops over NFS for 30 min with a verified writer and the api polled
soak: image $(NFSWRITER)
	$(PY) -m reliability.soak --desktops $(SOAK_DESKTOPS) --seconds $(SOAK_SECONDS) \
		--iops $(SOAK_IOPS) --network $(SOAK_NETWORK)

# The A side defaults to the last commit before the control plane became desired state, reconcilers and
# one published snapshot: reads then ran tools on the request path.
SOAK_AB_BEFORE ?= 35dab90
SOAK_AB_PHASE_SECONDS ?= 150
SOAK_AB_PHASES ?= 4
## soak-ab: the soak's load on SOAK_AB_BEFORE's image and this tree's in turns (10 min each); api p99 and CPU per request
soak-ab: image
	$(PY) -m reliability.soak_ab --before $(SOAK_AB_BEFORE) --phase-seconds $(SOAK_AB_PHASE_SECONDS) \
		--phases $(SOAK_AB_PHASES) --network $(SOAK_NETWORK)
