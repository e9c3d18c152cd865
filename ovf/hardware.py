"""The appliance's virtual hardware and its deployment options (sizes).

The sizes differ only in vCPUs and RAM: RAM is what the ZFS ARC (the read cache) lives in, so a
bigger size serves more desktops from memory. Everything else (UEFI firmware without Secure Boot,
two vmxnet3 NICs (management, storage), pvscsi controller, one boot disk) is the same for every size.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

GIB_MB = 1024


class DeploymentOption(BaseModel):
    """One DeploymentOptionSection <Configuration>: a size the admin picks at deploy time."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(description="ovf:id of the configuration (small, medium, large)")
    label: str = Field(description="Label shown by the deploy wizard")
    description: str = Field(description="What the size is for")
    vcpus: int = Field(ge=1, le=128, description="Virtual CPUs")
    memory_mb: int = Field(ge=1024, description="RAM in MiB; most of it becomes ZFS ARC")
    default: bool = Field(default=False, description="The option preselected by the wizard")


class VirtualHardware(BaseModel):
    """The fixed part of the virtual machine, plus the sizes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    vm_name: str = Field(description="VirtualSystem ovf:id and default VM name")
    hardware_version: str = Field(description="vssd:VirtualSystemType (vmx-19 = ESXi 7.0 U2 and later)")
    guest_os_cim_id: int = Field(description="OperatingSystemSection ovf:id (CIM OS type)")
    guest_os_vmw: str = Field(description="vmw:osType; one that vmx-19 hosts know")
    network_name: str = Field(description="Logical network of the first NIC: management (web, SSH)")
    storage_network_name: str = Field(
        description="Logical network of the second NIC: NFS and iSCSI to the ESXi hosts, once the "
        "storage_mode property configures it (unconfigured and down otherwise)"
    )
    nic_type: str = Field(description="rasd:ResourceSubType of the NIC")
    scsi_type: str = Field(description="rasd:ResourceSubType of the SCSI controller")
    firmware: Literal["bios", "efi"] = Field(
        description="vmw:Config firmware; the image's GPT disk boots GRUB under either, EFI asked for"
    )
    secure_boot: bool = Field(
        description="vmw:Config bootOptions.efiSecureBootEnabled; off: the image's GRUB and its ZFS "
        "module (built by DKMS, its key discarded) are signed by no key the firmware or kernel trusts"
    )
    options: tuple[DeploymentOption, ...] = Field(description="Sizes, small to large")

    @model_validator(mode="after")
    def _one_default(self) -> VirtualHardware:
        ids = [o.id for o in self.options]
        if len(set(ids)) != len(ids):
            raise ValueError(f"duplicate deployment option ids: {ids}")
        if sum(o.default for o in self.options) != 1:
            raise ValueError("exactly one deployment option must be the default")
        return self

    def option(self, option_id: str) -> DeploymentOption:
        """The option with that id; KeyError names the known ones."""
        for o in self.options:
            if o.id == option_id:
                return o
        raise KeyError(f"unknown deployment option {option_id!r}; known: {[o.id for o in self.options]}")


APPLIANCE_HARDWARE = VirtualHardware(
    vm_name="arcvsa",
    hardware_version="vmx-19",
    # CIM 96 is "Debian 64-Bit"; debian11_64Guest is the newest Debian id ESXi 7.0 U2 (vmx-19) knows,
    # and it fits a Debian 13 guest (same kernel family, open-vm-tools).
    guest_os_cim_id=96,
    guest_os_vmw="debian11_64Guest",
    network_name="VM Network",
    storage_network_name="Storage Network",
    nic_type="VmxNet3",
    scsi_type="VirtualSCSI",
    firmware="efi",
    secure_boot=False,
    options=(
        DeploymentOption(
            id="small",
            label="Small (2 vCPU, 8 GiB RAM)",
            description="Smallest read cache in RAM: trials and lightly loaded hosts.",
            vcpus=2,
            memory_mb=8 * GIB_MB,
            default=True,
        ),
        DeploymentOption(
            id="medium",
            label="Medium (4 vCPU, 16 GiB RAM)",
            description="Twice the RAM of small for the read cache.",
            vcpus=4,
            memory_mb=16 * GIB_MB,
        ),
        DeploymentOption(
            id="large",
            label="Large (8 vCPU, 32 GiB RAM)",
            description="Four times the RAM of small for the read cache: dense desktop hosts.",
            vcpus=8,
            memory_mb=32 * GIB_MB,
        ),
    ),
)
