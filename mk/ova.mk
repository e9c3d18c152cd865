# The OVA and the Packer template. Included by the Makefile (-include mk/*.mk).
#
#   make ova              build/image/arcvsa-<version>.qcow2 (from `make image`) -> dist/arcvsa-<version>.ova,
#                         signed with OVA_SIGNING_KEY (or a throwaway lab key without one)
#   make packer-validate  packer validate of packer/ with the committed example variables
#   make ova-setup        install the host packages (`make setup` installs them too)
#   make ova-test         the release OVA read back by qemu-img, libvmdk and govc (tests/ova), deployed into vcsim

# Host packages: packer 1.6.6 (qemu + vsphere builders built in), qemu-img, genisoimage for the
# ovf-env ISO, ssh-keygen for the throwaway validate key, openssl for first-boot password hashes
# and for `make ova-test` to check the OVA's signature.
APT_PACKAGES += packer qemu-utils genisoimage openssh-client openssl

# Same version as the image build (IMAGE_VERSION from mk/image.mk; recursive, so include order
# does not matter), else git's.
OVA_VERSION ?= $(or $(IMAGE_VERSION),$(shell git describe --always --dirty 2>/dev/null || echo unknown))
OVA_IMAGE ?= build/image/arcvsa-$(OVA_VERSION).qcow2
# The image's own build manifest (/etc/arcvsa/build-manifest.json, fetched by packer); `ovf pack` puts it in the OVA.
OVA_IMAGE_RECORD ?= build/image/arcvsa-$(OVA_VERSION).build-manifest.json
OVA_OUT ?= dist/arcvsa-$(OVA_VERSION).ova
OVA_SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)

# The OVA's signing key and its certificate (PEM, the chain after it), from outside the tree and never
# committed: `make ova OVA_SIGNING_KEY=/secure/arcvsa-sign.key OVA_SIGNING_CERT=/secure/arcvsa-sign.crt`, or
# the same names in the environment. One file may hold both, as ovftool's --privateKey takes them. A key
# with a passphrase: OVA_SIGNING_PASSPHRASE_FILE names a file holding it; the passphrase itself never goes
# on a command line. Without a key, `ovf pack` makes a throwaway self-signed key in OVA_LAB_SIGNING_DIR,
# signs with it and says so: fine for the lab, never for a release.
OVA_SIGNING_KEY ?=
OVA_SIGNING_CERT ?= $(OVA_SIGNING_KEY)
OVA_SIGNING_PASSPHRASE_FILE ?=
OVA_LAB_SIGNING_DIR ?= build/ova-signing
OVA_SIGNING_FLAGS = $(if $(OVA_SIGNING_KEY),--signing-key $(OVA_SIGNING_KEY) --signing-cert $(OVA_SIGNING_CERT),\
	--lab-signing-dir $(OVA_LAB_SIGNING_DIR)) \
	$(if $(OVA_SIGNING_PASSPHRASE_FILE),--signing-passphrase-file $(OVA_SIGNING_PASSPHRASE_FILE))

# govc, VMware's own vSphere client, from the govmomi release vcsim is built from (tools/labvcsim/go.mod
# pins it): `make ova-test` reads and deploys the OVA with it. `make setup` installs it.
GOVMOMI_VERSION := $(shell awk '$$1 == "require" && $$2 == "github.com/vmware/govmomi" { print $$3 }' \
	tools/labvcsim/go.mod)
GOVC := $(GOBIN)/govc
export GOVC
setup: $(GOVC)

$(GOVC): tools/labvcsim/go.mod
	GOBIN=$(GOBIN) go install github.com/vmware/govmomi/govc@$(GOVMOMI_VERSION)

PACKER ?= packer
PACKER_VALIDATE_DIR := build/packer-validate
# Packer writes its config, cache and temp files under HOME/TMPDIR: keep them inside the build folder.
PACKER_ENV = HOME=$(abspath $(PACKER_VALIDATE_DIR))/home \
	PACKER_CONFIG_DIR=$(abspath $(PACKER_VALIDATE_DIR))/config \
	PACKER_CACHE_DIR=$(abspath $(PACKER_VALIDATE_DIR))/cache \
	TMPDIR=$(abspath $(PACKER_VALIDATE_DIR))/tmp \
	CHECKPOINT_DISABLE=1

.PHONY: ova ova-setup ova-test packer-validate

## ova-setup: install the host packages the OVA build needs (all of APT_PACKAGES: make apt)
ova-setup: apt

## ova: pack the image into dist/arcvsa-<version>.ova, signed (vApp properties from ovf/properties.yaml)
ova: image
	@test -f "$(OVA_IMAGE)" || { echo "ova: $(OVA_IMAGE) not found (make image writes it)" >&2; exit 1; }
	$(PY) -m ovf pack --disk $(OVA_IMAGE) --image-manifest $(OVA_IMAGE_RECORD) \
		--version $(OVA_VERSION) --git-version $(OVA_VERSION) \
		--source-date-epoch $(OVA_SOURCE_DATE_EPOCH) --out $(OVA_OUT) $(OVA_SIGNING_FLAGS)

# The release OVA itself, read by tools we did not write (tests/ova): its VMDK back to the source
# disk's SHA-256 by qemu-img and by libyal's libvmdk, its .mf after a plain tar extraction, and
# govc's import.spec and import.ova into a vcsim of its own, its .cert's signature over the .mf checked
# with openssl alone; then tar order and digests, its build manifest, and a deploy into vcsim with
# pyVmomi (CreateImportSpec, ImportVApp, HttpNfcLease upload).
## ova-test: the release OVA read back by qemu-img, libvmdk and govc, its manifest and signature checked, deployed into vcsim
ova-test: ova $(GOVC) $(VCSIM)
	ARCVSA_OVA=$(abspath $(OVA_OUT)) ARCVSA_OVA_SOURCE=$(abspath $(OVA_IMAGE)) $(PY) -m pytest -q -s \
		tests/ova tests/integration/test_release_ova.py tests/integration/test_ovf_vcsim.py

# The example variables are validated as committed (copied: packer wants a .hcl suffix); only the
# paths packer creates or reads on validate (the SSH key, the output folders) go to the throwaway
# folder.
## packer-validate: packer validate of both sources (qemu, vsphere-iso) with the example variables
packer-validate:
	rm -rf $(PACKER_VALIDATE_DIR)
	mkdir -p $(PACKER_VALIDATE_DIR)/home $(PACKER_VALIDATE_DIR)/config $(PACKER_VALIDATE_DIR)/cache \
		$(PACKER_VALIDATE_DIR)/tmp
	ssh-keygen -q -t ed25519 -N '' -C arcvsa-packer-validate -f $(PACKER_VALIDATE_DIR)/key
	tar -cf $(PACKER_VALIDATE_DIR)/payload.tar -T /dev/null
	echo '{}' > $(PACKER_VALIDATE_DIR)/release.json
	cp packer/arcvsa.pkrvars.hcl.example $(PACKER_VALIDATE_DIR)/example.pkrvars.hcl
	$(PACKER_ENV) $(PACKER) version
	$(PACKER_ENV) $(PACKER) validate -var-file=$(PACKER_VALIDATE_DIR)/example.pkrvars.hcl \
		-var ssh_private_key_file=$(PACKER_VALIDATE_DIR)/key \
		-var payload=$(PACKER_VALIDATE_DIR)/payload.tar \
		-var release_file=$(PACKER_VALIDATE_DIR)/release.json \
		-var output_directory=$(PACKER_VALIDATE_DIR)/out \
		-var vsphere_export_directory=$(PACKER_VALIDATE_DIR)/vsphere-export \
		-var manifest_out=$(PACKER_VALIDATE_DIR)/build-manifest.json \
		packer/
