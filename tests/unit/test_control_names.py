"""Strict name checks: nothing with shell, config or option syntax reaches a tool."""

from __future__ import annotations

import pytest

from appliance.control import names
from appliance.control.errors import InvalidName

EVIL = [
    "",
    "-f",
    "tank;rm -rf /",
    "tank$(id)",
    "ta nk",
    "tank`x`",
    "tank\n",
    "tank|x",
    'tank"',
    "tank'",
    "tank/../x",
]


@pytest.mark.parametrize("good", ["tank", "vdi-01", "Pool_2"])
def test_pool_names(good: str) -> None:
    assert names.pool(good) == good


@pytest.mark.parametrize("bad", [*EVIL, "mirror", "raidz2", "log", "c0t0", "1tank", "a" * 49])
def test_bad_pool_names(bad: str) -> None:
    with pytest.raises(InvalidName):
        names.pool(bad)


@pytest.mark.parametrize("good", ["tank/vdi", "tank/vdi/desktop-1", "tank/golden.v2", "tank"])
def test_dataset_names(good: str) -> None:
    assert names.dataset(good) == good


@pytest.mark.parametrize(
    "bad", [*EVIL, "tank/", "tank//x", "tank/x@snap", "tank/x#bm", "/tank/x", "tank/-x", "mirror/x"]
)
def test_bad_dataset_names(bad: str) -> None:
    with pytest.raises(InvalidName):
        names.dataset(bad)


def test_child_dataset_needs_a_parent() -> None:
    with pytest.raises(InvalidName):
        names.child_dataset("tank")


def test_snapshots() -> None:
    assert names.snapshot("tank/vdi@golden-1") == "tank/vdi@golden-1"
    for bad in ["tank/vdi", "tank/vdi@", "tank/vdi@a b", "tank/vdi@x;y", "tank/vdi@a@b"]:
        with pytest.raises(InvalidName):
            names.snapshot(bad)


@pytest.mark.parametrize("good", ["iqn.2026-01.org.arcvsa:tank-lun0", "iqn.1998-01.com.vmware:esxi-01"])
def test_iqns(good: str) -> None:
    assert names.iqn(good) == good


@pytest.mark.parametrize(
    "bad",
    [
        "iqn.2026-01.org.arcvsa:x;reboot",
        "IQN.2026-01.org.x",
        "eui.0123",
        "iqn.26-1.org",
        "iqn.2026-01.org.arcvsa:a b",
    ],
)
def test_bad_iqns(bad: str) -> None:
    with pytest.raises(InvalidName):
        names.iqn(bad)


def test_addresses_are_single_hosts() -> None:
    assert names.address("10.0.2.2") == "10.0.2.2"
    assert names.address("fe80::1") == "fe80::1"
    for bad in [
        "10.0.0.0/8",
        "esxi01.example",
        "0.0.0.0",  # noqa: S104 - refused, not bound
        "*",
        "10.0.2.2 (rw)",
        "224.0.0.1",
        "::",
    ]:
        with pytest.raises(InvalidName):
            names.address(bad)


def test_devices() -> None:
    assert names.device("/dev/disk/by-id/virtio-lun0") == "/dev/disk/by-id/virtio-lun0"
    assert names.device("/dev/nvme0n1") == "/dev/nvme0n1"
    for bad in [
        "/dev/disk/by-id/../../etc/passwd",
        "/etc/passwd",
        "vdb",
        "/dev/sda;x",
        "/dev/disk/by-id/a b",
    ]:
        with pytest.raises(InvalidName):
            names.device(bad)
