# The storage engine (issue 4): its acceptance in the booted image through the api (lab-test), and
# re-recording the unit-test fixtures from the real tools. Included by the Makefile (-include mk/*.mk).

# Host packages for lab-test: libiscsi-bin's iscsi-ls/iscsi-inq are the lab's iSCSI initiator (the
# lead's `make setup` installs them with the rest of APT_ALL).
STORAGE_APT_PACKAGES := libiscsi-bin

STORAGE_PYTHON ?= .venv/bin/python
STORAGE_PYTEST ?= .venv/bin/pytest
# State folder of a running lab (python -m lab.up --dir ...) for lab-record.
STORAGE_LAB_DIR ?= var/lab

.PHONY: lab-test lab-record

# Boots the image (first boot from an ovf-env) on a fresh SAN (tests/lab/conftest.py); fails, not skips,
# when a piece is missing. 1 GiB of real OS-image data by default; LAB_DATA_MIB=256 for a quicker run.
LAB_DATA_MIB ?= 1024

lab-test: image
	ARCVSA_LAB_REQUIRED=1 ARCVSA_LAB_DATA_MIB=$(LAB_DATA_MIB) $(STORAGE_PYTEST) -m lab -s tests/lab/storage

# Re-record tests/fixtures/appliance/recordings/*.json; wipes the lab VM's LUNs and SSDs.
lab-record:
	$(STORAGE_PYTHON) tests/fixtures/appliance/record.py --lab $(STORAGE_LAB_DIR)
