"""A lab NTP server: the real chronyd on the host, serving the host's clock to the lab VM.

The VM (qemu user networking) reaches the host's 127.0.0.1 at 10.0.2.2, so its chrony source is
``server 10.0.2.2 iburst`` (:func:`guest_sources`). Debian's chrony package is not installed on the host:
its service would start a chronyd that may step the host's clock. Its .deb is fetched with ``apt-get
download`` and unpacked under var/ntp/ instead, and chronyd runs from there with ``-x`` (never touches the
system clock), ``local stratum 8`` (serves its own clock, synchronised or not), no command port, as root
without dropping privileges (the package's _chrony user does not exist here), pid and drift files in var/.

``python -m lab.ntp start|stop`` for a server that outlives the command; tests use :func:`start` with
``tied=True`` (it ends with them). Port 123 needs root; pass another port (and put it in the guest's
sources) where 123 is taken.
"""

from __future__ import annotations

import argparse
import glob
import socket
import struct
import time
from pathlib import Path

from lab.daemon import Daemon, spawn
from process import ProcessError, run

REPO = Path(__file__).resolve().parents[1]
NTP_DIR = REPO / "var" / "ntp"
GUEST_HOST = "10.0.2.2"  # the host, as the lab VM sees it
PORT = 123
STRATUM = 8
PACKAGE = "chrony"


def chronyd(directory: Path = NTP_DIR) -> Path:
    """The unpacked chronyd, downloaded and unpacked (never installed) on first use."""
    binary = directory / "root" / "usr" / "sbin" / "chronyd"
    if binary.exists():
        return binary
    directory.mkdir(parents=True, exist_ok=True)
    fetch = ["apt-get", "download", PACKAGE]  # into the working directory: the only way it takes
    run(fetch, cwd=directory, timeout=300)
    debs = sorted(glob.glob(str(directory / f"{PACKAGE}_*.deb")))
    if not debs:
        raise ProcessError(fetch, f"no {PACKAGE}_*.deb in {directory}")
    run(["dpkg-deb", "-x", debs[-1], str(directory / "root")], timeout=120)
    missing = [
        line for line in run(["ldd", str(binary)], timeout=30).stdout.splitlines() if "not found" in line
    ]
    if missing:
        raise ProcessError(["ldd", str(binary)], f"chronyd's libraries missing on the host: {missing}")
    return binary


def config(directory: Path, port: int) -> str:
    """chronyd.conf of the lab server: answers anyone on loopback (the VM's packets come from there)."""
    return "\n".join(
        [
            "# The lab's NTP server (lab/ntp.py): serves this host's clock, never sets it (chronyd -x).",
            f"port {port}",
            "bindaddress 127.0.0.1",
            "allow 127.0.0.1",
            f"local stratum {STRATUM}",
            "cmdport 0",
            f"pidfile {directory / 'chronyd.pid'}",
            f"driftfile {directory / 'chronyd.drift'}",
            "",
        ]
    )


def guest_sources(port: int = PORT) -> str:
    """The guest's /etc/chrony/sources.d/arcvsa.sources that follows this server."""
    return f"server {GUEST_HOST}{'' if port == 123 else f' port {port}'} iburst\n"


def query(port: int = PORT, timeout: float = 1.0) -> int:
    """One NTP client request to 127.0.0.1; the stratum the server answered (0: not serving time)."""
    request = bytes([0x23]) + bytes(47)  # LI 0, version 4, mode 3 (client)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.settimeout(timeout)
        sock.sendto(request, ("127.0.0.1", port))
        answer, _ = sock.recvfrom(1024)
    if len(answer) < 48:
        raise OSError(f"short NTP answer ({len(answer)} bytes)")
    return int(struct.unpack("!B", answer[1:2])[0])


def start(directory: Path = NTP_DIR, port: int = PORT, *, tied: bool = False, timeout: float = 20) -> Daemon:
    """chronyd serving on 127.0.0.1:``port``; returns once it answers a request with a stratum."""
    binary = chronyd(directory)
    conf = directory / "chronyd.conf"  # the marker: a path only this lab's server has on its command line
    conf.write_text(config(directory, port), encoding="utf-8")
    daemon = spawn(
        [str(binary), "-x", "-d", "-u", "root", "-f", str(conf)],
        log=directory / "chronyd.log",
        marker=str(conf),
        tied=tied,
    )
    deadline = time.monotonic() + timeout
    while True:
        if not daemon.alive():
            raise ProcessError([str(binary)], f"chronyd ended; see {directory / 'chronyd.log'}")
        try:
            if query(port):
                return daemon
        except OSError:
            pass
        if time.monotonic() > deadline:
            daemon.stop()
            raise ProcessError([str(binary)], f"no NTP answer on 127.0.0.1:{port} in {timeout:.0f} s")
        time.sleep(0.2)


def running(directory: Path = NTP_DIR) -> Daemon | None:
    """The server started from ``directory`` (by this process or another), if it still runs."""
    try:
        pid = int((directory / "chronyd.pid").read_text(encoding="utf-8").split()[0])
    except (OSError, ValueError, IndexError):
        return None
    daemon = Daemon(pid, str(directory / "chronyd.conf"))
    return daemon if daemon.alive() else None


def stop(directory: Path = NTP_DIR) -> bool:
    """Stop the server started from ``directory``; True when one was running."""
    daemon = running(directory)
    if daemon is None:
        return False
    daemon.stop()
    return True


def main() -> None:
    """Command line: ``python -m lab.ntp start [--port N]`` / ``python -m lab.ntp stop``."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("action", choices=["start", "stop"])
    parser.add_argument("--dir", type=Path, default=NTP_DIR, help="where chronyd is unpacked and runs")
    parser.add_argument("--port", type=int, default=PORT)
    args = parser.parse_args()
    directory = args.dir.resolve()
    if args.action == "stop":
        print("stopped" if stop(directory) else "not running")
        return
    if (already := running(directory)) is not None:
        print(f"already running (pid {already.pid})")
        return
    daemon = start(directory, args.port)
    print(
        f"chronyd pid {daemon.pid} serves 127.0.0.1:{args.port}; the guest's source: {guest_sources(args.port)}"
    )


if __name__ == "__main__":
    main()
