#!/bin/sh
# Stands in for grub-probe while customize.sh runs update-grub in the chroot. The root tree is a folder
# on the build machine, not the appliance's disk: the real grub-probe would describe the build machine's
# file system (its UUID, its partition table), and grub.cfg would boot a disk that does not exist.
# This one answers what the appliance's root file system will be, as disk.sh lays it out: ext4 with
# the root UUID, in a GPT partition, no LVM, RAID or encryption. Whatever else is asked fails, so a
# new question from grub-mkconfig stops the build instead of being answered wrongly.
# customize.sh installs it with @ROOT_UUID@ replaced, and puts the real grub-probe back after.
set -eu

uuid='@ROOT_UUID@'
target=fs  # grub-probe's own default
while [ $# -gt 0 ]; do
    case $1 in
        --target=*) target=${1#--target=} ;;
        -t | --target) shift; target=${1:-} ;;
        --device=* | -d | --device) ;;  # any device or path: there is one file system
        -*) echo "grub-probe (image build): unknown option $1" >&2; exit 64 ;;
        *) ;;
    esac
    shift
done

case $target in
    # grub-mkconfig's GRUB_DEVICE, passed back to the questions below and, where the udev link does
    # not exist (a chroot), to 10_linux's root=: this path is right on the appliance too.
    device) echo "/dev/disk/by-uuid/$uuid" ;;
    fs) echo ext2 ;;
    fs_uuid) echo "$uuid" ;;
    partmap) echo gpt ;;
    # Empty answers mean none: no abstraction modules, no hints (search by UUID finds the disk).
    abstraction | compatibility_hint | hints_string | cryptodisk_uuid | fs_label) ;;
    # No partition UUID known to the chroot: grub-mkconfig then uses the file system UUID.
    partuuid) exit 1 ;;
    *) echo "grub-probe (image build): no answer for --target=$target" >&2; exit 64 ;;
esac
