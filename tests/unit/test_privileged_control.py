"""The api's calls to the control service over a real Unix socket (api.privileged): a storage change is
answered with the verb's value or its typed error as if it ran in the api; what is not a call of the
fixed set, or comes from a user not allowed, is refused; a service that is down, dies or stalls is a
typed fault, never a hang. The tools are the lab VM's recording 'zfs_clones', replayed strictly."""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance import fleet_flows
from fixtures.appliance.replay import ReplayRunner, replay
from support.api import client_for, logged_in, make_settings

from api import errors
from api.auth import principals
from api.backup.service import RestoreRefused
from api.iscsi import changes as iscsi
from api.iscsi.schemas import TargetCreate
from api.metrics import sampler
from api.privileged import service, verbs, wire
from api.privileged.client import InProcess, OverSocket
from api.privileged.host import Host
from api.privileged.service import Server
from api.storage import changes
from appliance.control import errors as ctl
from appliance.control.iscsi import Chap

CLONE = f"{fleet_flows.DATASET}/{fleet_flows.DESKTOPS[0]}"


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A socket's path must fit in 108 bytes; pytest's tmp_path need not."""
    folder = Path(tempfile.mkdtemp(prefix="ctl", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def appliance(tmp_path: Path, short_dir: Path) -> Iterator[tuple[TestClient, ReplayRunner, Path]]:
    """The api asking a control service on a socket; the service runs the verbs on the recording."""
    sock = short_dir / "control.sock"
    client = logged_in(client_for(make_settings(tmp_path / "data", control_socket=sock)))
    gateway, files, runner = replay("zfs_clones", tmp_path / "root")
    client.app.state.storage_gateway = gateway
    client.app.state.storage_files = files
    server = Server(sock, Host.of(client.app.state), frozenset({os.geteuid()})).start()
    yield client, runner, sock
    server.close()


def test_a_change_goes_over_the_socket_and_its_typed_error_comes_back(
    appliance: tuple[TestClient, ReplayRunner, Path],
) -> None:
    client, runner, _ = appliance
    r = client.delete(f"/api/storage/datasets/{CLONE}")
    assert r.status_code == 204, r.text
    assert runner.calls[0] == ["zfs", "destroy", CLONE]
    r = client.delete(f"/api/storage/datasets/{CLONE}")  # zfs: no such dataset, as the recording says
    assert (r.status_code, r.json()["code"]) == (404, "not_found"), r.text
    assert "does not exist" in r.json()["detail"], r.text


def test_an_error_without_a_type_is_a_fault_the_service_logs(
    appliance: tuple[TestClient, ReplayRunner, Path], caplog: pytest.LogCaptureFixture
) -> None:
    client, _, _ = appliance
    for _ in range(2):  # the recording holds two answers to this destroy; the third is unrecorded
        client.delete(f"/api/storage/datasets/{CLONE}")
    with caplog.at_level(logging.ERROR, logger=service.__name__):
        r = client.delete(f"/api/storage/datasets/{CLONE}")
    assert (r.status_code, r.json()["code"]) == (502, "system_fault"), r.text
    assert r.json()["detail"].startswith("the control service failed: no recording"), r.text
    assert "UnrecordedCommand" in caplog.text  # its trace is in the service's journal


def test_no_service_is_a_503_that_names_it(tmp_path: Path, short_dir: Path) -> None:
    client = logged_in(client_for(make_settings(tmp_path / "data", control_socket=short_dir / "none.sock")))
    client.app.state.storage_gateway, _, _ = replay("zfs_clones", tmp_path / "root")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("api.privileged.client.CONNECT_WITHIN", 0.3)
        r = client.post("/api/storage/snapshots", json={"name": f"{CLONE}@a"})
    assert (r.status_code, r.json()["code"]) == (503, "service_down"), r.text
    assert "arcvsa-metrics.service) is not running" in r.json()["detail"], r.text


def _raw(sock: Path, line: bytes) -> dict[str, object]:
    with socket.socket(socket.AF_UNIX) as conn:
        conn.connect(str(sock))
        conn.sendall(line)
        found: dict[str, object] = json.loads(wire.read_line(conn))
    return found


@pytest.mark.parametrize(
    ("line", "refused_as", "words"),
    [
        (b'{"verb":"os:system","args":{"command":"id"}}\n', ctl.Refused, "is not a verb"),
        (b'{"verb":"api.privileged.verbs:handle","args":{}}\n', ctl.Refused, "is not a verb"),
        (b'{"args":{}}\n', ctl.InvalidRequest, "names its verb"),
        (b"not json\n", wire.Broken, "not a line of JSON"),
        (f'{{"verb":"{wire.name_of(changes.destroy_snapshot)}","args":{{}}}}\n'.encode(), ctl.InvalidRequest,
         "takes ['name']"),
        (f'{{"verb":"{wire.name_of(changes.destroy_snapshot)}","args":{{"name":"a@b","x":1}}}}\n'.encode(),
         ctl.InvalidRequest, "takes ['name']"),
        (f'{{"verb":"{wire.name_of(changes.destroy_snapshot)}","args":{{"name":7}}}}\n'.encode(),
         ctl.InvalidRequest, "name: Input should be a valid string"),
    ],
)  # fmt: skip
def test_what_is_not_a_call_of_the_fixed_set_is_refused_before_any_tool(
    appliance: tuple[TestClient, ReplayRunner, Path], line: bytes, refused_as: type[Exception], words: str
) -> None:
    _, runner, sock = appliance
    carried = _raw(sock, line)["error"]
    assert isinstance(carried, dict)
    assert carried["type"] == wire.name_of(refused_as) and words in carried["message"], carried
    assert runner.calls == []


def test_a_user_not_allowed_is_refused(tmp_path: Path, short_dir: Path) -> None:
    gateway, files, runner = replay("zfs_clones", tmp_path / "root")
    client = client_for(make_settings(tmp_path / "data"))
    client.app.state.storage_gateway, client.app.state.storage_files = gateway, files
    sock = short_dir / "control.sock"
    server = Server(sock, Host.of(client.app.state), frozenset({os.geteuid() + 1})).start()
    try:
        with pytest.raises(ctl.Refused, match=rf"uid {os.geteuid()} may not ask"):
            OverSocket(sock)(changes.destroy_snapshot, f"{CLONE}@a")
    finally:
        server.close()
    assert runner.calls == []


def _one_connection(sock: Path, behave: str) -> threading.Thread:
    """A stand-in service that takes one call and then closes without answering, or says nothing."""
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(sock))
    listener.listen(1)

    def serve() -> None:
        conn, _ = listener.accept()
        wire.read_line(conn)
        if behave == "close":
            conn.close()
        else:
            threading.Event().wait(2.0)
            conn.close()
        listener.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


def test_a_service_that_dies_before_its_answer_is_a_fault_that_says_so(short_dir: Path) -> None:
    sock = short_dir / "dies.sock"
    _one_connection(sock, "close")
    with pytest.raises(
        ctl.SystemFault, match=r"ended before it answered .*whether the change was made is not"
    ):
        OverSocket(sock)(changes.destroy_snapshot, f"{CLONE}@a")


def test_a_service_that_stalls_is_a_fault_after_the_time_allowed(short_dir: Path) -> None:
    sock = short_dir / "stalls.sock"
    _one_connection(sock, "stall")
    with pytest.raises(ctl.SystemFault, match=r"gave no answer to .*destroy_snapshot within 0 s"):
        OverSocket(sock, answer_within=0.3)(changes.destroy_snapshot, f"{CLONE}@a")


def test_a_caller_that_sends_nothing_holds_no_thread(
    appliance: tuple[TestClient, ReplayRunner, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, _, sock = appliance
    monkeypatch.setattr(service, "CALL_WITHIN", 0.2)
    with socket.socket(socket.AF_UNIX) as conn:
        conn.connect(str(sock))
        conn.settimeout(5)
        assert conn.recv(1) == b""  # closed by the service, unanswered


@pytest.mark.parametrize(
    "exc",
    [
        ctl.CommandFailed(["zfs", "destroy", "tank/a"], 1, "cannot destroy 'tank/a': dataset is busy\n"),
        ctl.CommandTimeout(["zpool", "create", "tank"], 60.0, "still running"),
        ctl.DeviceVanished("cannot create 'tank': no such device in /dev"),
        ctl.AlreadyExists("tank exists"),
        errors.InvalidInput("too short", field="secret", your_address="10.0.0.1"),
        RestoreRefused("configured: replace not asked"),
    ],
    ids=lambda exc: type(exc).__name__,
)
def test_a_typed_error_comes_back_as_its_class_with_its_fields(exc: Exception) -> None:
    with pytest.raises(type(exc)) as caught:
        wire.parse_answer(changes.destroy_snapshot, wire.error(exc))
    assert type(caught.value) is type(exc)
    assert str(caught.value) == str(exc)
    assert vars(caught.value) == vars(exc)
    assert errors.lookup(caught.value) == errors.lookup(exc)


def test_an_answer_not_of_the_verbs_type_is_broken() -> None:
    with pytest.raises(wire.Broken, match="is not its type"):
        wire.parse_answer(changes.create_snapshot, b'{"answer":{"name":7}}\n')
    with pytest.raises(wire.Broken, match="neither a value nor an error"):
        wire.parse_answer(changes.create_snapshot, b'{"result":1}\n')


def test_in_process_calls_are_serialised_like_the_socket_s(tmp_path: Path) -> None:
    """A value that would not survive the wire fails here too: the tests' calls go the same way."""
    gateway, files, runner = replay("zfs_clones", tmp_path / "root")
    client = client_for(make_settings(tmp_path / "data"))
    client.app.state.storage_gateway, client.app.state.storage_files = gateway, files
    with pytest.raises(ctl.InvalidRequest, match="destroy_pool: free_disks: Input should be a valid boolean"):
        InProcess(Host.of(client.app.state))(changes.destroy_pool, "tank", "maybe")  # type: ignore[arg-type]
    assert runner.calls == []


def test_every_verb_has_types_the_wire_can_carry() -> None:
    assert len(verbs.VERBS) == sum(len(domain.VERBS) for domain in verbs.DOMAINS)  # no name twice
    for verb in verbs.VERBS.values():
        sig = wire.signature(verb)
        assert next(iter(sig.parameters.parameters)) == "host", sig.name
        assert set(sig.arguments) == set(list(sig.parameters.parameters)[1:]), sig.name


def test_a_secret_crosses_as_itself_and_the_refusals_never_echo_it() -> None:
    """pydantic's JSON masks secrets; the CHAP secret must reach LIO as typed, and a call refused for its
    shape must not put the secret in the answer (nor the service's journal)."""
    secret = "s3cret-chap-0123"
    body = TargetCreate(
        iqn="iqn.2026-11.io.arcvsa:t1", zvol="tank/lun1", initiators=["iqn.1998-01.com.vmware:esx1"],
        chap=Chap(user="esx", secret=secret),
    )  # fmt: skip
    sent = json.loads(wire.call(iscsi.create_target, (body,), {}))
    got = wire.arguments(iscsi.create_target, sent["args"])["create"]
    assert got.chap is not None and got.chap.secret == secret
    sent["args"]["extra"] = 1
    with pytest.raises(ctl.InvalidRequest) as refused:
        wire.arguments(iscsi.create_target, sent["args"])
    assert secret not in str(refused.value)
    with pytest.raises(wire.Broken) as broken:
        wire.parse_call(json.dumps(sent).encode()[:-3])
    assert secret not in str(broken.value)


def test_every_answer_over_the_socket_forgets_the_sessions_resolved_in_memory(
    appliance: tuple[TestClient, ReplayRunner, Path],
) -> None:
    """A restore writes the users in the service's process, where this process's cache cannot see it."""
    _, _, sock = appliance
    before = principals.cache.generation()
    with pytest.raises(ctl.InvalidName):  # refused before any tool or table: only the answer moves it
        OverSocket(sock)(changes.destroy_snapshot, "tank/a b@x")
    assert principals.cache.generation() == before + 1


# What the api's user does on the appliance, without this checkout (which that user may not read): the
# system's Python connects, sends one call and prints the answer or the errno.
AS_THE_API = """
import socket, sys
conn = socket.socket(socket.AF_UNIX)
try:
    conn.connect(sys.argv[1])
except OSError as exc:
    print("errno", exc.errno)
    sys.exit()
conn.sendall(sys.argv[2].encode() + b"\\n")
print(conn.makefile("rb").readline().decode().strip())
"""
NOBODY = 65534


def _as_nobody(sock: Path, line: str) -> str:
    said = subprocess.run(
        ["/usr/bin/python3", "-I", "-c", AS_THE_API, str(sock), line],
        user=NOBODY, group=NOBODY, extra_groups=[], capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return said.stdout.strip()


@pytest.mark.skipif(os.geteuid() != 0, reason="starts a caller as another user")
def test_the_api_s_user_reaches_the_socket_by_its_group_and_is_answered(
    tmp_path: Path, short_dir: Path
) -> None:
    gateway, files, runner = replay("zfs_clones", tmp_path / "root")
    client = client_for(make_settings(tmp_path / "data"))
    client.app.state.storage_gateway, client.app.state.storage_files = gateway, files
    line = wire.call(changes.destroy_dataset, (CLONE,), {}).decode().strip()
    short_dir.chmod(0o755)
    sock = short_dir / "control.sock"
    server = Server(sock, Host.of(client.app.state), frozenset({0, NOBODY}), group=NOBODY).start()
    try:
        assert (sock.stat().st_mode & 0o777, sock.stat().st_gid) == (0o660, NOBODY)
        assert json.loads(_as_nobody(sock, line)) == {"answer": None}
    finally:
        server.close()
    assert runner.calls[0] == ["zfs", "destroy", CLONE]
    # a socket of root's group alone: the kernel refuses the connection before the service reads anything
    server = Server(sock, Host.of(client.app.state), frozenset({0, NOBODY})).start()
    try:
        assert _as_nobody(sock, line) == f"errno {errno.EACCES}"
    finally:
        server.close()
    # the group let in, the uid not: the service refuses it
    server = Server(sock, Host.of(client.app.state), frozenset({0}), group=NOBODY).start()
    try:
        carried = json.loads(_as_nobody(sock, line))["error"]
        assert (carried["type"], carried["message"]) == (
            wire.name_of(ctl.Refused),
            f"uid {NOBODY} may not ask the control service",
        )
    finally:
        server.close()
    assert [c for c in runner.calls if c[:2] == ["zfs", "destroy"]] == [["zfs", "destroy", CLONE]]


@pytest.mark.skipif(os.geteuid() != 0, reason="connects as another user")
def test_a_socket_the_api_may_not_reach_is_a_fault_that_says_why(short_dir: Path) -> None:
    """The kernel's EACCES (a socket of root's group, the caller not in it): no waiting for a service that
    runs. The client is this process, its user switched for the one call."""
    short_dir.chmod(0o755)
    sock = short_dir / "control.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(sock))
    listener.listen()
    sock.chmod(0o660)
    groups = os.getgroups()
    os.setgroups([])
    os.setegid(NOBODY)
    os.seteuid(NOBODY)
    try:
        with pytest.raises(ctl.SystemFault) as fault:
            OverSocket(sock, connect_within=30)(changes.destroy_snapshot, f"{CLONE}@a")
    finally:
        os.seteuid(0)
        os.setegid(0)
        os.setgroups(groups)
        listener.close()
    assert "the api may not reach the control service" in str(fault.value)
    assert "socket's group is not the api's" in str(fault.value)


@pytest.mark.parametrize(("caller", "allowed", "group"), [(None, {0}, None), ("nobody", {0, NOBODY}, NOBODY)])
def test_the_control_service_answers_root_and_the_caller_its_unit_names(
    tmp_path: Path, caller: str | None, allowed: set[int], group: int | None
) -> None:
    settings = make_settings(tmp_path, control_caller=caller)
    assert sampler._callers(settings) == (frozenset(allowed | {os.geteuid()}), group)


def test_a_caller_that_is_no_user_stops_the_control_service_with_its_name(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"the api's user 'arcvsa-nobody' does not exist: systemd-sysusers"):
        sampler._callers(make_settings(tmp_path, control_caller="arcvsa-nobody"))
