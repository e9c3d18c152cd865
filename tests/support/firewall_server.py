"""The api with the firewall's commands working, serving the built web pages, for the browser's journey.

The rule set is loaded by the real nft into a network namespace (tests/support/netns.py), systemd is
tests/support/systemd_standin.py, and any other command fails the test (the stand-in refuses it). The
app runs in this process, so the test can look at what the kernel lets in once the browser is done.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import uvicorn
from pydantic import SecretStr

from api import serving
from api.app import create_app
from api.tls import ensure_certificate
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway
from lab.daemon import free_port
from support import netns
from support.api import make_settings
from support.systemd_standin import SystemdStandIn


@dataclass
class FirewallApi:
    url: str
    link: netns.Pair
    nft: netns.NftRunner
    systemd: SystemdStandIn

    def reaches(self, source: str, port: int) -> bool:
        """Whether ``source`` (one of the client namespace's addresses) connects to ``port``."""
        return self.link.probe([(source, "tcp", port)])[(source, "tcp", port)] == "open"


@contextlib.contextmanager
def firewall_api(
    folder: Path,
    web_dist: Path,
    admin_password: str,
    sources: tuple[str, ...],
    *,
    storage_network: bool = False,
) -> Iterator[FirewallApi]:
    """https://127.0.0.1:port with the web pages; ``sources`` are the addresses probes come from.
    ``storage_network``: first boot made the probes' link the storage NIC (appliance.json says so).

    Raises netns.Unavailable where namespaces cannot be made (not root, no nft)."""
    with netns.pair(sources) as link:
        if storage_network:
            etc = folder / "data" / "etc"
            etc.mkdir(parents=True, exist_ok=True)
            entry = {"interface": link.link, "address": f"{netns.SERVER}/{netns.PREFIX}", "mtu": 9000}
            (etc / "appliance.json").write_text(json.dumps({"storage_network": entry}), encoding="utf-8")
        files = LocalFiles(folder / "root")
        systemd = SystemdStandIn(files)
        nft = netns.NftRunner(link.server, rest=systemd)
        systemd.runner = nft
        settings = make_settings(folder / "data", admin_password=SecretStr(admin_password), web_dist=web_dist)
        app = create_app(settings)
        app.state.storage_gateway = Gateway(nft)
        app.state.storage_files = files
        cert, key = ensure_certificate(settings.data_dir)
        port = free_port()
        config = serving.config(app, "127.0.0.1", port, cert, key, log_level="warning", lifespan="off")
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            deadline = time.monotonic() + 30
            while not server.started:
                if not thread.is_alive() or time.monotonic() > deadline:
                    raise RuntimeError("the api did not start")
                time.sleep(0.02)
            yield FirewallApi(f"https://127.0.0.1:{port}", link, nft, systemd)
        finally:
            server.should_exit = True
            thread.join(timeout=10)
