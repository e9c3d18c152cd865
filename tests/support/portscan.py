"""Which of the appliance's ports answer a client, through qemu's user-mode forwards.

A forward accepts the client's connection itself and then opens one to the guest: connect() succeeds
whatever the guest does. What tells is what follows. A port the guest refuses (the firewall's TCP
reset) has the forward close the client's connection at once: ``closed``. A port that lets the client
in either speaks first (SSH's banner) or waits for the client (TLS, RPC, iSCSI), and the connection
stays up: ``open``. ``WAIT`` bounds the wait for the close; the guest runs under emulation.

Run inside a network namespace (``ip netns exec``) for a client on another network: the probe is a
``python -c`` snippet so it needs nothing of this repository there.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

WAIT = 5.0
IP = shutil.which("ip") or "/usr/sbin/ip"

_PROBE = """
import json, socket, sys
wait, targets = float(sys.argv[1]), json.loads(sys.argv[2])
out = {}
for name, host, port in targets:
    s = socket.socket(); s.settimeout(wait)
    try:
        s.connect((host, port))
        out[name] = "open" if s.recv(64) else "closed"
    except (TimeoutError, socket.timeout):
        out[name] = "open"
    except (ConnectionResetError, ConnectionRefusedError, BrokenPipeError):
        out[name] = "closed"
    finally:
        s.close()
print(json.dumps(out))
"""


def scan(
    targets: dict[str, tuple[str, int]], namespace: str | None = None, wait: float = WAIT
) -> dict[str, str]:
    """name: "open" or "closed" for each (host, port), probed from this host or from ``namespace``."""
    listed = [[name, host, port] for name, (host, port) in sorted(targets.items())]
    argv = [sys.executable, "-c", _PROBE, str(wait), json.dumps(listed)]
    if namespace is not None:
        argv = [IP, "netns", "exec", namespace, *argv]
    done = subprocess.run(argv, check=True, capture_output=True, text=True, timeout=60 + wait * len(listed))
    found: dict[str, str] = json.loads(done.stdout)
    return found


def opened(found: dict[str, str]) -> list[str]:
    return sorted(name for name, verdict in found.items() if verdict == "open")
