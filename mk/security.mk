# Security. Included by the Makefile (-include mk/*.mk).
#
#   flock /tmp/arcvsa-lab.lock make security
#        schemathesis on every api operation (logged in, on the recorded appliance answers), every route
#        against wrongly-authorised callers, injection in every name that reaches the storage tools,
#        secrets searched for in a DEBUG log and the database (tests/security); then the booted image
#        (tests/lab/security: TLS certificate, NFS host list from a network namespace, iSCSI CHAP, the
#        guest's journal). Prints the table, writes var/security/security.json.
#   make security-smoke   the unit-level part with fewer fuzz examples and no VM (about a minute), for
#        `make test`; its table and JSON go to var/security/smoke.
#
# The lab part boots a VM: run the whole target under the lab lock, as lab-test. Host tools it needs:
# iproute2 (network namespace), libnfs-utils (nfs-ls), libiscsi-bin (iscsi-readcapacity16).
APT_PACKAGES += iproute2 libnfs-utils libiscsi-bin nftables
# apparmor_parser checks the api's AppArmor profile in the unit tests (nothing is loaded on this host).
APT_PACKAGES += apparmor

SECURITY_DIR ?= var/security
SECURITY_FUZZ_EXAMPLES ?= 50
SECURITY_SMOKE_EXAMPLES ?= 3

.PHONY: security security-unit security-lab security-smoke

# sslyze judges the api's TLS against Mozilla's "intermediate" profile (tests/security/test_security_tls.py,
# tests/lab/security). Its own venv: it pins cryptography below what the api ships.
SSLYZE := build/tools/sslyze/bin/sslyze
$(SSLYZE): tools/sslyze/requirements.lock .venv/.synced
	@rm -rf build/tools/sslyze
	$(UV) venv -q --python $(PY) build/tools/sslyze
	$(UV) pip sync -q --python build/tools/sslyze/bin/python $<
	@touch $@

## security: fuzzing, authorisation, injection and secrets checks, then the booted image (TLS, NFS, CHAP)
security: .venv/.synced $(SSLYZE) image
	@rm -f $(SECURITY_DIR)/unit*.json $(SECURITY_DIR)/lab.json $(SECURITY_DIR)/security.json
	@status=0; \
	$(MAKE) --no-print-directory security-unit || status=1; \
	$(MAKE) --no-print-directory security-lab || status=1; \
	$(PY) -m security.report --dir $(SECURITY_DIR) --lab required || status=1; \
	exit $$status

## security-unit: the part of make security that needs no VM, full size
security-unit: .venv/.synced $(SSLYZE)
	@rm -f $(SECURITY_DIR)/unit*.json
	ARCVSA_SECURITY_DIR=$(SECURITY_DIR) ARCVSA_FUZZ_EXAMPLES=$(SECURITY_FUZZ_EXAMPLES) \
		$(PY) -m pytest -q -n 2 -p no:cacheprovider tests/security

## security-lab: the part of make security on the booted image
security-lab: image $(SSLYZE)
	ARCVSA_SECURITY_DIR=$(SECURITY_DIR) ARCVSA_LAB_REQUIRED=1 \
		$(PY) -m pytest -q -s -p no:cacheprovider -m lab tests/lab/security

## security-smoke: the no-VM part with fewer fuzz examples (in make test; about a minute)
security-smoke: .venv/.synced $(SSLYZE)
	@rm -f $(SECURITY_DIR)/smoke/unit*.json $(SECURITY_DIR)/smoke/security.json
	@status=0; \
	ARCVSA_SECURITY_DIR=$(SECURITY_DIR)/smoke ARCVSA_FUZZ_EXAMPLES=$(SECURITY_SMOKE_EXAMPLES) \
		$(PY) -m pytest -q -n 2 -p no:cacheprovider tests/security || status=1; \
	$(PY) -m security.report --dir $(SECURITY_DIR)/smoke --lab optional || status=1; \
	exit $$status
