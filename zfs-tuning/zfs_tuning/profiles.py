"""Load the packaged profiles (one YAML per pool type), validated by the schema."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml

from zfs_tuning.schema import DesktopPoolType, Profile

# In the wheel the profiles sit inside the package; in the source tree beside it (zfs-tuning/profiles).
_HERE = Path(__file__).resolve().parent
CANDIDATES = (_HERE / "profiles", _HERE.parent / "profiles")


def profiles_dir() -> Path:
    """The folder the profiles are read from."""
    for candidate in CANDIDATES:
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"no profiles folder in {[str(c) for c in CANDIDATES]}")


def load_file(path: Path) -> Profile:
    """One profile file; its name must match the pool type it declares."""
    profile = Profile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    if path.stem != profile.name.value:
        raise ValueError(f"{path.name} declares {profile.name.value}")
    return profile


@cache
def load(pool_type: DesktopPoolType | str) -> Profile:
    """The profile of a pool type."""
    kind = DesktopPoolType(pool_type)
    return load_file(profiles_dir() / f"{kind.value}.yaml")


def load_all() -> dict[DesktopPoolType, Profile]:
    """Every profile, by pool type."""
    return {kind: load(kind) for kind in DesktopPoolType}
