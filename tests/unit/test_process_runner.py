"""The project's one process runner: argv only, typed failures, the whole group killed when a command
overruns or is stopped, secrets kept out of errors and the debug log."""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path

import pytest

import process
import process.runner
from process import ProcessAborted, ProcessError, ProcessFailed, ProcessTimeout, ToolNotFound

SECRET = "s3cret-value"


def gone(pid: int) -> bool:
    """True once ``pid`` has ended (a zombie waiting for its reaper counts as ended)."""
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


def assert_ends(pid: int) -> None:
    for _ in range(50):
        if gone(pid):
            return
        time.sleep(0.1)
    os.kill(pid, 9)
    pytest.fail(f"process {pid} outlived the command that started it")


def test_runs_argv_without_a_shell() -> None:
    done = process.run(["printf", "%s|", "a b", "$(id)", "*"], timeout=10)
    assert done.stdout == "a b|$(id)|*|"  # metacharacters arrive as plain bytes
    assert (done.exit_code, done.argv[0]) == (0, "printf")


@pytest.mark.parametrize("bad", ["ls -l", b"ls", [], ("ls", 3), [Path("ls")], None])
def test_anything_but_a_sequence_of_strings_is_refused(bad: object) -> None:
    with pytest.raises(TypeError):
        process.run(bad, timeout=10)  # type: ignore[arg-type]


def test_a_nul_byte_is_refused_before_anything_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    with pytest.raises(ValueError, match="NUL"):
        process.run(["touch", str(marker), "a\0b"], timeout=10)
    assert not marker.exists()


def test_a_refused_argv_does_not_quote_its_value() -> None:
    with pytest.raises(TypeError) as caught:
        process.run(f"chap --secret {SECRET}", timeout=10)  # type: ignore[arg-type]
    assert SECRET not in str(caught.value)


def test_a_missing_tool_is_typed() -> None:
    with pytest.raises(ToolNotFound, match="arcvsa-no-such-tool is not installed") as caught:
        process.run(["arcvsa-no-such-tool", "--version"], timeout=10)
    assert isinstance(caught.value, ProcessError)


def test_a_missing_folder_is_not_a_missing_tool(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        process.run(["true"], timeout=10, cwd=tmp_path / "nowhere")


def test_a_non_zero_exit_keeps_its_code_and_stderr_tail() -> None:
    with pytest.raises(ProcessFailed) as caught:
        process.run(["sh", "-c", "echo out; echo boom >&2; exit 3"], timeout=10)
    assert caught.value.exit_code == 3
    assert caught.value.argv[0] == "sh"
    assert "boom" in caught.value.stderr
    assert "sh exited 3" in str(caught.value) and "boom" in str(caught.value)


def test_the_message_quotes_only_the_tail_of_a_long_stderr() -> None:
    script = "head -c 10000 /dev/zero | tr '\\0' x >&2; echo END >&2; exit 1"
    with pytest.raises(ProcessFailed) as caught:
        process.run(["sh", "-c", script], timeout=10)
    message = str(caught.value)
    assert message.endswith("END") and message.count("x") < 2100


def test_check_false_returns_a_non_zero_exit() -> None:
    done = process.run(["sh", "-c", "echo why >&2; exit 1"], timeout=10, check=False)
    assert (done.exit_code, done.stderr) == (1, "why\n")


def test_input_text_env_additions_and_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARCVSA_INHERITED", "kept")
    script = 'read line; echo "$line|$ARCVSA_ADDED|$ARCVSA_INHERITED|$(pwd)"'
    done = process.run(
        ["sh", "-c", script], timeout=10, input_text="héllo\n", env={"ARCVSA_ADDED": "1"}, cwd=tmp_path
    )
    assert done.stdout == f"héllo|1|kept|{tmp_path}\n"
    alone = process.run(
        ["/bin/sh", "-c", 'echo "$ARCVSA_INHERITED|$ARCVSA_ADDED"'],
        timeout=10,
        env={"ARCVSA_ADDED": "2"},
        inherit_env=False,
    )
    assert alone.stdout == "|2\n"


def test_a_timeout_kills_the_whole_group_grandchildren_too(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    started = time.monotonic()
    with pytest.raises(ProcessTimeout) as caught:
        process.run(["sh", "-c", f"echo said >&2; sleep 60 & echo $! > {pid_file}; wait"], timeout=1)
    assert time.monotonic() - started < 10
    assert caught.value.timeout == 1
    assert "sh timed out after 1 s" in str(caught.value) and "said" in caught.value.stderr
    assert_ends(int(pid_file.read_text()))


def test_a_watch_stops_the_command_and_its_children(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(process.runner, "WATCH_EVERY", 0.1)
    pid_file = tmp_path / "child.pid"
    asked: list[int] = []

    def watch() -> str | None:
        asked.append(1)
        return "seen enough" if len(asked) >= 3 else None

    with pytest.raises(ProcessAborted, match="sh stopped: seen enough") as caught:
        process.run(["sh", "-c", f"sleep 60 & echo $! > {pid_file}; wait"], timeout=60, watch=watch)
    assert caught.value.reason == "seen enough" and len(asked) == 3
    assert_ends(int(pid_file.read_text()))


def test_ctrl_c_while_waiting_kills_the_group(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(process.runner, "WATCH_EVERY", 0.1)
    pid_file = tmp_path / "child.pid"

    def interrupted() -> str | None:
        if pid_file.exists() and pid_file.read_text().strip():
            raise KeyboardInterrupt
        return None

    with pytest.raises(KeyboardInterrupt):
        process.run(["sh", "-c", f"sleep 60 & echo $! > {pid_file}; wait"], timeout=60, watch=interrupted)
    assert_ends(int(pid_file.read_text()))


def test_secrets_stay_out_of_errors_and_the_debug_log(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="process")
    argv = ["sh", "-c", 'echo "bad password=$0" >&2; exit 1', SECRET]
    with pytest.raises(ProcessFailed) as caught:
        process.run(argv, timeout=10, secrets=[SECRET])
    assert caught.value.argv[-1] == "***" and "***" in caught.value.stderr
    assert SECRET not in str(caught.value) and SECRET not in caught.value.stderr
    assert SECRET not in repr(caught.value.argv)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "run sh -c" in logged and "***" in logged  # the command was logged, masked
    assert SECRET not in logged


def test_secrets_stay_out_of_a_timeout(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="process")
    with pytest.raises(ProcessTimeout) as caught:
        process.run(["sh", "-c", 'echo "$0" >&2; sleep 30', SECRET], timeout=1, secrets=[SECRET])
    assert SECRET not in str(caught.value) and SECRET not in caught.value.stderr
    assert SECRET not in "\n".join(r.getMessage() for r in caplog.records)


def test_without_secrets_the_debug_log_shows_the_argv(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="process")
    process.run(["echo", SECRET], timeout=10)
    assert SECRET in "\n".join(r.getMessage() for r in caplog.records)  # the masking test can fail


def test_stream_writes_stamped_lines_to_the_log_and_returns_them(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "build.log"
    lines = process.stream(["sh", "-c", "echo one; echo two >&2"], timeout=10, log=log)
    assert sorted(line for _, line in lines) == ["one", "two"]
    assert all(0 <= at < 10 for at, _ in lines)
    text = log.read_text()
    assert text.startswith("$ sh -c") and "] one\n" in text and "] two\n" in text


def test_stream_masks_secrets_in_the_log_and_names_it_in_errors(tmp_path: Path) -> None:
    log = tmp_path / "build.log"
    with pytest.raises(ProcessFailed, match="exited 3") as caught:
        process.stream(["sh", "-c", 'echo "key $0"; exit 3', SECRET], timeout=10, log=log, secrets=[SECRET])
    assert caught.value.exit_code == 3
    assert f"see {log}" in str(caught.value) and "key ***" in str(caught.value)
    assert SECRET not in log.read_text() and SECRET not in str(caught.value)


def test_stream_timeout_and_watch_are_told_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(process.runner, "WATCH_EVERY", 0.1)
    log = tmp_path / "log"
    lines = process.stream(["echo", "done"], timeout=10, log=log, watch=lambda: None)
    assert [line for _, line in lines] == ["done"]
    with pytest.raises(ProcessTimeout, match="timed out after 1 s") as timed_out:
        process.stream(["sleep", "30"], timeout=1, log=log, watch=lambda: None)
    assert not isinstance(timed_out.value, ProcessAborted)
    pid_file = tmp_path / "child.pid"
    with pytest.raises(ProcessAborted, match=f"sh stopped: enough; see {log}"):
        process.stream(
            ["sh", "-c", f"sleep 60 & echo $! > {pid_file}; wait"],
            timeout=60,
            log=log,
            watch=lambda: "enough" if pid_file.exists() else None,
        )
    assert_ends(int(pid_file.read_text()))


def test_output_that_is_not_utf8_is_replaced_not_fatal() -> None:
    done = process.run([sys.executable, "-c", "import sys; sys.stdout.buffer.write(b'a\\xffb')"], timeout=10)
    assert done.stdout == "a\ufffdb"
