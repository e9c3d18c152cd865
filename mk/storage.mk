# The storage engine: its acceptance in the booted image through the api (lab-test), and
# re-recording the unit-test fixtures from the real tools. Included by the Makefile (-include mk/*.mk).

# Host packages for lab-test: libiscsi-bin's iscsi-ls/iscsi-inq are the lab's iSCSI initiator.
APT_PACKAGES += libiscsi-bin

# State folder of a running lab (python -m lab.up --dir ...) for lab-record.
STORAGE_LAB_DIR ?= var/lab

.PHONY: lab-test lab-record

# Boots the image (first boot from an ovf-env) on a fresh SAN (tests/lab/conftest.py); fails, not skips,
# when a piece is missing. 1 GiB of real OS-image data by default; LAB_DATA_MIB=256 for a quicker run.
LAB_DATA_MIB ?= 1024

## lab-test: the storage engine through the api of the booted image (LAB_DATA_MIB=256 for a quicker run)
lab-test: image
	ARCVSA_LAB_REQUIRED=1 ARCVSA_LAB_DATA_MIB=$(LAB_DATA_MIB) $(PY) -m pytest -m lab -s tests/lab/storage

# Re-record tests/fixtures/appliance/recordings/*.json; wipes the lab VM's LUNs and SSDs.
## lab-record: re-record the tool outputs the unit tests replay, from a running lab (wipes its LUNs)
lab-record:
	$(PY) tests/fixtures/appliance/record.py --lab $(STORAGE_LAB_DIR)
