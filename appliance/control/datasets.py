"""Datasets for desktop pools: create with a tuning profile, properties, snapshots, clones, zvols.

Properties go through zfs_tuning's schema, so ``sync=disabled`` is refused before any tool runs,
and dedup comes back with a memory-cost warning.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field, ValidationError
from zfs_tuning.calculator import dedup_table_bytes
from zfs_tuning.schema import DatasetProperties, Profile, parse_size

from appliance.control import names, zjson
from appliance.control.errors import AlreadyExists, CommandFailed, Conflict, InvalidRequest, NotFound, Refused
from appliance.control.gateway import Gateway, Rules

RULES: Rules = (
    (r"dataset already exists|already exists", AlreadyExists),
    (r"dataset does not exist|no such pool|could not find any snapshots", NotFound),
    (r"has children|has dependent clones|dataset is busy|pool or dataset is busy", InvalidRequest),
)
SHOWN = "type,used,available,referenced,logicalused,compressratio,mountpoint,origin,volsize," + ",".join(
    DatasetProperties.model_fields
)


def check_properties(properties: dict[str, Any]) -> DatasetProperties:
    """Validated properties; sync=disabled and unknown properties are refused."""
    if str(properties.get("sync", "")).lower() == "disabled":
        raise Refused("sync=disabled is never allowed: acknowledged writes must survive a power cut")
    try:
        return DatasetProperties.model_validate(properties)
    except ValidationError as err:
        raise InvalidRequest(f"invalid dataset properties: {err.errors()[0]['msg']}") from None


def dedup_warning(props: DatasetProperties, expected_bytes: int) -> str | None:
    """A memory-cost warning when dedup is on."""
    if props.dedup in (None, "off"):
        return None
    table = dedup_table_bytes(expected_bytes, parse_size(props.recordsize or "128K"))
    return f"dedup keeps a table in RAM: about {table / 2**30:.1f} GiB for {expected_bytes / 2**30:.0f} GiB of unique data"


def _checked(name: str, dataset_check: Callable[[str], str]) -> str:
    """A snapshot name, or a dataset name passing ``dataset_check``."""
    return names.snapshot(name) if "@" in name else dataset_check(name)


def _options(props: DatasetProperties) -> list[str]:
    return [w for k, v in props.as_zfs().items() for w in ("-o", f"{k}={v}")]


class Dataset(BaseModel):
    """A dataset or zvol with the properties arcvsa cares about."""

    name: str = Field(description="full name, pool/child")
    type: str = Field(description="FILESYSTEM, VOLUME or SNAPSHOT")
    used: int = Field(description="bytes used including children and snapshots")
    available: int | None = Field(description="bytes available")
    referenced: int = Field(description="bytes referenced")
    logicalused: int = Field(description="bytes before compression")
    compressratio: float = Field(description="logical / physical bytes")
    mountpoint: str | None = Field(description="mount point of a file system")
    origin: str | None = Field(description="snapshot this clone came from")
    properties: dict[str, Any] = Field(description="the tunable properties and their values")
    local: list[str] = Field(description="tunable properties set on this dataset (not inherited)")


def parse_datasets(stdout: str, command: str) -> list[Dataset]:
    """Datasets from ``zfs get -j --json-int`` or ``zfs list -j --json-int -o ...``."""
    data = zjson.load(stdout, command)
    out = []
    for name, raw in data.get("datasets", {}).items():
        vals = zjson.values(raw.get("properties", {}))
        srcs = zjson.sources(raw.get("properties", {}))
        tunables = {k: vals.get(k) for k in DatasetProperties.model_fields if k in vals}
        out.append(
            Dataset(
                name=name,
                type=raw.get("type", "?"),
                used=int(vals.get("used") or 0),
                available=vals.get("available"),
                referenced=int(vals.get("referenced") or 0),
                logicalused=int(vals.get("logicalused") or 0),
                compressratio=zjson.ratio(vals.get("compressratio") or "1.00"),
                mountpoint=vals.get("mountpoint"),
                origin=vals.get("origin"),
                properties=tunables,
                local=[k for k in tunables if srcs.get(k) == "LOCAL"],
            )
        )
    return out


def get(gw: Gateway, name: str) -> Dataset:
    """One dataset, zvol or snapshot."""
    argv = ["zfs", "get", "-j", "--json-int", "-p", SHOWN, _checked(name, names.dataset)]
    found = parse_datasets(gw.query(argv, rules=RULES).stdout, "zfs get")
    if not found:
        raise NotFound(f"no such dataset: {name}")
    return found[0]


def create(gw: Gateway, name: str, properties: dict[str, Any] | DatasetProperties) -> Dataset:
    """Create a file system below a pool's root with the given (validated) properties."""
    props = properties if isinstance(properties, DatasetProperties) else check_properties(properties)
    names.child_dataset(name)
    gw.run(["zfs", "create", *_options(props), name], rules=RULES)
    return get(gw, name)


def create_for_profile(
    gw: Gateway, name: str, profile: Profile, overrides: dict[str, Any] | None = None
) -> Dataset:
    """Create a datastore dataset with a tuning profile's properties (overrides win, still validated)."""
    merged = {**profile.dataset.as_zfs(), **(overrides or {})}
    return create(gw, name, check_properties(merged))


def set_properties(gw: Gateway, name: str, properties: dict[str, Any]) -> Dataset:
    """Change properties of an existing dataset; only the ones given are touched."""
    props = check_properties(properties)
    words = [f"{k}={v}" for k, v in props.as_zfs().items()]
    if not words:
        raise InvalidRequest("no properties to set")
    gw.run(["zfs", "set", *words, names.dataset(name)], rules=RULES)
    return get(gw, name)


def create_volume(
    gw: Gateway, name: str, size_bytes: int, *, volblocksize: str = "16K", sparse: bool = True
) -> Dataset:
    """A zvol for an iSCSI LUN (sparse by default: the SAN is thin-provisioned behind it)."""
    names.child_dataset(name)
    if size_bytes <= 0 or size_bytes % parse_size(volblocksize):
        raise InvalidRequest(f"volume size must be a positive multiple of {volblocksize}")
    argv = [
        "zfs",
        "create",
        *(["-s"] if sparse else []),
        "-V",
        str(size_bytes),
        "-o",
        f"volblocksize={volblocksize}",
    ]
    gw.run([*argv, "-o", "compression=lz4", name], rules=RULES)
    return get(gw, name)


def snapshot(gw: Gateway, name: str) -> Dataset:
    """Take dataset@tag (e.g. a golden image before cloning)."""
    gw.run(["zfs", "snapshot", names.snapshot(name)], rules=RULES)
    return get(gw, name)


def clone(gw: Gateway, snap: str, target: str, properties: dict[str, Any] | None = None) -> Dataset:
    """An instant copy of a golden snapshot (full-clone pools); shares blocks until they diverge."""
    props = check_properties(properties or {})
    names.snapshot(snap)
    gw.run(["zfs", "clone", *_options(props), snap, names.child_dataset(target)], rules=RULES)
    return get(gw, target)


# zfs destroy's refusals: a dataset others depend on is a conflict to resolve first, never forced (-R).
DESTROY_RULES: Rules = ((r"dataset does not exist|could not find any snapshots", NotFound),)
# matched on zfs's whole message (its last line is a list of the dependent datasets, not the reason)
DESTROY_CONFLICTS: Rules = ((r"has dependent clones|has children|dataset is busy", Conflict),)


def destroy(gw: Gateway, name: str, *, recursive: bool = False) -> None:
    """Destroy a dataset, zvol or snapshot below a pool's root (recursive: with its snapshots and children).

    NotFound when it does not exist; Conflict (zfs's own words) when clones depend on it or it has
    children or snapshots (without `recursive`) or is busy. Never -R: dependent clones are never taken along.
    """
    argv = ["zfs", "destroy", *(["-r"] if recursive else []), _checked(name, names.child_dataset)]
    try:
        gw.run(argv, rules=DESTROY_RULES)
    except CommandFailed as err:
        said = " ".join(err.stderr.split())
        for pattern, error in DESTROY_CONFLICTS:
            if re.search(pattern, said):
                raise error(said) from None
        raise


def list_all(gw: Gateway, pool: str) -> list[Dataset]:
    """Every file system and zvol of a pool."""
    argv = ["zfs", "get", "-j", "--json-int", "-p", "-r", "-t", "filesystem,volume", SHOWN, names.pool(pool)]
    return parse_datasets(gw.query(argv, rules=RULES).stdout, "zfs get")


def compressratio(gw: Gateway, name: str) -> float:
    """The compression ratio of a dataset (a string in 2.3's JSON even with --json-int)."""
    data = zjson.load(
        gw.query(
            ["zfs", "get", "-j", "--json-int", "compressratio", names.dataset(name)], rules=RULES
        ).stdout,
        "zfs get",
    )
    return zjson.ratio(zjson.values(data["datasets"][name]["properties"])["compressratio"])
