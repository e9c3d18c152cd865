"""An appliance's api for the fleet tests: the real arcvsa app, served over TLS by uvicorn in a thread.

vcsim runs no guests, so this stands in for each appliance VM's api. Its storage gateway and files are
whatever the caller gives: the strict replay of a recording (tests/fixtures/appliance/replay.py) in the
tests, the lab VM's recording SSH runner when tests/fixtures/appliance/record.py records the fleet's calls.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType

import uvicorn
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding
from fixtures.appliance.replay import ReplayRunner, replay
from fixtures.upgrade_bundles import manifest_for, payload
from pydantic import SecretStr

from api import serving
from api.app import create_app
from api.state import poll
from api.tls import ensure_certificate
from appliance.control.files import Files
from appliance.control.gateway import Gateway, Runner
from appliance.control.observed import EVERY_PART
from appliance.upgrade import bundle, release
from lab.daemon import free_port
from provisioning.certificate import thumbprint_sha256
from support.api import make_settings


class ApplianceServer:
    """https://127.0.0.1:port with the api's own self-signed certificate (as first boot makes one)."""

    def __init__(
        self, folder: Path, gateway: Gateway, files: Files, admin_password: str, **settings_: object
    ) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        settings = make_settings(folder / "data", admin_password=SecretStr(admin_password), **settings_)
        self.app = create_app(settings)
        self.app.state.storage_gateway = gateway
        self.app.state.storage_files = files
        poll.after_change(self.app.state, EVERY_PART)  # as the api's start on an appliance does
        cert, key = ensure_certificate(settings.data_dir)
        self.thumbprint = thumbprint_sha256(
            x509.load_pem_x509_certificate(cert.read_bytes()).public_bytes(Encoding.DER)
        )
        self.port = free_port()
        self.endpoint = f"127.0.0.1:{self.port}"
        config = serving.config(
            self.app, "127.0.0.1", self.port, cert, key, log_level="warning", lifespan="off"
        )
        self.server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ApplianceServer:
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the appliance api did not start")
            time.sleep(0.02)
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.server.should_exit = True
        self._thread.join(timeout=10)


@contextlib.contextmanager
def replayed_appliances(
    folder: Path,
    count: int,
    scenario: str,
    password: str,
    wrap: Callable[[ReplayRunner], Runner] | None = None,
    settings: Callable[[int], dict[str, object]] | None = None,
) -> Iterator[list[tuple[ApplianceServer, ReplayRunner]]]:
    """`count` appliance apis, each on its own strict replay of `scenario` (and the runner, to look at).

    `wrap`: a Runner around the replay, for side effects a real appliance's commands have elsewhere.
    `settings`: the i-th appliance's settings beyond the test's defaults (its release tree, its etc).
    """
    with contextlib.ExitStack() as stack:
        out = []
        for i in range(count):
            gateway, files, runner = replay(scenario, folder / f"appliance-{i}" / "root")
            if wrap is not None:
                gateway = Gateway(wrap(runner))
            extra = settings(i) if settings is not None else {}
            server = stack.enter_context(
                ApplianceServer(folder / f"appliance-{i}", gateway, files, password, **extra)
            )
            out.append((server, runner))
        yield out


def release_trees(
    folder: Path, runs: list[tuple[str, int, Ed25519PrivateKey]]
) -> Callable[[int], dict[str, object]]:
    """`replayed_appliances`' settings for appliances that run a release: the i-th runs ``runs[i]``'s
    version (and release number) from a release tree of its own and trusts that key's upgrade bundles."""

    def settings(i: int) -> dict[str, object]:
        version, number, key = runs[i]
        root, etc = folder / f"opt-{i}", folder / f"etc-{i}"
        etc.mkdir(parents=True)
        (etc / "upgrade-signing.pub").write_text(bundle.public_key_text(key))
        pay = payload(folder / f"release-{i}-{version}.tar")
        release.install(root, manifest_for(pay, version, number), pay)
        release.switch(root, version)
        return {"install_root": root, "etc_dir": etc}

    return settings
