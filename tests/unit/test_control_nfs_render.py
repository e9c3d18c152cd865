"""NFS renderers and reconcilers at their edges: the exact ganesha EXPORT block and knfsd exports line,
the files and DBus calls a reconcile makes (and leaves alone), the refusals typed, the counters read.

Commands and DBus answers replay what ganesha 6.5 and knfsd said in the lab VM; where a test needs an
answer the lab did not give (ganesha gone from the bus mid-call, a short write), it is the recorded one
with that one thing changed, and says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from fixtures.appliance.replay import ReplayRunner, UnrecordedCommand, load
from support.nfs_exports import HOST, export

from appliance.control.errors import AlreadyExists, BadOutput, CommandFailed, Conflict, NotFound, ServiceDown
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway, Result, translate
from appliance.control.nfs import ganesha, knfsd
from appliance.control.nfs.model import Protocol

EXPORT_101 = "/etc/ganesha/exports.d/arcvsa-101.conf"
HEADER = "# Written by arcvsa (appliance.control.nfs.ganesha); changes here are overwritten.\n"
KNFSD_HEADER = "# Written by arcvsa (appliance.control.nfs.knfsd); changes here are overwritten.\n"


class TimedReplay(ReplayRunner):
    """The recorded answers, also noting the timeout each command was given."""

    def __init__(self, recording: dict[str, Any]) -> None:
        super().__init__(recording)
        self.timeouts: list[float] = []

    def execute(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Result:
        self.timeouts.append(timeout)
        return super().execute(argv, timeout=timeout, input_text=input_text)


def changed(scenario: str, edit: Callable[[list[dict[str, Any]]], None]) -> TimedReplay:
    """A replay of ``scenario`` with its commands edited (one answer the lab did not give)."""
    recording = load(scenario)
    edit(recording["commands"])
    return TimedReplay(recording)


def entry(commands: list[dict[str, Any]], word: str) -> dict[str, Any]:
    return next(c for c in commands if any(word in a for a in c["argv"]))


def edit_reply(command: dict[str, Any], edit: Callable[[list[Any]], list[Any]]) -> None:
    """The recorded busctl reply of ``command`` with its values edited."""
    reply = json.loads(command["stdout"])
    reply["data"] = edit(reply["data"])
    command["stdout"] = json.dumps(reply, separators=(",", ":")) + "\n"


# --- ganesha: what is rendered -------------------------------------------------------------------


def test_ganesha_export_block_is_exactly_this() -> None:
    text = ganesha.render_export(export(clients=["10.0.0.11", "fe80::1"]))
    assert text == HEADER + (
        "EXPORT {\n"
        "    Export_Id = 101;\n"
        '    Path = "/tank/ds1";\n'
        '    Pseudo = "/tank/ds1";\n'
        "    Protocols = 3;\n"
        "    Transports = TCP;\n"
        "    SecType = sys;\n"
        "    Access_Type = None;\n"
        "    Squash = Root_Squash;\n"
        "    FSAL {\n"
        "        Name = VFS;\n"
        "    }\n"
        "    CLIENT {\n"
        "        Clients = 10.0.0.11, fe80::1;\n"
        "        Access_Type = RW;\n"
        "        Squash = No_Root_Squash;\n"
        "    }\n"
        "}\n"
    )
    v41 = ganesha.render_export(export(protocol=Protocol.v41, export_id=7000))
    assert "    Protocols = 4;\n" in v41 and "Protocols = 3" not in v41
    assert "    Export_Id = 7000;\n" in v41 and "        Clients = 10.0.2.2;\n" in v41


def test_ganesha_main_config_turns_v4_0_off_and_includes_the_exports() -> None:
    text = ganesha.render_main()
    assert text.startswith(HEADER)
    assert "    Protocols = 3, 4;\n" in text and "    Minor_Versions = 1, 2;\n" in text
    defaults = text.split("EXPORT_DEFAULTS {", 1)[1]
    assert "Access_Type = None;" in defaults and "Squash = Root_Squash;" in defaults
    assert text.endswith("}\n%dir /etc/ganesha/exports.d\n")


def test_ganesha_export_files_live_in_exports_d() -> None:
    assert ganesha.export_file(101) == EXPORT_101
    assert ganesha.export_file(65535) == "/etc/ganesha/exports.d/arcvsa-65535.conf"


# --- ganesha: the service ------------------------------------------------------------------------


def test_ganesha_restart_waits_up_to_two_minutes_and_writes_the_boot_ordering(tmp_path: Path) -> None:
    runner = TimedReplay(load("ganesha"))
    files = LocalFiles(tmp_path)
    assert ganesha.ensure_service(Gateway(runner), files) is True
    assert files.read("/etc/systemd/system/nfs-ganesha.service.d/arcvsa.conf") == (
        HEADER + "[Unit]\nAfter=zfs-mount.service\nWants=zfs-mount.service\n"
    )
    assert files.read("/etc/ganesha/ganesha.conf") == ganesha.render_main()
    restart = runner.calls.index(["systemctl", "restart", "nfs-ganesha"])
    assert runner.timeouts[restart] == 120


class StepClock:
    """time.monotonic answering the given readings in turn; time.sleep noting each nap."""

    def __init__(self, *readings: float) -> None:
        self.readings = list(readings)
        self.naps: list[float] = []

    def clock(self) -> float:
        return self.readings.pop(0)

    def sleep(self, seconds: float) -> None:
        self.naps.append(seconds)


def test_ganesha_start_is_waited_on_for_sixty_seconds_by_default(tmp_path: Path) -> None:
    # Recorded: NameHasOwner false (ganesha stopped), then true. A minute after the start it is too late.
    runner = TimedReplay(load("knfsd"))
    late = StepClock(0.0, 60.0)
    with pytest.raises(ServiceDown, match=r"org\.ganesha\.nfsd on the system bus in 60 s"):
        ganesha.wait_on_bus(Gateway(runner), clock=late.clock, sleep=late.sleep)
    runner = TimedReplay(load("knfsd"))
    in_time = StepClock(0.0, 59.9)
    ganesha.wait_on_bus(Gateway(runner), clock=in_time.clock, sleep=in_time.sleep)
    assert in_time.naps == [0.25]


def test_a_bus_answer_that_is_not_a_boolean_is_bad_output() -> None:
    def garble(commands: list[dict[str, Any]]) -> None:
        owner = entry(commands, "NameHasOwner")
        edit_reply(owner, lambda data: ["true"])

    with pytest.raises(BadOutput, match=r"NameHasOwner org\.ganesha\.nfsd: unexpected answer"):
        ganesha.on_bus(Gateway(changed("ganesha", garble)))


@pytest.mark.parametrize(
    ("stderr", "error"),
    [
        # what busctl printed in the lab VM (ganesha 6.5, dbus-daemon): an AddExport of a live id, a
        # RemoveExport of an unknown one, any call with ganesha stopped
        (
            "Call failed: Selected entries in /etc/ganesha/exports.d/arcvsa-101.conf already active!!!",
            AlreadyExists,
        ),
        ("Call failed: lookup_export failed with Export id not found", NotFound),
        ("Call failed: The name org.ganesha.nfsd was not provided by any .service files", ServiceDown),
        # the same refusals in other words (other ganesha releases; dbus-broker's ServiceUnknown)
        ("Call failed: export 101 already exists", AlreadyExists),
        ("Call failed: No export with id 7", NotFound),
        ("Call failed: The name is not activatable", ServiceDown),
    ],
)
def test_ganesha_refusals_are_typed(stderr: str, error: type[Exception]) -> None:
    assert type(translate(Result(("busctl",), 1, "", stderr + "\n"), ganesha.RULES)) is error


def test_only_a_dbus_service_file_message_means_ganesha_is_down() -> None:
    said = Result(("busctl",), 1, "", "Call failed: the name was not provided by any_service\n")
    assert type(translate(said, ganesha.RULES)) is CommandFailed


# --- ganesha: reconcile --------------------------------------------------------------------------


def test_reconcile_removes_only_its_own_stale_files(tmp_path: Path) -> None:
    runner = TimedReplay(load("ganesha"))
    files = LocalFiles(tmp_path)
    foreign = {
        "/etc/ganesha/exports.d/other-7.conf": "EXPORT { Export_Id = 7; }\n",
        "/etc/ganesha/exports.d/arcvsa-notes.conf": "# notes\n",
        "/etc/ganesha/exports.d/arcvsa-8.conf.bak": "# backup\n",
        "/etc/ganesha/exports.d/arcvsa-9.txt": "# text\n",
    }
    for path, text in foreign.items():
        files.write(path, text)
    files.write("/etc/ganesha/exports.d/arcvsa-7.conf", "# an export ganesha no longer serves\n")
    changes = ganesha.reconcile(Gateway(runner), files, [export()])
    assert changes.removed == [7] and changes.added == [101] and not changes.updated
    assert files.read("/etc/ganesha/exports.d/arcvsa-7.conf") is None
    assert all(files.read(path) == text for path, text in foreign.items())
    assert files.read(EXPORT_101) == ganesha.render_export(export())
    # 7 was not running: nothing to remove over DBus; 101 was added live
    assert [c[8] for c in runner.calls if c[0] == "busctl"] == ["ShowExports", "AddExport"]


def test_reconcile_adds_updates_and_removes_over_dbus(tmp_path: Path) -> None:
    runner = TimedReplay(load("ganesha"))
    gw, files = Gateway(runner), LocalFiles(tmp_path)
    ganesha.reconcile(gw, files, [export()])
    ganesha.reconcile(gw, files, [export()])
    ganesha.reconcile(gw, files, [export(clients=[HOST, "10.0.2.15"])])
    ganesha.live(gw)
    assert ganesha.reconcile(gw, files, []).removed == [101]
    managed = [c[7:] for c in runner.calls if c[0] == "busctl" and c[8] != "ShowExports"]
    assert managed == [
        ["org.ganesha.nfsd.exportmgr", "AddExport", "ss", EXPORT_101, "EXPORT(Export_Id=101)"],
        ["org.ganesha.nfsd.exportmgr", "UpdateExport", "ss", EXPORT_101, "EXPORT(Export_Id=101)"],
        ["org.ganesha.nfsd.exportmgr", "RemoveExport", "q", "101"],
    ]


def test_reconcile_refuses_a_bad_set_before_touching_anything(tmp_path: Path) -> None:
    runner = TimedReplay(load("ganesha"))
    files = LocalFiles(tmp_path)
    with pytest.raises(Conflict, match="export id"):
        ganesha.reconcile(Gateway(runner), files, [export(), export(dataset="tank/ds2")])
    with pytest.raises(Conflict, match="export id"):
        knfsd.reconcile(Gateway(runner), files, [export(), export(dataset="tank/ds2")])
    assert runner.calls == [] and files.listdir("/etc") == []


def test_changes_count_any_add_update_or_removal() -> None:
    assert not ganesha.Changes().changed and ganesha.Changes().restart_needed is False
    assert not ganesha.Changes(restart_needed=True).changed
    assert ganesha.Changes(added=[2]).changed
    assert ganesha.Changes(updated=[2]).changed
    assert ganesha.Changes(removed=[2]).changed


def test_live_leaves_out_the_pseudo_root_and_survives_a_reply_without_exports() -> None:
    shows = [c for c in load("ganesha")["commands"] if "ShowExports" in c["argv"]]
    assert [e.export_id for e in ganesha.live(Gateway(TimedReplay({"commands": shows[:1]})))] == []
    assert [(e.export_id, e.path) for e in ganesha.live(Gateway(TimedReplay({"commands": shows[1:2]})))] == [
        (101, "/tank/ds1")
    ]

    def timestamp_only(commands: list[dict[str, Any]]) -> None:
        edit_reply(entry(commands, "ShowExports"), lambda data: data[:1])

    assert ganesha.live(Gateway(changed("ganesha", timestamp_only))) == []

    def no_array(commands: list[dict[str, Any]]) -> None:
        edit_reply(entry(commands, "ShowExports"), lambda data: [data[0], "none"])

    assert ganesha.live(Gateway(changed("ganesha", no_array))) == []


# --- ganesha: counters ---------------------------------------------------------------------------


def test_export_counters_are_the_recorded_ones() -> None:
    io = ganesha.io_stats(Gateway(TimedReplay(load("ganesha"))), 101, Protocol.v3)
    assert io == ganesha.ExportIO(
        export_id=101,
        protocol="NFSv3",
        read_ops=4,
        read_bytes=4194304,
        write_ops=5,
        write_bytes=4194310,
        latency_ns=34703074 + 45397134,
    )


def test_export_counters_count_bytes_transferred_not_requested() -> None:
    # The recorded reply with a short write: 16 bytes asked for, 10 written.
    def short_write(commands: list[dict[str, Any]]) -> None:
        def written(data: list[Any]) -> list[Any]:
            data[4][:2] = [16, 10]  # write: requested, transferred
            return data

        edit_reply(entry(commands, "GetNFSv3IO"), written)

    io = ganesha.io_stats(Gateway(changed("ganesha", short_write)), 101, Protocol.v3)
    assert io.write_bytes == 10


def test_v41_counters_are_asked_of_the_v41_method() -> None:
    # The lab recorded NFSv3 counters only: the v4.1 call is the one the replay refuses.
    runner = TimedReplay(load("ganesha"))
    with pytest.raises(UnrecordedCommand):
        ganesha.io_stats(Gateway(runner), 101, Protocol.v41)
    assert runner.calls[-1][-4:] == ["org.ganesha.nfsd.exportstats", "GetNFSv41IO", "q", "101"]


@pytest.mark.parametrize(("protocol", "label"), [(Protocol.v3, "NFSv3"), (Protocol.v41, "NFSv41")])
def test_an_export_without_io_yet_counts_zero(protocol: Protocol, label: str) -> None:
    # ganesha answers false (no I/O of that version yet): the recorded reply with ok turned false.
    def no_io_yet(commands: list[dict[str, Any]]) -> None:
        stats = entry(commands, "GetNFSv3IO")
        stats["argv"][-3] = f"Get{label}IO"
        edit_reply(stats, lambda data: [False, *data[1:]])

    io = ganesha.io_stats(Gateway(changed("ganesha", no_io_yet)), 101, protocol)
    assert io == ganesha.ExportIO(
        export_id=101, protocol=label, read_ops=0, read_bytes=0, write_ops=0, write_bytes=0, latency_ns=0
    )


# --- knfsd ---------------------------------------------------------------------------------------


def test_knfsd_line_is_exactly_this() -> None:
    line = knfsd.render_export(export(clients=["10.0.0.11", "fe80::1"]))
    options = "rw,sync,no_root_squash,no_subtree_check,sec=sys,fsid=101"
    assert line == KNFSD_HEADER + f'"/tank/ds1" 10.0.0.11({options}) fe80::1({options})\n'
    nat = knfsd.render_export(export(insecure_ports=True))
    assert nat == KNFSD_HEADER + f'"/tank/ds1" 10.0.2.2({options},insecure)\n'
    assert knfsd.export_file(102) == "/etc/exports.d/arcvsa-102.exports"


@pytest.mark.parametrize(
    ("protocols", "v3", "v4"),
    [
        ([Protocol.v3], "y", "n"),
        ([Protocol.v41], "n", "y"),
        ([Protocol.v3, Protocol.v41], "y", "y"),
        ([], "n", "n"),
    ],
)
def test_knfsd_serves_only_the_versions_in_use(protocols: list[Protocol], v3: str, v4: str) -> None:
    exports = [
        export(export_id=200 + i, protocol=p, dataset=f"tank/ds{i}", path=f"/tank/ds{i}")
        for i, p in enumerate(protocols)
    ]
    assert knfsd.render_nfs_conf(exports) == KNFSD_HEADER + (
        f"[nfsd]\nvers2=n\nvers3={v3}\nvers4={v4}\nvers4.0=n\nvers4.1={v4}\nvers4.2=n\n"
        "[mountd]\nport=20048\n[lockd]\nport=32803\nudp-port=32803\n"
    )


def test_knfsd_reconcile_updates_and_removes_only_its_own_files(tmp_path: Path) -> None:
    runner = TimedReplay(load("knfsd"))
    gw, files = Gateway(runner), LocalFiles(tmp_path)
    foreign = {
        "/etc/exports.d/other.exports": '"/srv" 10.0.0.1(ro)\n',
        "/etc/exports.d/arcvsa-notes.exports": "# notes\n",
        "/etc/exports.d/arcvsa-8.conf": "# not an exports file\n",
        "/etc/exports.d/arcvsa-9.exports.bak": "# backup\n",
    }
    for path, text in foreign.items():
        files.write(path, text)
    files.write("/etc/exports.d/arcvsa-7.exports", '"/tank/old" 10.0.0.1(rw)\n')
    files.write("/etc/exports.d/arcvsa-102.exports", '"/tank/ds1" 10.0.0.1(rw)\n')  # an older line
    first = knfsd.reconcile(gw, files, [export(export_id=102)])
    assert first.removed == [7] and first.updated == [102] and not first.added and first.restart_needed
    assert files.read("/etc/exports.d/arcvsa-7.exports") is None
    assert all(files.read(path) == text for path, text in foreign.items())
    assert files.read("/etc/exports.d/arcvsa-102.exports") == knfsd.render_export(export(export_id=102))
    assert files.read("/etc/nfs.conf.d/arcvsa.conf") == knfsd.render_nfs_conf([export(export_id=102)])
    assert runner.calls == [["exportfs", "-ra"]] and runner.timeouts == [60]
    # the protocol lives in nfs.conf only: the line stays, nothing is re-exported, the server restarts
    v41 = knfsd.reconcile(gw, files, [export(export_id=102, protocol=Protocol.v41)])
    assert not v41.changed and v41.restart_needed and runner.calls == [["exportfs", "-ra"]]


def test_knfsd_converging_leaves_nfs_conf_to_the_api(tmp_path: Path) -> None:
    """A timer's reconcile (config false) writes the export lines, never nfs.conf: versions are a
    restart's, which only a change through the api may cost."""
    runner = TimedReplay(load("knfsd"))
    gw, files = Gateway(runner), LocalFiles(tmp_path)
    files.write(knfsd.NFS_CONF, "# an admin's own\n")
    done = knfsd.reconcile(gw, files, [export(export_id=102)], config=False)
    assert done.added == [102] and not done.restart_needed
    assert files.read(knfsd.NFS_CONF) == "# an admin's own\n"
    assert runner.calls == [["exportfs", "-ra"]]


def test_ganesha_converging_leaves_its_main_config_to_the_api(tmp_path: Path) -> None:
    runner = TimedReplay(load("ganesha"))
    files = LocalFiles(tmp_path)
    files.write(ganesha.MAIN_CONF, "# an admin's own\n")
    done = ganesha.reconcile(Gateway(runner), files, [export()], config=False)
    assert done.added == [101] and not done.restart_needed
    assert files.read(ganesha.MAIN_CONF) == "# an admin's own\n"
    assert files.read(EXPORT_101) == ganesha.render_export(export())


def test_knfsd_paths_are_read_from_its_own_files_only(tmp_path: Path) -> None:
    files = LocalFiles(tmp_path)
    files.write("/etc/exports.d/other.exports", '"/srv" 10.0.0.1(ro)\n')
    files.write("/etc/exports.d/arcvsa-5.conf", '"/tank/conf" 10.0.0.1(ro)\n')
    files.write("/etc/exports.d/arcvsa-x.exports", '"/tank/x" 10.0.0.1(ro)\n')
    files.write("/etc/exports.d/arcvsa-6.exports", "# no line\n")
    files.write("/etc/exports.d/arcvsa-102.exports", knfsd.render_export(export(export_id=102)))
    files.write("/etc/exports.d/arcvsa-103.exports", '# edited\n"/tank/a b" h1(rw)\n"/tank/second" h2(rw)\n')
    assert knfsd.exported_paths(files) == {102: "/tank/ds1", 103: "/tank/a b"}


def _rpc_stats(io: str = "io 1000 2000\n", proc4ops: int = 76) -> str:
    """/proc/net/rpc/nfsd as the lab recorded it, with a distinct count for every operation."""
    proc3 = " ".join(str(300 + i) for i in range(22))
    ops4 = " ".join(str(4000 + i) for i in range(proc4ops))
    return f"rc 0 3 6\nfh 0 0 0 0 0\n{io}net 9 0 9 1\nproc3 22 {proc3}\nproc4 2 0 0\nproc4ops {proc4ops} {ops4}\n"


def test_knfsd_counters_add_nfs3_and_nfs4_reads_and_writes(tmp_path: Path) -> None:
    assert knfsd.parse_rpc_stats(_rpc_stats()) == knfsd.ServerIO(
        read_ops=306 + 4025, read_bytes=1000, write_ops=307 + 4038, write_bytes=2000
    )
    # an older kernel listing fewer NFSv4 operations: the missing ones count 0
    assert knfsd.parse_rpc_stats(_rpc_stats(proc4ops=38)).write_ops == 307
    assert knfsd.parse_rpc_stats(_rpc_stats(proc4ops=39)).write_ops == 307 + 4038
    assert knfsd.parse_rpc_stats(_rpc_stats(proc4ops=25)).read_ops == 306
    files = LocalFiles(tmp_path)
    assert knfsd.server_io(files) is None
    files.write("/proc/net/rpc/nfsd", _rpc_stats())
    assert knfsd.server_io(files) == knfsd.parse_rpc_stats(_rpc_stats())


@pytest.mark.parametrize("io", ["", "io\n", "io 1000\n", "io x 2000\n", "io 1000 x\n"])
def test_knfsd_counters_without_a_whole_io_line_are_bad_output(io: str) -> None:
    with pytest.raises(BadOutput, match=r"/proc/net/rpc/nfsd: no io line"):
        knfsd.parse_rpc_stats(_rpc_stats(io=io))
