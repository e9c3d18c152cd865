"""Tuning profiles: every pool type has one, the schema holds, and the wheel carries them."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError
from zfs_tuning import profiles
from zfs_tuning.schema import (
    DatasetProperties,
    DesktopPoolType,
    ModuleDefaults,
    Profile,
    Workload,
    format_size,
    parse_size,
)

ROOT = Path(__file__).resolve().parents[2]


def test_every_pool_type_has_a_valid_profile() -> None:
    loaded = profiles.load_all()
    assert set(loaded) == set(DesktopPoolType)
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


# ---- sizes, each rule at its edge ----


@pytest.mark.parametrize(
    "text,expected",
    [
        ("131072", 131072),  # no unit: bytes
        ("7", 7),
        ("8K", 8 << 10),
        ("3M", 3 << 20),
        ("4g", 4 << 30),  # units in either case
        ("2T", 2 << 40),
        (" 16K ", 16 << 10),
        (65536, 65536),  # an int is already bytes
    ],
)
def test_parse_size_by_unit(text: object, expected: int) -> None:
    assert parse_size(text) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["", "K", "12Q", "1.5G", "-4K", "1;", "1$", "1@", "1 K", "1/", "1.", "1'"])
def test_parse_size_refuses_what_is_not_a_size(text: str) -> None:
    with pytest.raises(ValueError, match="not a size"):
        parse_size(text)


@pytest.mark.parametrize(
    "value,text",
    [
        (0, "0"),
        (1000, "1000"),
        (1536, "1536"),  # not a whole K
        (12 << 10, "12K"),
        (5 << 20, "5M"),
        (3 << 30, "3G"),
        (1 << 40, "1T"),
        (3 << 40, "3T"),
    ],
)
def test_format_size_shortest_exact(value: int, text: str) -> None:
    assert format_size(value) == text


@pytest.mark.parametrize(
    "value,text", [("4K", "4K"), (4096, "4K"), ("1M", "1M"), (1 << 20, "1M"), ("128k", "128K")]
)
def test_recordsize_edges_accepted(value: object, text: str) -> None:
    assert DatasetProperties(recordsize=value).recordsize == text  # type: ignore[arg-type]


@pytest.mark.parametrize("value", ["2K", 4095, 4097, "6K", "12K", (1 << 20) + 4096, "2M", "1025K"])
def test_recordsize_just_outside_refused(value: object) -> None:
    with pytest.raises(ValidationError, match="power of two"):
        DatasetProperties(recordsize=value)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["off", "lz4", "lzjb", "zstd", "zstd-fast", "zstd-1", "zstd-19"])
def test_every_compression_accepted(name: str) -> None:
    assert DatasetProperties(compression=name).as_zfs() == {"compression": name}


@pytest.mark.parametrize("name", ["zstd-0", "zstd-20", "gzip", "LZ4", "lz4 ", "zstd-"])
def test_compression_outside_the_list_refused(name: str) -> None:
    with pytest.raises(ValidationError, match="compression must be one of"):
        DatasetProperties(compression=name)


def test_unset_properties_stay_unset() -> None:
    props = DatasetProperties()
    assert props.compression is None and props.recordsize is None and props.quota is None
    assert props.as_zfs() == {}


@pytest.mark.parametrize("field", ["quota", "reservation", "refquota", "refreservation"])
def test_size_properties_take_none_or_a_size(field: str) -> None:
    assert DatasetProperties.model_validate({field: "none"}).as_zfs() == {field: "none"}
    assert DatasetProperties.model_validate({field: "2G"}).as_zfs() == {field: str(2 << 30)}
    assert DatasetProperties.model_validate({field: 4096}).as_zfs() == {field: "4096"}
    with pytest.raises(ValidationError, match="not a size"):
        DatasetProperties.model_validate({field: "lots"})


def test_module_defaults_are_the_openzfs_ones() -> None:
    assert ModuleDefaults().model_dump() == {
        "zfs_prefetch_disable": 0,
        "l2arc_noprefetch": 1,
        "zfs_txg_timeout": 5,
    }


@pytest.mark.parametrize("accepted,refused", [(1, 0), (30, 31)])
def test_txg_timeout_bounds(accepted: int, refused: int) -> None:
    assert ModuleDefaults(zfs_txg_timeout=accepted).zfs_txg_timeout == accepted
    with pytest.raises(ValidationError, match="zfs_txg_timeout"):
        ModuleDefaults(zfs_txg_timeout=refused)


@pytest.mark.parametrize("accepted,refused", [(0.001, 0), (1, 1.001)])
def test_hot_fraction_bounds(accepted: float, refused: float) -> None:
    assert Workload(shared_golden=True, hot_fraction=accepted).hot_fraction == accepted
    with pytest.raises(ValidationError, match="hot_fraction"):
        Workload(shared_golden=True, hot_fraction=refused)


@pytest.mark.parametrize("model", [ModuleDefaults, Workload, DatasetProperties])
def test_sub_models_refuse_unknown_keys(model: type) -> None:
    base = {"shared_golden": True, "hot_fraction": 0.1} if model is Workload else {}
    with pytest.raises(ValidationError, match="extra"):
        model.model_validate({**base, "zfs_arc_maxx": 1})


def test_pool_type_values_are_the_profile_file_names() -> None:
    assert [kind.value for kind in DesktopPoolType] == [
        "stateless-linked",
        "persistent-linked",
        "persistent-full",
        "stateless-full",
        "generic",
    ]


# ---- where the profiles are found ----


def test_profiles_are_looked_for_in_the_package_first() -> None:
    package = Path(profiles.__file__).resolve().parent
    assert (package / "profiles", package.parent / "profiles") == profiles.CANDIDATES


def test_profiles_dir_takes_the_first_folder_that_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel, source = tmp_path / "wheel", tmp_path / "source"
    monkeypatch.setattr(profiles, "CANDIDATES", (wheel, source))
    with pytest.raises(FileNotFoundError, match="no profiles folder"):
        profiles.profiles_dir()
    source.mkdir()
    assert profiles.profiles_dir() == source
    wheel.mkdir()
    assert profiles.profiles_dir() == wheel


def test_load_takes_a_pool_type_or_its_name() -> None:
    assert profiles.load("persistent-full").name is DesktopPoolType.persistent_full
    assert profiles.load(DesktopPoolType.generic).name is DesktopPoolType.generic
    with pytest.raises(ValueError):
        profiles.load("raid0")
