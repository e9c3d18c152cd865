#!/bin/bash
# The project's Python code (uploaded to /opt/arcvsa/lib) in a venv that sees Debian's Python
# packages: /opt/arcvsa/venv/bin/python is what the systemd units run. No registry is contacted:
# the dependencies are the image's Debian packages, and this script fails loudly if one is missing.
set -euo pipefail

python3 -m venv --system-site-packages /opt/arcvsa/venv
site=$(/opt/arcvsa/venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
printf '/opt/arcvsa/lib\n' >"$site/arcvsa.pth"
find /opt/arcvsa/lib -name '__pycache__' -prune -exec rm -rf {} +
/opt/arcvsa/venv/bin/python -m compileall -q /opt/arcvsa/lib

missing=()
for module in pydantic yaml cryptography argon2; do
    /opt/arcvsa/venv/bin/python -c "import $module" 2>/dev/null || missing+=("$module")
done
if ((${#missing[@]})); then
    echo "arcvsa: Python modules missing in the image: ${missing[*]}" >&2
    echo "arcvsa: add python3-pydantic python3-yaml python3-cryptography python3-argon2 to packages.txt" >&2
    exit 1
fi
/opt/arcvsa/venv/bin/python -c 'import appliance.firstboot.model, ovf.properties; ovf.properties.load_catalogue()'
