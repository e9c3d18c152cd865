"""Workload and SAN profiles: data files under bench/profiles/, each citing where its figures come from.

A user adds a workload by dropping a YAML file into bench/profiles/workloads/ (or passing a path);
the models refuse unknown keys, so a typo fails loudly instead of running a different benchmark.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

PROFILES = Path(__file__).resolve().parent / "profiles"
WORKLOADS = PROFILES / "workloads"
SANS = PROFILES / "san.yaml"
BSSPLIT = r"^\d+[kKmM]?/\d+(:\d+[kKmM]?/\d+)*$"
BLOCK = r"^\d+[kKmM]?$"


class ProfileError(ValueError):
    """A profile file is missing, not YAML, or does not match the model."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Background(Strict):
    """Competing load on a LUN of its own in the array's throttle group (from the host, fio nbd)."""

    iops: Annotated[int, Field(gt=0)]
    write_pct: Annotated[int, Field(ge=0, le=100)]
    random_pct: Annotated[int, Field(ge=0, le=100)]
    block_kib: Annotated[int, Field(gt=0, le=1024)]


class SanProfile(Strict):
    """An array: its read/write IOPS, bandwidth, operation size unit and any background load."""

    name: str = ""
    description: str
    source: str
    iops_read: Annotated[int, Field(gt=0)]
    iops_write: Annotated[int, Field(gt=0)]
    mib_s_total: Annotated[float, Field(gt=0)]
    iops_size_kib: Annotated[int, Field(ge=0)] = 0
    background: Background | None = None


class Phase(Strict):
    """One step of a workload; ``kind`` says what the runner does (see bench/runner.py)."""

    name: str
    kind: Literal["copy", "trace", "recompose", "drop-cache", "mix", "calibrate", "sweep"]
    why: str
    seconds: Annotated[int, Field(gt=0, le=3600)] = 60
    iops_per_desktop: Annotated[int, Field(gt=0, le=10000)] = 10
    read_pct: Annotated[int, Field(ge=0, le=100)] = 20
    # fio bssplit: block size / share of the direction's I/Os, e.g. 4k/50:8k/50.
    read_bs: Annotated[str, Field(pattern=BSSPLIT)] = "16k/100"
    write_bs: Annotated[str, Field(pattern=BSSPLIT)] = "4k/50:8k/50"
    write_spread: str = "random"
    # mix over NFS: the writes FILE_SYNC with real bytes in each (bench.syncwrite), as ESXi writes a VM's
    # disk, instead of fio's UNSTABLE, never-committed writes of one repeated or random buffer
    sync_writes: bool = False
    delta_mib: Annotated[int, Field(gt=0, le=4096)] = 64
    # calibrate: the appliance's own ramp (api /api/calibrations), desktops added until p95 passes this.
    threshold_ms: Annotated[float, Field(gt=0, le=10000)] = 20.0
    ramp_start: Annotated[int, Field(gt=0)] = 4
    ramp_step: Annotated[int, Field(gt=0)] = 4
    ramp_max: Annotated[int, Field(gt=0)] = 100
    # sweep: every clients x block size x queue depth point in turn, each for ``seconds``, each client
    # on its own file of ``file_mib`` (rw as fio's; read_pct for the mixed ones)
    rw: Literal["read", "write", "randread", "randwrite", "rw", "randrw"] = "randrw"
    block_sizes: list[Annotated[str, Field(pattern=BLOCK)]] = Field(default=["4k"], min_length=1)
    iodepths: list[Annotated[int, Field(gt=0, le=256)]] = Field(default=[1], min_length=1)
    clients: list[Annotated[int, Field(gt=0, le=64)]] = Field(default=[1], min_length=1)
    file_mib: Annotated[int, Field(gt=0, le=4096)] = 256


class Smoke(Strict):
    """The small version `make test` runs: fewer desktops, a shorter replica and phases."""

    desktops: Annotated[int, Field(gt=0)] = 2
    replica_mib: Annotated[int, Field(gt=0)] = 64
    seconds: Annotated[int, Field(gt=0)] = 20


class Workload(Strict):
    name: str
    description: str
    sources: list[str] = Field(min_length=1)
    san: str
    desktops: Annotated[int, Field(gt=0, le=1000)]
    phases: list[Phase] = Field(min_length=1)
    smoke: Smoke = Smoke()
    # The whole replica unless set (the smoke run cuts it).
    replica_mib: Annotated[int, Field(gt=0)] | None = None

    def small(self) -> Workload:
        """The smoke version of this workload."""
        phases = [
            p.model_copy(
                update={
                    "seconds": min(p.seconds, self.smoke.seconds if p.kind != "calibrate" else 5),
                    "ramp_max": min(p.ramp_max, p.ramp_start + p.ramp_step),
                }
            )
            for p in self.phases
        ]
        return self.model_copy(
            update={"desktops": self.smoke.desktops, "replica_mib": self.smoke.replica_mib, "phases": phases}
        )


def _load_yaml(path: Path) -> object:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ProfileError(f"{path}: {exc}") from exc


def load_workload(name_or_path: str) -> Workload:
    """A workload by name (bench/profiles/workloads/NAME.yaml) or by path."""
    path = Path(name_or_path)
    if not path.suffix:
        path = WORKLOADS / f"{name_or_path}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in WORKLOADS.glob("*.yaml")))
        raise ProfileError(f"no workload {name_or_path!r} (known: {known})")
    try:
        return Workload.model_validate(_load_yaml(path))
    except ValidationError as exc:
        raise ProfileError(f"{path}: {exc}") from exc


def load_san(name: str, path: Path = SANS) -> SanProfile:
    """A SAN profile by name from bench/profiles/san.yaml."""
    data = _load_yaml(path)
    if not isinstance(data, dict) or name not in data:
        known = ", ".join(sorted(data)) if isinstance(data, dict) else ""
        raise ProfileError(f"no SAN profile {name!r} in {path} (known: {known})")
    try:
        return SanProfile.model_validate({**data[name], "name": name})
    except ValidationError as exc:
        raise ProfileError(f"{path} [{name}]: {exc}") from exc
