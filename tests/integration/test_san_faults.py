"""The lab SAN's fault injection (lab.san.San.fail/heal) on a real qemu-storage-daemon, seen by one NBD
client that stays connected throughout (qemu-io), as the appliance's qemu does."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from lab.san import San, make_luns

pytestmark = pytest.mark.integration


def test_a_failed_lun_answers_eio_to_the_connected_client_until_healed(tmp_path: Path) -> None:
    if shutil.which("qemu-storage-daemon") is None or shutil.which("qemu-io") is None:
        pytest.skip("qemu-storage-daemon / qemu-io missing (make setup)")
    san = San(tmp_path, make_luns(tmp_path / "luns", 1, 4 << 20), tied=True).start()
    try:
        uri = f"nbd+unix:///lun0?socket={san.socket}"
        # One connection: a write and a read in each 2 s window; the fault starts and ends between them.
        steps = ["write 0 4k", "read 0 4k", "sleep 2000"] * 3
        argv = ["qemu-io", "-f", "raw", *(arg for step in steps for arg in ("-c", step)), uri]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(1.0)
        san.fail("lun0", ("write",))
        time.sleep(2.0)
        san.heal("lun0")
        out, _ = proc.communicate(timeout=60)
        results = [line for line in out.splitlines() if line.startswith(("wrote", "read", "write failed"))]
        assert results == [
            "wrote 4096/4096 bytes at offset 0",
            "read 4096/4096 bytes at offset 0",
            "write failed: Input/output error",
            "read 4096/4096 bytes at offset 0",  # only writes were failed
            "wrote 4096/4096 bytes at offset 0",
            "read 4096/4096 bytes at offset 0",
        ], out
        assert [e["node-name"] for e in san.exports()] == ["lun0"]
        with pytest.raises(ValueError):
            san.fail("lun0", ("discard",))
        san.heal("lun0")  # nothing to heal: no change
    finally:
        san.stop()
