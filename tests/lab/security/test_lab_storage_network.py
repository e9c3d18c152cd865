"""The storage network: the OVF's second NIC, configured by first boot, serves NFS and iSCSI alone.

The appliance boots deployed as an admin with a storage network would deploy it: storage_mode static on
its second NIC (present from power-on, as vSphere gives it), an MTU of 9000. The host reaches the
guest's first NIC (the management network, qemu's user-mode forwards on 127.0.0.1, seen as 10.0.2.2);
a network namespace this test makes stands for an ESXi host's storage VMkernel port and reaches the
second NIC (its own user-mode network, forwards bound to the namespace link's host end, seen as
10.251.0.2).

Each network is scanned before and after an NFSv3 export and an iSCSI target list both clients: the web
interface and SSH answer only on the management network, NFS and iSCSI only on the storage network,
though every address is let in to the first and both clients are listed for the second. The guest's
listening sockets are written beside the figures (``$ARCVSA_SECURITY_DIR/storage-network.json``).

The storage network has no gateway (ESXi's storage VMkernel ports sit on its subnet); slirp routes
instead, so the test adds a route to the namespace's link as a runtime drop-in (/run, gone with the VM).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixtures.appliance.remote import SshRunner
from support import portscan
from support.host import host_tool
from support.lab_api import LabApi, in_guest
from support.lab_boot import BootedAppliance, boot
from support.veth import IP, free_port_on, namespace_link

from lab.appliance_vm import GUEST_PORTS, ApplianceVm, StorageNic
from lab.san import San

pytestmark = [pytest.mark.lab, pytest.mark.timeout(1800)]

REPO = Path(__file__).resolve().parents[3]
HOST = "10.0.2.2"  # the host as the first NIC's user-mode network shows it
NS, VETH_HOST, VETH_NS = "arcsto", "arcsto-h", "arcsto-n"
HOST_SIDE, ESXI = "10.251.0.1", "10.251.0.2"  # the namespace's link; the guest sees ESXI
STORAGE_NET, STORAGE_ADDRESS, SLIRP_GW, MTU = "10.0.3.0/24", "10.0.3.15", "10.0.3.2", 9000
STORAGE = {
    "storage_mode": "static",
    "storage_address": STORAGE_ADDRESS,
    "storage_prefix": "24",
    "storage_mtu": str(MTU),
}
DROP_IN = "/run/systemd/network/20-arcvsa-storage.network.d/50-lab-route.conf"
FIREWALL = "/api/settings/firewall"
DATASET, EXPORT_PATH = "tank/vdi", "/tank/vdi"
ZVOL, ZVOL_BYTES = "tank/lun", 32 << 20
TARGET_IQN = "iqn.2026-12.lab.arcvsa:storage-network"
HOST_IQN = "iqn.2026-12.lab.arcvsa:esxi-storage"
MANAGEMENT_ONLY = ["https", "ssh"]
STORAGE_ONLY = ["iscsi", "mountd", "nfs", "portmapper"]


@pytest.fixture(scope="module")
def figures() -> Iterator[dict[str, Any]]:
    found: dict[str, Any] = {}
    yield found
    out = Path(os.environ.get("ARCVSA_SECURITY_DIR", REPO / "var" / "security"))
    out.mkdir(parents=True, exist_ok=True)
    (out / "storage-network.json").write_text(
        json.dumps(found, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )


@pytest.fixture(scope="module")
def storage_link() -> Iterator[StorageNic]:
    """The namespace standing for an ESXi host's storage port, and the storage NIC's forwards into it."""
    if os.geteuid() != 0 or not Path(IP).is_file():
        pytest.fail("the storage network test needs root and iproute2 (network namespaces)")
    with namespace_link(NS, VETH_HOST, VETH_NS, HOST_SIDE, ESXI):
        yield StorageNic(STORAGE_NET, HOST_SIDE, {name: free_port_on(HOST_SIDE) for name in GUEST_PORTS})


@pytest.fixture(scope="module")
def booted(
    lab_image: tuple[Path, Path], san: San, storage_link: StorageNic, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BootedAppliance]:
    """The appliance deployed with a storage network on its second NIC."""
    image, key = lab_image
    appliance = boot(image, key, san, tmp_path_factory.mktemp("vm"), STORAGE, storage_nic=storage_link)
    try:
        appliance.vm.wait_ssh(timeout=300)
        yield appliance
    finally:
        appliance.vm.shutdown(timeout=120)


def links(guest: SshRunner) -> dict[str, dict[str, Any]]:
    """The guest's links by MAC address: name, MTU, state and IPv4 addresses."""
    found = json.loads(in_guest(guest, ["ip", "-j", "address"]).stdout)
    return {
        link.get("address", ""): {
            "name": link["ifname"],
            "mtu": link.get("mtu"),
            "state": link.get("operstate"),
            "ipv4": [
                f"{a['local']}/{a['prefixlen']}"
                for a in link.get("addr_info", [])
                if a.get("family") == "inet"
            ],
        }
        for link in found
    }


def listening(guest: SshRunner) -> list[str]:
    """The guest's listening TCP and UDP sockets: protocol, local address:port, process."""
    said = in_guest(guest, ["ss", "-Hlntup"]).stdout
    rows = set()
    for line in said.splitlines():
        fields = line.split()
        if len(fields) < 5:
            continue
        process = re.search(r'\(\("([^"]+)"', line)
        rows.add(f"{fields[0]} {fields[4]} {process.group(1) if process else '?'}")
    return sorted(rows)


def scan(appliance: ApplianceVm, nic: StorageNic) -> tuple[list[str], list[str]]:
    """The GUEST_PORTS open on the management network (from the host) and the storage network (from
    the namespace)."""
    management = portscan.scan({n: ("127.0.0.1", appliance.config.host_ports[n]) for n in GUEST_PORTS})
    storage = portscan.scan({n: (HOST_SIDE, nic.host_ports[n]) for n in GUEST_PORTS}, namespace=NS)
    return portscan.opened(management), portscan.opened(storage)


def test_first_boot_puts_the_second_nic_on_the_storage_network(
    api: LabApi, guest: SshRunner, storage_link: StorageNic, figures: dict[str, Any]
) -> None:
    seen = links(guest)
    nic = seen.get(storage_link.mac)
    assert nic is not None, f"no link with the storage NIC's MAC {storage_link.mac}: {seen}"
    figures["storage_nic"] = nic
    assert nic["ipv4"] == [f"{STORAGE_ADDRESS}/24"] and nic["mtu"] == MTU, nic
    management = [v for mac, v in seen.items() if mac != storage_link.mac and v["name"] != "lo"]
    assert [m["ipv4"] for m in management] == [["10.0.2.15/24"]], management
    shown = api.call("GET", FIREWALL)
    assert shown["storage_network"] == {
        "interface": nic["name"],
        "address": f"{STORAGE_ADDRESS}/24",
        "mtu": MTU,
    }
    # The route slirp needs to answer the namespace (see the module docstring).
    in_guest(guest, ["mkdir", "-p", str(Path(DROP_IN).parent)])
    route = f"[Route]\nDestination={HOST_SIDE.rsplit('.', 1)[0]}.0/30\nGateway={SLIRP_GW}\n"
    guest.execute(["tee", DROP_IN], timeout=60, input_text=route)
    in_guest(guest, ["networkctl", "reload"])
    in_guest(guest, ["networkctl", "reconfigure", nic["name"]])
    deadline, routes = time.monotonic() + 60, ""
    while SLIRP_GW not in routes and time.monotonic() < deadline:
        time.sleep(2)
        routes = in_guest(guest, ["ip", "route", "show", "dev", nic["name"]]).stdout
    assert SLIRP_GW in routes, f"the lab route did not come up on {nic['name']}: {routes}"


def test_before_any_export_each_network_answers_only_its_own_services(
    appliance: ApplianceVm, guest: SshRunner, storage_link: StorageNic, figures: dict[str, Any]
) -> None:
    figures["listening_before_storage"] = listening(guest)
    management, storage = scan(appliance, storage_link)
    figures["open_before_storage"] = {"management": management, "storage": storage}
    # Every address may reach the web interface (first boot's default), yet not through the storage NIC;
    # an empty list there also proves the path answers (a port left unanswered reads as open).
    assert (management, storage) == (MANAGEMENT_ONLY, []), figures["open_before_storage"]


def test_with_an_export_and_a_target_nfs_and_iscsi_answer_on_the_storage_network_alone(
    api: LabApi, appliance: ApplianceVm, guest: SshRunner, storage_link: StorageNic, figures: dict[str, Any]
) -> None:
    api.call(
        "POST", "/api/storage/pools", {"name": "tank", "data": ["/dev/disk/by-id/virtio-lun0"]}, expect=201
    )
    api.call("POST", "/api/storage/datasets", {"name": DATASET, "profile": "generic"}, expect=201)
    clients = [HOST, ESXI]  # both listed: what keeps the host out is the network it comes from
    api.call(
        "POST", "/api/storage/exports", {"dataset": DATASET, "protocol": "3", "clients": clients}, expect=201
    )
    current = api.call("GET", FIREWALL)["settings"]
    api.call("PUT", FIREWALL, {**current, "iscsi": [f"{c}/32" for c in clients]})
    api.call("POST", "/api/storage/volumes", {"name": ZVOL, "size_bytes": ZVOL_BYTES}, expect=201)
    body = {"iqn": TARGET_IQN, "zvol": ZVOL, "initiators": [HOST_IQN]}
    api.call("POST", "/api/storage/iscsi/targets", body, expect=201)

    ns_url = f"nfs://{HOST_SIDE}{EXPORT_PATH}?nfsport={storage_link.host_ports['nfs']}&mountport={storage_link.host_ports['mountd']}"
    deadline, code, out = time.monotonic() + 240, 1, ""
    while time.monotonic() < deadline:  # ganesha takes the export a few seconds after the api answers
        code, out = host_tool([IP, "netns", "exec", NS, "nfs-ls", ns_url], timeout=150)
        if code == 0:
            break
        time.sleep(3)
    figures["nfs_ls_storage_network"] = f"exit {code}"
    assert code == 0, f"nfs-ls over the storage network: exit {code} {out}"
    ports = appliance.config.host_ports
    host_url = f"nfs://127.0.0.1{EXPORT_PATH}?nfsport={ports['nfs']}&mountport={ports['mountd']}"
    code, out = host_tool(["nfs-ls", host_url], timeout=150)
    figures["nfs_ls_management_network"] = f"exit {code}"
    assert code != 0, f"nfs-ls over the management network was answered: {out}"
    iscsi = f"iscsi://{HOST_SIDE}:{storage_link.host_ports['iscsi']}/{TARGET_IQN}/0"
    code, out = host_tool([IP, "netns", "exec", NS, "iscsi-readcapacity16", "-i", HOST_IQN, iscsi])
    figures["iscsi_storage_network"] = f"exit {code}"
    assert code == 0 and f"Total size:{ZVOL_BYTES}" in out, (
        f"iSCSI over the storage network: exit {code} {out}"
    )

    figures["listening_after_storage"] = listening(guest)
    management, storage = scan(appliance, storage_link)
    figures["open_after_storage"] = {"management": management, "storage": storage}
    assert (management, storage) == (MANAGEMENT_ONLY, STORAGE_ONLY), figures["open_after_storage"]
    print(f"\nstorage network: {json.dumps(figures, indent=1)}")
