#!/bin/bash
# Install the units (the list upgrades install too: appliance.upgrade.apply.UNITS), enable first boot,
# the console's text and the api, and make sure the image has not been "first-booted" already.
set -euo pipefail

/opt/arcvsa/venv/bin/python - <<'PY'
import os
import shutil
from pathlib import Path

from appliance.control.files import LocalFiles
from appliance.control.nfs import ganesha
from appliance.upgrade.apply import UNIT_DIR, UNITS

for name in UNITS:
    shutil.copyfile(Path("/opt/arcvsa/current/systemd") / name, UNIT_DIR / name)
    (UNIT_DIR / name).chmod(0o644)
# ganesha's config and boot ordering before its first start on the appliance: the first export is
# then added live, with no restart and no new grace period.
files = LocalFiles()
files.write(ganesha.MAIN_CONF, ganesha.render_main())
files.write(ganesha.DROP_IN, ganesha.DROP_IN_TEXT)
os.makedirs(ganesha.EXPORTS_DIR, exist_ok=True)  # %dir: ganesha will not start without it
PY
# The users the units run as (the api's own), as upgrades install them too.
install -D -m 0644 /opt/arcvsa/current/systemd/arcvsa.sysusers /etc/sysusers.d/arcvsa.conf
systemd-sysusers /etc/sysusers.d/arcvsa.conf
# The api's AppArmor profile, which its unit names: apparmor.service loads it at every boot before the
# api starts (upgrades install and load it too).
install -D -m 0644 /opt/arcvsa/current/systemd/arcvsa-api.apparmor /etc/apparmor.d/arcvsa-api
systemctl daemon-reload
systemctl enable arcvsa-firstboot.service arcvsa-console.service arcvsa-api.service
# The api's folder (its unit's StateDirectory): first boot writes into it as root, and the api's first
# start gives it and all it holds to arcvsa-api.
install -d -m 0700 /var/lib/arcvsa
rm -f /var/lib/arcvsa/firstboot.done /var/lib/arcvsa/firstboot.json
