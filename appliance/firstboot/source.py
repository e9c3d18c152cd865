"""Where the OVF environment comes from: guestinfo (vmtoolsd) first, then a CD-ROM (iso transport).

vSphere with the com.vmware.guestInfo transport puts ovf-env.xml into the guestinfo.ovfEnv
variable; the iso transport (and the lab under qemu, where vmtoolsd finds no VMware hypervisor)
attaches it as ovf-env.xml on a CD-ROM. Whatever was read from guestinfo is blanked afterwards so
the admin password does not linger where any guest process can read it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from appliance.firstboot.errors import EnvironmentNotFound
from appliance.firstboot.iso9660 import IsoError, read_root_file
from appliance.firstboot.runner import Runner
from process import ProcessError

VMTOOLSD = "vmtoolsd"
GUESTINFO_KEY = "guestinfo.ovfEnv"
ENV_FILE = "ovf-env.xml"
DEFAULT_CDROMS = (Path("/dev/sr0"), Path("/dev/sr1"), Path("/dev/cdrom"))
TOOL_TIMEOUT = 15.0

Transport = Literal["guestinfo", "iso"]


@dataclass(frozen=True)
class EnvironmentDocument:
    """The raw ovf-env.xml and where it was found."""

    data: bytes
    transport: Transport
    origin: str


def from_guestinfo(runner: Runner) -> EnvironmentDocument | None:
    """guestinfo.ovfEnv, or None when vmtoolsd is missing, finds no VMware host, or the key is empty."""
    try:
        done = runner([VMTOOLSD, "--cmd", f"info-get {GUESTINFO_KEY}"], timeout=TOOL_TIMEOUT)
    except (ProcessError, OSError):
        return None
    data = done.stdout.strip().encode()
    return EnvironmentDocument(data, "guestinfo", GUESTINFO_KEY) if data else None


def from_cdrom(devices: Sequence[Path]) -> EnvironmentDocument | None:
    """ovf-env.xml from the first device (or ISO file) that has one; None when none has."""
    for device in devices:
        try:
            data = read_root_file(device, ENV_FILE)
        except (IsoError, OSError):
            continue
        return EnvironmentDocument(data, "iso", str(device))
    return None


def read_environment(runner: Runner, cdroms: Sequence[Path] = DEFAULT_CDROMS) -> EnvironmentDocument:
    """The OVF environment from guestinfo, else from a CD-ROM; EnvironmentNotFound when neither has it."""
    found = from_guestinfo(runner) or from_cdrom(cdroms)
    if found is None:
        tried = ", ".join(str(d) for d in cdroms)
        raise EnvironmentNotFound(f"no OVF environment in {GUESTINFO_KEY} nor as {ENV_FILE} on {tried}")
    return found


def blank_guestinfo(runner: Runner) -> None:
    """Overwrite guestinfo.ovfEnv with nothing (vSphere sets it again from the vApp options on power-on)."""
    runner([VMTOOLSD, "--cmd", f"info-set {GUESTINFO_KEY} "], timeout=TOOL_TIMEOUT)
