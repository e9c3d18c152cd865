#!/bin/bash
# Install the units and the api's slice, enable first boot and the api, and make sure the image has
# not been "first-booted" already.
set -euo pipefail

for unit in arcvsa.slice arcvsa-firstboot.service arcvsa-api.service; do
    install -m 0644 "/opt/arcvsa/current/systemd/$unit" "/etc/systemd/system/$unit"
done
systemctl daemon-reload
systemctl enable arcvsa-firstboot.service arcvsa-api.service
install -d -m 0700 /var/lib/arcvsa
rm -f /var/lib/arcvsa/firstboot.done /var/lib/arcvsa/firstboot.json

# ganesha's config and boot ordering as the api writes them, before ganesha's first start on the
# appliance: the first export is then added live, with no restart and no new grace period.
/opt/arcvsa/venv/bin/python - <<'PY'
import os

from appliance.control.files import LocalFiles
from appliance.control.nfs import ganesha

files = LocalFiles()
files.write(ganesha.MAIN_CONF, ganesha.render_main())
files.write(ganesha.DROP_IN, ganesha.DROP_IN_TEXT)
os.makedirs(ganesha.EXPORTS_DIR, exist_ok=True)  # %dir: ganesha will not start without it
PY
systemctl daemon-reload
