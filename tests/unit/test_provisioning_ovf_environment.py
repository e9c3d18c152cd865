"""What the manager changes on an appliance VM once first boot has applied its OVF environment: the
password properties' values, the CD-ROM's connection and the iso transport; nothing when none is left."""

from __future__ import annotations

from typing import Any

from pyVmomi import vim

from provisioning.ovf_environment import GUESTINFO_ENV, forget, secret_keys


class _Vm:
    def __init__(self, config: vim.vm.ConfigInfo) -> None:
        self.config = config


def _vm(
    *,
    held: str = "Corr3ct-Horse!",  # the admin_password value vCenter keeps
    connected: bool = True,
    start: bool = True,
    transports: tuple[str, ...] = ("com.vmware.guestInfo", "iso"),
    guestinfo: str = "",
) -> _Vm:
    props = [
        vim.vApp.PropertyInfo(key=0, id="hostname", type="string", value="vsa-1"),
        vim.vApp.PropertyInfo(key=3, id="admin_password", type="password", value=held),
    ]
    drive = vim.vm.device.VirtualCdrom(
        key=3000,
        connectable=vim.vm.device.VirtualDevice.ConnectInfo(connected=connected, startConnected=start),
    )
    disk = vim.vm.device.VirtualDisk(key=2000)
    extra = [vim.option.OptionValue(key=GUESTINFO_ENV, value=guestinfo)] if guestinfo else []
    return _Vm(
        vim.vm.ConfigInfo(
            vAppConfig=vim.vApp.VmConfigInfo(property=props, ovfEnvironmentTransport=list(transports)),
            hardware=vim.vm.VirtualHardware(device=[disk, drive]),
            extraConfig=extra,
        )
    )


def _quiet(
    *,
    held: str = "",
    connected: bool = False,
    start: bool = False,
    transports: tuple[str, ...] = ("com.vmware.guestInfo",),
    guestinfo: str = "",
) -> _Vm:
    """An appliance with nothing left to clear, but for what the caller puts back."""
    return _vm(held=held, connected=connected, start=start, transports=transports, guestinfo=guestinfo)


def _forget(vm: _Vm, secrets: frozenset[str] | None = None) -> Any:
    """The reconfiguration, which must be there (pyVmomi's types leave every field optional)."""
    spec = forget(vm, secret_keys() if secrets is None else secrets)
    assert spec is not None
    return spec


def test_the_catalogues_password_is_the_secret() -> None:
    assert secret_keys() == {"admin_password"}


def test_a_fresh_appliance_loses_its_password_its_cdrom_and_the_iso_transport() -> None:
    spec = _forget(_vm(guestinfo="<Environment/>"))
    assert [(p.operation, p.info.key, p.info.id, p.info.value) for p in spec.vAppConfig.property] == [
        ("edit", 3, "admin_password", "")
    ]
    assert spec.vAppConfig.ovfEnvironmentTransport == ["com.vmware.guestInfo"]
    [change] = spec.deviceChange
    assert change.operation == "edit" and change.device.key == 3000
    assert (change.device.connectable.connected, change.device.connectable.startConnected) == (False, False)
    assert [(o.key, o.value) for o in spec.extraConfig] == [(GUESTINFO_ENV, "")]


def test_nothing_left_means_no_reconfiguration() -> None:
    assert (
        forget(
            _quiet(),
            secret_keys(),
        )
        is None
    )


def test_each_leftover_alone_is_cleared() -> None:
    only_password = _forget(_quiet(held="x"))
    assert not only_password.deviceChange
    assert [p.info.id for p in only_password.vAppConfig.property] == ["admin_password"]
    only_next_boot = _forget(_quiet(start=True))
    assert only_next_boot.vAppConfig is None
    assert only_next_boot.deviceChange[0].device.connectable.startConnected is False
    only_now = _forget(_quiet(connected=True))
    assert only_now.deviceChange[0].device.connectable.connected is False
    only_transport = _forget(_quiet(transports=("com.vmware.guestInfo", "iso")))
    assert only_transport.vAppConfig.property == []
    assert only_transport.vAppConfig.ovfEnvironmentTransport == ["com.vmware.guestInfo"]
    only_guestinfo = _forget(_quiet(guestinfo="<Environment/>"))
    assert only_guestinfo.extraConfig[0].value == ""


def test_other_properties_are_left_alone() -> None:
    assert _forget(_vm(), frozenset()).vAppConfig.property == []
