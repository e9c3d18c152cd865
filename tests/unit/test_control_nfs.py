"""NFS exports: one model, rendered for ganesha and knfsd; reconciled over DBus (recorded in the lab VM)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fixtures.appliance.replay import load, replay
from pydantic import ValidationError
from support.nfs_exports import HOST, export

from appliance.control import dbus
from appliance.control.errors import Conflict, InvalidName, ServiceDown
from appliance.control.files import STAGING, LocalFiles
from appliance.control.nfs import ganesha, knfsd
from appliance.control.nfs.model import Protocol, check_set

NAME_HAS_OWNER = [
    "busctl",
    "--system",
    "--json=short",
    "--timeout=30s",
    "call",
    "org.freedesktop.DBus",
    "/org/freedesktop/DBus",
    "org.freedesktop.DBus",
    "NameHasOwner",
    "s",
    "org.ganesha.nfsd",
]


def test_ganesha_export_gives_nothing_to_anyone_but_the_hosts() -> None:
    text = ganesha.render_export(export(clients=["10.0.0.11", "10.0.0.12"]))
    head, client = text.split("CLIENT {")
    assert "Access_Type = None;" in head and "Squash = Root_Squash;" in head
    assert "No_Root_Squash" not in head
    assert "Clients = 10.0.0.11, 10.0.0.12;" in client and "Access_Type = RW;" in client
    assert "Squash = No_Root_Squash;" in client
    assert "Protocols = 3;" in head and "Transports = TCP;" in head and "Name = VFS;" in head
    assert 'Path = "/tank/ds1";' in head and "Export_Id = 101;" in head
    assert "Protocols = 4;" in ganesha.render_export(export(protocol=Protocol.v41))


def test_ganesha_main_config_pins_ports_and_turns_udp_off() -> None:
    text = ganesha.render_main()
    for line in (
        "NFS_Port = 2049;",
        "MNT_Port = 20048;",
        "Enable_NLM = false;",
        "Enable_RQUOTA = false;",
        "Enable_UDP = false;",
    ):
        assert line in text
    assert "%dir /etc/ganesha/exports.d" in text and "Only_Numeric_Owners = true;" in text
    # creates are refused for the grace period after every start: a lease and some margin, not 90 s
    assert "Lease_Lifetime = 30;" in text and "Grace_Period = 40;" in text


def test_knfsd_line_lists_only_the_hosts() -> None:
    line = knfsd.render_export(export(clients=["10.0.0.11", "fe80::1"])).splitlines()[-1]
    assert line.startswith('"/tank/ds1" 10.0.0.11(rw,sync,no_root_squash,')
    assert "fe80::1(rw,sync,no_root_squash,no_subtree_check,sec=sys,fsid=101)" in line
    assert "*" not in line
    conf = knfsd.render_nfs_conf([export()])
    assert "vers3=y" in conf and "vers4.1=n" in conf and "vers2=n" in conf


def test_never_nfs3_and_41_for_the_same_datastore_and_hosts() -> None:
    with pytest.raises(Conflict, match=r"NFS 3 and 4\.1"):
        check_set([export(), export(export_id=102, protocol=Protocol.v41, clients=[HOST, "10.0.0.9"])])
    with pytest.raises(Conflict, match="export id"):
        check_set([export(), export(dataset="tank/ds2")])
    check_set([export(), export(export_id=102, protocol=Protocol.v41, clients=["10.0.0.9"])])


@pytest.mark.parametrize(
    "bad",
    [
        {"clients": ["*"]},
        {"clients": ["10.0.0.0/24"]},
        {"clients": ["10.0.0.1(rw)"]},
        {"clients": []},
        {"dataset": 'tank/ds1"; }'},
        {"dataset": "tank/../etc"},
        {"dataset": "tank"},
        {"export_id": 1},
    ],
)
def test_bad_exports_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises((InvalidName, ValidationError)):
        export(**bad)


def test_ganesha_reconcile_adds_keeps_updates_and_removes(tmp_path: Path) -> None:
    gw, files, runner = replay("ganesha", tmp_path)
    first = ganesha.reconcile(gw, files, [export()])
    assert first.added == [101] and not first.updated and first.restart_needed
    conf = files.read("/etc/ganesha/exports.d/arcvsa-101.conf")
    assert conf is not None and "Clients = 10.0.2.2;" in conf
    assert files.read(ganesha.MAIN_CONF) == ganesha.render_main()
    assert not ganesha.reconcile(gw, files, [export()]).changed
    wider = ganesha.reconcile(gw, files, [export(clients=[HOST, "10.0.2.15"])])
    assert wider.updated == [101]
    assert [
        "UpdateExport",
        "ss",
        "/etc/ganesha/exports.d/arcvsa-101.conf",
        "EXPORT(Export_Id=101)",
    ] in [c[-4:] for c in runner.calls]
    io = ganesha.io_stats(gw, 101, Protocol.v3)
    assert io.write_bytes >= 4 << 20 and io.read_bytes >= 4 << 20  # nfs-cp of 4 MiB there and back
    assert [e.export_id for e in ganesha.live(gw)] == [101]
    gone = ganesha.reconcile(gw, files, [])
    assert gone.removed == [101] and files.read("/etc/ganesha/exports.d/arcvsa-101.conf") is None


def test_a_leftover_from_a_cut_write_is_removed_and_the_stored_export_sent_again(tmp_path: Path) -> None:
    gw, files, runner = replay("ganesha", tmp_path)
    assert ganesha.reconcile(gw, files, [export()]).added == [101]
    # An older release wrote its temporary file beside the export: ganesha read it at its next start.
    leftover = tmp_path / "etc/ganesha/exports.d/.arcvsa-101.conf.k2j4"
    leftover.write_text(ganesha.render_export(export(clients=[HOST, "10.0.2.15"])))
    (tmp_path / "etc/ganesha/exports.d/.arcvsa-notes").write_text("")
    again = ganesha.reconcile(gw, files, [export()])
    assert again.updated == [101] and not again.added and not again.removed
    assert files.listdir(ganesha.EXPORTS_DIR) == ["arcvsa-101.conf"]
    assert runner.calls[-1][-4:] == [
        "UpdateExport",
        "ss",
        "/etc/ganesha/exports.d/arcvsa-101.conf",
        "EXPORT(Export_Id=101)",
    ]


def test_dbus_reply_parser_reads_show_exports() -> None:
    shows = [c for c in load("ganesha")["commands"] if "ShowExports" in c["argv"]]
    show = shows[-2]  # the last one before the export was removed
    reply = dbus.parse(show["stdout"])
    assert isinstance(reply[0], list) and len(reply[0]) == 2  # timestamp
    assert [row[:2] for row in reply[1]] == [[0, "/"], [101, "/tank/ds1"]]


def test_knfsd_reconcile(tmp_path: Path) -> None:
    gw, files, runner = replay("knfsd", tmp_path)
    wanted = export(export_id=102)
    assert knfsd.reconcile(gw, files, [wanted]).added == [102]
    assert not knfsd.reconcile(gw, files, [wanted]).changed
    assert runner.calls.count(["exportfs", "-ra"]) == 1
    exported = gw.run(["exportfs", "-s"]).stdout
    assert "/tank/ds1" in exported and "10.0.2.2(" in exported and "no_root_squash" in exported
    assert knfsd.reconcile(gw, files, []).removed == [102]


def test_local_files_write_only_when_changed(tmp_path: Path) -> None:
    files = LocalFiles(tmp_path)
    assert files.write("/etc/x.conf", "a\n") is True
    assert files.write("/etc/x.conf", "a\n") is False
    assert files.listdir("/etc") == ["x.conf"]
    assert files.listdir(STAGING) == []
    with pytest.raises(ValueError):
        files.read("/etc/../../outside")


def test_a_write_cut_before_its_rename_leaves_nothing_in_the_target_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = LocalFiles(tmp_path)
    files.write(ganesha.export_file(101), "old\n")
    staged: list[Path] = []

    def cut(source: Path, target: Path) -> None:
        staged.append(Path(source))
        raise KeyboardInterrupt  # the process dies between the fsync of the new file and the rename

    monkeypatch.setattr(os, "replace", cut)
    with pytest.raises(KeyboardInterrupt):
        files.write(ganesha.export_file(101), "new\n")
    assert staged[0].parent == tmp_path / STAGING.lstrip("/")
    assert files.listdir(ganesha.EXPORTS_DIR) == ["arcvsa-101.conf"]
    assert files.read(ganesha.export_file(101)) == "old\n"


def test_a_write_fsyncs_the_new_file_and_then_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[str] = []
    real_fsync = os.fsync

    def noting(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", noting)
    LocalFiles(tmp_path).write("/etc/modprobe.d/zfs.conf", "options zfs zfs_arc_max=1\n")
    folder = str(tmp_path / "etc/modprobe.d")
    assert len(synced) == 2 and synced[0].startswith(str(tmp_path / STAGING.lstrip("/")))
    assert synced[1] == folder


def test_ganesha_service_is_ordered_after_zfs_mounts_and_restarted_once(tmp_path: Path) -> None:
    gw, files, runner = replay("ganesha", tmp_path)
    assert ganesha.ensure_service(gw, files) is True
    drop_in = files.read(ganesha.DROP_IN)
    assert drop_in is not None and "After=zfs-mount.service" in drop_in
    assert runner.calls == [
        ["systemctl", "daemon-reload"],
        ["mkdir", "-p", ganesha.EXPORTS_DIR],
        ["systemctl", "restart", "nfs-ganesha"],
        NAME_HAS_OWNER,  # exports are added over DBus next: wait until ganesha is on the bus
    ]
    assert ganesha.ensure_service(gw, files) is False
    assert runner.calls[-1] == ["mkdir", "-p", ganesha.EXPORTS_DIR]


def test_an_older_releases_ganesha_config_is_replaced_without_a_restart(tmp_path: Path) -> None:
    # After an in-place upgrade: the running ganesha keeps serving and reads the new config when it next starts.
    gw, files, runner = replay("ganesha", tmp_path)
    files.write(ganesha.DROP_IN, ganesha.DROP_IN_TEXT)
    older = ganesha.render_main().replace("    Lease_Lifetime = 30;\n    Grace_Period = 40;\n", "")
    assert older != ganesha.render_main()
    files.write(ganesha.MAIN_CONF, older)
    assert ganesha.ensure_service(gw, files) is False
    assert files.read(ganesha.MAIN_CONF) == ganesha.render_main()
    assert runner.calls == [["mkdir", "-p", ganesha.EXPORTS_DIR]]


def test_the_packages_ganesha_config_is_replaced_and_ganesha_restarted(tmp_path: Path) -> None:
    gw, files, runner = replay("ganesha", tmp_path)
    files.write(ganesha.DROP_IN, ganesha.DROP_IN_TEXT)
    files.write(ganesha.MAIN_CONF, "EXPORT { Export_Id = 77; Path = /; }\n")
    assert ganesha.ensure_service(gw, files) is True
    assert runner.calls == [
        ["mkdir", "-p", ganesha.EXPORTS_DIR],
        ["systemctl", "restart", "nfs-ganesha"],
        NAME_HAS_OWNER,
    ]


class FakeClock:
    """time.monotonic and time.sleep for wait_on_bus: sleeping moves the clock, nothing else does."""

    def __init__(self) -> None:
        self.now = 0.0
        self.naps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.naps.append(seconds)
        self.now += seconds


def test_ganesha_is_polled_until_it_takes_its_bus_name(tmp_path: Path) -> None:
    """Recorded: NameHasOwner false while ganesha was stopped, true once it was started again."""
    gw, _files, runner = replay("knfsd", tmp_path)
    clock = FakeClock()
    ganesha.wait_on_bus(gw, 5.0, clock=clock.clock, sleep=clock.sleep)
    assert runner.calls.count(NAME_HAS_OWNER) == 2 and clock.naps == [0.25]


def test_ganesha_that_never_takes_its_bus_name_is_service_down(tmp_path: Path) -> None:
    """A start systemd calls done but no bus name (the reliability run's 503 on the DBus call) gets a
    typed error once the wait is over, before any export is sent into nothing."""
    gw, _files, runner = replay("knfsd", tmp_path)
    clock = FakeClock()
    with pytest.raises(ServiceDown, match=r"did not take org\.ganesha\.nfsd on the system bus in 0 s"):
        ganesha.wait_on_bus(gw, 0.0, clock=clock.clock, sleep=clock.sleep)
    assert runner.calls == [NAME_HAS_OWNER] and not clock.naps
