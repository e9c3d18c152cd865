"""A network namespace joined to the host by a veth pair: a client on a network of its own.

The lab's security tests stand a stranger or an ESXi storage port in it; qemu's user-mode forwards bound
to the host's end reach the guest, which sees the namespace's own address. Needs root and iproute2.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

IP = shutil.which("ip") or "/usr/sbin/ip"


def ip(*args: str, check: bool = True) -> None:
    """iproute2 on the host."""
    subprocess.run([IP, *args], check=check, capture_output=True, timeout=30)


@contextmanager
def namespace_link(
    namespace: str, host_end: str, namespace_end: str, host_side: str, namespace_side: str, prefix: int = 30
) -> Iterator[None]:
    """The namespace with ``namespace_side`` on its end of the pair and ``host_side`` on the host's, both
    up; whatever a failed run left of either is removed first, and both go afterwards."""
    ip("netns", "delete", namespace, check=False)
    ip("link", "delete", host_end, check=False)
    ip("netns", "add", namespace)
    try:
        ip("link", "add", host_end, "type", "veth", "peer", "name", namespace_end)
        ip("link", "set", namespace_end, "netns", namespace)
        ip("addr", "add", f"{host_side}/{prefix}", "dev", host_end)
        ip("link", "set", host_end, "up")
        ip(
            "netns",
            "exec",
            namespace,
            "ip",
            "addr",
            "add",
            f"{namespace_side}/{prefix}",
            "dev",
            namespace_end,
        )
        ip("netns", "exec", namespace, "ip", "link", "set", namespace_end, "up")
        ip("netns", "exec", namespace, "ip", "link", "set", "lo", "up")
        yield
    finally:
        ip("netns", "delete", namespace, check=False)
        ip("link", "delete", host_end, check=False)


def free_port_on(address: str) -> int:
    """A TCP port free on ``address`` now (for a forward bound to the host's end)."""
    with socket.socket() as s:
        s.bind((address, 0))
        port: int = s.getsockname()[1]
        return port
