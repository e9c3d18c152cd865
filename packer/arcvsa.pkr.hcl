# arcvsa appliance image: Packer 1.6.6 HCL2 (Debian 12's `packer`; qemu and vsphere builders built in).
#
#   qemu.lab         provisions the base disk that `make image` made with mmdebstrap (no installer):
#                    TCG, host-forwarded SSH on 127.0.0.1 only. Lab and CI.
#   vsphere-iso.vcenter  the same provisioning on a real vCenter, from a Debian 13 netinst ISO and a
#                    preseed file: production. `packer validate` checks it; it cannot run here.
#
# Run from the repository root:
#   packer validate -var-file=packer/arcvsa.pkrvars.hcl packer/
#   packer build -only=qemu.lab -var-file=packer/arcvsa.pkrvars.hcl packer/
# Only packer/*.pkrvars.hcl.example is committed; copy it and fill in your values.
# Packer 1.6.6 limits kept in mind: no `packer {}` block or required_plugins (1.7+), no http_content
# (preseed comes from http_directory), secrets marked with `sensitive = true` on their variables.

# ---- common ---------------------------------------------------------------------------------------

variable "version" {
  type        = string
  description = "Release version of the image (git describe); stamped into the build manifest."
}

variable "git_version" {
  type        = string
  description = "git describe --always --dirty of the source tree the image is built from."
}

variable "serial_log" {
  type        = string
  description = "File the qemu build VM's serial console (kernel and systemd) is written to: why a boot stalled."
  default     = "/dev/null"
}

variable "output_directory" {
  type        = string
  description = "Folder the qemu build writes the provisioned disk to; must not exist yet."
  default     = "build/packer/out"
}

variable "vsphere_export_directory" {
  type        = string
  description = "Folder the vSphere build exports its OVF to (packer creates it even on validate)."
  default     = "build/packer/vsphere-export"
}

variable "manifest_out" {
  type        = string
  description = "Host path where the image's /etc/arcvsa/build-manifest.json is downloaded to (ovf pack reads it)."
  default     = "build/packer/build-manifest.json"
}

variable "payload" {
  type        = string
  description = "The project's payload tar (lib/, web/, systemd/) that `make image` made; unpacked to /opt/arcvsa."
}

variable "release_file" {
  type        = string
  description = "JSON the image build made: the first release's RELEASE.json and the public key upgrade bundles must be signed with."
}

variable "ssh_username" {
  type        = string
  description = "Account packer logs in as to provision (root on the lab base disk)."
  default     = "root"
}

variable "ssh_private_key_file" {
  type        = string
  description = "Private key whose public half the base disk authorizes for the build only; the seal script removes it."
}

variable "cpus" {
  type        = number
  description = "vCPUs of the build VM."
  default     = 2
}

variable "memory_mib" {
  type        = number
  description = "RAM of the build VM in MiB."
  default     = 4096

  validation {
    condition     = var.memory_mib >= 2048
    error_message = "The memory_mib value must be at least 2048 (ZFS and DKMS need it)."
  }
}

# ---- qemu (lab, CI) -------------------------------------------------------------------------------

variable "base_disk" {
  type        = string
  description = "Base disk made by `make image` (mmdebstrap; it authorizes the build-only key, the seal removes it)."
}

variable "qemu_binary" {
  type        = string
  description = "qemu system emulator."
  default     = "qemu-system-x86_64"
}

# ---- vsphere-iso (production) ---------------------------------------------------------------------

variable "vcenter_server" {
  type        = string
  description = "vCenter host name or address."
}

variable "vcenter_username" {
  type        = string
  description = "vCenter account allowed to create VMs in the folder below."
}

variable "vcenter_password" {
  type        = string
  description = "Password of vcenter_username."
  sensitive   = true
}

variable "vcenter_insecure" {
  type        = bool
  description = "Skip vCenter certificate checks. Keep false outside a throwaway lab."
  default     = false
}

variable "vsphere_datacenter" {
  type        = string
  description = "Datacenter to build in."
}

variable "vsphere_cluster" {
  type        = string
  description = "Cluster to build in."
}

variable "vsphere_datastore" {
  type        = string
  description = "Datastore for the build VM."
}

variable "vsphere_folder" {
  type        = string
  description = "VM folder for the build VM."
  default     = ""
}

variable "vsphere_network" {
  type        = string
  description = "Port group with DHCP and a route to the Debian mirror."
}

variable "debian_iso_path" {
  type        = string
  description = "Debian 13 netinst ISO on a datastore, e.g. \"[iso-ds] debian-13-amd64-netinst.iso\"."
}

variable "debian_mirror_host" {
  type        = string
  description = "Host name of the Debian mirror the installer uses (your site's or a public one)."
}

variable "root_password" {
  type        = string
  description = "Temporary root password the preseed sets for the build; the seal script locks root again."
  sensitive   = true
}

variable "disk_size_mib" {
  type        = number
  description = "Boot disk size of the vSphere build VM in MiB."
  default     = 8192
}

locals {
  vm_name = "arcvsa-${var.version}"
  # What the provisioning scripts see; secrets are never passed this way.
  script_env = [
    "ARCVSA_VERSION=${var.version}",
    "ARCVSA_GIT_VERSION=${var.git_version}",
  ]
}

source "qemu" "lab" {
  iso_url          = var.base_disk
  iso_checksum     = "none"
  disk_image       = true
  skip_resize_disk = true
  use_backing_file = false
  format           = "qcow2"
  disk_interface   = "virtio"
  # The seal's fstrim frees the blocks it trims: the disk packer hands back stays small.
  disk_discard       = "unmap"
  disk_detect_zeroes = "unmap"
  net_device       = "virtio-net"
  accelerator      = "tcg"
  qemu_binary      = var.qemu_binary
  cpus             = var.cpus
  memory           = var.memory_mib
  headless         = true
  vnc_bind_address = "127.0.0.1"
  output_directory = var.output_directory
  vm_name          = "${local.vm_name}.qcow2"
  # Packer's own forward listens on every interface: replace the netdev so SSH binds to loopback.
  # The device packer adds still names netdev user.0.
  qemuargs = [
    ["-netdev", "user,id=user.0,hostfwd=tcp:127.0.0.1:{{ .SSHHostPort }}-:22"],
    # lab.appliance_vm.TCG's CPU: 4-level paging (la57=off), see there.
    ["-cpu", "max,la57=off"],
    ["-serial", "file:${var.serial_log}"],
  ]
  communicator         = "ssh"
  ssh_host             = "127.0.0.1"
  ssh_username         = var.ssh_username
  ssh_private_key_file = var.ssh_private_key_file
  # SSH answers about 35 s after power-on here; TCG on a busy 2-core machine has taken over 10 min.
  ssh_timeout          = "20m"
  boot_wait            = "5s"
  shutdown_command     = "systemctl poweroff"
  shutdown_timeout     = "5m"
}

source "vsphere-iso" "vcenter" {
  vcenter_server      = var.vcenter_server
  username            = var.vcenter_username
  password            = var.vcenter_password
  insecure_connection = var.vcenter_insecure
  datacenter          = var.vsphere_datacenter
  cluster             = var.vsphere_cluster
  datastore           = var.vsphere_datastore
  folder              = var.vsphere_folder

  vm_name              = local.vm_name
  vm_version           = 19
  guest_os_type        = "debian11_64Guest"
  # The firmware the OVA asks for (ovf.hardware), Secure Boot off: the installer then installs GRUB
  # for UEFI, the grub-efi-amd64 that packages.txt names.
  firmware             = "efi"
  CPUs                 = var.cpus
  RAM                  = var.memory_mib
  disk_controller_type = ["pvscsi"]
  storage {
    disk_size             = var.disk_size_mib
    disk_thin_provisioned = true
  }
  network_adapters {
    network      = var.vsphere_network
    network_card = "vmxnet3"
  }

  iso_paths      = [var.debian_iso_path]
  http_directory = "packer/http"
  boot_wait      = "5s"
  # Under UEFI the netinst ISO boots GRUB: its command line ("c") starts the installer's kernel with
  # the preseed, as the BIOS menu's "auto" entry would.
  boot_command = [
    "c<wait>",
    "linux /install.amd/vmlinuz auto=true priority=critical preseed/url=http://{{ .HTTPIP }}:{{ .HTTPPort }}/preseed.cfg",
    " netcfg/get_hostname=arcvsa netcfg/get_domain= mirror/http/hostname=${var.debian_mirror_host}",
    " passwd/root-password=${var.root_password} passwd/root-password-again=${var.root_password}<enter>",
    "initrd /install.amd/initrd.gz<enter>",
    "boot<enter>",
  ]

  communicator     = "ssh"
  ssh_username     = "root"
  ssh_password     = var.root_password
  ssh_timeout      = "45m"
  shutdown_command = "systemctl poweroff"

  convert_to_template = false
  export {
    force            = true
    output_directory = var.vsphere_export_directory
  }
}

build {
  sources = ["source.qemu.lab", "source.vsphere-iso.vcenter"]

  # A vSphere build starts from a plain Debian install: give it the appliance's package set first.
  provisioner "file" {
    only        = ["vsphere-iso.vcenter"]
    source      = "appliance/image/packages.txt"
    destination = "/tmp/arcvsa-packages.txt"
  }

  provisioner "shell" {
    only             = ["vsphere-iso.vcenter"]
    environment_vars = local.script_env
    scripts          = ["packer/scripts/05-packages.sh"]
  }

  provisioner "file" {
    source      = var.payload
    destination = "/tmp/arcvsa-payload.tar"
  }

  provisioner "file" {
    source      = var.release_file
    destination = "/tmp/arcvsa-release.json"
  }

  provisioner "shell" {
    environment_vars = local.script_env
    scripts = [
      "packer/scripts/10-python-env.sh",
      "packer/scripts/20-units.sh",
      "packer/scripts/30-build-manifest.sh",
    ]
  }

  provisioner "file" {
    direction   = "download"
    source      = "/etc/arcvsa/build-manifest.json"
    destination = var.manifest_out
  }

  provisioner "shell" {
    environment_vars = local.script_env
    scripts          = ["packer/scripts/90-seal.sh"]
  }
}
