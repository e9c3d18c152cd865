#!/bin/bash
# The project in the image: the payload (uploaded to /tmp/arcvsa-payload.tar by packer) unpacked as the
# first release, /opt/arcvsa/releases/$ARCVSA_VERSION, with /opt/arcvsa/current linked to it, and a
# venv that sees /opt/arcvsa/current/lib (the locked dependencies + the project) first and Debian's
# Python packages after it (rtslib-fb and dbus come from Debian, with targetcli and ganesha).
# /opt/arcvsa/venv/bin/python is what the systemd units run. An in-place upgrade unpacks the next
# release beside this one and switches the link (appliance/upgrade). The guest reaches no package index.
set -euo pipefail
: "${ARCVSA_VERSION:?}"

release=/opt/arcvsa/releases/$ARCVSA_VERSION
rm -rf /opt/arcvsa
install -d -m 0755 /opt/arcvsa /opt/arcvsa/releases "$release"
tar -C "$release" --no-same-owner -xf /tmp/arcvsa-payload.tar
rm -f /tmp/arcvsa-payload.tar
ln -s "releases/$ARCVSA_VERSION" /opt/arcvsa/current

python3 -m venv --without-pip --system-site-packages /opt/arcvsa/venv
site=$(/opt/arcvsa/venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
printf '/opt/arcvsa/current/lib\n' >"$site/arcvsa.pth"
# Byte-compile now: the lib is read-only at run time and TCG boots are slow enough.
/opt/arcvsa/venv/bin/python -m compileall -q -j 0 "$release/lib" >/dev/null

# The release's record and the key upgrade bundles must be signed with (outside every release: a
# bundle cannot bring the key it is checked with).
install -d -m 0755 /etc/arcvsa
ARCVSA_RELEASE_DIR=$release /opt/arcvsa/venv/bin/python - <<'PY'
import json
import os
from pathlib import Path

from appliance.upgrade.bundle import Manifest, load_public_key

data = json.loads(Path("/tmp/arcvsa-release.json").read_text(encoding="utf-8"))
first = Manifest.model_validate(data["release"])
assert first.version == os.environ["ARCVSA_VERSION"], (first.version, os.environ["ARCVSA_VERSION"])
load_public_key(data["upgrade_key"])
Path(os.environ["ARCVSA_RELEASE_DIR"], "RELEASE.json").write_bytes(first.to_json())
Path("/etc/arcvsa/upgrade-signing.pub").write_text(data["upgrade_key"], encoding="ascii")
PY
rm -f /tmp/arcvsa-release.json

# Every module the units import must load here, with the image's own CPython.
/opt/arcvsa/venv/bin/python - <<'PY'
import importlib

for name in ("api.app", "appliance.firstboot.cli", "appliance.upgrade.apply", "ovf.properties",
             "pydantic_core", "argon2", "cryptography"):
    importlib.import_module(name)
import ovf.properties

ovf.properties.load_catalogue()
print("arcvsa: python environment ok")
PY
test -f /opt/arcvsa/current/web/index.html
