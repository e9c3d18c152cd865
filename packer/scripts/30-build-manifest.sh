#!/bin/bash
# /etc/arcvsa/build-manifest.json: the git version (from packer) and the versions actually in the
# image (kernel, OpenZFS module, nfs-ganesha), read here in the guest. packer downloads it next to
# the disk and `python -m ovf pack --image-manifest` puts it into the OVA.
set -euo pipefail
: "${ARCVSA_VERSION:?}" "${ARCVSA_GIT_VERSION:?}"

mapfile -t kernels < <(find /lib/modules -mindepth 1 -maxdepth 1 -type d -printf '%f\n')
if [[ ${#kernels[@]} -ne 1 ]]; then
    echo "arcvsa: expected one kernel under /lib/modules, found: ${kernels[*]:-none}" >&2
    exit 1
fi
export ARCVSA_KERNEL=${kernels[0]}
ARCVSA_OPENZFS=$(modinfo -k "$ARCVSA_KERNEL" -F version zfs)
ARCVSA_GANESHA=$(dpkg-query -W -f '${Version}' nfs-ganesha)
export ARCVSA_OPENZFS ARCVSA_GANESHA

install -d -m 0755 /etc/arcvsa
/opt/arcvsa/venv/bin/python - <<'PY'
import os
from pathlib import Path

from ovf.build_manifest import BuildManifest

manifest = BuildManifest(
    version=os.environ["ARCVSA_VERSION"],
    git_version=os.environ["ARCVSA_GIT_VERSION"],
    kernel=os.environ["ARCVSA_KERNEL"],
    openzfs=os.environ["ARCVSA_OPENZFS"],
    nfs_ganesha=os.environ["ARCVSA_GANESHA"],
)
Path("/etc/arcvsa/build-manifest.json").write_bytes(manifest.to_json())
print(manifest.model_dump_json())
PY
