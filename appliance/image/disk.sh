#!/bin/bash
# Lays a prepared root tree onto a partitioned, BIOS-bootable raw disk, without loop devices:
# ext4 made from the tree (mkfs.ext4 -d), an MBR with one partition at 1 MiB, GRUB's boot.img in the
# MBR and core.img right after it (the tree carries both, see customize.sh).
# Usage: disk.sh ROOTFS OUT.raw SIZE_MIB ROOT_UUID [AUTHORIZED_KEYS]
#   AUTHORIZED_KEYS (lab builds only) becomes /root/.ssh/authorized_keys on the disk, not in ROOTFS.
set -euo pipefail

root=${1:?ROOTFS}
out=${2:?OUT.raw}
size_mib=${3:?SIZE_MIB}
uuid=${4:?ROOT_UUID}
keys=${5:-}

# mkfs.ext4 -d copies whatever is mounted below the tree (a leftover /proc): refuse. (grep without -q
# reads all its input: no SIGPIPE for the writer under pipefail.)
if findmnt -rn -o TARGET | grep "^$root/" >/dev/null; then
    echo "disk.sh: file systems are mounted below $root" >&2
    exit 1
fi

part="$out.part"
cmds="$out.debugfs"
trap 'rm -f "$part" "$cmds"' EXIT
rm -f "$out" "$part"

# The partition fills the disk after the 1 MiB gap that holds GRUB's core.img.
truncate -s "$((size_mib - 1))M" "$part"
mkfs.ext4 -q -F -L arcvsa-root -U "$uuid" -E lazy_itable_init=1,lazy_journal_init=1 -d "$root" "$part"

if [[ -n $keys ]]; then
    # debugfs writes into the file system image: the shared root tree (a cache) stays untouched.
    install -m 0600 "$keys" "$out.authorized_keys"
    : >"$cmds"
    # debugfs exits 0 even when a path is missing: look for its message instead.
    if debugfs -R 'stat /root/.ssh' "$part" 2>&1 | grep 'not found' >/dev/null; then
        echo 'mkdir /root/.ssh' >>"$cmds"
    fi
    cat >>"$cmds" <<DEBUGFS
sif /root/.ssh mode 040700
write $out.authorized_keys /root/.ssh/authorized_keys
sif /root/.ssh/authorized_keys mode 0100600
sif /root/.ssh/authorized_keys uid 0
sif /root/.ssh/authorized_keys gid 0
DEBUGFS
    debugfs -w -f "$cmds" "$part" >/dev/null
    rm -f "$out.authorized_keys"
fi
e2fsck -fn "$part" >/dev/null

truncate -s "${size_mib}M" "$out"
# The MBR's disk id comes from the root UUID: the same tree gives the same disk.
printf 'label: dos\nlabel-id: 0x%s\nstart=2048, type=83, bootable\n' "${uuid:0:8}" | sfdisk --quiet "$out"
dd if="$part" of="$out" bs=1M seek=1 conv=sparse,notrunc status=none
dd if="$root/boot/grub/i386-pc/boot.img" of="$out" bs=440 count=1 conv=notrunc status=none
dd if="$root/boot/grub/i386-pc/core.img" of="$out" bs=512 seek=1 conv=notrunc status=none

core_sectors=$(( ($(stat -c %s "$root/boot/grub/i386-pc/core.img") + 511) / 512 ))
if (( core_sectors >= 2047 )); then
    echo "disk.sh: core.img ($core_sectors sectors) does not fit before the partition" >&2
    exit 1
fi
