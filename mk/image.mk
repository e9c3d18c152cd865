# The appliance base disk and the lab boot (issue 3). Included by the Makefile (-include mk/*.mk).
# Needs root: mmdebstrap --mode=root, chroot, file ownership in the image.

# Host packages for `image`, `lab-*`: the lead's `make setup` installs them (`make image-setup` alone too).
IMAGE_APT_PACKAGES := mmdebstrap debian-archive-keyring e2fsprogs fdisk qemu-utils qemu-system-x86 \
	openssh-client libnfs-utils packer genisoimage

IMAGE_PYTHON ?= .venv/bin/python
IMAGE_PYTEST ?= .venv/bin/pytest
# Empty: the build takes `git describe --always --dirty` (pyproject's version outside git).
IMAGE_VERSION ?=

.PHONY: image image-setup image-clean lab-up lab-down lab-smoke

image-setup:
	apt-get install -y --no-install-recommends $(IMAGE_APT_PACKAGES)

# The build caches its stages under build/image/cache by their inputs' hash: unchanged inputs, no rebuild.
# The web assets and the locked runtime dependencies go into the image (appliance/image/payload.py).
image: web .venv/.synced
	$(IMAGE_PYTHON) -m appliance.image.build $(if $(IMAGE_VERSION),--version $(IMAGE_VERSION))

# --one-file-system: never descend into a chroot mount (/proc, /dev) left by an interrupted build.
image-clean:
	rm -rf --one-file-system build/image

# Boots the image the current checkout builds (a cached build when nothing changed).
lab-up: image
	$(IMAGE_PYTHON) -m lab.up

lab-down:
	$(IMAGE_PYTHON) -m lab.down

# The smoke part of the lab tier (in `make test`); the storage suite is `make lab-test`.
LAB_SMOKE_TESTS := tests/lab/test_smoke.py tests/lab/test_firstboot_refused.py

lab-smoke: image
	ARCVSA_LAB_REQUIRED=1 $(IMAGE_PYTEST) -m lab -s $(LAB_SMOKE_TESTS)
