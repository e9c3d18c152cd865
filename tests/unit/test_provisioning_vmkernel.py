"""Which VMkernel NICs an NFS export allows, from made-up host network config as vCenter returns it."""

from __future__ import annotations

from pyVmomi import vim

from provisioning.inventory import vmkernel_nics

VNM = vim.host.VirtualNicManager


def vnic(device: str, address: str, portgroup: str = "") -> vim.host.VirtualNic:
    ip = vim.host.IpConfig(dhcp=False, ipAddress=address)
    return vim.host.VirtualNic(device=device, key=f"key-vim.host.VirtualNic-{device}", portgroup=portgroup,
                               spec=vim.host.VirtualNic.Specification(ip=ip))  # fmt: skip


def config(nic_type: str, *selected: str) -> VNM.NetConfig:
    candidates = [
        vim.host.VirtualNic(device=d, key=f"{nic_type}.key-vim.host.VirtualNic-{d}")
        for d in ["vmk0", "vmk1", "vmk2", "vmk3"]
    ]
    return VNM.NetConfig(nicType=nic_type, multiSelectAllowed=True, candidateVnic=candidates,
                         selectedVnic=[f"{nic_type}.key-vim.host.VirtualNic-{d}" for d in selected])  # fmt: skip


def test_management_tagged_and_untagged_nics_are_offered_vmotion_only_and_addressless_are_not() -> None:
    vnics = [vnic("vmk2", "10.2.0.11"), vnic("vmk0", "10.0.0.11", "Management Network"),
             vnic("vmk1", "10.1.0.11", "storage"), vnic("vmk3", "")]  # fmt: skip
    configs = [config("management", "vmk0"), config("vmotion", "vmk2", "vmk0"), config("vsan")]
    nics = vmkernel_nics(vnics, configs)
    assert [(n.device, n.address, n.services, n.nfs) for n in nics] == [
        ("vmk0", "10.0.0.11", ["management", "vmotion"], True),
        ("vmk1", "10.1.0.11", [], True),  # a plain VMkernel port: the storage network's
        ("vmk2", "10.2.0.11", ["vmotion"], False),
        ("vmk3", "", [], False),
    ]


def test_a_candidate_key_without_the_type_prefix_is_matched_too() -> None:
    bare = VNM.NetConfig(nicType="vmotion", candidateVnic=[vim.host.VirtualNic(device="vmk0", key="key-vmk0")],
                         selectedVnic=["vmotion.key-vmk0"])  # fmt: skip
    assert [n.services for n in vmkernel_nics([vnic("vmk0", "10.0.0.1")], [bare])] == [["vmotion"]]
    assert vmkernel_nics(None, None) == []
