"""Every refusal of the DeploymentPlan models (provisioning.plan), each rule at its edge, one bad field at a time.

Each case starts from a plan part that is accepted as it is and changes one field, so a refusal can only
come from the rule under test; the value just inside each bound is accepted, the one just outside refused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from provisioning.plan import (
    ApplianceSpec,
    DeploymentPlan,
    DesktopPoolSpec,
    Fleet,
    HorizonSpec,
    LunDisk,
    NfsDatastore,
)

VMDK: dict[str, Any] = {"datastore": "san-lun-01", "size_gb": 10}
RDM: dict[str, Any] = {"rdm_lun": "naa.600a0b80001234560000abcd12345678"}
APPLIANCE: dict[str, Any] = {"host": "esx-1", "name": "vsa-1", "disks": [VMDK]}
FLEET: dict[str, Any] = {"ova_path": "arcvsa.ova", "network": "vsa-nfs", "datastore": "san-lun-01",
                         "appliances": [APPLIANCE]}  # fmt: skip
NFS: dict[str, Any] = {"name": "arcvsa-nfs", "server": "10.0.0.21", "path": "/tank/vdi"}
POOL: dict[str, Any] = {"name": "pool-a", "count": 2, "naming": "vdi-##", "folder": "vdi/pool-a",
                        "golden_vm": "golden", "snapshot": "base", "datastore": "arcvsa-nfs"}  # fmt: skip
HORIZON: dict[str, Any] = {"endpoint": "cs.example.org:443", "username": "admin", "domain": "corp",
                           "vcenter": "vc.example.org"}  # fmt: skip
PLAN: dict[str, Any] = {"name": "dep", "datacenter": "dc", "cluster": "cluster"}
PIN = "AB:" * 31 + "CD"

#: every hostile character alone, and the ones a name may hold after its first character
HOSTILE = (";", "$", "@", " ", "/", ".", "'", "-", "_", "\\", "\n", "#", "*")


def accepts(model: type[BaseModel], base: dict[str, Any], **change: Any) -> bool:
    try:
        model.model_validate({**base, **change})
    except ValidationError:
        return False
    return True


def refusal(model: type[BaseModel], base: dict[str, Any], **change: Any) -> str:
    """The validation message of a refused part (the test fails if it is accepted)."""
    with pytest.raises(ValidationError) as caught:
        model.model_validate({**base, **change})
    return str(caught.value)


def appliance(n: int, **extra: Any) -> dict[str, Any]:
    return {"host": f"esx-{n}", "name": f"vsa-{n}", "disks": [VMDK], **extra}


def plan(**parts: Any) -> dict[str, Any]:
    return {**PLAN, **parts}


# --- the string rules, each at its length edges and with one hostile character in each position ---

NAME_GOOD = ["a", "Z", "0", "a" * 80, "a b", "a.b", "a_b", "a-b", "a.", "san-lun-01", "9 lives"]
NAME_BAD = (
    ["", "a" * 81]
    + [c + "a" for c in HOSTILE]
    + [f"a{c}b" for c in HOSTILE if c not in " ._-"]
    + [f"ab{c}" for c in HOSTILE if c not in " ._-"]
)


@pytest.mark.parametrize("value", NAME_GOOD)
def test_an_inventory_name_within_the_rule_is_accepted(value: str) -> None:
    assert accepts(DeploymentPlan, PLAN, datacenter=value)
    assert accepts(DesktopPoolSpec, POOL, golden_vm=value)


@pytest.mark.parametrize("value", NAME_BAD, ids=repr)
def test_an_inventory_name_outside_the_rule_is_refused(value: str) -> None:
    assert not accepts(DeploymentPlan, PLAN, datacenter=value)
    assert not accepts(DesktopPoolSpec, POOL, golden_vm=value)


@pytest.mark.parametrize("value", ["a", "0", "a" * 64, "dep-1", "dep.a_b"])
def test_a_deployment_id_within_the_rule_is_accepted(value: str) -> None:
    assert accepts(DeploymentPlan, PLAN, name=value)


@pytest.mark.parametrize(
    "value",
    ["", "a" * 65, "A", "dA", "de p"] + [c + "a" for c in HOSTILE] + [f"a{c}b" for c in HOSTILE if c not in "._-"]
    + [f"ab{c}" for c in HOSTILE if c not in "._-"],
    ids=repr,
)  # fmt: skip
def test_a_deployment_id_outside_the_rule_is_refused(value: str) -> None:
    assert not accepts(DeploymentPlan, PLAN, name=value)


FOLDER_GOOD = ["a", "a/b", "a/b/c", "a b/c.d_e-f/G9", "a" * 255, "a/" + "b" * 253]
FOLDER_BAD = ["", "a" * 256, "a/" + "b" * 254, "/a", "a/", "a//b", "a/b/", "a/ b", "a/.b", "a/-b"] + [
    form.format(c)
    for c in (";", "$", "@", "'", "\\", "#", "*")
    for form in ("{}a", "a{}b", "a/{}b", "a/b{}c", "a/b{}")
]


@pytest.mark.parametrize("value", FOLDER_GOOD)
def test_a_folder_path_within_the_rule_is_accepted(value: str) -> None:
    assert accepts(DesktopPoolSpec, POOL, folder=value)


@pytest.mark.parametrize("value", FOLDER_BAD, ids=repr)
def test_a_folder_path_outside_the_rule_is_refused(value: str) -> None:
    assert not accepts(DesktopPoolSpec, POOL, folder=value)


ENDPOINT_GOOD = ["h:1", "h:12345", "10.0.0.21:443", "[fe80::1]:10443", "cs-1.example.org:443",
                 "a" * 254 + ":12345"]  # fmt: skip
ENDPOINT_BAD = (
    ["", "h:", ":443", "h443", "h:123456", "h:44a", "a" * 255 + ":12345", ";h:443", "h:443;"]
    + [form.format(c) for c in (";", "$", "@", " ", "/", "'") for form in ("h{}x:443", "h:4{}3")]
    + ["h:4.3"]
)


@pytest.mark.parametrize("value", ENDPOINT_GOOD)
def test_an_endpoint_within_the_rule_is_accepted(value: str) -> None:
    assert accepts(HorizonSpec, HORIZON, endpoint=value)
    assert accepts(ApplianceSpec, APPLIANCE, api_endpoint=value)


@pytest.mark.parametrize("value", ENDPOINT_BAD, ids=repr)
def test_an_endpoint_outside_the_rule_is_refused(value: str) -> None:
    assert not accepts(HorizonSpec, HORIZON, endpoint=value)
    assert not accepts(ApplianceSpec, APPLIANCE, api_endpoint=value)


BY_ID = "/dev/disk/by-id/"


@pytest.mark.parametrize("value", [BY_ID + "a", BY_ID + "wwn-0x6000c29:a+b_c.d-e", BY_ID + "a" * 184])
def test_a_guest_disk_path_within_the_rule_is_accepted(value: str) -> None:
    assert accepts(LunDisk, VMDK, guest_path=value)


@pytest.mark.parametrize(
    "value",
    [BY_ID, BY_ID + "a" * 185, "x" + BY_ID + "a", BY_ID + "a;", "/dev/disk/by-uuid/a", BY_ID + "../a/b"]
    + [f"{BY_ID}a{c}b" for c in (";", "$", "@", " ", "/", "'", "\\")],
    ids=repr,
)
def test_a_guest_disk_path_outside_the_rule_is_refused(value: str) -> None:
    assert not accepts(LunDisk, VMDK, guest_path=value)


@pytest.mark.parametrize("value", ["naa.1", "eui.1", "t10.1", "mpx.1", "naa.6000:a_b-c.d", "naa." + "a" * 96])
def test_a_lun_name_within_the_rule_is_accepted(value: str) -> None:
    assert accepts(LunDisk, {}, rdm_lun=value)


@pytest.mark.parametrize(
    "value",
    ["naa.", "naa." + "a" * 97, "naaX1", "vml.1", "NAA.1", "xnaa.1", "naa.1;"]
    + [f"naa.1{c}2" for c in (";", "$", "@", " ", "/", "'")],
    ids=repr,
)
def test_a_lun_name_outside_the_rule_is_refused(value: str) -> None:
    assert not accepts(LunDisk, {}, rdm_lun=value)


# --- the number bounds: the last value inside accepted, the first outside refused ---

BOUNDS: list[tuple[type[BaseModel], dict[str, Any], str, list[Any], list[Any]]] = [
    (LunDisk, VMDK, "size_gb", [1, 62 * 1024], [0, 62 * 1024 + 1]),
    (Fleet, FLEET, "health_timeout_s", [0.5, 3600], [0, -1, 3600.5]),
    (DesktopPoolSpec, POOL, "count", [1, 4000], [0, 4001]),
    (DesktopPoolSpec, POOL, "first_number", [0, 1_000_000], [-1]),
    (DesktopPoolSpec, POOL, "vcpus", [1, 64], [0, 65]),
    (DesktopPoolSpec, POOL, "memory_mb", [256, 1024 * 1024], [255, 1024 * 1024 + 1]),
    (DesktopPoolSpec, POOL, "concurrency", [1, 64], [0, 65]),
    (DesktopPoolSpec, POOL, "delta_gb", [0.5, 1e6], [0, -0.5]),
    (DesktopPoolSpec, POOL, "memory_overcommit", [1, 20], [0.99, 20.01]),
]


@pytest.mark.parametrize(
    ("model", "base", "field", "inside", "outside"), BOUNDS, ids=[f"{b[0].__name__}.{b[2]}" for b in BOUNDS]
)
def test_each_number_bound_at_its_edge(
    model: type[BaseModel], base: dict[str, Any], field: str, inside: list[Any], outside: list[Any]
) -> None:
    assert [v for v in inside if not accepts(model, base, **{field: v})] == []
    assert [v for v in outside if accepts(model, base, **{field: v})] == []


LENGTHS: list[tuple[type[BaseModel], dict[str, Any], str, int, int]] = [
    (Fleet, FLEET, "ova_path", 1, 4096),
    (NfsDatastore, NFS, "server", 1, 253),
    (HorizonSpec, HORIZON, "username", 1, 128),
    (HorizonSpec, HORIZON, "domain", 1, 128),
    (HorizonSpec, HORIZON, "vcenter", 1, 253),
]


@pytest.mark.parametrize(
    ("model", "base", "field", "low", "high"), LENGTHS, ids=[f"{b[0].__name__}.{b[2]}" for b in LENGTHS]
)
def test_each_text_length_at_its_edge(
    model: type[BaseModel], base: dict[str, Any], field: str, low: int, high: int
) -> None:
    assert accepts(model, base, **{field: "a" * low})
    assert accepts(model, base, **{field: "a" * high})
    assert not accepts(model, base, **{field: "a" * (low - 1)})
    if model is not Fleet:  # an OVA path has no upper bound
        assert not accepts(model, base, **{field: "a" * (high + 1)})


def test_the_nfs_path_is_absolute_and_at_most_255_characters() -> None:
    assert accepts(NfsDatastore, NFS, path="/")
    assert accepts(NfsDatastore, NFS, path="/" + "a" * 254)
    assert not accepts(NfsDatastore, NFS, path="/" + "a" * 255)
    assert not accepts(NfsDatastore, NFS, path="tank/vdi")
    assert not accepts(NfsDatastore, NFS, path="")


def test_the_export_clients_are_2_to_64_characters_and_at_most_256() -> None:
    assert accepts(NfsDatastore, NFS, clients=["ab", "a" * 64])
    assert not accepts(NfsDatastore, NFS, clients=["a"])
    assert not accepts(NfsDatastore, NFS, clients=["a" * 65])
    assert accepts(NfsDatastore, NFS, clients=[f"10.0.{n // 250}.{n % 250}" for n in range(256)])
    assert not accepts(NfsDatastore, NFS, clients=[f"10.0.{n // 250}.{n % 250}" for n in range(257)])


@pytest.mark.parametrize(
    ("naming", "ok"),
    [("vdi-#", True), ("a#", True), ("a#b", True), ("a##-x.y_z", True), ("a" * 63 + "#", True),
     ("a" * 64 + "#", False), ("vdi", False), ("#a", False), ("-a#", False), ("a#b#", False),
     ("a;#", False), ("a#;", False), ("a #", False), ("a#/b", False), ("a$#", False), ("a#@", False)],
)  # fmt: skip
def test_a_naming_pattern_has_one_run_of_hashes_and_no_hostile_character(naming: str, ok: bool) -> None:
    assert accepts(DesktopPoolSpec, POOL, naming=naming) is ok


# --- the choices: each one accepted, anything else refused, and the defaults ---


@pytest.mark.parametrize(
    ("model", "base", "field", "choices"),
    [
        (LunDisk, VMDK, "role", ["data", "log", "cache"]),
        (Fleet, FLEET, "size", ["small", "medium", "large"]),
        (NfsDatastore, NFS, "version", ["3", "4.1"]),
        (NfsDatastore, NFS, "profile",
         ["stateless-linked", "persistent-linked", "persistent-full", "stateless-full", "generic"]),
        (DesktopPoolSpec, POOL, "persistence", ["stateless", "persistent"]),
        (DesktopPoolSpec, POOL, "clone", ["linked", "full"]),
        (DesktopPoolSpec, POOL, "full_copy", ["vsphere", "zfs"]),
    ],
)  # fmt: skip
def test_each_choice_is_accepted_and_nothing_else(
    model: type[BaseModel], base: dict[str, Any], field: str, choices: list[str]
) -> None:
    assert [c for c in choices if not accepts(model, base, **{field: c})] == []
    assert not accepts(model, base, **{field: "4"})
    assert not accepts(model, base, **{field: choices[-1] + " "})


def test_the_defaults() -> None:
    pool = DesktopPoolSpec.model_validate(POOL)
    assert (pool.persistence, pool.clone, pool.full_copy, pool.first_number) == (
        "stateless",
        "linked",
        "vsphere",
        1,
    )
    assert (pool.vcpus, pool.memory_mb, pool.concurrency, pool.power_on) == (2, 4096, 8, True)
    assert (pool.delta_gb, pool.memory_overcommit, pool.resource_pool, pool.customization_spec) == (
        2.0, 4.0, None, None
    )  # fmt: skip
    fleet = Fleet.model_validate(FLEET)
    assert (fleet.size, fleet.health_timeout_s, fleet.admin_password, fleet.properties) == (
        "small",
        600.0,
        None,
        {},
    )
    nfs = NfsDatastore.model_validate(NFS)
    assert (nfs.version, nfs.profile, nfs.clients) == ("3", None, None)
    assert LunDisk.model_validate(VMDK).role == "data"


def test_an_unknown_field_is_refused_everywhere() -> None:
    for model, base in [(LunDisk, VMDK), (ApplianceSpec, APPLIANCE), (Fleet, FLEET), (NfsDatastore, NFS),
                        (DesktopPoolSpec, POOL), (HorizonSpec, HORIZON), (DeploymentPlan, PLAN)]:  # fmt: skip
        assert accepts(model, base)
        assert not accepts(model, base, colour="red"), model.__name__


# --- the validators' refusals, one each ---


def test_a_disk_is_a_vmdk_with_datastore_and_size_or_an_rdm() -> None:
    assert accepts(LunDisk, {}, datastore="san", size_gb=1)
    assert accepts(LunDisk, RDM)
    assert accepts(LunDisk, RDM, datastore="san"), "an RDM's mapping file may go to a datastore"
    for bad in ({}, {"datastore": "san"}, {"size_gb": 10}):
        assert "a LUN disk is a VMDK" in refusal(LunDisk, bad)
    assert "not both" in refusal(LunDisk, RDM, size_gb=10)
    assert "not both" in refusal(LunDisk, RDM, datastore="san", size_gb=10)


def test_a_disk_describes_itself_by_role() -> None:
    assert LunDisk.model_validate(VMDK).describe() == "10 GiB on san-lun-01"
    assert LunDisk.model_validate({**VMDK, "role": "log"}).describe() == "SLOG 10 GiB on san-lun-01"
    assert LunDisk.model_validate({**RDM, "role": "cache"}).describe() == f"L2ARC RDM of {RDM['rdm_lun']}"
    assert LunDisk.model_validate(RDM).describe() == f"RDM of {RDM['rdm_lun']}"


def ssd(role: str) -> dict[str, Any]:
    return {"role": role, "datastore": "ssd-01", "size_gb": 16}


def test_a_pool_needs_a_data_disk_and_at_most_two_slogs() -> None:
    assert accepts(ApplianceSpec, APPLIANCE, disks=[])
    assert accepts(ApplianceSpec, APPLIANCE, disks=[VMDK, ssd("log"), ssd("log"), ssd("cache"), ssd("cache")])
    assert accepts(ApplianceSpec, APPLIANCE, disks=[RDM, ssd("log")])
    for only_ssds in ([ssd("log")], [ssd("cache")], [ssd("log"), ssd("cache")]):
        assert "vsa-1: a pool needs at least one data disk" in refusal(
            ApplianceSpec, APPLIANCE, disks=only_ssds
        )
    assert "vsa-1: at most two SLOG disks" in refusal(
        ApplianceSpec, APPLIANCE, disks=[VMDK, ssd("log"), ssd("log"), ssd("log")]
    )


def test_a_thumbprint_is_normalised_and_a_bad_one_refused() -> None:
    spec = ApplianceSpec.model_validate({**APPLIANCE, "api_thumbprint_sha256": PIN.lower().replace(":", "")})
    assert spec.api_thumbprint_sha256 == PIN
    assert HorizonSpec.model_validate({**HORIZON, "thumbprint_sha256": PIN.lower()}).thumbprint_sha256 == PIN
    assert not accepts(ApplianceSpec, APPLIANCE, api_thumbprint_sha256=PIN[:-3])
    assert not accepts(HorizonSpec, HORIZON, thumbprint_sha256="AB:" * 19 + "CD")


def test_a_fleet_has_an_appliance() -> None:
    assert not accepts(Fleet, FLEET, appliances=[])


@pytest.mark.parametrize("where", ["fleet", "appliance"])
def test_fleet_and_appliance_properties_are_checked_against_the_ovf_catalogue(where: str) -> None:
    def fleet(properties: dict[str, str]) -> dict[str, Any]:
        if where == "fleet":
            return {**FLEET, "properties": properties}
        return {**FLEET, "appliances": [appliance(1), appliance(2, properties=properties)]}

    label = "fleet" if where == "fleet" else "vsa-2"
    assert accepts(Fleet, fleet({"hostname": "anything-at-all", "role": "manager", "ipv4_mode": "static"}))
    assert f"{label}: 'bogus' is not an OVF property" in refusal(
        Fleet, fleet({"hostname": "a", "bogus": "1"})
    )
    assert f"{label}: 'admin_password' is a password" in refusal(
        Fleet, fleet({"admin_password": "secret123"})
    )
    assert f"{label}: role='boss' is not one of" in refusal(Fleet, fleet({"role": "boss"}))
    assert f"{label}: nfs_backend='Ganesha' is not one of" in refusal(
        Fleet, fleet({"nfs_backend": "Ganesha"})
    )


def test_one_appliance_per_host_with_its_own_name_and_luns() -> None:
    two = [appliance(1, disks=[RDM]), appliance(2, disks=[{"rdm_lun": "naa.2"}])]
    assert accepts(DeploymentPlan, plan(fleet={**FLEET, "appliances": two}))
    assert accepts(DeploymentPlan, plan(fleet={**FLEET, "appliances": [appliance(1), appliance(2)]})), (
        "VMDKs on one datastore are not shared LUNs"
    )
    same_host = [appliance(1), {**appliance(2), "host": "esx-1"}]
    assert "a host is named twice" in refusal(
        DeploymentPlan, plan(), fleet={**FLEET, "appliances": same_host}
    )
    same_name = [appliance(1), {**appliance(2), "name": "vsa-1"}]
    assert "appliance names must differ" in refusal(
        DeploymentPlan, plan(), fleet={**FLEET, "appliances": same_name}
    )
    same_lun = [appliance(1, disks=[RDM]), appliance(2, disks=[VMDK, RDM])]
    assert "a LUN is mapped raw twice" in refusal(
        DeploymentPlan, plan(), fleet={**FLEET, "appliances": same_lun}
    )


def test_horizon_needs_a_pool() -> None:
    assert accepts(DeploymentPlan, plan(pool=POOL, horizon=HORIZON))
    assert "the plan needs a pool" in refusal(DeploymentPlan, plan(), horizon=HORIZON)
    assert accepts(DeploymentPlan, PLAN), "a plan may be only a name"


@pytest.mark.parametrize(
    ("path", "ok"),
    [("/t/v", True), ("/tank/vdi", True), ("/tank/vdi/a-b_c.d:e", True), ("/t.a_b-c/v", True),
     ("/tank", False), ("/tank/", False), ("/t/v/", False), ("//t/v", False), ("/t//v", False),
     ("/.t/v", False), ("/-t/v", False), ("/t/.v", False), ("/t/:v", False), ("/t:x/v", False)]
    + [(form.format(c), False) for c in (";", "$", "@", " ", "'")
       for form in ("/{}t/v", "/t{}x/v", "/t/{}v", "/t/v{}x")],
    ids=repr,
)  # fmt: skip
def test_with_a_fleet_the_nfs_path_is_a_pool_and_a_dataset(path: str, ok: bool) -> None:
    with_fleet = plan(fleet=FLEET, nfs={**NFS, "path": path})
    if ok:
        assert accepts(DeploymentPlan, with_fleet)
    else:
        assert "nfs.path must be /<pool>/<dataset>" in refusal(DeploymentPlan, with_fleet)
    assert accepts(DeploymentPlan, plan(nfs={**NFS, "path": path})), (
        "without a fleet the path is someone else's"
    )


def test_a_fleet_without_a_datastore_is_a_plan() -> None:
    assert accepts(DeploymentPlan, plan(fleet=FLEET))


# --- what the models derive ---


@pytest.mark.parametrize(
    ("path", "dataset"),
    [
        ("/tank/vdi", ("tank", "tank/vdi")),
        ("/tank/vdi/a/", ("tank", "tank/vdi/a")),
        ("/XtankX/vdiX", ("XtankX", "XtankX/vdiX")),
    ],
)
def test_the_dataset_an_nfs_path_names(path: str, dataset: tuple[str, str]) -> None:
    assert NfsDatastore.model_validate({**NFS, "path": path}).dataset() == dataset


def test_desktop_names_are_numbered_from_the_first_number_and_padded_to_the_run_of_hashes() -> None:
    pool = DesktopPoolSpec.model_validate({**POOL, "naming": "vdi-###-x", "first_number": 98, "count": 3})
    assert pool.desktop_names() == ["vdi-098-x", "vdi-099-x", "vdi-100-x"]
    assert pool.desktop_name(12345) == "vdi-12345-x"
    assert DesktopPoolSpec.model_validate({**POOL, "naming": "a#"}).desktop_names() == ["a1", "a2"]


@pytest.mark.parametrize(
    ("naming", "name", "ok"),
    [("vdi-###", "vdi-007", True), ("vdi-###", "vdi-12345", True), ("vdi-###", "vdi-7", True),
     ("vdi-###", "vdi-", False), ("vdi-###", "vdi-abc", False), ("vdi-###", "xvdi-007", False),
     ("vdi-###", "vdi-007x", False), ("a-##-x", "a-7-x", True), ("a-##-x", "a-07-y", False),
     ("a-##-x", "b-07-x", False), ("a-##-x", "a-7x-x", False), ("a-##-x", "a--x", False)],
)  # fmt: skip
def test_a_name_matches_the_pattern_whatever_its_number(naming: str, name: str, ok: bool) -> None:
    assert DesktopPoolSpec.model_validate({**POOL, "naming": naming}).matches(name) is ok


def test_a_desktop_records_the_golden_vm_and_snapshot_it_came_from() -> None:
    assert DesktopPoolSpec.model_validate(POOL).source == "golden@base"


def test_the_storage_profile_is_the_datastore_s_else_the_pool_s_else_generic() -> None:
    def profile(**parts: Any) -> str:
        return DeploymentPlan.model_validate(plan(**parts)).storage_profile()

    assert profile() == "generic"
    assert profile(nfs=NFS) == "generic"
    assert profile(pool={**POOL, "persistence": "persistent", "clone": "full"}) == "persistent-full"
    assert profile(nfs=NFS, pool=POOL) == "stateless-linked"
    assert profile(nfs={**NFS, "profile": "persistent-linked"}, pool=POOL) == "persistent-linked"


def test_the_committed_api_document_publishes_the_plan_as_the_code_defines_it() -> None:
    from api.openapi import document  # late: only the run that gets this far builds the app

    committed = json.loads((Path(__file__).resolve().parents[2] / "api/openapi.json").read_text())
    published, current = committed["components"]["schemas"], document()["components"]["schemas"]
    for name in ("DeploymentPlan", "Fleet", "ApplianceSpec", "LunDisk", "NfsDatastore", "HorizonSpec",
                 "DesktopPoolSpec"):  # fmt: skip
        assert current[name] == published[name], f"{name}: run `make openapi`"
