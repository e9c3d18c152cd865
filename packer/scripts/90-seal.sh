#!/bin/bash
# Make the disk a product image: no login key or password, no per-instance identity, no caches.
# Every appliance makes its own machine id and SSH host keys at first start.
set -euo pipefail

rm -f /root/.ssh/authorized_keys
# the build's key login as root (appliance.control.sshd.ROOT_FILE): first boot or Settings write it again
# only when an administrator asks for root's key login
rm -f /etc/ssh/sshd_config.d/40-arcvsa-root.conf
# The build logged in over SSH; the product starts with it off: Debian's switch file keeps ssh.service
# (still enabled) from starting. First boot removes it when the OVF gives a key, an administrator from
# Settings (appliance.control.sshd, whose words these are).
cat >/etc/ssh/sshd_not_to_be_run <<'EOF'
# While this file exists ssh.service does not start (its ConditionPathExists=!). arcvsa's Settings
# (Firewall and SSH) remove it to turn SSH on and write it to turn SSH off.
EOF
usermod -p '*' root
# the vsphere-iso preseed allowed root password logins for the build; the product does not
sed -i 's/^PermitRootLogin yes$/#PermitRootLogin prohibit-password/' /etc/ssh/sshd_config
: >/etc/machine-id
rm -f /var/lib/dbus/machine-id /etc/ssh/ssh_host_*
apt-get clean
rm -rf /var/lib/apt/lists/* /tmp/* /var/tmp/*
find /var/log -type f -exec truncate -s 0 {} +
sync
fstrim -av || true
