# The appliance base disk and the lab boot. Included by the Makefile (-include mk/*.mk).
# Needs root: mmdebstrap --mode=root, chroot, file ownership in the image.

# Host packages for `image`, `lab-*`: `make setup` installs them. dosfstools and mtools make the
# EFI System Partition without a mount; ovmf is the UEFI firmware the lab boots the image with.
APT_PACKAGES += mmdebstrap debian-archive-keyring e2fsprogs fdisk dosfstools mtools qemu-utils \
	qemu-system-x86 ovmf openssh-client libnfs-utils packer genisoimage

# Empty: the build takes `git describe --always --dirty` (pyproject's version outside git).
IMAGE_VERSION ?=

.PHONY: image image-setup image-clean lab-up lab-down lab-smoke

## image-setup: install the host packages the image build needs (all of APT_PACKAGES: make apt)
image-setup: apt

# The build caches its stages under build/image/cache by their inputs' hash: unchanged inputs, no rebuild.
# The web assets and the locked runtime dependencies go into the image (appliance/image/payload.py).
## image: build the appliance disk build/image/arcvsa-<version>.qcow2 (cached by its inputs; about 10 min fresh)
image: web .venv/.synced
	$(PY) -m appliance.image.build $(if $(IMAGE_VERSION),--version $(IMAGE_VERSION))

# --one-file-system: never descend into a chroot mount (/proc, /dev) left by an interrupted build.
## image-clean: remove build/image and its cache
image-clean:
	rm -rf --one-file-system build/image

# Boots the image the current checkout builds (a cached build when nothing changed).
## lab-up: boot the image under qemu on a throttled lab SAN; prints its api, SSH and NFS addresses
lab-up: image
	$(PY) -m lab.up

## lab-down: stop the lab VM and its SAN
lab-down:
	$(PY) -m lab.down

# The smoke part of the lab tier (in `make test`); the storage suite is `make lab-test`.
LAB_SMOKE_TESTS := tests/lab/test_smoke.py tests/lab/test_firstboot_refused.py

## lab-smoke: the booted image's smoke tests (under UEFI and BIOS): first boot applied and refused, api, pool, NFS
lab-smoke: image
	ARCVSA_LAB_REQUIRED=1 $(PY) -m pytest -m lab -n 2 --dist loadfile -rP $(LAB_SMOKE_TESTS)
