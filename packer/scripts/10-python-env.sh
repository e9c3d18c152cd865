#!/bin/bash
# The project in the image: the payload (uploaded to /tmp/arcvsa-payload.tar by packer) unpacked to
# /opt/arcvsa, and a venv that sees /opt/arcvsa/lib (the locked dependencies + the project) first and
# Debian's Python packages after it (rtslib-fb and dbus come from Debian, with targetcli and ganesha).
# /opt/arcvsa/venv/bin/python is what the systemd units run. The guest reaches no package index.
set -euo pipefail

rm -rf /opt/arcvsa
install -d -m 0755 /opt/arcvsa
tar -C /opt/arcvsa --no-same-owner -xf /tmp/arcvsa-payload.tar
rm -f /tmp/arcvsa-payload.tar

python3 -m venv --without-pip --system-site-packages /opt/arcvsa/venv
site=$(/opt/arcvsa/venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
printf '/opt/arcvsa/lib\n' >"$site/arcvsa.pth"
# Byte-compile now: the lib is read-only at run time and TCG boots are slow enough.
/opt/arcvsa/venv/bin/python -m compileall -q -j 0 /opt/arcvsa/lib >/dev/null

# Every module the units import must load here, with the image's own CPython.
/opt/arcvsa/venv/bin/python - <<'PY'
import importlib

for name in ("api.app", "appliance.firstboot.cli", "ovf.properties", "pydantic_core", "argon2", "cryptography"):
    importlib.import_module(name)
import ovf.properties

ovf.properties.load_catalogue()
print("arcvsa: python environment ok")
PY
test -f /opt/arcvsa/web/index.html
