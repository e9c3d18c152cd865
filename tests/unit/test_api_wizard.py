"""/api/wizard/offers: the OVAs in the configured folder and the demo's stand-in file, read as they are."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from support.api import client_for, logged_in, make_settings

from lab.demo import stand_in_of
from lab.state import DaemonState, LabState, LunState

GIB = 1 << 30


def offers(tmp_path: Path, **settings: Any) -> dict[str, Any]:
    with client_for(make_settings(tmp_path / "data", **settings)) as anon:
        r = logged_in(anon).get("/api/wizard/offers")
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def stand_in(**change: Any) -> dict[str, Any]:
    entry = {
        "name": "the demo's lab appliance",
        "endpoint": "127.0.0.1:10443",
        "disks": [
            {"guest_path": "/dev/disk/by-id/virtio-lun0", "role": "data", "size_bytes": 2 * GIB},
            {"guest_path": "/dev/disk/by-id/virtio-ssd-slog", "role": "log", "size_bytes": 2 * GIB},
        ],
    }
    entry.update(change)
    return entry


def test_offers_need_a_login(anon: Any) -> None:
    assert anon.get("/api/wizard/offers").status_code == 401


def test_nothing_configured_offers_nothing(tmp_path: Path) -> None:
    assert offers(tmp_path) == {
        "ovas": [],
        "stand_ins": [],
        "stand_ins_pending": False,
        "stand_ins_refused": None,
    }


def test_ovas_newest_first_and_only_ova_files(tmp_path: Path) -> None:
    folder = tmp_path / "dist"
    folder.mkdir()
    for name, mtime in (("arcvsa-old.ova", 1_000), ("arcvsa-new.ova", 3_000), ("arcvsa-mid.ova", 2_000)):
        (folder / name).write_bytes(b"x" * 10)
        os.utime(folder / name, (mtime, mtime))
    (folder / "notes.txt").write_text("not an OVA")
    (folder / "dir.ova").mkdir()  # a folder named like one is no file to deploy
    found = offers(tmp_path, ova_dir=folder)["ovas"]
    assert [o["name"] for o in found] == ["arcvsa-new.ova", "arcvsa-mid.ova", "arcvsa-old.ova"]
    assert found[0]["path"] == str(folder / "arcvsa-new.ova")
    assert found[0]["size_bytes"] == 10


def test_a_missing_ova_folder_offers_none(tmp_path: Path) -> None:
    assert offers(tmp_path, ova_dir=tmp_path / "absent")["ovas"] == []


def test_a_stand_in_file_not_written_yet_is_pending(tmp_path: Path) -> None:
    body = offers(tmp_path, stand_in_file=tmp_path / "stand-in.json")
    assert body["stand_ins"] == [] and body["stand_ins_pending"] is True and body["stand_ins_refused"] is None


def test_the_stand_in_file_is_offered_as_written(tmp_path: Path) -> None:
    path = tmp_path / "stand-in.json"
    path.write_text(json.dumps({"stand_ins": [stand_in()]}))
    body = offers(tmp_path, stand_in_file=path)
    assert body["stand_ins"] == [stand_in()] and body["stand_ins_pending"] is False


@pytest.mark.parametrize(
    ("entry", "where"),
    [
        (stand_in(endpoint="127.0.0.1"), "endpoint"),  # no port
        (stand_in(endpoint="127.0.0.1:443;x"), "endpoint"),
        (stand_in(disks=[]), "disks"),
        (stand_in(disks=[{"guest_path": "/dev/sdb", "role": "data", "size_bytes": GIB}]), "guest_path"),
        (
            stand_in(disks=[{"guest_path": "/dev/disk/by-id/virtio-a b", "role": "data", "size_bytes": GIB}]),
            "guest_path",
        ),
        (stand_in(disks=[{"guest_path": "/dev/disk/by-id/x", "role": "spare", "size_bytes": GIB}]), "role"),
        (
            stand_in(disks=[{"guest_path": "/dev/disk/by-id/x", "role": "data", "size_bytes": 0}]),
            "size_bytes",
        ),
        (stand_in(extra="x"), "extra"),
    ],
)
def test_a_file_that_is_not_a_stand_in_file_is_refused_with_where(
    tmp_path: Path, entry: dict[str, Any], where: str
) -> None:
    path = tmp_path / "stand-in.json"
    path.write_text(json.dumps({"stand_ins": [entry]}))
    body = offers(tmp_path, stand_in_file=path)
    assert body["stand_ins"] == [] and body["stand_ins_pending"] is False
    assert body["stand_ins_refused"].startswith("stand-in.json is not a stand-in file")
    assert where in body["stand_ins_refused"]


def test_a_half_written_stand_in_file_is_refused_not_pending(tmp_path: Path) -> None:
    path = tmp_path / "stand-in.json"
    path.write_text('{"stand_ins": [')
    body = offers(tmp_path, stand_in_file=path)
    assert body["stand_ins_refused"] and body["stand_ins_pending"] is False


def test_the_demo_offers_its_lab_appliance_luns_then_its_ssds(tmp_path: Path) -> None:
    proc = DaemonState(pid=1, marker="m")
    saved = LabState(
        directory=str(tmp_path), image="i", ssh_key="k", san=proc, vm=proc, san_socket="s", san_qmp="q",
        vm_qmp="v", console="c", host_ports={"https": 10443, "ssh": 10022},
        luns=[LunState(name=f"lun{i}", path=f"/l{i}", size_bytes=(i + 1) * GIB) for i in range(2)],
    )  # fmt: skip
    written = stand_in_of(saved).stand_ins
    assert len(written) == 1
    assert written[0].endpoint == "127.0.0.1:10443"
    assert [(d.guest_path, d.role, d.size_bytes) for d in written[0].disks] == [
        ("/dev/disk/by-id/virtio-lun0", "data", GIB),
        ("/dev/disk/by-id/virtio-lun1", "data", 2 * GIB),
        ("/dev/disk/by-id/virtio-ssd-slog", "log", 2 * GIB),
        ("/dev/disk/by-id/virtio-ssd-l2arc", "cache", 2 * GIB),
    ]
