#!/bin/bash
# Enable first boot and the api, and make sure the image has not been "first-booted" already.
set -euo pipefail

for unit in arcvsa-firstboot.service arcvsa-api.service; do
    install -m 0644 "/opt/arcvsa/current/systemd/$unit" "/etc/systemd/system/$unit"
done
systemctl daemon-reload
systemctl enable arcvsa-firstboot.service arcvsa-api.service
install -d -m 0700 /var/lib/arcvsa
rm -f /var/lib/arcvsa/firstboot.done /var/lib/arcvsa/firstboot.json
