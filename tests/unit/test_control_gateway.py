"""The subprocess gateway: argv only, typed failures, timeouts kill the whole process group."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from appliance.control.errors import AlreadyExists, CommandFailed, CommandTimeout, ToolMissing
from appliance.control.gateway import Gateway, Result, translate


def test_runs_argv_and_returns_output() -> None:
    result = Gateway().run(["printf", "%s|", "a b", "$(id)"])
    assert result.stdout == "a b|$(id)|"  # no shell: metacharacters arrive as plain bytes
    assert result.exit_code == 0


def test_failure_carries_argv_code_and_stderr_tail() -> None:
    with pytest.raises(CommandFailed) as caught:
        Gateway().run(["sh", "-c", "echo boom >&2; exit 3"])
    assert caught.value.exit_code == 3
    assert caught.value.argv[0] == "sh"
    assert "boom" in caught.value.stderr


def test_long_stderr_is_cut_to_its_tail() -> None:
    with pytest.raises(CommandFailed) as caught:
        Gateway().run(["sh", "-c", "head -c 10000 /dev/zero | tr '\\0' x >&2; echo END >&2; exit 1"])
    assert len(caught.value.stderr) <= 2000
    assert caught.value.stderr.rstrip().endswith("END")


def test_timeout_kills_the_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    started = time.monotonic()
    with pytest.raises(CommandTimeout) as caught:
        Gateway().run(["sh", "-c", f"sleep 60 & echo $! > {pidfile}; wait"], timeout=1)
    assert time.monotonic() - started < 10
    assert caught.value.timeout == 1
    child = int(pidfile.read_text())
    for _ in range(50):
        stat = Path(f"/proc/{child}/stat")
        if not stat.exists() or stat.read_text().split()[2] == "Z":
            break
        time.sleep(0.1)
    else:
        pytest.fail("the grandchild outlived the timeout")


@pytest.mark.parametrize("bad", ["zpool list", [], ["zpool", 3], ["zfs", "a\0b"]])
def test_refuses_anything_but_a_list_of_strings(bad: object) -> None:
    with pytest.raises((TypeError, ValueError)):
        Gateway().run(bad)  # type: ignore[arg-type]


def test_ok_codes_accept_a_known_non_zero_exit() -> None:
    assert Gateway().run(["false"], ok_codes=(0, 1)).exit_code == 1


def test_rules_translate_once_and_fall_back_to_command_failed() -> None:
    failed = Result(("zpool", "create", "t"), 1, "", "cannot create 't': pool already exists\n")
    error = translate(failed, [(r"already exists", AlreadyExists)])
    assert isinstance(error, AlreadyExists)
    assert "pool already exists" in str(error)
    assert isinstance(translate(failed, [(r"no such pool", AlreadyExists)]), CommandFailed)


def test_a_missing_program_is_a_typed_system_fault() -> None:
    with pytest.raises(ToolMissing, match="arcvsa-no-such-tool is not installed"):
        Gateway().run(["arcvsa-no-such-tool", "--version"])
