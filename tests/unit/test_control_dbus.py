"""The bus client: the exact busctl argv a call builds, the JSON reply read back, and every malformed
reply or call refused with a typed error. Answers replay what busctl said to ganesha in the lab VM."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fixtures.appliance.replay import ReplayRunner, UnrecordedCommand, load

from appliance.control import dbus
from appliance.control.errors import BadOutput
from appliance.control.gateway import Gateway

EXPORT_MGR = ("org.ganesha.nfsd", "/org/ganesha/nfsd/ExportMgr")


def recorded(member: str) -> dict[str, Any]:
    return next(c for c in load("ganesha")["commands"] if member in c["argv"])


def test_a_call_is_one_argv_with_the_signature_and_each_argument_apart() -> None:
    runner = ReplayRunner(load("ganesha"))
    reply = dbus.call(Gateway(runner), *EXPORT_MGR, "org.ganesha.nfsd.exportstats.GetNFSv3IO", "q", 101)
    assert runner.calls == [
        [
            "busctl",
            "--system",
            "--json=short",
            "--timeout=30s",
            "call",
            *EXPORT_MGR,
            "org.ganesha.nfsd.exportstats",
            "GetNFSv3IO",
            "q",
            "101",
        ]
    ]
    assert reply[0] is True and isinstance(reply[3], list) and len(reply[3]) == 6


def test_a_call_without_arguments_sends_no_signature() -> None:
    runner = ReplayRunner(load("ganesha"))
    reply = dbus.call(Gateway(runner), *EXPORT_MGR, "org.ganesha.nfsd.exportmgr.ShowExports")
    assert runner.calls[0][-2:] == ["org.ganesha.nfsd.exportmgr", "ShowExports"]
    assert len(reply) == 2 and len(reply[0]) == 2  # the timestamp, then the exports


def test_the_timeout_is_busctls_and_the_runners_a_little_longer() -> None:
    seen: list[float] = []

    class Timed(ReplayRunner):
        def execute(self, argv: Any, *, timeout: float, input_text: str | None = None) -> Any:
            seen.append(timeout)
            return super().execute(argv, timeout=timeout, input_text=input_text)

    runner = Timed(load("ganesha"))
    with pytest.raises(UnrecordedCommand):  # the lab recorded 30 s calls only
        dbus.call(Gateway(runner), *EXPORT_MGR, "org.ganesha.nfsd.exportmgr.ShowExports", timeout=7.5)
    assert "--timeout=7.5s" in runner.calls[0] and seen == [12.5]


@pytest.mark.parametrize(
    ("method", "signature", "args"),
    [
        ("ShowExports", "", ()),  # no interface
        ("org.ganesha.nfsd.exportmgr.", "", ()),  # no member
        ("org.ganesha.nfsd.exportmgr.RemoveExport", "q", ()),  # a type without its value
        ("org.ganesha.nfsd.exportmgr.RemoveExport", "", (101,)),  # a value without its type
        ("org.ganesha.nfsd.exportmgr.AddExport", "ss", ("/etc/x.conf",)),
    ],
)
def test_a_malformed_call_runs_nothing(method: str, signature: str, args: tuple[object, ...]) -> None:
    runner = ReplayRunner(load("ganesha"))
    with pytest.raises(ValueError):
        dbus.call(Gateway(runner), *EXPORT_MGR, method, signature, *args)  # type: ignore[arg-type]
    assert runner.calls == []


def test_the_reply_is_its_data() -> None:
    show = recorded("ShowExports")
    assert dbus.parse(show["stdout"]) == json.loads(show["stdout"])["data"]
    assert dbus.parse('{"type":"b","data":[false]}\n') == [False]


@pytest.mark.parametrize("stdout", ["", "\n", "  \n"])
def test_a_method_that_answers_nothing_gives_no_values(stdout: str) -> None:
    assert dbus.parse(stdout) == []


@pytest.mark.parametrize(
    "stdout",
    [
        "boolean true\n",  # dbus-send's human format
        '{"type":"b","data":[true]',  # cut short
        '["b",[true]]',  # not an object
        '{"type":"b"}',  # no data
        '{"type":"b","data":true}',  # data not a list
        '{"data":[true]}',  # no type
    ],
)
def test_a_reply_busctl_would_not_print_is_bad_output(stdout: str) -> None:
    with pytest.raises(BadOutput, match="busctl"):
        dbus.parse(stdout)


def test_a_bad_reply_is_quoted_to_its_first_200_characters() -> None:
    garbled = "x" * 199 + "yz"
    with pytest.raises(BadOutput) as caught:
        dbus.parse(garbled)
    assert repr(garbled[:200]) in str(caught.value)
    shapeless = json.dumps({"type": "s", "note": "x" * 300})
    with pytest.raises(BadOutput) as caught:
        dbus.parse(shapeless)
    assert repr(shapeless[:200]) in str(caught.value)
