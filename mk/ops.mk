# Day-2 operations: Prometheus metrics and the Grafana dashboard. Included by the Makefile
# (-include mk/*.mk).
#
#   make ops-lab   a real Prometheus on the host scrapes the booted lab appliance with a scrape token and
#                  answers the ARC hit ratio in PromQL (tests/lab/ops); a configuration backup restored onto
#                  a second, fresh appliance on the same LUNs brings the data back over NFS
#                  (tests/lab/backup); the "time not synchronised" alert is raised, then cleared once the
#                  appliance follows the host's lab NTP server (lab.ntp: Debian's chronyd fetched with
#                  `apt-get download` into var/ntp/, never installed, run with -x so the host's clock is
#                  never set). Boots VMs: run it under the lab lock (flock /tmp/arcvsa-lab.lock
#                  make ops-lab). tests/lab/upgrade: an in-place upgrade of a serving appliance (signed
#                  bundles refused when tampered, a failing release rolled back, a good one applied),
#                  from HEAD~1's image, or ARCVSA_UPGRADE_FROM=REV's (`same`: this tree's).
#                  tests/lab/fleet: the manager on the host drives the lab appliance: a pool, datastore
#                  and export made through its drill-down, then a rolling upgrade of it under a writer.
#
# Debian's prometheus package brings promtool (the unit tests run `promtool check metrics` on the
# exposition) and the server the lab test starts. Its unit file is not used: the tests run the binaries.
APT_PACKAGES += prometheus rsyslog

.PHONY: ops-lab

## ops-lab: Prometheus scrape, alerts, syslog, backup/restore, upgrade and fleet on lab VMs (under the lab lock)
ops-lab: image
	ARCVSA_LAB_REQUIRED=1 $(PY) -m pytest -q -s -p no:cacheprovider -m lab tests/lab/ops tests/lab/backup tests/lab/upgrade tests/lab/fleet
