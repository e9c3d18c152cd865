#!/bin/bash
# mmdebstrap customize hook: turns the freshly bootstrapped trixie tree ($1) into the appliance root.
# Runs on the build machine with mmdebstrap's mounts in place; chroot only for tools of the image.
# Environment: ARCVSA_ROOT_UUID (the root file system's UUID, also used by disk.sh).
set -euo pipefail

root=${1:?usage: customize.sh ROOTFS}
uuid=${ARCVSA_ROOT_UUID:?ARCVSA_ROOT_UUID must be set}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

log() { printf 'arcvsa-image: %s\n' "$*" >&2; }

log "customize start"

# One kernel, its own headers, and a ZFS module built for it (DKMS in a chroot builds for whatever
# kernels have headers under /lib/modules, never for the build machine's running kernel).
mapfile -t kernels < <(find "$root/lib/modules" -mindepth 1 -maxdepth 1 -type d -printf '%f\n')
if [[ ${#kernels[@]} -ne 1 ]]; then
    log "expected exactly one kernel, found: ${kernels[*]:-none}"
    exit 1
fi
kver=${kernels[0]}
if [[ ! -d "$root/usr/src/linux-headers-$kver" ]]; then
    log "no headers for $kver: the ZFS module cannot be built"
    exit 1
fi
if ! chroot "$root" modinfo -k "$kver" zfs >/dev/null 2>&1; then
    log "zfs module missing for $kver after install: running dkms autoinstall"
    chroot "$root" dkms autoinstall -k "$kver"
fi
chroot "$root" modinfo -k "$kver" -F version zfs >/dev/null
log "kernel $kver, zfs module $(chroot "$root" modinfo -k "$kver" -F version zfs)"

# Files of the image (network default, sshd drop-in, hostname), owned by root whatever the checkout.
tar -C "$here/overlay" --owner=0 --group=0 --numeric-owner -cf - . | tar -C "$root" -xf -

cat >"$root/etc/hosts" <<HOSTS
127.0.0.1	localhost
127.0.1.1	arcvsa
::1	localhost ip6-localhost ip6-loopback
HOSTS

cat >"$root/etc/fstab" <<FSTAB
UUID=$uuid	/	ext4	errors=remount-ro	0	1
FSTAB

# systemd-networkd + resolved; the kernel NFS server is the alternative backend, off until chosen
# (it and ganesha cannot share port 2049).
chroot "$root" systemctl enable systemd-networkd.service systemd-resolved.service
chroot "$root" systemctl disable nfs-server.service
# "Record successful boot for GRUB" serves grub-reboot/recordfail, which this hand-made GRUB lacks.
chroot "$root" systemctl disable grub-common.service
# The appliance changes only by a signed arcvsa release: apt's timers would poll an archive it never
# updates from (and may not reach). Masked, so a package upgrade cannot turn them on again.
chroot "$root" systemctl mask apt-daily.timer apt-daily-upgrade.timer
# nfs-utils' pNFS block layout daemon serves an NFS client; the appliance is a server.
chroot "$root" systemctl mask nfs-blkmap.service
ln -sf ../run/systemd/resolve/stub-resolv.conf "$root/etc/resolv.conf"

# Per-instance identity is made at first boot: machine id, SSH host keys.
: >"$root/etc/machine-id"
rm -f "$root/var/lib/dbus/machine-id" "$root"/etc/ssh/ssh_host_*
# DKMS signed the module with a key it made here; no appliance may share a private key (a later DKMS
# build on the appliance makes its own).
rm -f "$root/var/lib/dkms/mok.key" "$root/var/lib/dkms/mok.pub"

# No default password: root's shadow entry must stay locked ('*' or '!').
root_hash=$(awk -F: '$1 == "root" { print $2 }' "$root/etc/shadow")
if [[ $root_hash != '*'* && $root_hash != '!'* ]]; then
    log "root has a password in the image; refusing"
    exit 1
fi

# GRUB for BIOS boot, laid out as grub-install would (modules + core.img under /boot/grub/i386-pc);
# disk.sh writes boot.img and core.img onto the disk. The image's own GRUB is used, not the host's.
mkdir -p "$root/boot/grub/i386-pc"
cp "$root"/usr/lib/grub/i386-pc/*.mod "$root"/usr/lib/grub/i386-pc/*.lst "$root/boot/grub/i386-pc/"
chroot "$root" grub-mkimage -O i386-pc -o /boot/grub/i386-pc/core.img -p '(hd0,msdos1)/boot/grub' \
    biosdisk part_msdos ext2 search_fs_uuid
cp "$root/usr/lib/grub/i386-pc/boot.img" "$root/boot/grub/i386-pc/boot.img"
cat >"$root/boot/grub/grub.cfg" <<GRUB
serial --unit=0 --speed=115200
terminal_input serial console
terminal_output serial console
set timeout=1
search --no-floppy --fs-uuid --set=root $uuid
menuentry 'arcvsa (Debian 13, Linux $kver)' {
    linux /boot/vmlinuz-$kver root=UUID=$uuid ro console=tty0 console=ttyS0,115200n8
    initrd /boot/initrd.img-$kver
}
GRUB

log "customize end"
