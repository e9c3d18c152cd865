#!/bin/bash
# mmdebstrap customize hook: turns the freshly bootstrapped trixie tree ($1) into the appliance root.
# Runs on the build machine with mmdebstrap's mounts in place; chroot only for tools of the image.
# Environment: ARCVSA_ROOT_UUID (the root file system's UUID, also used by disk.sh).
# disk.sh reads the EFI System Partition's volume id from the fstab written here.
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

# The ESP's FAT volume id comes from the root UUID: the same tree gives the same disk.
esp_id=$(tr a-f A-F <<<"${uuid:0:4}-${uuid:4:4}")
cat >"$root/etc/fstab" <<FSTAB
UUID=$uuid	/	ext4	errors=remount-ro	0	1
UUID=$esp_id	/boot/efi	vfat	umask=0077	0	2
FSTAB

# systemd-networkd + resolved; the kernel NFS server is the alternative backend, off until chosen
# (it and ganesha cannot share port 2049).
chroot "$root" systemctl enable systemd-networkd.service systemd-resolved.service
chroot "$root" systemctl disable nfs-server.service
# "Record successful boot for GRUB" serves recordfail, which Debian's generated grub.cfg leaves out.
chroot "$root" systemctl disable grub-common.service
# The appliance changes only by a signed arcvsa release: apt's timers would poll an archive it never
# updates from (and may not reach). Masked, so a package upgrade cannot turn them on again.
chroot "$root" systemctl mask apt-daily.timer apt-daily-upgrade.timer
# nfs-utils' pNFS block layout daemon serves an NFS client; the appliance is a server.
chroot "$root" systemctl mask nfs-blkmap.service
# rpc.statd serves NLM, which ganesha has off and ESXi never uses (it locks with .lck files): not run,
# so no listener sits on a random port the firewall cannot name.
chroot "$root" systemctl mask nfs-ganesha-lock.service rpc-statd.service rpc-statd-notify.service
# The rule set the api renders (appliance.control.firewall), loaded before any network comes up.
chroot "$root" systemctl enable nftables.service
# ssh.service stays enabled: packer's seal turns SSH off with Debian's switch file
# (/etc/ssh/sshd_not_to_be_run), which first boot or Settings remove to turn it on.
ln -sf ../run/systemd/resolve/stub-resolv.conf "$root/etc/resolv.conf"

# Per-instance identity is made at first boot: machine id, SSH host keys.
: >"$root/etc/machine-id"
rm -f "$root/var/lib/dbus/machine-id" "$root"/etc/ssh/ssh_host_*
# DKMS signed the module with a key it made here; no appliance may share a private key (a later DKMS
# build on the appliance makes its own).
rm -f "$root/var/lib/dkms/mok.key" "$root/var/lib/dkms/mok.pub"

# The administrative account for the console and SSH (sudo to root); first boot gives it the admin
# password, to be changed at its first login. root's own password stays locked.
chroot "$root" useradd --create-home --shell /bin/bash --groups sudo --comment "arcvsa administrator" arcvsa
# No default password: root's and arcvsa's shadow entries must stay locked ('*' or '!').
for user in root arcvsa; do
    hash=$(awk -F: -v user="$user" '$1 == user { print $2 }' "$root/etc/shadow")
    if [[ $hash != '*'* && $hash != '!'* ]]; then
        log "$user has a password in the image; refusing"
        exit 1
    fi
done

# GRUB for both firmwares, laid out as grub-install lays it out (it cannot run here: the tree is no
# disk). Both boot images run the same early config, find the root file system by UUID and read
# /boot/grub/grub.cfg from it; their modules sit beside them in /boot/grub/<platform>, as the image
# built them. disk.sh puts core.img into the BIOS boot partition and /boot/efi onto the ESP.
cat >"$root/boot/grub/load.cfg" <<LOAD
search.fs_uuid $uuid root
set prefix=(\$root)'/boot/grub'
LOAD
for platform in i386-pc x86_64-efi; do
    mkdir -p "$root/boot/grub/$platform"
    cp "$root/usr/lib/grub/$platform"/*.mod "$root/usr/lib/grub/$platform"/*.lst "$root/boot/grub/$platform/"
done
chroot "$root" grub-mkimage -O i386-pc -c /boot/grub/load.cfg -p /boot/grub \
    -o /boot/grub/i386-pc/core.img biosdisk part_gpt ext2 search_fs_uuid
cp "$root/usr/lib/grub/i386-pc/boot.img" "$root/boot/grub/i386-pc/boot.img"
chroot "$root" grub-mkimage -O x86_64-efi -c /boot/grub/load.cfg -p /boot/grub \
    -o /boot/grub/x86_64-efi/core.efi part_gpt ext2 search_fs_uuid
# The removable-media path boots with an empty NVRAM (a fresh vSphere VM, OVMF); EFI/debian is where
# grub-install puts it, and its presence is what makes grub-efi-amd64's upgrades run grub-install.
for efi in EFI/BOOT/BOOTX64.EFI EFI/debian/grubx64.efi; do
    install -D -m 0644 "$root/boot/grub/x86_64-efi/core.efi" "$root/boot/efi/$efi"
done
# Those upgrades refresh the removable path too and leave the NVRAM as the firmware has it.
chroot "$root" debconf-set-selections <<DEBCONF
grub-efi-amd64 grub2/force_efi_extra_removable boolean true
grub-efi-amd64 grub2/update_nvram boolean false
DEBCONF

# grub.cfg is Debian's, made by update-grub from /etc/default/grub.d/arcvsa.cfg: a kernel installed
# later runs update-grub again (/etc/kernel/postinst.d/zz-update-grub, which acts once grub.cfg
# exists). grub-probe is swapped for a stand-in meanwhile: see grub-probe.sh.
chroot "$root" dpkg-divert --quiet --local --rename --divert /usr/sbin/grub-probe.real --add /usr/sbin/grub-probe
sed "s/@ROOT_UUID@/$uuid/" "$here/grub-probe.sh" >"$root/usr/sbin/grub-probe"
chmod 0755 "$root/usr/sbin/grub-probe"
chroot "$root" update-grub
rm "$root/usr/sbin/grub-probe"
chroot "$root" dpkg-divert --quiet --local --rename --remove /usr/sbin/grub-probe
cfg="$root/boot/grub/grub.cfg"
# The kernel version holds regex characters ('+', '.'): compared as text.
entry=$(grep -m 1 -F "/boot/vmlinuz-$kver " "$cfg" || true)
if [[ $entry != *" root=UUID=$uuid "* && $entry != *" root=/dev/disk/by-uuid/$uuid "* ]] \
    || ! grep -E "^[[:space:]]*search .*--fs-uuid .*$uuid" "$cfg" >/dev/null; then
    log "update-grub made no entry that boots $kver from $uuid"
    exit 1
fi

log "customize end"
