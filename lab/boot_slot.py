"""One emulated appliance booting at a time on this machine.

A boot under TCG takes every core it finds, so two at once would each measure the other, and a boot
deadline is a claim about one boot. Held from qemu's start to the api's health by every lab harness
(the lab tests, pytest-xdist's workers among them, and the power-cut runs); an appliance already up
keeps working meanwhile. The lock is the control plane's own (appliance.control.lock): it goes with
the process if it dies.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from appliance.control.lock import held

PATH = Path(tempfile.gettempdir()) / "arcvsa-lab-boot.lock"


@contextmanager
def boot_slot(path: Path = PATH) -> Iterator[None]:
    """Wait for the slot, hold it for the block."""
    with held(path):
        yield
