"""What root's processes (the control service, the upgrader, first boot) write into the api's folder stays
the api's: the api, as arcvsa-api, must read the published state and the keys, take the locks and put a
database copy back into use. Elsewhere (a folder of root's) root's files stay root's. Each writer is tried
on its own, as root, in a folder owned as /var/lib/arcvsa is on the appliance."""

from __future__ import annotations

import errno
import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

import pytest

from api.secretbox import SecretBox
from api.state import snapshot
from api.state.snapshot import Published, Store
from appliance.control import lock, ownership
from appliance.control.files import LocalFiles, write_temp
from appliance.control.observed import Observed
from appliance.firstboot.files import FileChange, write_atomic
from appliance.upgrade import state as upgrade_state
from appliance.upgrade.apply import backup

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="root's writes into another user's folder")

API = (65534, 65534)  # nobody: a user of the system that is not root


@pytest.fixture
def api_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "arcvsa"
    folder.mkdir(mode=0o750)
    os.chown(folder, *API)
    return folder


def owner(path: Path) -> tuple[int, int]:
    found = path.lstat()
    return found.st_uid, found.st_gid


def test_a_temporary_file_takes_its_folder_s_owner_and_not_elsewhere(
    api_folder: Path, tmp_path: Path
) -> None:
    assert owner(write_temp(api_folder, b"x", 0o600)) == API
    assert owner(write_temp(tmp_path, b"x", 0o600)) == (0, 0)


def test_a_config_file_written_into_etc_stays_root_s(tmp_path: Path) -> None:
    files = LocalFiles(tmp_path / "root")
    (tmp_path / "root/etc").mkdir(parents=True)
    assert files.write("/etc/x.conf", "x\n")
    assert owner(tmp_path / "root/etc/x.conf") == (0, 0)


def test_a_config_folder_root_makes_is_readable_by_the_api_under_the_service_s_umask(tmp_path: Path) -> None:
    """/etc/exports.d is not on the image: the control service (umask 0077) makes it with knfsd's first
    export, and the api reads the export files there to say which are served."""
    files = LocalFiles(tmp_path / "root")
    (tmp_path / "root/etc").mkdir(parents=True)
    old = os.umask(0o077)
    try:
        files.write("/etc/exports.d/deep/arcvsa-101.exports", "/tank/ds1 10.0.2.2(rw)\n")
    finally:
        os.umask(old)
    for folder in ("etc/exports.d", "etc/exports.d/deep"):
        assert (tmp_path / "root" / folder).stat().st_mode & 0o777 == 0o755, folder
    assert (tmp_path / "root/etc/exports.d/deep/arcvsa-101.exports").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "root/etc").stat().st_mode & 0o777 == 0o755  # a folder that was there is left


def test_a_lock_made_by_root_is_the_api_s_and_a_link_in_its_place_is_refused(
    api_folder: Path, tmp_path: Path
) -> None:
    with lock.held(api_folder / "exports.lock"):
        pass
    assert owner(api_folder / "exports.lock") == API
    victim = tmp_path / "shadow"
    victim.write_text("root's\n")
    (api_folder / "iscsi.lock").symlink_to(victim)
    with pytest.raises(OSError) as refused, lock.held(api_folder / "iscsi.lock"):
        pass
    assert refused.value.errno == errno.ELOOP
    assert owner(victim) == (0, 0) and victim.read_text() == "root's\n"


def test_a_lock_file_already_there_is_taken_as_it_is(api_folder: Path) -> None:
    """Only the open that makes a lock file gives it an owner: a lock is taken on every change."""
    path = api_folder / "pools.lock"
    path.touch(mode=0o600)
    os.chown(path, 1, 1)
    with lock.held(path):
        pass
    assert owner(path) == (1, 1)


def test_the_published_state_is_the_api_s_to_read(api_folder: Path) -> None:
    store = Store(api_folder / "state.json")
    with store.writing():
        store.write(Published(boot_id=snapshot.boot_id(), taken_at=datetime.now(UTC), observed=Observed()))
    assert owner(api_folder / "state.json") == API
    assert sorted(p.name for p in api_folder.iterdir()) == ["state.json", "state.lock"]


def test_a_secrets_key_root_made_is_the_api_s(api_folder: Path) -> None:
    SecretBox(api_folder / "secrets.key")
    assert owner(api_folder / "secrets.key") == API


def test_the_upgrader_s_state_and_its_folder_are_the_api_s(api_folder: Path) -> None:
    upgrade_state.save(api_folder / "upgrade" / "state.json", {"state": "queued"})
    assert owner(api_folder / "upgrade") == API and owner(api_folder / "upgrade" / "state.json") == API
    assert [p.name for p in (api_folder / "upgrade").iterdir()] == ["state.json"]


def test_a_database_copy_put_back_is_the_api_s_to_write(api_folder: Path, tmp_path: Path) -> None:
    root_s = tmp_path / "copy.db"
    with sqlite3.connect(root_s) as db:
        db.execute("CREATE TABLE t (v TEXT)")
    backup(root_s, api_folder / "arcvsa.db")
    assert owner(api_folder / "arcvsa.db") == API


def test_a_file_first_boot_adds_to_the_api_s_folder_is_the_api_s(api_folder: Path, tmp_path: Path) -> None:
    (tmp_path / "etc").mkdir()
    for path in (api_folder / "firstboot.json", tmp_path / "etc" / "hostname"):
        write_atomic(Path("/"), FileChange(PurePosixPath(path), b"{}\n", mode=0o600))
    assert owner(api_folder / "firstboot.json") == API
    assert owner(tmp_path / "etc" / "hostname") == (0, 0)


def test_the_reconciler_gives_back_what_was_left_root_s_and_follows_no_link(
    api_folder: Path, tmp_path: Path
) -> None:
    """What an older release's upgrader wrote after the api started, or a root shell's edit."""
    (api_folder / "upgrade").mkdir()
    os.chown(api_folder / "upgrade", *API)
    (api_folder / "upgrade" / "state.json").write_text("{}")  # root's, as an older upgrader leaves it
    (api_folder / "ours").mkdir()  # a folder of root's, with a file of root's
    (api_folder / "ours" / "x").write_text("x")
    victim = tmp_path / "shadow"
    victim.write_text("root's\n")
    (api_folder / "link").symlink_to(victim)
    given = ownership.reconcile(api_folder)
    assert sorted(given) == sorted(
        f"{name} given to the api (was 0:0)" for name in ("upgrade/state.json", "ours", "ours/x", "link")
    )
    assert all(owner(p) == API for p in api_folder.rglob("*"))
    assert owner(victim) == (0, 0)
    assert ownership.reconcile(api_folder) == []  # converged
    assert ownership.reconcile(tmp_path) == []  # a folder of root's is left as it is
    assert owner(victim) == (0, 0)


def test_a_folder_swapped_for_a_link_during_the_walk_leads_nowhere_outside(
    api_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The api owns its folder, so it may swap a folder for a link to elsewhere while the walk is inside
    it: what the walk does next must stay in the folder it listed."""
    (api_folder / "a").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("x", "y"):
        (api_folder / "a" / name).write_text("x")
        (outside / name).write_text("root's\n")
    real_chown = os.chown

    def chown_then_swap(path: str | Path, *args: object, **kwargs: object) -> None:
        real_chown(path, *args, **kwargs)  # type: ignore[arg-type]
        inside = str(path) in ("x", "y") or str(path).endswith(("/a/x", "/a/y"))
        if inside and not (api_folder / "a").is_symlink():
            (api_folder / "a").rename(api_folder / "a.old")
            (api_folder / "a").symlink_to(outside)

    monkeypatch.setattr(ownership.os, "chown", chown_then_swap)
    ownership.reconcile(api_folder)
    assert [owner(outside / name) for name in ("x", "y")] == [(0, 0), (0, 0)]
    assert [owner(api_folder / "a.old" / name) for name in ("x", "y")] == [API, API]
