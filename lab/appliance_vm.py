"""The appliance VM of the lab: the built image booted under qemu (TCG), LUNs from the lab SAN.

The image is never written: the VM boots a qcow2 overlay that has the image as backing file. LUNs come
from the SAN's NBD exports, the two SSDs (SLOG, L2ARC) are local qcow2 files; every virtio disk has a
serial, so the guest sees stable ``/dev/disk/by-id/virtio-<serial>`` names. The network is qemu's user
mode with ``restrict=on`` (the guest reaches nothing outside) and forwards bound to 127.0.0.1 only;
``reach_host`` lifts the restriction (restrict=off) for a VM that must reach a server on the host, e.g. the
lab's NTP server (lab.ntp) at 10.0.2.2: restricted user networking drops every UDP datagram of the guest
but DHCP's and TFTP's, so a guest's NTP request never leaves it.

The image boots under either firmware. ``bios`` (SeaBIOS) is the lab's default: the lab's boot deadlines
and the benchmark's boot figures were measured with it, OVMF adds its own start under TCG to every boot,
and once the kernel runs the firmware changes nothing the storage, ops and upgrade tests look at; an
image built before the disk had an ESP (ARCVSA_LAB_IMAGE, ``lab.up --image``) boots only so. ``efi``
boots OVMF, as vSphere boots the OVA: `make lab-smoke` boots both. Each UEFI VM has its own copy of
OVMF's variable store, kept with its OS disk (a VM's NVRAM).
"""

from __future__ import annotations

import json
import shlex
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from lab import console
from lab.appliance_env import LAB_GATEWAY
from lab.daemon import Daemon, free_port, spawn, wait_for_path
from lab.qmp import QMP_SECONDS, Qmp, QmpError
from lab.san import Lun
from lab.tap import GUEST_NETWORK_FILE, TapLink
from process import ProcessError, run

# Guest ports forwarded from the host: SSH, HTTPS (api), NFS, portmapper, mountd (pinned in ganesha),
# iSCSI (LIO's portal). NFSv4.1 needs 2049 only (no portmapper, no mountd: the mount is in the protocol).
GUEST_PORTS: dict[str, int] = {
    "ssh": 22,
    "https": 443,
    "nfs": 2049,
    "portmapper": 111,
    "mountd": 20048,
    "iscsi": 3260,
}
SSD_SERIALS = ("ssd-slog", "ssd-l2arc")
Firmware = Literal["bios", "efi"]
# Debian's ovmf: the 4 MiB flash images (the 2 MiB ones are gone from later releases). Without Secure
# Boot, which the image does not support (see ovf.hardware), so no SMM and qemu's default machine.
OVMF_CODE = Path("/usr/share/OVMF/OVMF_CODE_4M.fd")
OVMF_VARS = Path("/usr/share/OVMF/OVMF_VARS_4M.fd")
# Every VM of the lab (and packer's build VM) runs on this emulated CPU. la57=off: 4-level paging, as
# nearly every x86 guest has; qemu 7.2's -cpu max offers 5-level paging, a path real hardware rarely
# exercises and its emulation less well.
TCG = ["-accel", "tcg,thread=multi", "-cpu", "max,la57=off"]
SSH_OPTIONS = [
    "-o",
    "BatchMode=yes",
    "-o",
    "StrictHostKeyChecking=no",
    "-o",
    "UserKnownHostsFile=/dev/null",
    "-o",
    "LogLevel=ERROR",
    "-o",
    "ConnectTimeout=10",
    "-o",
    "ServerAliveInterval=10",
]


def hostfwds(bind: str, host_ports: dict[str, int]) -> str:
    """qemu user-mode hostfwd= options: each GUEST_PORTS port from ``bind``:its host port."""
    return ",".join(f"hostfwd=tcp:{bind}:{host_ports[name]}-:{port}" for name, port in GUEST_PORTS.items())


@dataclass(frozen=True)
class StorageNic:
    """The storage NIC's user-mode network: the guest's side (``network``, e.g. 10.0.3.0/24) and the host
    ports, bound to ``bind`` (an address of the host, e.g. a veth end), forwarded to GUEST_PORTS.

    slirp hands the guest a forwarded connection with its real source address, so a client in another
    network namespace is seen as itself; qemu's command line takes repeated hostfwd= options (HMP's
    netdev_add keeps only the last, hence a NIC given at start rather than hot-plugged)."""

    network: str
    bind: str
    host_ports: dict[str, int]
    mac: str = "52:54:00:5e:c0:03"

    def argv(self) -> list[str]:
        return [
            "-netdev",
            f"user,id=net1,restrict=on,net={self.network},{hostfwds(self.bind, self.host_ports)}",
            "-device",
            f"virtio-net-pci,netdev=net1,mac={self.mac},romfile=",
        ]


@dataclass
class VmConfig:
    """What to boot and with what: image, state folder, LUNs, SSD sizes, memory, CPUs, forwards.

    ``fresh`` makes a new OS overlay and new SSDs; otherwise they are kept from the last boot.
    ``tied``: qemu ends with this process (test fixtures), see :func:`lab.daemon.spawn`.
    ``reach_host``: the guest may send out through the host (restrict=off; see the module docstring).
    ``tap``: a second NIC on a host tap device (lab.tap), plugged in by :meth:`ApplianceVm.open_tap`.
    ``firmware``: ``bios`` or ``efi`` (OVMF); see the module docstring for the default.
    ``storage_nic``: a second NIC present from the first boot on, for the storage network (the OVF's
    second NIC), on a user-mode network of its own with forwards bound to a host address.
    """

    image: Path
    directory: Path
    san_socket: Path
    luns: list[Lun]
    ssh_key: Path
    ssd_size_bytes: int = 2 << 30
    memory_mib: int = 4096
    cpus: int = 2
    cdrom: Path | None = None
    fresh: bool = True
    tied: bool = False
    host_ports: dict[str, int] = field(default_factory=dict)
    reach_host: bool = False
    tap: TapLink | None = None
    firmware: Firmware = "bios"
    storage_nic: StorageNic | None = None

    def __post_init__(self) -> None:
        for name in GUEST_PORTS:
            self.host_ports.setdefault(name, free_port())


def overlay(directory: Path) -> Path:
    """The VM's OS disk: a qcow2 overlay on the image."""
    return directory / "os.qcow2"


def efi_vars(directory: Path) -> Path:
    """The VM's own UEFI variable store (boot entries), copied from OVMF's empty one."""
    return directory / "efivars.fd"


def keeps_disk(directory: Path, image: Path) -> bool:
    """Whether a boot of ``image`` in ``directory`` (not asked to be fresh) keeps the OS disk there: only
    an overlay on this very image, last written after the image was, is kept. Any other is made anew, so
    the guest's first boot runs again (a new certificate and admin password). A rebuild of a dirty tree
    writes the same file name, and an overlay on a base that changed under it is garbage."""
    disk = overlay(directory)
    if not disk.is_file() or not image.is_file():
        return False
    info = json.loads(run(["qemu-img", "info", "--output=json", "-U", str(disk)], timeout=60).stdout)
    backing = info.get("full-backing-filename") or info.get("backing-filename")
    same = bool(backing) and str(backing) == str(image.resolve())
    return same and image.stat().st_mtime <= disk.stat().st_mtime


class ApplianceVm:
    """A running (or stopped) appliance VM; see the module docstring for its wiring."""

    def __init__(self, config: VmConfig) -> None:
        self.config = config
        self.directory = config.directory
        self.overlay = overlay(config.directory)
        self.efi_vars = efi_vars(config.directory)
        self.qmp_path = config.directory / "vm.qmp"
        self.console = config.directory / "console.log"
        self.log = config.directory / "qemu.log"
        self.daemon: Daemon | None = None
        self.started_at = 0.0

    def ssd_paths(self) -> list[Path]:
        """The SSD disk files, in SSD_SERIALS order."""
        return [self.directory / f"{serial}.qcow2" for serial in SSD_SERIALS]

    def prepare_disks(self) -> None:
        """Make the OS overlay and the SSD files; kept from an earlier boot unless ``fresh``.

        A kept overlay is a rebooted appliance (its pools, exports and keys survive); one whose backing
        file is not this image is made anew.
        """
        self.directory.mkdir(parents=True, exist_ok=True)
        image = str(self.config.image.resolve())
        if self.config.fresh or not keeps_disk(self.directory, self.config.image):
            self.overlay.unlink(missing_ok=True)
            self.efi_vars.unlink(missing_ok=True)
            for path in self.ssd_paths():
                path.unlink(missing_ok=True)
            run(
                ["qemu-img", "create", "-q", "-f", "qcow2", "-b", image, "-F", "qcow2", str(self.overlay)],
                timeout=60,
            )
        for path in self.ssd_paths():
            if not path.exists():
                size = str(self.config.ssd_size_bytes)
                run(["qemu-img", "create", "-q", "-f", "qcow2", str(path), size], timeout=60)
        if self.config.firmware == "efi" and not self.efi_vars.exists():
            # Written by the firmware: never the package's own file.
            shutil.copyfile(ovmf_file(OVMF_VARS), self.efi_vars)

    def firmware_argv(self) -> list[str]:
        """qemu's firmware options: none for SeaBIOS (qemu's own), OVMF's code and this VM's variables."""
        if self.config.firmware == "bios":
            return []
        return [
            "-drive",
            f"if=pflash,format=raw,unit=0,readonly=on,file={ovmf_file(OVMF_CODE)}",
            "-drive",
            f"if=pflash,format=raw,unit=1,file={self.efi_vars}",
        ]

    def argv(self) -> list[str]:
        """The qemu command line."""
        cfg = self.config
        forwards = hostfwds("127.0.0.1", cfg.host_ports)
        argv = [
            "qemu-system-x86_64",
            "-name",
            "arcvsa-lab",
            *TCG,
            "-smp",
            str(cfg.cpus),
            "-m",
            str(cfg.memory_mib),
            *self.firmware_argv(),
            "-nodefaults",
            "-display",
            "none",
            "-serial",
            f"file:{self.console}",
            "-qmp",
            f"unix:{self.qmp_path},server=on,wait=off",
            "-device",
            "virtio-rng-pci",
            "-netdev",
            f"user,id=net0,restrict={'off' if cfg.reach_host else 'on'},{forwards}",
            "-device",
            "virtio-net-pci,netdev=net0,romfile=",
            # after the first NIC: on a later PCI slot, so the guest takes it for the storage NIC
            *(cfg.storage_nic.argv() if cfg.storage_nic is not None else []),
            "-blockdev",
            f"driver=qcow2,node-name=os,file.driver=file,file.filename={self.overlay}",
            "-device",
            "virtio-blk-pci,id=dev-os,drive=os,serial=os,bootindex=0",
        ]
        for lun in cfg.luns:
            argv += [
                "-blockdev",
                f"driver=nbd,node-name={lun.name},server.type=unix,server.path={cfg.san_socket},export={lun.name}",
                "-device",
                f"virtio-blk-pci,id=dev-{lun.name},drive={lun.name},serial={lun.name}",
            ]
        for serial, path in zip(SSD_SERIALS, self.ssd_paths(), strict=True):
            argv += [
                "-blockdev",
                f"driver=qcow2,node-name={serial},file.driver=file,file.filename={path}",
                "-device",
                f"virtio-blk-pci,id=dev-{serial},drive={serial},serial={serial}",
            ]
        if cfg.cdrom is not None:
            argv += [
                "-blockdev",
                f"driver=raw,node-name=ovfenv,read-only=on,file.driver=file,file.filename={cfg.cdrom}",
                # IDE 0 master, where the OVF puts the drive. In the boot order after the OS disk: OVMF
                # sets up only the controllers of boot devices, and Linux finds no drive on an IDE
                # controller the firmware left alone (first boot would see no OVF environment).
                "-device",
                "ide-cd,drive=ovfenv,bus=ide.0,unit=0,bootindex=1",
            ]
        return argv

    def start(self) -> ApplianceVm:
        """Prepare the disks and start qemu (returns once its QMP socket is up, not the guest)."""
        self.prepare_disks()
        self.qmp_path.unlink(missing_ok=True)
        self.console.unlink(missing_ok=True)
        self.started_at = time.monotonic()
        self.daemon = spawn(self.argv(), log=self.log, marker=str(self.qmp_path), tied=self.config.tied)
        wait_for_path(self.qmp_path, self.daemon, 30)
        return self

    def check(self) -> None:
        """Raise lab.console's GuestPanicked if the guest kernel panicked, ConsoleError if qemu ended."""
        console.check(self.console, self.daemon is not None and self.daemon.alive())

    def ssh_argv(self, remote: list[str]) -> list[str]:
        """An ssh command line that runs ``remote`` as root in the guest.

        ssh hands the remote side one string for the guest's shell: each word is quoted for it.
        """
        return [
            "ssh",
            *SSH_OPTIONS,
            "-i",
            str(self.config.ssh_key),
            "-p",
            str(self.config.host_ports["ssh"]),
            "root@127.0.0.1",
            "--",
            shlex.join(remote),
        ]

    def ssh(self, remote: list[str], *, timeout: float = 120.0, input_text: str | None = None) -> str:
        """Run ``remote`` (an argv) in the guest as root; return its stdout."""
        return run(self.ssh_argv(remote), timeout=timeout, input_text=input_text).stdout

    def lift_firewall(self) -> None:
        """Stop the poller and delete arcvsa's nftables table, for an NFS server set up by hand below the
        api (whose firewall lets NFS in to its own exports' hosts only). Starting arcvsa-metrics again
        renders the table on its first pass."""
        self.ssh(["systemctl", "stop", "arcvsa-metrics.service"])
        self.ssh(["nft", "delete", "table", "inet", "arcvsa"])

    def wait_ssh(self, timeout: float = 300.0) -> float:
        """Wait until SSH answers; return seconds since qemu started. Fails early if qemu ended or the
        guest panicked (see :meth:`check`)."""
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            self.check()
            try:
                self.ssh(["true"], timeout=30)
                return time.monotonic() - self.started_at
            except ProcessError as err:
                last = err.stderr
            time.sleep(2)
        raise ProcessError(
            ["ssh"],
            f"no SSH within {timeout:.0f} s (last: {last}); console ends:\n{console.tail(self.console)}",
            last,
        )

    def open_tap(self, timeout: float = 120.0) -> str:
        """Plug the guest's tap NIC in, its address first (a runtime networkd file), and wait until it is
        up; returns the guest's address. Needs SSH (the control path stays on user mode)."""
        link = self.config.tap
        if link is None:
            raise ValueError("this VM has no tap link")
        self.ssh(["mkdir", "-p", str(Path(GUEST_NETWORK_FILE).parent)])
        self.ssh(["tee", GUEST_NETWORK_FILE], input_text=link.guest_network())
        self.ssh(["networkctl", "reload"])
        with self.qmp() as qmp:
            for command, arguments in link.hotplug():
                qmp.execute(command, arguments)
        return self.wait_tap_address(timeout)

    def wait_tap_address(self, timeout: float = 120.0) -> str:
        """Until the guest has its end of the tap link; returns that address."""
        assert self.config.tap is not None
        address = str(self.config.tap.guest.ip)
        deadline = time.monotonic() + timeout
        while address not in self.ssh(["ip", "-4", "-o", "address", "show"]):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the guest's tap NIC has no {address} after {timeout:.0f} s")
            time.sleep(1)
        return address

    def endpoint(self, name: str) -> tuple[str, int]:
        """Where the host reaches the guest's port ``name`` (GUEST_PORTS) on the measured path: over the
        tap link the guest's address and the port itself, else 127.0.0.1 and the port's forward."""
        if self.config.tap is None:
            return "127.0.0.1", self.config.host_ports[name]
        return str(self.config.tap.guest.ip), GUEST_PORTS[name]

    @property
    def host_address(self) -> str:
        """The host as the guest sees it on the measured path: an export's client list."""
        return LAB_GATEWAY if self.config.tap is None else str(self.config.tap.host.ip)

    def nfs_url(self, path: str) -> str:
        """libnfs URL of an export (or a file in it) on the measured path; no portmapper either way."""
        address, nfs = self.endpoint("nfs")
        return f"nfs://{address}{path}?nfsport={nfs}&mountport={self.endpoint('mountd')[1]}"

    def qmp(self) -> Qmp:
        """A QMP connection to this VM's qemu (close it when done)."""
        return Qmp(self.qmp_path)

    def blockstats(self) -> dict[str, dict[str, Any]]:
        """``query-blockstats`` per disk, keyed by serial/node name (lun0, ssd-slog, os, …)."""
        with self.qmp() as qmp:
            entries = qmp.execute("query-blockstats")
        stats: dict[str, dict[str, Any]] = {}
        for entry in entries:
            qdev = str(entry.get("qdev", ""))
            name = entry.get("node-name") or ""
            for part in qdev.split("/"):
                if part.startswith("dev-"):
                    name = part[len("dev-") :]
            stats[name] = entry["stats"]
        return stats

    def shutdown(self, timeout: float = 120.0) -> bool:
        """ACPI power-off and wait; kill qemu if the guest does not go down in time. True if clean."""
        if self.daemon is None:
            return True
        clean = power_off(self.daemon, self.qmp_path, timeout)
        self.daemon = None
        return clean

    def kill(self) -> None:
        """Stop qemu at once (power cut)."""
        if self.daemon is not None:
            self.daemon.stop(grace=5)
            self.daemon = None
        self.qmp_path.unlink(missing_ok=True)


def ovmf_file(path: Path) -> Path:
    """One of OVMF's files; FileNotFoundError names the package when it is missing."""
    if not path.is_file():
        raise FileNotFoundError(f"{path} missing: install Debian's ovmf (make apt)")
    return path


def power_off(daemon: Daemon, qmp_path: Path, timeout: float = 120.0) -> bool:
    """ACPI power button, wait up to ``timeout``, then kill. True when the guest shut down by itself."""
    if not daemon.alive():
        qmp_path.unlink(missing_ok=True)
        return True
    clean = False
    if daemon.alive():
        try:
            # Each QMP step is bounded by the caller's timeout too: a monitor that does not answer must
            # not hold a short power-off for the monitor's own default.
            with Qmp(qmp_path, timeout=max(min(timeout, QMP_SECONDS), 1.0)) as qmp:
                qmp.execute("system_powerdown")
            clean = daemon.wait_exit(timeout)
        except (OSError, QmpError):
            clean = False
    daemon.stop(grace=5)
    qmp_path.unlink(missing_ok=True)
    return clean
