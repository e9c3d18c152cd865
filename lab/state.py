"""What ``lab.up`` started, kept in ``var/lab/state.json`` so ``lab.down`` (another process) can stop it."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

REPO = Path(__file__).resolve().parent.parent
LAB_DIR = REPO / "var" / "lab"
STATE_FILE = "state.json"


class DaemonState(BaseModel):
    """A detached process of the lab."""

    pid: int = Field(description="process id")
    marker: str = Field(description="a path only this lab uses, present in the process's command line")


class LunState(BaseModel):
    """A SAN LUN."""

    name: str = Field(description="export name and guest disk serial (lun0, lun1, …)")
    path: str = Field(description="backing file on the host")
    size_bytes: int = Field(description="LUN size")


class LabState(BaseModel):
    """The running lab: processes, sockets, files and host ports."""

    directory: str = Field(description="state folder of this lab")
    image: str = Field(description="qcow2 the VM boots (through an overlay)")
    ssh_key: str = Field(description="lab-only private key for root@guest")
    san: DaemonState = Field(description="qemu-storage-daemon")
    vm: DaemonState = Field(description="qemu-system-x86_64")
    san_socket: str = Field(description="NBD unix socket of the SAN")
    san_qmp: str = Field(description="QMP socket of the SAN")
    vm_qmp: str = Field(description="QMP socket of the VM (query-blockstats counts LUN I/O)")
    console: str = Field(description="serial console log of the VM")
    luns: list[LunState] = Field(description="LUNs attached to the VM")
    host_ports: dict[str, int] = Field(description="host port on 127.0.0.1 per guest service")
    admin_password_file: str | None = Field(default=None, description="0600 file with the admin password")
    api_cert: str | None = Field(default=None, description="the api's certificate, pinned on first contact")
    boot_to_api_seconds: float | None = Field(default=None, description="qemu start to first api health")
    firstboot: str | None = Field(default=None, description="first boot's status as the api reports it")
    boot_to_ssh_seconds: float | None = Field(default=None, description="qemu start to first SSH login")


def state_path(directory: Path = LAB_DIR) -> Path:
    """Where the state of the lab in ``directory`` is kept."""
    return directory / STATE_FILE


def load(directory: Path = LAB_DIR) -> LabState | None:
    """The saved state, or None when no lab is up."""
    path = state_path(directory)
    if not path.is_file():
        return None
    return LabState.model_validate_json(path.read_text(encoding="utf-8"))


def save(state: LabState) -> None:
    """Write the state atomically."""
    path = state_path(Path(state.directory))
    tmp = path.with_suffix(".tmp")
    tmp.write_text(state.model_dump_json(indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
