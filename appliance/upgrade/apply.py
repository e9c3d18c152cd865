"""Apply a staged upgrade on the appliance, or roll back to the release that ran before.

Runs as its own transient unit (``systemd-run``, started by the api), because it stops and starts the
api. The order keeps the appliance serving and the database whole:

1. check the staged bundle again (signature, payload hash), that it is newer and fits this base system;
2. unpack it beside the running release, byte-compile it, import its entry modules with the image's
   Python: a release that cannot load is refused while the old api still serves;
3. stop the api, copy the database (SQLite's backup api), install the new units, switch ``current``,
   start the api: its start runs the database migrations;
4. wait until ``/api/health`` answers ok with the new version.

If 3 or 4 fails, the api is stopped, the database copy put back, ``current`` and the units switched back
and the old api started and waited for. NFS and iSCSI are served by ganesha/knfsd and LIO, which the
upgrade never touches: clients see no outage. Every step is written to ``state.json`` as it happens.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import sqlite3
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from appliance.control.files import owned_like_folder
from appliance.control.gateway import Gateway
from appliance.upgrade import bundle, release
from appliance.upgrade import state as state_json
from appliance.upgrade.bundle import Manifest
from appliance.upgrade.errors import UpgradeError, UpgradeFailed

API_UNIT = "arcvsa-api.service"
# The slice first: the api's unit names it.
UNITS = (
    "arcvsa.slice",
    "arcvsa-api.service",
    "arcvsa-metrics.service",
    "arcvsa-firstboot.service",
    "arcvsa-console.service",
)
UNIT_DIR = Path("/etc/systemd/system")
# The users the units run as (systemd-sysusers' format), made before a unit naming one is started.
SYSUSERS = "arcvsa.sysusers"
SYSUSERS_FILE = Path("/etc/sysusers.d/arcvsa.conf")
# The api's AppArmor profile, which its unit names: loaded before the unit that names it is started.
APPARMOR = "arcvsa-api.apparmor"
APPARMOR_FILE = Path("/etc/apparmor.d/arcvsa-api")
APPARMOR_PARSER = Path("/usr/sbin/apparmor_parser")
HEALTH_URL = "https://127.0.0.1:443/api/health"
# The api's first start after a switch migrates the database and imports everything, on a slow CPU too.
HEALTH_TIMEOUT = 600.0
ENTRY_MODULES = "import api.app, appliance.firstboot.cli, appliance.upgrade.apply"

# compileall of a whole release's lib on a slow CPU; systemctl's start and stop wait for the unit.
TOOL_TIMEOUT = 900.0
Health = Callable[[], str | None]
# A release whose api exits this many times after its start is not waited for until the timeout.
MAX_RESTARTS = 2


def health_version() -> str | None:
    """The version /api/health reports when its status is ok; None while the api is not up.

    The certificate is the appliance's own (first boot made it) and this is loopback: not verified.
    """
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(HEALTH_URL, timeout=10, context=context) as answer:
            body = json.load(answer)
    except (OSError, urllib.error.URLError, ValueError):
        return None
    return str(body.get("version")) if body.get("status") == "ok" else None


@dataclass
class Paths:
    """Where the upgrader reads and writes; tests put all of it under a temporary folder."""

    root: Path = release.ROOT
    data: Path = Path("/var/lib/arcvsa")
    unit_dir: Path = UNIT_DIR
    sysusers: Path = SYSUSERS_FILE
    apparmor: Path = APPARMOR_FILE
    apparmor_parser: Path = APPARMOR_PARSER
    key: Path = Path("/etc/arcvsa/upgrade-signing.pub")

    @property
    def work(self) -> Path:
        return self.data / "upgrade"

    @property
    def staged(self) -> Path:
        return self.work / "staged"

    @property
    def taken(self) -> Path:
        """Root's copy of the staged bundle, checked and unpacked from there: the api, which staged it,
        may write the staged files still, and what was checked must be what is installed."""
        return self.root / ".upgrade"

    @property
    def state(self) -> Path:
        return self.work / state_json.FILE

    @property
    def python(self) -> Path:
        return self.root / "venv" / "bin" / "python"


@dataclass
class Upgrade:
    """One run of the upgrader; ``state.json`` mirrors it."""

    paths: Paths
    gw: Gateway = field(default_factory=lambda: Gateway(timeout=TOOL_TIMEOUT))
    health: Health = health_version
    timeout: float = HEALTH_TIMEOUT
    state: dict[str, object] = field(default_factory=dict)

    def note(self, state: str, **extra: object) -> None:
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        steps = self.state.setdefault("steps", [])
        assert isinstance(steps, list)
        steps.append({"at": now, "state": state})
        self.state.update(state=state, updated=now, **extra)
        state_json.save(self.paths.state, self.state)

    def check(self) -> tuple[Manifest, Manifest]:
        """The staged bundle, verified, against the running release."""
        key = bundle.load_public_key(self.paths.key.read_text(encoding="ascii"))
        new = bundle.verify_staged(self.take(), key)
        old = release.current(self.paths.root)
        if old is None:
            raise UpgradeError(f"{self.paths.root}/current has no readable {release.RELEASE_FILE}")
        release.check_fits(new, old)
        return new, old

    def take(self) -> Path:
        """Copy the staged bundle to :attr:`Paths.taken` (root's alone)."""
        taken = self.paths.taken
        shutil.rmtree(taken, ignore_errors=True)
        taken.mkdir(mode=0o700, parents=True)
        for name in bundle.MEMBERS:
            try:
                shutil.copyfile(self.paths.staged / name, taken / name)
            except FileNotFoundError:
                break  # verify_staged names what is missing
        return taken

    def prepare(self, new: Manifest) -> Path:
        """Unpack, byte-compile and import the new release while the old one serves."""
        folder = release.install(self.paths.root, new, self.paths.taken / "payload.tar")
        python = str(self.paths.python)
        self.gw.run([python, "-m", "compileall", "-q", "-j", "0", str(folder / "lib")])
        release.readable(folder)
        # PYTHONPATH replaces the upgrader's own (the running release's lib); -P: the working folder is
        # not put first on sys.path either, so only the new release's code is imported.
        self.gw.run(["env", f"PYTHONPATH={folder / 'lib'}", python, "-P", "-c", ENTRY_MODULES])
        return folder

    def units(self, version: str) -> None:
        """Install release ``version``'s users and unit files; reload systemd when a unit changed.

        The users first: a unit naming a user that does not exist fails to start. A release without
        the file leaves the installed one (and its users, who own files) in place."""
        source = release.releases(self.paths.root) / version / "systemd"
        users = source / SYSUSERS
        if users.is_file():
            self.paths.sysusers.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(users, self.paths.sysusers)
            self.gw.run(["systemd-sysusers", str(self.paths.sysusers)])
        self.profile(source / APPARMOR)
        changed = False
        for name in UNITS:
            new, target = source / name, self.paths.unit_dir / name
            if new.is_file() and (not target.is_file() or target.read_bytes() != new.read_bytes()):
                shutil.copyfile(new, target)
                changed = True
        if changed:
            self.gw.run(["systemctl", "daemon-reload"])

    def profile(self, new: Path) -> None:
        """Install and load a release's AppArmor profile of the api when it changed.

        A release without one (a rollback to an older one) leaves the loaded profile: its unit names
        none, so it is unused. Without AppArmor's tools (an appliance built before it had them) the file
        is installed for the next boot's loader and the unit, which names the profile as optional, runs
        unconfined until then."""
        target = self.paths.apparmor
        if not new.is_file() or (target.is_file() and target.read_bytes() == new.read_bytes()):
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(new, target)
        if self.paths.apparmor_parser.is_file():
            self.gw.run([str(self.paths.apparmor_parser), "--replace", str(target)])

    def start(self, version: str) -> None:
        """Switch to ``version``, start the api and wait until it serves as that version."""
        self.units(version)
        release.switch(self.paths.root, version)
        self.gw.run(["systemctl", "start", API_UNIT])
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.health() == version:
                return
            if (restarts := self.restarts()) >= MAX_RESTARTS:
                raise UpgradeFailed(f"the api of {version} exited {restarts} times after its start")
            time.sleep(2)
        raise UpgradeFailed(f"the api did not answer as {version} within {self.timeout:.0f} s")

    def restarts(self) -> int:
        """How often systemd has restarted the api since its unit was last started."""
        said = self.gw.run(["systemctl", "show", "--property=NRestarts", "--value", API_UNIT]).stdout.strip()
        return int(said) if said.isdigit() else 0

    def database(self) -> tuple[Path, Path]:
        live = self.paths.data / "arcvsa.db"
        return live, self.paths.work / "arcvsa.before-upgrade.db"

    def apply(self) -> Manifest:
        """The whole upgrade; returns the release now running. Raises after a rollback."""
        try:
            return self._apply()
        finally:
            shutil.rmtree(self.paths.taken, ignore_errors=True)

    def _apply(self) -> Manifest:
        self.state = state_json.queued(self.paths.state)
        self.note("verifying")
        new, old = self.check()
        self.state.update(from_version=old.version, to_version=new.version)
        self.note("installing")
        self.prepare(new)
        self.note("switching")
        self.gw.run(["systemctl", "stop", API_UNIT])
        live, copy = self.database()
        backup(live, copy)
        try:
            self.start(new.version)
        except Exception as err:
            self.note("rolling_back", error=str(err))
            try:
                self.rollback(old.version, live, copy)
            except Exception as again:
                raise UpgradeError(
                    f"{new.version} did not come up ({err}) and the rollback failed: {again}"
                ) from None
            self.note("rolled_back")
            raise UpgradeFailed(
                f"{new.version} did not come up ({err}); {old.version} serves again"
            ) from None
        self.note("done")
        release.prune(self.paths.root, {new.version, old.version})
        bundle.unstage(self.paths.staged)
        return new

    def rollback(self, version: str, live: Path, copy: Path) -> None:
        self.gw.run(["systemctl", "stop", API_UNIT])
        backup(copy, live)
        self.start(version)


def backup(source: Path, target: Path) -> None:
    """Copy a SQLite database consistently (its journal included) with SQLite's own backup api."""
    if not source.is_file():
        return
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    src, dst = sqlite3.connect(source), sqlite3.connect(partial)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()
    owned_like_folder(partial, partial.parent)  # the api's database again when it is put back
    # The api is stopped: a write-ahead log left beside the target belongs to the file it replaces.
    for suffix in ("-wal", "-shm", "-journal"):
        target.with_name(target.name + suffix).unlink(missing_ok=True)
    os.replace(partial, target)
