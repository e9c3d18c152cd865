"""The NFS export model's rules, each at its edge: ids, the dataset (its path), clients, the set's conflicts."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from support.nfs_exports import export

from appliance.control.errors import Conflict, InvalidName
from appliance.control.nfs.model import Protocol, check_set

HOSTILE = (";", "$", "@", " ", "/", ".", "'")
POSITIONS = ("first", "middle", "last")


def test_a_plain_export() -> None:
    e = export(protocol="4.1")
    assert e.protocol is Protocol.v41 and export(protocol="3").protocol is Protocol.v3
    assert e.insecure_ports is False
    assert e.pseudo == e.path == "/tank/ds1"


@pytest.mark.parametrize("export_id", [2, 65535])
def test_export_id_edges_accepted(export_id: int) -> None:
    assert export(export_id=export_id).export_id == export_id


@pytest.mark.parametrize("export_id", [1, 0, 65536])
def test_export_id_edges_refused(export_id: int) -> None:
    with pytest.raises(ValidationError, match="export_id"):
        export(export_id=export_id)


@pytest.mark.parametrize("count", [1, 64])
def test_client_count_edges_accepted(count: int) -> None:
    clients = [f"10.0.1.{i}" for i in range(1, count + 1)]
    assert export(clients=clients).clients == clients


@pytest.mark.parametrize("count", [0, 65])
def test_client_count_edges_refused(count: int) -> None:
    with pytest.raises(ValidationError, match="clients"):
        export(clients=[f"10.0.1.{i}" for i in range(1, count + 1)])


def test_a_client_listed_twice_is_refused() -> None:
    with pytest.raises(InvalidName, match="listed twice"):
        export(clients=["10.0.1.1", "10.0.1.2", "10.0.1.1"])


@pytest.mark.parametrize("bad", ["10.0.0.0/8", "esxi01.lab", "0.0.0.0", "*"])  # noqa: S104 - refused, not bound
def test_a_client_is_one_host_address(bad: str) -> None:
    with pytest.raises(InvalidName):
        export(clients=[bad])


@pytest.mark.parametrize("dataset", ["tank", "tank/x;y", "mirror/x"])
def test_the_dataset_is_below_a_pool_root(dataset: str) -> None:
    with pytest.raises(InvalidName):
        export(dataset=dataset)


@pytest.mark.parametrize("given", ["/etc", "/root", "/var/lib/arcvsa", "/tank", "/tank/ds10", "/tank/../etc"])
def test_the_path_is_always_the_dataset_s_mount_point(given: str) -> None:
    """A path in the input (a hand-written row, an old backup) is never read: root's NFS server serves
    the dataset's own mount point and no other folder."""
    e = export(path=given)
    assert e.path == "/tank/ds1" and e.model_dump()["path"] == "/tank/ds1"
    assert export(dataset="tank/vdi/gold-1.2").path == "/tank/vdi/gold-1.2"


@pytest.mark.parametrize("pool", ["etc", "root", "var", "usr", "opt", "boot", "proc", "lost+found"])
def test_a_dataset_in_a_pool_named_as_a_system_folder_is_refused(pool: str) -> None:
    with pytest.raises(InvalidName):
        export(dataset=f"{pool}/ssh")


def _hostile_datasets() -> list[str]:
    out = []
    for c in HOSTILE:
        for pos in POSITIONS:
            if c in "./" and pos != "first":
                continue  # inside a name a dot is plain and a slash names a child; a leading one is tested
            part = {"first": f"{c}ds1", "middle": f"d{c}s1", "last": f"ds1{c}"}[pos]
            out.append(f"tank/{part}")
    return out


@pytest.mark.parametrize(
    "dataset", ["tank/", "tank//ds1", "tank/../etc", "tank/..", "tank/./ds1", "tank/.", "tank/" + "d" * 65,
                *_hostile_datasets()],
)  # fmt: skip
def test_a_dataset_whose_mount_point_could_name_another_folder_is_refused(dataset: str) -> None:
    with pytest.raises(InvalidName):
        export(dataset=dataset)


def test_a_set_of_separate_exports_is_fine() -> None:
    check_set([])
    check_set(
        [
            export(export_id=2, dataset="tank/a", protocol="3"),
            export(export_id=3, dataset="tank/b", protocol="4.1"),  # same hosts, other path
            export(export_id=4, dataset="tank/c", protocol="3"),
        ]
    )


def test_export_ids_are_unique() -> None:
    with pytest.raises(Conflict, match="share an export id"):
        check_set([export(dataset="tank/a"), export(dataset="tank/b")])


def test_one_path_to_other_hosts_over_either_protocol_is_fine() -> None:
    check_set(
        [
            export(export_id=2, clients=["10.0.1.1"], protocol="3"),
            export(export_id=3, clients=["10.0.1.2"], protocol="4.1"),
            export(export_id=4, clients=["10.0.1.3"], protocol="3"),
        ]
    )


def test_one_path_over_both_protocols_to_one_host_is_refused() -> None:
    with pytest.raises(Conflict, match=r"/tank/ds1 would be exported over NFS 3 and 4.1 to \['10.0.1.2'\]"):
        check_set(
            [
                export(export_id=2, clients=["10.0.1.1", "10.0.1.2"], protocol="3"),
                export(export_id=3, clients=["10.0.1.3"], protocol="3"),
                export(export_id=4, clients=["10.0.1.2"], protocol="4.1"),
            ]
        )


def test_one_path_twice_to_one_host_is_refused() -> None:
    with pytest.raises(Conflict, match=r"/tank/ds1 is exported twice to \['10.0.1.2'\]"):
        check_set(
            [
                export(export_id=2, clients=["10.0.1.2"], protocol="4.1"),
                export(export_id=3, clients=["10.0.1.1", "10.0.1.2"], protocol="4.1"),
            ]
        )
