"""Security of the booted appliance from outside (issue 8): TLS, NFS host lists, iSCSI CHAP, logs.

- TLS: the api presents the certificate first boot made (the file in the guest, and the one the lab
  pinned on first contact), and a plain-HTTP request to its port gets no answer.
- NFS: a dataset exported to the host's address (10.0.2.2 as qemu's user network shows it) is listed by
  libnfs from the host, and refused to libnfs run in a network namespace this test creates: that client
  reaches the guest through a second user-mode NIC (hot-plugged over QMP, forwards bound to the veth
  address the test made). slirp hands the guest a forwarded connection with its real source address
  (only loopback sources become its gateway, 10.0.3.2), so the guest sees the namespace's own
  10.250.0.2 and answers it over the second NIC through a route the test adds. Adding that address to
  the export lets it in, taking it out again refuses it again: the refusal is the host list's, not the path's. Refused is
  an error answer, or no answer at all once that same path has been seen to answer.
- Firewall: every forwarded port probed from the host (the management network, 10.0.2.2) and from the
  namespace (10.250.0.2) before any export or target (the web interface and SSH answer both) and after
  an export and a target for the host (the host reaches NFS and iSCSI too, the namespace nothing once
  the management networks are narrowed to the host's); a change that would cut the caller off is
  refused, one confirmed is kept, one left unconfirmed is rolled back by the guest's own timer.
- iSCSI: a CHAP target refuses a login without CHAP and with a wrong secret, and takes the right one.
- Logs: neither the CHAP secret nor the admin password is in the guest's journal afterwards.

Needs root (network namespaces) and the host's libnfs-utils and libiscsi-bin. Figures go to
``$ARCVSA_SECURITY_DIR/lab.json`` (default var/security) for ``python -m security.report``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from fixtures.appliance.remote import SshRunner
from support import portscan
from support.host import host_tool
from support.lab_api import LabApi, in_guest
from support.lab_boot import BootedAppliance
from support.sslyze import scan
from support.veth import free_port_on, namespace_link

from lab.appliance_vm import GUEST_PORTS, ApplianceVm

pytestmark = [pytest.mark.lab, pytest.mark.timeout(1800)]

REPO = Path(__file__).resolve().parents[3]
HOST = "10.0.2.2"  # the host through the VM's first NIC (qemu user networking)
SECOND_NET, SECOND_GUEST, SECOND_GW = "10.0.3.0/24", "10.0.3.15", "10.0.3.2"  # the second NIC's network
# The namespace's link: addresses this test creates (and removes). The guest sees the namespace's side.
NS, VETH_HOST, VETH_NS = "arcsec-nfs", "arcsec-h", "arcsec-n"
HOST_SIDE, NS_SIDE = "10.250.0.1", "10.250.0.2"
STRANGER = NS_SIDE
DATASET, EXPORT_PATH = "tank/sec", "/tank/sec"
ZVOL, ZVOL_BYTES = "tank/seclun", 32 << 20
TARGET_IQN = "iqn.2026-11.lab.arcvsa:security"
HOST_IQN = "iqn.2026-11.lab.arcvsa:esxi-security"
CHAP_USER = "esxi-sec"
CHAP_SECRET = secrets.token_hex(12)  # per run; handed to libiscsi in its environment, never an argv
GUEST_CERT = "/var/lib/arcvsa/tls.crt"
NIC_MAC = "52:54:00:5e:c0:02"
NETWORK_FILE = "/run/systemd/network/05-arcvsa-security-test.network"  # /run: gone with the VM
# Without the route the guest would answer 10.250.0.2 through its default gateway on the first NIC,
# where slirp has no such connection: every connect then timed out after 75 s, listed or not.
NETWORK_TEXT = (
    f"[Match]\nMACAddress={NIC_MAC}\n\n[Network]\nAddress={SECOND_GUEST}/24\n\n"
    f"[Route]\nDestination={HOST_SIDE.rsplit('.', 1)[0]}.0/30\nGateway={SECOND_GW}\n"
)


class Checks:
    """Lab checks by name: passed or not, with what was seen."""

    def __init__(self) -> None:
        self.results: dict[str, dict[str, Any]] = {}

    def record(self, name: str, passed: bool, seen: str, seconds: float | None = None) -> None:
        """Keep the outcome; a test goes on to its other checks and fails at its end (``verify``)."""
        self.results[name] = {"passed": passed, "seen": seen[:600]}
        if seconds is not None:
            self.results[name]["seconds"] = round(seconds, 1)

    def verify(self, *names: str) -> None:
        failed = {n: self.results[n]["seen"] for n in names if not self.results.get(n, {}).get("passed")}
        assert not failed, failed


@pytest.fixture(scope="module")
def checks() -> Iterator[Checks]:
    c = Checks()
    yield c
    out = Path(os.environ.get("ARCVSA_SECURITY_DIR", REPO / "var" / "security"))
    out.mkdir(parents=True, exist_ok=True)
    doc = {"checks": c.results}
    (out / "lab.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")


IP = shutil.which("ip") or "/usr/sbin/ip"


def client(argv: list[str], timeout: float = 60) -> tuple[int, str]:
    """host_tool, with a hang reported as an answer (exit 124) rather than raised."""
    try:
        return host_tool(argv, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, f"no answer within {timeout:.0f} s"


@pytest.fixture(scope="module")
def stranger(appliance: ApplianceVm, guest: SshRunner) -> Iterator[tuple[str, dict[str, int]]]:
    """A network namespace that reaches the guest's ports as 10.250.0.2: (namespace, {GUEST_PORTS name:
    port on the host side of its veth}). Removed afterwards (the NIC goes with the VM)."""
    if os.geteuid() != 0 or not Path(IP).is_file():
        pytest.fail("the NFS host-list check needs root and iproute2 (network namespaces)")
    with namespace_link(NS, VETH_HOST, VETH_NS, HOST_SIDE, NS_SIDE):
        ports = {name: free_port_on(HOST_SIDE) for name in GUEST_PORTS}
        # The image's networkd config matches every en* link (first boot's static address and gateway):
        # a file of our own, sorted first and matching only the new NIC's MAC, keeps it on its network.
        in_guest(guest, ["mkdir", "-p", "/run/systemd/network"])
        guest.execute(["tee", NETWORK_FILE], timeout=60, input_text=NETWORK_TEXT)
        in_guest(guest, ["networkctl", "reload"])
        # QMP's structured netdev_add: HMP's keeps only the last of repeated hostfwd= options
        forwards = [{"str": f"tcp:{HOST_SIDE}:{ports[name]}-:{port}"} for name, port in GUEST_PORTS.items()]
        user = {"type": "user", "id": "secnet", "net": SECOND_NET, "hostfwd": forwards}
        nic = {"driver": "virtio-net-pci", "netdev": "secnet", "id": "secnic", "romfile": "", "mac": NIC_MAC}
        with appliance.qmp() as qmp:
            qmp.execute("netdev_add", user)
            qmp.execute("device_add", nic)
        deadline, addresses = time.monotonic() + 90, ""
        while SECOND_GUEST not in addresses and time.monotonic() < deadline:
            time.sleep(2)
            addresses = in_guest(guest, ["ip", "-br", "addr"]).stdout
        assert SECOND_GUEST in addresses, f"the hot-plugged NIC did not get {SECOND_GUEST}: {addresses}"
        yield NS, ports


def test_tls_serves_the_first_boot_certificate_only(
    booted: BootedAppliance, guest: SshRunner, checks: Checks
) -> None:
    port = booted.api.port
    served = ssl.PEM_cert_to_DER_cert(ssl.get_server_certificate(("127.0.0.1", port), timeout=30))
    made = x509.load_pem_x509_certificate(in_guest(guest, ["cat", GUEST_CERT]).stdout.encode()).public_bytes(
        Encoding.DER
    )
    pinned = x509.load_pem_x509_certificate(booted.api.cert_file.read_bytes()).public_bytes(Encoding.DER)
    checks.record(
        "tls_first_boot_certificate",
        served == made == pinned,
        f"served {len(served)} bytes; first boot's {GUEST_CERT} and the lab's pin {'match' if served == made == pinned else 'differ'}",
    )
    with socket.create_connection(("127.0.0.1", port), timeout=30) as plain:
        plain.sendall(b"GET /api/health HTTP/1.1\r\nHost: appliance\r\nConnection: close\r\n\r\n")
        answer = b""
        try:
            while chunk := plain.recv(4096):
                answer += chunk
        except (ConnectionResetError, TimeoutError):
            pass
    checks.record(
        "tls_plain_http_refused",
        not answer.startswith(b"HTTP/1.1 2") and b"firstboot" not in answer,
        f"plain HTTP to the api's port got {answer[:80]!r}",
    )
    checks.verify("tls_first_boot_certificate", "tls_plain_http_refused")


def test_tls_passes_mozilla_intermediate(booted: BootedAppliance, checks: Checks) -> None:
    # The booted image's own api and the certificate its first boot made (the lab pins it), reached by a
    # name it carries (localhost; the forward is on 127.0.0.1): an address it does not name would fail
    # path validation, as in a browser.
    result = scan(f"localhost:{booted.api.port}{{127.0.0.1}}", booted.api.cert_file)
    checks.record(
        "tls_mozilla_intermediate",
        result.compliant,
        f"sslyze: {', '.join(result.versions)}; {len(result.suites)} suites; groups {', '.join(result.curves)}"
        + (f"; {'; '.join(result.issues)}" if result.issues else "; compliant"),
    )
    checks.verify("tls_mozilla_intermediate")


FIREWALL = "/api/settings/firewall"
MANAGEMENT = "10.0.2.0/24"  # the host's side of the first NIC: the administrator's network here


def ports_seen(
    appliance: ApplianceVm, stranger: tuple[str, dict[str, int]]
) -> tuple[dict[str, str], dict[str, str]]:
    """Every GUEST_PORTS port as the host (10.0.2.2) and the namespace (10.250.0.2) find it."""
    ns, ns_ports = stranger
    host = portscan.scan({name: ("127.0.0.1", appliance.config.host_ports[name]) for name in GUEST_PORTS})
    other = portscan.scan({name: (HOST_SIDE, ns_ports[name]) for name in GUEST_PORTS}, namespace=ns)
    return host, other


def live_management(guest: SshRunner) -> str:
    return in_guest(guest, ["nft", "list", "set", "inet", "arcvsa", "management_v4"]).stdout


def test_firewall_before_any_export_or_target(
    api: LabApi,
    appliance: ApplianceVm,
    guest: SshRunner,
    stranger: tuple[str, dict[str, int]],
    checks: Checks,
) -> None:
    # As first boot leaves it: the web interface, and SSH (on: the lab gave a key), from anywhere.
    host, other = ports_seen(appliance, stranger)
    checks.record(
        "firewall_before_storage",
        portscan.opened(host) == portscan.opened(other) == ["https", "ssh"],
        f"open from the host: {portscan.opened(host)}; from {STRANGER}: {portscan.opened(other)}",
    )
    shown = api.call("GET", FIREWALL)
    refused = api.refused(
        "PUT", FIREWALL, {"management": ["10.250.0.0/30"], "iscsi": [], "ssh": True}, expect=422
    )
    checks.record(
        "firewall_lockout_refused",
        refused["code"] == "would_lock_out"
        and refused.get("your_address") == HOST == shown["your_address"]
        and api.call("GET", FIREWALL)["settings"] == shown["settings"],
        f"{refused['code']}: {refused['detail']}",
    )

    # Narrowed to the administrator's network: on trial at once, kept once confirmed through it.
    trial = api.call("PUT", FIREWALL, {"management": [MANAGEMENT], "iscsi": [], "ssh": True})["trial"]
    kept = api.call("POST", f"{FIREWALL}/confirm")
    host, other = ports_seen(appliance, stranger)
    checks.record(
        "firewall_trial_confirmed",
        trial is not None
        and kept["trial"] is None
        and kept["settings"]["management"] == [MANAGEMENT]
        and portscan.opened(host) == ["https", "ssh"]
        and portscan.opened(other) == [],
        f"kept {kept['settings']['management']}; open from the host: {portscan.opened(host)}; from {STRANGER}: {portscan.opened(other)}",
    )

    # Not confirmed: the previous rules come back by themselves (a systemd timer in the guest).
    started = time.monotonic()
    trial = api.call("PUT", FIREWALL, {"management": [MANAGEMENT, "192.0.2.0/24"], "iscsi": [], "ssh": True})[
        "trial"
    ]
    during = live_management(guest)
    deadline = started + 300
    while "192.0.2.0/24" in live_management(guest) and time.monotonic() < deadline:
        time.sleep(5)
    back = time.monotonic() - started
    after = api.call("GET", FIREWALL)
    checks.record(
        "firewall_trial_rolled_back",
        trial is not None
        and "192.0.2.0/24" in during
        and "192.0.2.0/24" not in live_management(guest)
        and after["trial"] is None
        and after["settings"]["management"] == [MANAGEMENT],
        f"the rules on trial until {trial and trial['until']} were gone {back:.0f} s after the change; "
        f"stored: {after['settings']['management']}",
        back,
    )
    checks.verify(
        "firewall_before_storage",
        "firewall_lockout_refused",
        "firewall_trial_confirmed",
        "firewall_trial_rolled_back",
    )


def test_nfs_refuses_a_client_outside_the_host_list(
    api: LabApi,
    appliance: ApplianceVm,
    guest: SshRunner,
    stranger: tuple[str, dict[str, int]],
    checks: Checks,
) -> None:
    ns, ns_ports = stranger
    ns_nfs, ns_mountd = ns_ports["nfs"], ns_ports["mountd"]
    api.call(
        "POST", "/api/storage/pools", {"name": "tank", "data": ["/dev/disk/by-id/virtio-lun0"]}, expect=201
    )
    api.call("POST", "/api/storage/datasets", {"name": DATASET, "profile": "generic"}, expect=201)
    export = api.call(
        "POST", "/api/storage/exports", {"dataset": DATASET, "protocol": "3", "clients": [HOST]}, expect=201
    )
    ports = appliance.config.host_ports
    allowed_url = f"nfs://127.0.0.1{EXPORT_PATH}?nfsport={ports['nfs']}&mountport={ports['mountd']}"
    stranger_url = f"nfs://{HOST_SIDE}{EXPORT_PATH}?nfsport={ns_nfs}&mountport={ns_mountd}"
    nfs_ls = [IP, "netns", "exec", ns, "nfs-ls", stranger_url]

    deadline, code, out = time.monotonic() + 240, 1, ""
    while time.monotonic() < deadline:  # ganesha takes the export a few seconds after the api answers
        code, out = client(["nfs-ls", allowed_url])
        if code == 0:
            break
        time.sleep(3)
    checks.record("nfs_listed_host_allowed", code == 0, f"nfs-ls from the host ({HOST}): exit {code} {out}")

    started = time.monotonic()
    code, refused = client(nfs_ls, timeout=150)
    took = time.monotonic() - started
    if code in (0, 124):  # what the guest's links looked like, for the failure message
        refused += " | guest: " + " ; ".join(in_guest(guest, ["ip", "-br", "addr"]).stdout.splitlines())
    first = code

    path = f"/api/storage/exports/{export['export_id']}"
    api.call("PUT", path, {"clients": [HOST, STRANGER]})
    deadline, code, out = time.monotonic() + 150, 1, ""
    while time.monotonic() < deadline:
        code, out = client(nfs_ls, timeout=150)
        if code == 0:
            break
        time.sleep(3)
    checks.record(
        "nfs_namespace_path_works_when_listed",
        code == 0,
        f"nfs-ls from {STRANGER} once listed: exit {code} {out}",
    )
    # An error answer is a refusal; so is silence, but only once this same path has been seen to work.
    path_works = code == 0
    checks.record(
        "nfs_unlisted_host_refused",
        first != 0 and (first != 124 or path_works),
        f"nfs-ls from {STRANGER} (namespace): exit {first} after {took:.0f} s: {refused}",
        took,
    )
    api.call("PUT", path, {"clients": [HOST]})
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        code, out = client(nfs_ls, timeout=150)
        if code != 0 and (code != 124 or path_works):
            break
        time.sleep(3)
    checks.record(
        "nfs_unlisted_again_refused",
        code != 0 and (code != 124 or path_works),
        f"nfs-ls from {STRANGER} after removal: exit {code} {out}",
    )
    checks.verify(
        "nfs_listed_host_allowed",
        "nfs_unlisted_host_refused",
        "nfs_namespace_path_works_when_listed",
        "nfs_unlisted_again_refused",
    )


def test_iscsi_refuses_a_login_without_chap(api: LabApi, appliance: ApplianceVm, checks: Checks) -> None:
    absent = [t for t in ("iscsi-inq", "iscsi-readcapacity16") if shutil.which(t) is None]
    assert not absent, f"host tools missing: {absent} (libiscsi-bin: make setup)"
    # The host's initiator is let in to 3260 (the firewall knows initiators by network, not by IQN).
    api.call("PUT", FIREWALL, {"management": [MANAGEMENT], "iscsi": [f"{HOST}/32"], "ssh": True})
    api.call("POST", "/api/storage/volumes", {"name": ZVOL, "size_bytes": ZVOL_BYTES}, expect=201)
    body = {
        "iqn": TARGET_IQN,
        "zvol": ZVOL,
        "initiators": [HOST_IQN],
        "chap": {"user": CHAP_USER, "secret": CHAP_SECRET},
    }
    target = api.call("POST", "/api/storage/iscsi/targets", body, expect=201)
    assert CHAP_SECRET not in json.dumps(target), "the api echoed the CHAP secret"
    url = f"iscsi://127.0.0.1:{appliance.config.host_ports['iscsi']}/{TARGET_IQN}/0"
    argv = ["iscsi-readcapacity16", "-i", HOST_IQN, url]
    chap = {"LIBISCSI_CHAP_USERNAME": CHAP_USER, "LIBISCSI_CHAP_PASSWORD": CHAP_SECRET}
    code, out = host_tool(argv, env=chap)
    checks.record(
        "iscsi_chap_login_works", code == 0 and f"Total size:{ZVOL_BYTES}" in out, f"exit {code} {out}"
    )
    code, out = host_tool(argv, env={})
    checks.record(
        "iscsi_no_chap_refused", code != 0 and "Authentication failure" in out, f"exit {code} {out}"
    )
    code, out = host_tool(argv, env={**chap, "LIBISCSI_CHAP_PASSWORD": "not-the-secret-00"})
    checks.record(
        "iscsi_wrong_secret_refused", code != 0 and "Authentication failure" in out, f"exit {code} {out}"
    )
    checks.verify("iscsi_chap_login_works", "iscsi_no_chap_refused", "iscsi_wrong_secret_refused")


def test_firewall_after_an_export_and_a_target(
    api: LabApi, appliance: ApplianceVm, stranger: tuple[str, dict[str, int]], checks: Checks
) -> None:
    # The export lists the host, the target's network is the host's: the namespace reaches nothing.
    assert api.call("GET", "/api/storage/iscsi/targets") and api.call("GET", "/api/storage/exports")
    host, other = ports_seen(appliance, stranger)
    wanted = ["https", "iscsi", "mountd", "nfs", "portmapper", "ssh"]
    checks.record(
        "firewall_after_storage",
        portscan.opened(host) == wanted and portscan.opened(other) == [],
        f"open from the host: {portscan.opened(host)}; from {STRANGER}: {portscan.opened(other)}",
    )
    checks.verify("firewall_after_storage")


HARDENING = REPO / "appliance/image/overlay/etc/sysctl.d/60-arcvsa-hardening.conf"


# systemd-analyze security's exposure (0 safest, 10 none) each arcvsa unit may have at most: the units'
# sandboxing as it stands, so that dropping a setting fails here.
EXPOSURE_AT_MOST = {
    "arcvsa-api.service": 1.5,
    "arcvsa-metrics.service": 7.4,
    "arcvsa-firstboot.service": 8.1,
    "arcvsa-console.service": 1.1,
}


def test_arcvsa_units_are_sandboxed_as_far_as_their_work_allows(guest: SshRunner, checks: Checks) -> None:
    others = ("ssh.service", "nfs-ganesha.service", "chrony.service")
    argv = ["systemd-analyze", "security", "--no-pager", *EXPOSURE_AT_MOST, *others]
    said = guest.execute(argv, timeout=300).stdout  # exits non-zero when a unit is above its threshold
    exposure = {
        found["unit"]: float(found["score"])
        for found in re.finditer(r"Overall exposure level for (?P<unit>\S+): (?P<score>[0-9.]+)", said)
    }
    ours = {unit: exposure.get(unit) for unit in EXPOSURE_AT_MOST}
    theirs = {unit: exposure.get(unit) for unit in others}
    # and each did its work in its sandbox this boot (the oneshots stay active once done)
    states = guest.execute(["systemctl", "is-active", *EXPOSURE_AT_MOST], timeout=60).stdout.split()
    print(f"\nsystemd-analyze security: {ours}; others: {theirs}; states: {states}")
    checks.record(
        "unit_exposure",
        all(v is not None and v <= EXPOSURE_AT_MOST[u] for u, v in ours.items())
        and states == ["active"] * len(EXPOSURE_AT_MOST),
        f"arcvsa units: {ours} (at most {EXPOSURE_AT_MOST}), {states}; others: {theirs}",
    )
    checks.verify("unit_exposure")


def test_kernel_settings_and_timers_are_hardened(guest: SshRunner, checks: Checks) -> None:
    wanted = {}
    for line in HARDENING.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition("=")
            wanted[key.strip()] = value.strip()
    # sysctl fails on a key this kernel does not know: systemd-sysctl would only have logged it.
    live = dict(
        line.split(" = ", 1)
        for line in in_guest(guest, ["sysctl", *wanted]).stdout.splitlines()
        if " = " in line
    )
    differ = {k: (v, live.get(k)) for k, v in wanted.items() if live.get(k) != v}
    checks.record(
        "kernel_settings_hardened",
        not differ,
        f"{len(wanted) - len(differ)} / {len(wanted)} settings in effect"
        + (f"; differ (wanted, live): {differ}" if differ else ""),
    )
    timers = guest.execute(
        ["systemctl", "is-enabled", "apt-daily.timer", "apt-daily-upgrade.timer"], timeout=60
    )
    checks.record(
        "apt_timers_masked",
        timers.stdout.split() == ["masked", "masked"],
        f"apt-daily.timer, apt-daily-upgrade.timer: {' '.join(timers.stdout.split())}",
    )
    checks.verify("kernel_settings_hardened", "apt_timers_masked")


# Listeners nobody needs: LLMNR and mDNS (systemd-resolved), ganesha's NLM and rquota (ESXi calls
# neither), pNFS block layout (a client daemon); and the portmapper on UDP beyond loopback (a
# reflection amplifier: NFS clients ask it over TCP).
UNNEEDED = {"tcp": {5355, 875, 32803}, "udp": {5353, 5355, 875, 32803}}
LOOPBACK = {"127.0.0.1", "[::1]"}


def listeners(guest: SshRunner) -> list[tuple[str, str, int, str]]:
    """(protocol, address, port, process) of every listening TCP and bound UDP socket in the guest."""
    out = []
    for line in in_guest(guest, ["ss", "-H", "-l", "-n", "-t", "-u", "-p"]).stdout.splitlines():
        fields = line.split()
        if len(fields) < 5:
            continue
        address, _, port = fields[4].rpartition(":")
        process = fields[6].split('"')[1] if len(fields) > 6 and '"' in fields[6] else "?"
        out.append((fields[0], address, int(port), process))
    return sorted(set(out))


def test_only_needed_services_listen(guest: SshRunner, checks: Checks) -> None:
    found = listeners(guest)
    unneeded = [
        f"{proto}/{port} {proc}" for proto, _, port, proc in found if port in UNNEEDED.get(proto, set())
    ] + [
        f"udp/111 {proc} on {addr}"
        for proto, addr, port, proc in found
        if (proto, port) == ("udp", 111) and addr not in LOOPBACK
    ]
    shown = sorted({f"{proto}/{port} {proc}" for proto, _, port, proc in found})
    print(
        "listening in the guest:",
        *(f"  {proto} {addr}:{port} {proc}" for proto, addr, port, proc in found),
        sep="\n",
    )
    checks.record(
        "no_unneeded_listeners",
        not unneeded,
        (f"unneeded: {unneeded}; " if unneeded else "") + "listening: " + ", ".join(shown),
    )
    blkmap = guest.execute(["systemctl", "is-enabled", "nfs-blkmap.service"], timeout=60).stdout.strip()
    checks.record("nfs_blkmap_masked", blkmap == "masked", f"nfs-blkmap.service: {blkmap}")
    checks.verify("no_unneeded_listeners", "nfs_blkmap_masked")


SSHD_WANTED = {
    "passwordauthentication": "no",
    "kbdinteractiveauthentication": "no",
    "allowtcpforwarding": "no",
    "allowstreamlocalforwarding": "no",
    "allowagentforwarding": "no",
    "x11forwarding": "no",
    "permittunnel": "no",
}


def _lets_in(guest: SshRunner) -> bool:
    try:
        return guest.execute(["true"], timeout=60).exit_code == 0
    except RuntimeError:  # ssh itself failed: refused or closed
        return False


def test_ssh_takes_a_key_only_and_forwards_nothing(
    appliance: ApplianceVm, guest: SshRunner, checks: Checks
) -> None:
    # The host's own OpenSSH client asks for a password login: the server must offer none.
    code, said = host_tool(
        [
            "ssh",
            "-v",
            "-o", "BatchMode=yes",
            "-o", "StrictHostKeyChecking=no",
            "-o", "UserKnownHostsFile=/dev/null",
            "-o", "PubkeyAuthentication=no",
            "-o", "PreferredAuthentications=password,keyboard-interactive",
            "-p", str(appliance.config.host_ports["ssh"]),
            "root@127.0.0.1",
            "true",
        ],
        timeout=60,
    )  # fmt: skip
    offered = [line for line in said.splitlines() if "Authentications that can continue" in line]
    # sshd's per-source penalties count that refusal against 10.0.2.2, which every lab connection comes
    # from: the next checks wait until a key login is let in again.
    deadline = time.monotonic() + 60
    while not _lets_in(guest) and time.monotonic() < deadline:
        time.sleep(2)
    checks.record(
        "ssh_password_login_refused",
        code == 255 and bool(offered) and all(o.rstrip().endswith(": publickey") for o in offered),
        f"exit {code}; {offered[-1].split('debug1: ')[-1] if offered else said[-200:]}",
    )
    effective = dict(
        line.split(" ", 1) for line in in_guest(guest, ["sshd", "-T"]).stdout.splitlines() if " " in line
    )
    differ = {k: effective.get(k) for k, v in SSHD_WANTED.items() if effective.get(k) != v}
    macs = effective.get("macs", "").split(",")
    checks.record(
        "sshd_settings",
        not differ and bool(macs) and all(m.endswith("-etm@openssh.com") for m in macs),
        f"differ: {differ}; macs: {','.join(macs)}" if differ else f"macs: {','.join(macs)}",
    )
    checks.verify("ssh_password_login_refused", "sshd_settings")


def test_the_ssh_switch_stops_and_starts_sshd(
    api: LabApi, appliance: ApplianceVm, guest: SshRunner, checks: Checks
) -> None:
    # Off from Settings: the switch file written and sshd stopped (22 closed; the web interface stays),
    # then on again: removed, started, a key login let in.
    settings = api.call("GET", FIREWALL)["settings"]
    since = in_guest(guest, ["date", "+%Y-%m-%d %H:%M:%S"]).stdout.strip()
    off = api.call("PUT", FIREWALL, {**settings, "ssh": False})
    ports = {name: ("127.0.0.1", appliance.config.host_ports[name]) for name in ("ssh", "https")}
    seen_off = portscan.scan(ports)
    on = api.call("PUT", FIREWALL, {**settings, "ssh": True})
    deadline = time.monotonic() + 60
    while not (let_in := _lets_in(guest)) and time.monotonic() < deadline:
        time.sleep(2)
    journal = in_guest(guest, ["journalctl", "-u", "ssh.service", "--since", since, "-o", "cat"]).stdout
    switch_file = guest.execute(["test", "-e", "/etc/ssh/sshd_not_to_be_run"], timeout=60).exit_code
    checks.record(
        "ssh_switch",
        off["settings"]["ssh"] is False
        and seen_off == {"ssh": "closed", "https": "open"}
        and on["settings"]["ssh"] is True
        and let_in
        and "Stopped ssh.service" in journal
        and "Started ssh.service" in journal
        and switch_file == 1,
        f"off: {seen_off}; on: key login let in {let_in}, switch file "
        f"{'gone' if switch_file == 1 else 'there'}; sshd's journal since {since}: "
        + " | ".join(line for line in journal.splitlines() if "ssh.service" in line),
    )
    checks.verify("ssh_switch")


def _ssh(appliance: ApplianceVm, user: str, *tail: str) -> list[str]:
    return [
        "ssh",
        "-o", "StrictHostKeyChecking=no",
        "-o", "UserKnownHostsFile=/dev/null",
        "-o", "IdentitiesOnly=yes",
        "-o", "LogLevel=ERROR",  # no known-hosts notice in the output the checks read
        "-i", str(appliance.config.ssh_key),
        "-p", str(appliance.config.host_ports["ssh"]),
        *tail[:-1],
        f"{user}@127.0.0.1",
        tail[-1],
    ]  # fmt: skip


def test_roots_password_is_locked(guest: SshRunner, checks: Checks) -> None:
    # First boot locks root's password (the admin password goes to the arcvsa account only): passwd's
    # status is L, and the shadow field starts with "!" or "*", which no password's hash can match.
    status = in_guest(guest, ["passwd", "-S", "root"]).stdout.split()
    entry = next(
        line
        for line in in_guest(guest, ["getent", "shadow", "root"]).stdout.splitlines()
        if line.startswith("root:")
    )
    checks.record(
        "root_password_locked",
        len(status) > 1 and status[1] == "L" and entry.split(":")[1][:1] in ("!", "*"),
        f"passwd -S root: {' '.join(status[:2])}; shadow hash starts {entry.split(':')[1][:1]!r}",
    )
    checks.verify("root_password_locked")


def test_root_stays_out_unless_let_in_and_the_admin_account_changes_its_password_first(
    api: LabApi, appliance: ApplianceVm, checks: Checks
) -> None:
    # The lab lets root in with its key (ssh_root_login), as automation would. Turned off in Settings:
    # root's key is refused and sshd's effective setting is no. The admin account's first key login asks
    # for the deploy-time password and a new one (vApp settings show the first to anyone who reads them),
    # then sudo takes the new one only. Turned on again, root's key works as before. Every login here is
    # a connection of its own (the lab's multiplexed one would outlive the change).
    from support.tty_session import SessionFailed, converse

    def sudo(password: str, *argv: str) -> tuple[int, str]:
        remote = "sudo -S -p '' " + " ".join(argv)
        return host_tool(_ssh(appliance, "arcvsa", "-o", "BatchMode=yes", remote), input_text=password + "\n")

    settings = api.call("GET", FIREWALL)["settings"]
    off = api.call("PUT", FIREWALL, {**settings, "ssh_root": False})
    code, said = host_tool(_ssh(appliance, "root", "-o", "BatchMode=yes", "true"), timeout=60)
    root_refused = code == 255 and "Permission denied" in said
    new_password = f"Lab-{secrets.token_urlsafe(15)}-9"
    try:
        first = converse(
            _ssh(appliance, "arcvsa", "-tt", "true"),
            [
                (r"[Cc]urrent password: ?", api.password),
                (r"New password: ?", new_password),
                (r"Retype new password: ?", new_password),
            ],
            timeout=120,
        )
    except SessionFailed as exc:
        first = str(exc)
    changed = "password updated successfully" in first
    code_sudo, as_root = sudo(new_password, "id", "-u")
    _, effective = sudo(new_password, "sshd", "-T")
    effective_off = _permit_root_login(effective)
    code_wrong, _ = sudo(api.password, "id", "-u")  # the deploy-time password is no longer arcvsa's
    on = api.call("PUT", FIREWALL, {**settings, "ssh_root": True})
    deadline = time.monotonic() + 90  # the refused root login counts against 10.0.2.2 for a while
    while (root_code := host_tool(_ssh(appliance, "root", "-o", "BatchMode=yes", "sshd -T"), timeout=60))[0]:
        if time.monotonic() > deadline:
            break
        time.sleep(3)
    effective_on = _permit_root_login(root_code[1])
    checks.record(
        "root_login_switch",
        off["settings"]["ssh_root"] is False
        and root_refused
        and effective_off == "no"
        and on["settings"]["ssh_root"] is True
        and root_code[0] == 0
        and effective_on == "without-password",
        f"off: root's key {'refused' if root_refused else said[-200:]}, sshd permitrootlogin {effective_off}; "
        f"on: root's key login exit {root_code[0]}, permitrootlogin {effective_on}",
    )
    lines = [line.strip() for line in first.splitlines() if line.strip()]
    checks.record(
        "admin_first_login",
        changed and code_sudo == 0 and as_root.strip() == "0" and code_wrong != 0,
        f"first key login as arcvsa: {' | '.join(lines[-6:])}; then sudo with the new password: exit "
        f"{code_sudo}, uid {as_root.strip()!r}; with the deploy-time one: exit {code_wrong}",
    )
    checks.verify("root_login_switch", "admin_first_login")


def _permit_root_login(effective: str) -> str:
    """permitrootlogin's value in ``sshd -T``'s output ('' when absent)."""
    lines = effective.splitlines()
    return next((line.split(" ", 1)[1].strip() for line in lines if line.startswith("permitrootlogin ")), "")


def test_secrets_are_absent_from_the_guest_journal(api: LabApi, guest: SshRunner, checks: Checks) -> None:
    journal = in_guest(guest, ["journalctl", "--no-pager", "-o", "cat", "-b"], timeout=300).stdout
    found = [name for name, value in (("chap", CHAP_SECRET), ("admin", api.password)) if value in journal]
    checks.record(
        "guest_journal_has_no_secrets", not found and len(journal) > 0, f"{len(journal)} chars; found {found}"
    )
    checks.verify("guest_journal_has_no_secrets")


# Run as the api runs (its user, its profile, through systemd as its unit does): its own folder and its
# release read, then one thing at a time the profile refuses though the user's file permissions allow it.
PROBE = """
import json, os, subprocess
def attempt(action):
    try:
        action()
        return "ok"
    except OSError as err:
        return type(err).__name__
print(json.dumps({
    "own_folder": attempt(lambda: open("/var/lib/arcvsa/state.json", "rb").read(1)),
    "settings": attempt(lambda: open("/etc/arcvsa/appliance.json", "rb").read(1)),
    "sshd_config": attempt(lambda: open("/etc/ssh/sshd_config", "rb").read(1)),
    "run_program": attempt(lambda: subprocess.run(["/usr/bin/true"], check=True)),
    "write_elsewhere": attempt(lambda: (open("/run/lock/arcvsa-probe", "wb").close(), os.remove("/run/lock/arcvsa-probe"))),
}))
"""
DENIED_BY_API_PROFILE = re.compile(r'apparmor="DENIED".*profile="arcvsa-api"')


def _denial(line: str) -> str:
    """What an audit line says was refused: the operation, the object and the access."""
    fields = dict(re.findall(r'(\w+)="?([^"\s]*)"?', line))
    return " ".join(fields.get(key, "") for key in ("operation", "name", "requested_mask", "capname"))


def _probe(guest: SshRunner, *profile: str) -> dict[str, str]:
    argv = [
        "systemd-run", "--quiet", "--pipe", "--wait", "--collect", "--property=User=arcvsa-api",
        *profile, "/opt/arcvsa/venv/bin/python", "-c", PROBE,
    ]  # fmt: skip
    answer: dict[str, str] = json.loads(in_guest(guest, argv, timeout=120).stdout)
    return answer


def test_the_api_runs_confined_by_its_apparmor_profile(guest: SshRunner, checks: Checks) -> None:
    """Last of the suite: nothing the api did for the tests above was refused by its profile."""
    pid = in_guest(guest, ["systemctl", "show", "--property=MainPID", "--value", "arcvsa-api.service"])
    label = in_guest(guest, ["cat", f"/proc/{pid.stdout.strip()}/attr/apparmor/current"]).stdout.strip()
    kernel = in_guest(guest, ["journalctl", "--no-pager", "-k", "-b", "-o", "cat"], timeout=120).stdout
    denied = sorted({_denial(line) for line in kernel.splitlines() if DENIED_BY_API_PROFILE.search(line)})
    confined = _probe(guest, "--property=AppArmorProfile=arcvsa-api")
    unconfined = _probe(guest)
    print(f"\napi label {label!r}; under the profile {confined}; without it {unconfined}")
    checks.record(
        "api_apparmor",
        label == "arcvsa-api (enforce)" and not denied,
        f"the api runs as {label!r}; refused to it: {denied}",
    )
    refused = {"sshd_config", "run_program", "write_elsewhere"}
    checks.record(
        "api_apparmor_probe",
        confined == {"own_folder": "ok", "settings": "ok"} | dict.fromkeys(refused, "PermissionError")
        and set(unconfined.values()) == {"ok"},
        f"as the api with its profile: {confined}; the same user without it: {unconfined}",
    )
    checks.verify("api_apparmor", "api_apparmor_probe")
