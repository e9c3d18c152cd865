"""Two network namespaces on a veth link: a server with listeners on the appliance's ports, and clients
at several addresses of one network, so the kernel's own verdict on a rule set can be probed.

The firewall's rules are loaded into the server namespace with the real nft (:class:`NftRunner`); each
probe is a TCP connect from a chosen client address: ``open`` (connected), ``reset`` (refused, the
rule set's TCP reset) or ``dropped`` (no answer in time), and a UDP datagram that the server echoes
when it gets it. Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) and nft on the host.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from appliance.control.gateway import Result, Runner

IP = shutil.which("ip") or "/usr/sbin/ip"
NFT = shutil.which("nft") or "/usr/sbin/nft"
SERVER = "10.99.0.1"
PREFIX = 24
TCP_PORTS = (22, 111, 443, 2049, 3260, 8080, 20048)
UDP_PORTS = (111,)

# Accepts and holds every connection; echoes every datagram (so a probe can tell got from dropped).
_LISTENER = """
import selectors, socket, sys
sel = selectors.DefaultSelector()
for port in map(int, sys.argv[1].split(",")):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port)); s.listen(64); s.setblocking(False); sel.register(s, selectors.EVENT_READ, "tcp")
for port in map(int, sys.argv[2].split(",")):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("0.0.0.0", port)); sel.register(u, selectors.EVENT_READ, "udp")
print("ready", flush=True)
held = []
while True:
    for key, _ in sel.select():
        if key.data == "tcp":
            conn, _ = key.fileobj.accept(); held.append(conn)
        else:
            data, peer = key.fileobj.recvfrom(512); key.fileobj.sendto(data, peer)
"""

# One probe per (source, protocol, port), from the client namespace; prints JSON {"src proto/port": verdict}.
_PROBE = """
import json, socket, sys
server, wait, probes = sys.argv[1], float(sys.argv[2]), json.loads(sys.argv[3])
out = {}
for source, proto, port in probes:
    key = f"{source} {proto}/{port}"
    if proto == "tcp":
        s = socket.socket(); s.settimeout(wait); s.bind((source, 0))
        try:
            s.connect((server, port)); out[key] = "open"
        except ConnectionRefusedError:
            out[key] = "reset"
        except (TimeoutError, socket.timeout):
            out[key] = "dropped"
        finally:
            s.close()
    else:
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(wait); u.bind((source, 0))
        u.sendto(b"probe", (server, port))
        try:
            u.recvfrom(512); out[key] = "open"
        except (TimeoutError, socket.timeout):
            out[key] = "dropped"
        except ConnectionRefusedError:
            out[key] = "reset"
        finally:
            u.close()
print(json.dumps(out))
"""


class Unavailable(RuntimeError):
    """This host cannot make network namespaces or has no nft."""


def ip(*args: str) -> None:
    subprocess.run([IP, *args], check=True, capture_output=True, timeout=30)


@dataclass
class Pair:
    """The server and client namespaces, and the client addresses made on the client's side."""

    server: str
    client: str
    sources: tuple[str, ...]
    link: str = ""  # the server's end of the veth, as its rules name the NIC (iifname)

    def probe(
        self, probes: Sequence[tuple[str, str, int]], wait: float = 1.5
    ) -> dict[tuple[str, str, int], str]:
        """The verdict of each (source, "tcp"|"udp", port)."""
        done = subprocess.run(
            [
                IP,
                "netns",
                "exec",
                self.client,
                sys.executable,
                "-c",
                _PROBE,
                SERVER,
                str(wait),
                json.dumps(probes),
            ],
            check=True,
            capture_output=True,
            text=True,
            timeout=60 + wait * len(probes),
        )
        found = json.loads(done.stdout)
        return {(s, p, n): found[f"{s} {p}/{n}"] for s, p, n in probes}

    def matrix(self, wait: float = 1.5) -> dict[str, dict[str, str]]:
        """source: {"tcp/443": verdict, ...} for every source and port the server listens on."""
        probes = [(s, "tcp", p) for s in self.sources for p in TCP_PORTS]
        probes += [(s, "udp", p) for s in self.sources for p in UDP_PORTS]
        found = self.probe(probes, wait)
        out: dict[str, dict[str, str]] = {s: {} for s in self.sources}
        for (source, proto, port), verdict in found.items():
            out[source][f"{proto}/{port}"] = verdict
        return out


def usable() -> str | None:
    """Why namespaces cannot be used here, or None."""
    if os.geteuid() != 0:
        return "needs root (network namespaces)"
    if not os.path.exists(NFT):
        return "needs nft (the nftables package: make setup)"
    if not os.path.exists(IP):
        return "needs iproute2"
    return None


@contextmanager
def pair(sources: Sequence[str]) -> Iterator[Pair]:
    """A server namespace listening on TCP_PORTS and UDP_PORTS, a client one holding ``sources``."""
    why = usable()
    if why is not None:
        raise Unavailable(why)
    tag = f"{os.getpid() % 100000}"
    server, client = f"arcfw-s{tag}", f"arcfw-c{tag}"
    veth_s, veth_c = f"arcfws{tag}", f"arcfwc{tag}"
    listener: subprocess.Popen[str] | None = None
    try:
        try:
            ip("netns", "add", server)
        except subprocess.CalledProcessError as exc:
            raise Unavailable(f"cannot make a network namespace: {exc.stderr.strip()}") from None
        ip("netns", "add", client)
        ip("link", "add", veth_s, "netns", server, "type", "veth", "peer", "name", veth_c, "netns", client)
        ip("-n", server, "addr", "add", f"{SERVER}/{PREFIX}", "dev", veth_s)
        for source in sources:
            ip("-n", client, "addr", "add", f"{source}/{PREFIX}", "dev", veth_c)
        for ns, dev in ((server, veth_s), (client, veth_c)):
            ip("-n", ns, "link", "set", dev, "up")
            ip("-n", ns, "link", "set", "lo", "up")
        listener = subprocess.Popen(
            [
                IP, "netns", "exec", server, sys.executable, "-c", _LISTENER,
                ",".join(map(str, TCP_PORTS)), ",".join(map(str, UDP_PORTS)),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        assert listener.stdout is not None
        if listener.stdout.readline().strip() != "ready":
            raise RuntimeError("the namespace's listeners did not start")
        time.sleep(0.2)
        yield Pair(server, client, tuple(sources), veth_s)
    finally:
        if listener is not None:
            listener.kill()
            listener.wait(timeout=30)
        for ns in (server, client):
            subprocess.run([IP, "netns", "delete", ns], capture_output=True, timeout=30)


class NftRunner:
    """A Runner that runs ``nft`` for real in the server namespace and hands every other argv to
    ``rest`` (none: an argv other than nft is a test failure)."""

    def __init__(self, namespace: str, rest: Runner | None = None) -> None:
        self.namespace = namespace
        self.rest = rest
        self.calls: list[list[str]] = []

    def execute(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Result:
        self.calls.append(list(argv))
        if argv[0] != "nft":
            if self.rest is None:
                raise AssertionError(f"unexpected command {list(argv)}")
            return self.rest.execute(argv, timeout=timeout, input_text=input_text)
        done = subprocess.run(
            [IP, "netns", "exec", self.namespace, NFT, *argv[1:]],
            input=input_text,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return Result(tuple(argv), done.returncode, done.stdout, done.stderr)
