"""After first boot: the appliance's secrets leave its vApp settings and its CD-ROM.

A password property's value (admin_password) stays in the VM's vApp settings, readable by every vCenter
user who may read the VM, and vCenter writes it into the OVF environment again at each power-on: to
guestinfo and, for the iso transport, to an ISO on the VM's CD-ROM, which the guest cannot eject or
blank. First boot applies it once and never reads it again, so once the appliance answers healthy the
manager clears those values, disconnects the CD-ROM and drops the iso transport.

First boot reads the ISO without mounting it, so the guest holds no lock on the drive and vSphere asks
no question when it is disconnected.
"""

from __future__ import annotations

from typing import Any

from pyVmomi import vim

from ovf.properties import load_catalogue

GUESTINFO_ENV = "guestinfo.ovfEnv"


def secret_keys() -> frozenset[str]:
    """The OVF properties that are passwords (ovf:password)."""
    return frozenset(key for key, spec in load_catalogue().by_key().items() if spec.password)


def forget(vm: Any, secrets: frozenset[str]) -> vim.vm.ConfigSpec | None:
    """The reconfiguration that leaves no secret on the VM's settings or CD-ROM; None when none is left."""
    config = vm.config
    vapp = config.vAppConfig
    cleared = []
    for prop in vapp.property if vapp else []:
        if prop.id in secrets and prop.value:
            prop.value = ""  # the whole property sent back: vcsim takes an edit as a replacement
            cleared.append(vim.vApp.PropertySpec(operation="edit", info=prop))
    drives = []
    for device in config.hardware.device:
        plug = device.connectable if isinstance(device, vim.vm.device.VirtualCdrom) else None
        if plug is not None and (plug.connected or plug.startConnected):
            plug.connected = plug.startConnected = False
            drives.append(vim.vm.device.VirtualDeviceSpec(operation="edit", device=device))
    # The copy vCenter puts in guestinfo at power-on; the guest blanks it too, this is the host's side.
    blanked = [
        vim.option.OptionValue(key=o.key, value="")
        for o in config.extraConfig or []
        if o.key == GUESTINFO_ENV and o.value
    ]
    transports = list(vapp.ovfEnvironmentTransport or []) if vapp else []
    kept = [t for t in transports if t != "iso"]
    if not (cleared or drives or blanked or kept != transports):
        return None
    spec = vim.vm.ConfigSpec(deviceChange=drives, extraConfig=blanked)
    if cleared or kept != transports:
        spec.vAppConfig = vim.vApp.VmConfigSpec(property=cleared)
        if kept != transports:
            spec.vAppConfig.ovfEnvironmentTransport = kept
    return spec
