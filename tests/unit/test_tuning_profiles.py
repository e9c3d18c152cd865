"""Tuning profiles: every pool type has one, the schema holds, and the wheel carries them."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError
from zfs_tuning import profiles
from zfs_tuning.schema import DatasetProperties, PoolType, Profile, format_size, parse_size

ROOT = Path(__file__).resolve().parents[2]


def test_every_pool_type_has_a_valid_profile() -> None:
    loaded = profiles.load_all()
    assert set(loaded) == set(PoolType)
    for kind, profile in loaded.items():
        assert profile.name is kind
        assert profile.dataset.sync == "standard"
        assert profile.dataset.acltype == "posix"  # ganesha 6.5 FSAL_VFS needs it
        assert profile.dataset.compression == "lz4"
        assert profile.dataset.atime == "off" and profile.dataset.xattr == "sa"


def test_every_choice_has_a_why() -> None:
    for profile in profiles.load_all().values():
        chosen = set(profile.dataset.as_zfs()) | set(profile.module.model_dump())
        assert chosen <= set(profile.why), chosen - set(profile.why)
        assert all(len(line) < 120 and "\n" not in line for line in profile.why.values())


def test_sync_disabled_cannot_be_written_in_a_profile(tmp_path: Path) -> None:
    data = yaml.safe_load((profiles.profiles_dir() / "generic.yaml").read_text())
    data["dataset"]["sync"] = "disabled"
    bad = tmp_path / "generic.yaml"
    bad.write_text(yaml.safe_dump(data))
    with pytest.raises(ValidationError):
        profiles.load_file(bad)


def test_unknown_keys_and_a_wrong_file_name_are_refused(tmp_path: Path) -> None:
    data = yaml.safe_load((profiles.profiles_dir() / "generic.yaml").read_text())
    (tmp_path / "generic.yaml").write_text(yaml.safe_dump({**data, "extra": 1}))
    with pytest.raises(ValidationError):
        profiles.load_file(tmp_path / "generic.yaml")
    (tmp_path / "stateless-full.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError, match="declares generic"):
        profiles.load_file(tmp_path / "stateless-full.yaml")


@pytest.mark.parametrize("value", ["3K", "2M", "100K", 0])
def test_recordsize_must_be_a_power_of_two_in_range(value: object) -> None:
    with pytest.raises(ValidationError):
        DatasetProperties(recordsize=value)  # type: ignore[arg-type]


def test_compression_choices() -> None:
    assert DatasetProperties(compression="zstd-3").compression == "zstd-3"
    assert DatasetProperties(compression="lzjb").compression == "lzjb"
    with pytest.raises(ValidationError):
        DatasetProperties(compression="gzip;reboot")


def test_sizes_round_trip() -> None:
    assert parse_size("128K") == 131072
    assert format_size(parse_size("1M")) == "1M"
    assert DatasetProperties(recordsize=16384, quota="1G").as_zfs() == {
        "recordsize": "16K",
        "quota": str(1 << 30),
    }


def test_wheel_maps_the_package_and_its_profiles() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wheel = config["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert "zfs-tuning/zfs_tuning" in wheel["packages"]
    assert wheel["force-include"]["zfs-tuning/profiles"] == "zfs_tuning/profiles"
    assert (ROOT / "zfs-tuning" / "profiles").is_dir()
    assert "zfs-tuning" in config["tool"]["pytest"]["ini_options"]["pythonpath"]


def test_profile_model_is_described() -> None:
    for model in (Profile, DatasetProperties):
        assert all(field.description for field in model.model_fields.values())
