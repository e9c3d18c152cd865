"""Whether a lab boot keeps the VM's OS disk (lab.appliance_vm.keeps_disk): lab.up decides on it whether
the pinned certificate and the admin password still hold, the VM whether to make a new overlay, and
they must agree. Real qemu-img on real qcow2 files."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from lab.appliance_vm import keeps_disk, overlay


def qcow2(path: Path, backing: Path | None = None) -> Path:
    argv = ["qemu-img", "create", "-q", "-f", "qcow2"]
    argv += ["-b", str(backing), "-F", "qcow2", str(path)] if backing else [str(path), "16M"]
    subprocess.run(argv, check=True, timeout=60)
    return path


def test_only_an_overlay_on_this_very_image_is_kept(tmp_path: Path) -> None:
    lab = tmp_path / "lab"
    lab.mkdir()
    built, rebuilt = qcow2(tmp_path / "arcvsa-1.qcow2"), qcow2(tmp_path / "arcvsa-2.qcow2")
    assert not keeps_disk(lab, built)  # no disk yet: a first boot
    qcow2(overlay(lab), built)
    assert keeps_disk(lab, built)  # a reboot of the same build keeps its pools, keys and certificate
    assert not keeps_disk(lab, rebuilt)  # a new build boots a new disk: first boot runs again
    later = overlay(lab).stat().st_mtime + 60
    os.utime(built, (later, later))  # the same build rebuilt in place (a dirty tree's name does not change)
    assert not keeps_disk(lab, built)
    os.utime(overlay(lab), (later + 1, later + 1))  # the guest wrote its disk since: a reboot of that build
    assert keeps_disk(lab, built)
    overlay(lab).unlink()
    qcow2(overlay(lab))  # a disk on no image at all
    assert not keeps_disk(lab, built)
