#!/bin/bash
# Enable the first-boot unit, and make sure the image has not been "first-booted" already.
set -euo pipefail

install -m 0644 /opt/arcvsa/systemd/arcvsa-firstboot.service /etc/systemd/system/arcvsa-firstboot.service
systemctl enable arcvsa-firstboot.service
rm -f /var/lib/arcvsa/firstboot.done /var/lib/arcvsa/firstboot.json
