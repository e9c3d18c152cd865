#!/bin/bash
# Lays a prepared root tree onto a raw disk that boots under BIOS and under UEFI, without loop devices
# or mounts. GPT, each partition made as a file and copied into place:
#   1  BIOS boot   1 MiB at 1 MiB     GRUB's core.img (the protective MBR holds boot.img)
#   2  ESP       126 MiB at 2 MiB     FAT32 (mkfs.vfat, mtools) with the tree's /boot/efi
#   3  root      the rest at 128 MiB  ext4 made from the tree (mkfs.ext4 -d), less /boot/efi
# The last MiB holds the backup GPT. The tree carries both GRUB images (see customize.sh).
# Usage: disk.sh ROOTFS OUT.raw SIZE_MIB ROOT_UUID [AUTHORIZED_KEYS]
#   AUTHORIZED_KEYS (the build's key) becomes /root/.ssh/authorized_keys on the disk, not in ROOTFS
#   (SSH is on in the tree; packer's seal turns it off).
set -euo pipefail

root=${1:?ROOTFS}
out=${2:?OUT.raw}
size_mib=${3:?SIZE_MIB}
uuid=${4:?ROOT_UUID}
keys=${5:-}

# Partition starts and sizes in MiB; a MiB is 2048 sectors of 512 bytes.
bios_start=1 bios_mib=1 esp_start=2 esp_mib=126 root_start=128
root_mib=$((size_mib - root_start - 1))
if ((root_mib < 256)); then
    echo "disk.sh: $size_mib MiB leaves no room for the root file system" >&2
    exit 1
fi

# mkfs.ext4 -d copies whatever is mounted below the tree (a leftover /proc): refuse. (grep without -q
# reads all its input: no SIGPIPE for the writer under pipefail.)
if findmnt -rn -o TARGET | grep "^$root/" >/dev/null; then
    echo "disk.sh: file systems are mounted below $root" >&2
    exit 1
fi

boot=$root/boot/grub/i386-pc
for file in "$boot/boot.img" "$boot/core.img" "$root/boot/efi/EFI/BOOT/BOOTX64.EFI"; do
    if [[ ! -s $file ]]; then
        echo "disk.sh: the tree has no $file" >&2
        exit 1
    fi
done
# The tree's fstab names the ESP by its FAT volume id: the file system made here must carry it.
esp_id=
while read -r spec point _; do
    if [[ $point == /boot/efi && $spec =~ ^UUID=([0-9A-F]{4})-([0-9A-F]{4})$ ]]; then
        esp_id=${BASH_REMATCH[1]}${BASH_REMATCH[2]}
    fi
done <"$root/etc/fstab"
if [[ -z $esp_id ]]; then
    echo "disk.sh: $root/etc/fstab mounts no ESP at /boot/efi by UUID=XXXX-XXXX" >&2
    exit 1
fi

part="$out.part"
esp="$out.esp"
cmds="$out.debugfs"
trap 'rm -f "$part" "$esp" "$cmds" "$out.authorized_keys" "$out.root-login"' EXIT
rm -f "$out" "$part" "$esp"

truncate -s "${root_mib}M" "$part"
mkfs.ext4 -q -F -L arcvsa-root -U "$uuid" -E lazy_itable_init=1,lazy_journal_init=1 -d "$root" "$part"

# debugfs edits the file system image: the shared root tree (a cache) stays untouched.
: >"$cmds"
# /boot/efi's files live on the ESP; on the root file system it is an empty mount point.
find "$root/boot/efi" -mindepth 1 -depth -printf '%y /%P\n' | while read -r kind path; do
    if [[ $kind == d ]]; then
        echo "rmdir /boot/efi$path"
    else
        echo "rm /boot/efi$path"
    fi
done >>"$cmds"
if [[ -n $keys ]]; then
    install -m 0600 "$keys" "$out.authorized_keys"
    # The product keeps root out (sshd_config.d/50-arcvsa.conf); the build logs in as root with its key,
    # through the drop-in arcvsa's Settings use for root's key login. The seal removes both.
    printf '%s\n' '# the image build only: the seal removes this file and the key' \
        'PermitRootLogin prohibit-password' >"$out.root-login"
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
write $out.root-login /etc/ssh/sshd_config.d/40-arcvsa-root.conf
sif /etc/ssh/sshd_config.d/40-arcvsa-root.conf mode 0100644
sif /etc/ssh/sshd_config.d/40-arcvsa-root.conf uid 0
sif /etc/ssh/sshd_config.d/40-arcvsa-root.conf gid 0
DEBUGFS
fi
debugfs -w -f "$cmds" "$part" >/dev/null
e2fsck -fn "$part" >/dev/null

# FAT32, as the UEFI specification asks of a system partition. --invariant fixes the creation time
# it would stamp; -i after it sets the volume id fstab names.
truncate -s "${esp_mib}M" "$esp"
mkfs.vfat -F 32 -n ARCVSA-EFI --invariant -i "$esp_id" -h $((esp_start * 2048)) "$esp" >/dev/null
MTOOLS_SKIP_CHECK=1 mcopy -s -m -i "$esp" "$root/boot/efi"/* ::/
fsck.vfat -n "$esp" >/dev/null

# GPT identifiers come from the root UUID too, each its own.
guid() {
    local hash
    hash=$(printf '%s/%s' "$uuid" "$1" | sha256sum)
    echo "${hash:0:8}-${hash:8:4}-${hash:12:4}-${hash:16:4}-${hash:20:12}"
}
truncate -s "${size_mib}M" "$out"
sfdisk --quiet --no-reread --no-tell-kernel "$out" <<SFDISK
label: gpt
label-id: $(guid disk)
unit: sectors
start=$((bios_start * 2048)), size=$((bios_mib * 2048)), type=21686148-6449-6E6F-744E-656564454649, uuid=$(guid bios), name="BIOS boot"
start=$((esp_start * 2048)), size=$((esp_mib * 2048)), type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, uuid=$(guid esp), name="EFI System"
start=$((root_start * 2048)), size=$((root_mib * 2048)), type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=$(guid root), name="arcvsa-root"
SFDISK
dd if="$part" of="$out" bs=1M seek="$root_start" conv=sparse,notrunc status=none
dd if="$esp" of="$out" bs=1M seek="$esp_start" conv=sparse,notrunc status=none

# BIOS: boot.img in the protective MBR loads core.img's first sector, which loads the rest: both hold
# the sector to read next, which grub-mkimage leaves at sectors 1 and 2 (right after an MBR). Here
# core.img starts the BIOS boot partition: the two are set as grub-bios-setup would set them.
core_sector=$((bios_start * 2048))
core_sectors=$(( ($(stat -c %s "$boot/core.img") + 511) / 512 ))
if ((core_sectors > bios_mib * 2048)); then
    echo "disk.sh: core.img ($core_sectors sectors) does not fit the BIOS boot partition" >&2
    exit 1
fi
u64_at() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
le64() {
    local value=$1 i bytes=
    for i in 0 1 2 3 4 5 6 7; do bytes+=$(printf '\\x%02x' $(((value >> (8 * i)) & 255))); done
    printf '%b' "$bytes"
}
# Offsets from GRUB's boot.S and diskboot.S: the kernel sector at 0x5c, the first block list's start
# 12 bytes before the end of diskboot's sector. Checked first: another layout fails here, not at boot.
if [[ $(u64_at "$boot/boot.img" $((0x5c))) != 1 || $(u64_at "$boot/core.img" 500) != 2 ]]; then
    echo "disk.sh: GRUB's boot.img or core.img is not laid out as this script expects" >&2
    exit 1
fi
dd if="$boot/boot.img" of="$out" bs=440 count=1 conv=notrunc status=none
le64 "$core_sector" | dd of="$out" bs=1 seek=$((0x5c)) conv=notrunc status=none
dd if="$boot/core.img" of="$out" bs=512 seek="$core_sector" conv=notrunc status=none
le64 $((core_sector + 1)) | dd of="$out" bs=1 seek=$((core_sector * 512 + 500)) conv=notrunc status=none
# Some BIOSes boot only a disk with an active MBR partition (parted's pmbr_boot); UEFI ignores the flag.
printf '\x80' | dd of="$out" bs=1 seek=446 conv=notrunc status=none
