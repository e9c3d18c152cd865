"""Build of the appliance's base disk: Debian 13 root file system, ZFS DKMS, GRUB, qcow2."""
