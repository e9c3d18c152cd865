#!/bin/bash
# vsphere-iso only: install the appliance's package set (appliance/image/packages.txt, uploaded to
# /tmp/arcvsa-packages.txt) on the freshly installed Debian, with contrib enabled for zfs-dkms.
# The mirror is whatever the installer configured; no host name is written here.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
    sed -i -E '/^Components:/ { /contrib/! s/$/ contrib/ }' /etc/apt/sources.list.d/debian.sources
fi
if [[ -f /etc/apt/sources.list ]]; then
    sed -i -E '/^deb /{/contrib/! s/ main( |$)/ main contrib\1/}' /etc/apt/sources.list
fi
apt-get update -q
mapfile -t packages < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' /tmp/arcvsa-packages.txt)
apt-get install -y -q --no-install-recommends "${packages[@]}"
rm -f /tmp/arcvsa-packages.txt
