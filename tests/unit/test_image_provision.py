"""The image build's packer step: a build VM whose kernel panics is killed at once and built once more.

A real process stands in for packer: it writes a panicked console to the serial log it was given and
waits, as packer waits for SSH; on a later run it makes the disk and manifest packer would."""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path

import pytest

import process.runner
from appliance.image import provision
from appliance.image.errors import BuildError

# In the kernel's form. packer's build VM panicked so under TCG 8.6 s into its boot (CI of 209430b:
# __set_next_task_fair, "Fatal exception in interrupt"); that console itself was not kept.
PANICKED = """\
[    8.574021] BUG: kernel NULL pointer dereference, address: 0000000000000050
[    8.574522] Oops: Oops: 0000 [#1] PREEMPT SMP NOPTI
[    8.575103] RIP: 0010:__set_next_task_fair.part.0+0x1a/0x1c0
[    8.611230] Kernel panic - not syncing: Fatal exception in interrupt
"""

# Stands in for packer: panics on the runs listed in PANIC_ON, otherwise makes the disk and manifest.
FAKE_PACKER = """\
#!{python}
import json, pathlib, subprocess, sys, time
vars = dict(a.split("=", 1) for a in sys.argv if "=" in a and not a.startswith("-"))
count = pathlib.Path({count!r})
run = int(count.read_text()) + 1 if count.exists() else 1
count.write_text(str(run))
if run in {panic_on!r}:
    pathlib.Path(vars["serial_log"]).write_text({panicked!r})
    time.sleep(60)
    sys.exit(1)
out = pathlib.Path(vars["output_directory"])
out.mkdir(parents=True)
subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", str(out / ("arcvsa-" + vars["version"] + ".qcow2")), "1M"], check=True)
pathlib.Path(vars["manifest_out"]).write_text(json.dumps({{"version": vars["version"]}}))
"""


def fake_packer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, panic_on: list[int]) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    count = tmp_path / "runs"
    script = bin_dir / "packer"
    script.write_text(
        FAKE_PACKER.format(python=sys.executable, count=str(count), panic_on=panic_on, panicked=PANICKED)
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setattr(process.runner, "WATCH_EVERY", 0.2)
    return count


def build(tmp_path: Path) -> dict[str, object]:
    files = {name: tmp_path / name for name in ("base.qcow2", "key", "payload.tar", "release.json")}
    for path in files.values():
        path.write_text("")
    return provision.provision(
        files["base.qcow2"], files["key"], files["payload.tar"], files["release.json"], "abc1234",
        tmp_path / "work", tmp_path / "image.qcow2", tmp_path / "logs" / "packer.log",
    )  # fmt: skip


def test_a_panicked_build_vm_is_killed_and_built_once_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = fake_packer(tmp_path, monkeypatch, panic_on=[1])
    started = time.monotonic()
    assert build(tmp_path) == {"version": "abc1234"}
    assert time.monotonic() - started < 30  # not packer's 60 s wait: killed at the panic
    assert runs.read_text() == "2"
    assert (tmp_path / "image.qcow2").is_file()
    kept = tmp_path / "logs" / "packer-serial.panic-1.log"
    assert "__set_next_task_fair" in kept.read_text()
    log = (tmp_path / "logs" / "packer.log").read_text()
    assert "attempt 1: packer stopped: the build VM's kernel panicked:" in log
    assert "building once more" in log


def test_two_panics_fail_the_build_with_the_kernel_s_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = fake_packer(tmp_path, monkeypatch, panic_on=[1, 2])
    with pytest.raises(BuildError) as caught:
        build(tmp_path)
    assert "Kernel panic - not syncing: Fatal exception in interrupt" in str(caught.value)
    assert "in each of 2 attempts" in str(caught.value)
    assert runs.read_text() == "2"
    assert not (tmp_path / "image.qcow2").exists()
    assert (tmp_path / "logs" / "packer-serial.panic-2.log").is_file()


def test_a_stale_console_from_an_earlier_build_is_not_a_panic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = fake_packer(tmp_path, monkeypatch, panic_on=[])
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "packer-serial.log").write_text(PANICKED)
    assert build(tmp_path) == {"version": "abc1234"}
    assert runs.read_text() == "1"
