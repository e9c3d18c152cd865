"""The upgrader's order and its rollback, on a release tree in a temporary folder.

compileall and the import check run for real with this interpreter (it stands for the image's venv
python); systemctl is the one thing recorded instead of run, and the api "comes up" only as a release
that is not in ``broken``, answering with the version ``current`` points at — as the real api does.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fixtures.upgrade_bundles import MODULES, manifest_for, payload, signed

from appliance.control.errors import CommandFailed
from appliance.control.gateway import Gateway, Result, SubprocessRunner
from appliance.upgrade import __main__ as cli
from appliance.upgrade import apply, bundle, release
from appliance.upgrade.errors import Incompatible, NotNewer, UpgradeFailed

KEY = Ed25519PrivateKey.generate()


class Lab:
    """A release tree, a database and a fake systemd whose api serves what ``current`` points at."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.paths = apply.Paths(
            root=tmp / "opt",
            data=tmp / "var",
            unit_dir=tmp / "units",
            sysusers=tmp / "sysusers.d" / "arcvsa.conf",
            key=tmp / "key.pub",
            apparmor=tmp / "apparmor.d" / "arcvsa-api",
            apparmor_parser=tmp / "apparmor_parser",  # present only where a test makes it
        )
        self.paths.key.write_text(bundle.public_key_text(KEY))
        self.paths.unit_dir.mkdir()
        (self.paths.root / "venv/bin").mkdir(parents=True)
        (self.paths.root / "venv/bin/python").symlink_to(sys.executable)
        first = payload(tmp / "p1.tar")
        release.install(self.paths.root, manifest_for(first, "v1", 1), first)
        release.switch(self.paths.root, "v1")
        self.paths.data.mkdir()
        with sqlite3.connect(self.paths.data / "arcvsa.db") as db:
            db.execute("CREATE TABLE t (v TEXT)")
            db.execute("INSERT INTO t VALUES ('before')")
        self.calls: list[list[str]] = []
        self.up = False
        self.broken: set[str] = set()

    def execute(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Result:
        """The Gateway's runner: every tool for real but systemctl, which this fake systemd answers."""
        if argv[0] == "systemd-sysusers":  # the users a release's units run as: made, not here
            self.calls.append([*argv, Path(argv[1]).read_text()])
            return Result(tuple(argv), 0, "", "")
        if argv[0] == str(self.paths.apparmor_parser):  # loads the profile into the kernel: recorded
            self.calls.append([*argv, Path(argv[-1]).read_text()])
            return Result(tuple(argv), 0, "", "")
        if argv[0] != "systemctl":
            return SubprocessRunner().execute(argv, timeout=timeout, input_text=input_text)
        if (
            argv[1] == "show"
        ):  # NRestarts: systemd restarts a broken release's api until the upgrader gives up
            current = release.current(self.paths.root)
            broken = self.up and current is not None and current.version in self.broken
            return Result(tuple(argv), 0, "3\n" if broken else "0\n", "")
        self.calls.append(list(argv))
        if argv[1] == "start":
            self.up = True
            version = release.current(self.paths.root).version  # type: ignore[union-attr]
            if version in self.broken:  # its migration fails half-way, then the unit keeps failing
                with sqlite3.connect(self.paths.data / "arcvsa.db") as db:
                    db.execute("INSERT INTO t VALUES ('half-migrated')")
        elif argv[1] == "stop":
            self.up = False
        return Result(tuple(argv), 0, "", "")

    def health(self) -> str | None:
        current = release.current(self.paths.root)
        if not self.up or current is None or current.version in self.broken:
            return None
        return current.version

    def stage(self, version: str, number: int, **kw: object) -> None:
        path = signed(self.tmp / f"{version}.upgrade", KEY, version, number, **kw)
        with path.open("rb") as source:
            bundle.verify(source, KEY.public_key(), self.paths.staged)

    def upgrade(self) -> apply.Upgrade:
        return apply.Upgrade(self.paths, gw=Gateway(self), health=self.health, timeout=5)

    def rows(self) -> list[str]:
        with sqlite3.connect(self.paths.data / "arcvsa.db") as db:
            return [r[0] for r in db.execute("SELECT v FROM t")]

    def state(self) -> dict[str, object]:
        return dict(json.loads(self.paths.state.read_text()))


@pytest.fixture
def lab(tmp_path: Path) -> Lab:
    return Lab(tmp_path)


def test_an_upgrade_switches_and_keeps_the_previous_release(lab: Lab) -> None:
    api_unit = "[Service]\nSlice=arcvsa.slice\nExecStart=/bin/v2\n"
    slice_unit = "[Slice]\nCPUWeight=10000\n"  # new in v2: installed before the unit naming it is started
    units = {"systemd/arcvsa-api.service": api_unit, "systemd/arcvsa.slice": slice_unit}
    lab.stage("v2", 2, files={**MODULES, **units})
    queued = {
        "state": "queued",
        "from_version": "v1",
        "to_version": "v2",
        "steps": [{"at": "t", "state": "queued"}],
    }
    lab.paths.state.write_text(json.dumps(queued))  # what the api writes before it starts the upgrader
    assert lab.upgrade().apply().version == "v2"
    assert release.current(lab.paths.root).version == "v2"  # type: ignore[union-attr]
    assert [m.version for m in release.installed(lab.paths.root)] == ["v2", "v1"]
    assert (lab.paths.unit_dir / "arcvsa-api.service").read_text() == api_unit
    assert (lab.paths.unit_dir / "arcvsa.slice").read_text() == slice_unit
    stop, reload, start = lab.calls
    assert stop == ["systemctl", "stop", "arcvsa-api.service"] and start[:2] == ["systemctl", "start"]
    assert reload == ["systemctl", "daemon-reload"]  # the unit changed
    state = lab.state()
    assert (state["state"], state["from_version"], state["to_version"]) == ("done", "v1", "v2")
    assert [s["state"] for s in state["steps"]] == ["queued", "verifying", "installing", "switching", "done"]  # type: ignore[union-attr]
    assert not (lab.paths.staged / "payload.tar").exists()
    assert lab.rows() == ["before"]


def test_a_release_that_does_not_come_up_is_rolled_back_with_its_database(lab: Lab) -> None:
    lab.stage("v2", 2)
    lab.broken.add("v2")
    with pytest.raises(UpgradeFailed, match=r"exited 3 times.*v1 serves again"):
        lab.upgrade().apply()
    assert release.current(lab.paths.root).version == "v1"  # type: ignore[union-attr]
    assert lab.health() == "v1"
    assert lab.rows() == ["before"]  # the half migration is gone with the copy put back
    assert [s["state"] for s in lab.state()["steps"]][-2:] == ["rolling_back", "rolled_back"]  # type: ignore[union-attr]


def test_a_release_that_cannot_import_is_refused_before_the_api_stops(lab: Lab) -> None:
    lab.stage("v2", 2, files={**MODULES, "lib/api/app.py": "raise SystemExit('broken build')\n"})
    with pytest.raises(CommandFailed, match="broken build"):
        lab.upgrade().apply()
    assert lab.calls == []  # the api was never stopped
    assert release.current(lab.paths.root).version == "v1"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("version", "number", "base", "error"),
    [("v0", 0 + 1, "b" * 64, NotNewer), ("v1", 5, "b" * 64, NotNewer), ("v2", 2, "c" * 64, Incompatible)],
)
def test_older_same_and_other_base_are_refused(
    lab: Lab, version: str, number: int, base: str, error: type
) -> None:
    lab.stage(version, number, base=base)
    if version == "v0":  # same release number as v1 but older: only a newer release number goes
        (lab.paths.root / "releases/v1/RELEASE.json").write_bytes(
            manifest_for(lab.tmp / "p1.tar", "v1", 2).to_json()
        )
    with pytest.raises(error):
        lab.upgrade().apply()
    assert lab.calls == []


def test_the_cli_records_a_refusal_and_prunes_a_failed_install(
    lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    lab.stage("v2", 2, files={**MODULES, "lib/appliance/upgrade/apply.py": "import nothing_here\n"})
    monkeypatch.setattr(cli, "Paths", lambda: lab.paths)
    assert cli.main(["apply"]) == 1
    assert lab.state()["state"] == "failed"
    assert [m.version for m in release.installed(lab.paths.root)] == ["v1"]


def test_a_database_copy_never_keeps_a_stale_write_ahead_log(tmp_path: Path) -> None:
    live, copy = tmp_path / "a.db", tmp_path / "b.db"
    with sqlite3.connect(live) as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE t (v)")
        db.execute("INSERT INTO t VALUES (1)")
    apply.backup(live, copy)
    (tmp_path / "b.db-wal").write_bytes(b"stale")
    apply.backup(live, copy)
    assert not (tmp_path / "b.db-wal").exists()
    with sqlite3.connect(copy) as db:
        assert db.execute("SELECT v FROM t").fetchall() == [(1,)]


def test_a_release_s_users_are_made_before_its_units_are_installed_and_started(lab: Lab) -> None:
    users = 'u arcvsa-api - "arcvsa api" /nonexistent /usr/sbin/nologin\n'
    api_unit = "[Service]\nUser=arcvsa-api\nExecStart=/bin/v2\n"
    lab.stage(
        "v2", 2, files={**MODULES, "systemd/arcvsa.sysusers": users, "systemd/arcvsa-api.service": api_unit}
    )
    assert lab.upgrade().apply().version == "v2"
    assert lab.paths.sysusers.read_text() == users
    assert [c[0] if c[0] == "systemd-sysusers" else " ".join(c[:2]) for c in lab.calls] == [
        "systemctl stop", "systemd-sysusers", "systemctl daemon-reload", "systemctl start",
    ]  # fmt: skip
    assert lab.calls[1] == ["systemd-sysusers", str(lab.paths.sysusers), users]


def test_a_release_without_users_leaves_the_installed_ones(lab: Lab) -> None:
    lab.paths.sysusers.parent.mkdir()
    lab.paths.sysusers.write_text("u arcvsa-api -\n")
    lab.stage("v2", 2)
    assert lab.upgrade().apply().version == "v2"
    assert lab.paths.sysusers.read_text() == "u arcvsa-api -\n"
    assert not any(c[0] == "systemd-sysusers" for c in lab.calls)


PROFILE = "profile arcvsa-api {\n  /var/lib/arcvsa/** rwk,\n}\n"


def test_a_release_s_apparmor_profile_is_loaded_before_the_api_that_names_it_starts(lab: Lab) -> None:
    lab.paths.apparmor_parser.touch()
    lab.stage("v2", 2, files={**MODULES, "systemd/arcvsa-api.apparmor": PROFILE})
    assert lab.upgrade().apply().version == "v2"
    assert lab.paths.apparmor.read_text() == PROFILE
    parser = str(lab.paths.apparmor_parser)
    assert [c[0] if c[0] == parser else " ".join(c[:2]) for c in lab.calls] == [
        "systemctl stop", parser, "systemctl daemon-reload", "systemctl start",
    ]  # fmt: skip
    assert lab.calls[1] == [parser, "--replace", str(lab.paths.apparmor), PROFILE]


def test_an_unchanged_apparmor_profile_is_not_loaded_again(lab: Lab) -> None:
    lab.paths.apparmor_parser.touch()
    lab.paths.apparmor.parent.mkdir()
    lab.paths.apparmor.write_text(PROFILE)
    lab.stage("v2", 2, files={**MODULES, "systemd/arcvsa-api.apparmor": PROFILE})
    assert lab.upgrade().apply().version == "v2"
    assert not any(c[0] == str(lab.paths.apparmor_parser) for c in lab.calls)


def test_without_apparmor_s_tools_the_profile_is_installed_for_the_next_boot(lab: Lab) -> None:
    lab.stage("v2", 2, files={**MODULES, "systemd/arcvsa-api.apparmor": PROFILE})
    assert lab.upgrade().apply().version == "v2"
    assert lab.paths.apparmor.read_text() == PROFILE
    assert [" ".join(c[:2]) for c in lab.calls] == [
        "systemctl stop",
        "systemctl daemon-reload",
        "systemctl start",
    ]


def test_a_release_without_a_profile_leaves_the_installed_one(lab: Lab) -> None:
    lab.paths.apparmor_parser.touch()
    lab.paths.apparmor.parent.mkdir()
    lab.paths.apparmor.write_text(PROFILE)
    lab.stage("v2", 2)
    assert lab.upgrade().apply().version == "v2"
    assert lab.paths.apparmor.read_text() == PROFILE
    assert not any(c[0] == str(lab.paths.apparmor_parser) for c in lab.calls)


def test_what_is_installed_is_the_bundle_checked_not_the_staged_files_after(lab: Lab) -> None:
    """The api stages the bundle and may write the staged files still: the upgrader checks and unpacks
    its own copy, and leaves none behind."""
    lab.stage("v2", 2)
    upgrade = lab.upgrade()
    new, _ = upgrade.check()
    (lab.paths.staged / "payload.tar").write_bytes(b"swapped after the check")
    folder = upgrade.prepare(new)
    assert (folder / "lib/api/app.py").read_text() == MODULES["lib/api/app.py"]
    lab.paths.staged.joinpath("payload.tar").unlink()
    lab.stage("v3", 3)
    assert lab.upgrade().apply().version == "v3"
    assert not lab.paths.taken.exists()


def test_a_release_is_readable_by_every_user_whatever_the_upgrader_s_umask(lab: Lab) -> None:
    """The api runs as its own user; the upgrader's unit has a umask of 0077."""
    lab.stage("v2", 2)
    upgrade = lab.upgrade()
    new, _ = upgrade.check()
    before = os.umask(0o077)
    try:
        folder = upgrade.prepare(new)
    finally:
        os.umask(before)
    found = [folder, *folder.rglob("*")]
    assert any(p.suffix == ".pyc" for p in found)  # compileall's, under the same umask
    assert [p for p in found if p.is_dir() and p.stat().st_mode & 0o555 != 0o555] == []
    assert [p for p in found if p.is_file() and p.stat().st_mode & 0o444 != 0o444] == []
