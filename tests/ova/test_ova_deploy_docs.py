"""The govc deploy docs/deploy.md documents, run with govc itself: the options file fills exactly the
properties `govc import.spec` lists for the OVA, and `govc import.ova` with it and the documented flags
deploys the OVA into vcsim with those values."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.ova import PROPERTY_VALUES, OvaUnderTest

from lab.vcsim import CLUSTER, DATACENTER, DATASTORES, PORT_GROUPS
from ovf.deploy_docs import GOVC_IMPORT, OPTIONS_FILE, OVA, SITE, govc_options
from ovf.hardware import APPLIANCE_HARDWARE
from ovf.properties import load_catalogue

pytestmark = pytest.mark.integration

# The documented names, as this vcsim spells them.
LAB_SITE = {
    "DATACENTER": DATACENTER,
    "CLUSTER": CLUSTER,
    "ESXI_HOST": "DC0_C0_H0",
    "DATASTORE": DATASTORES[0],
    "PORTGROUP": PORT_GROUPS[1],
    "STORAGE_PORTGROUP": PORT_GROUPS[0],
}
PLACEHOLDER = re.compile(r"\b(" + "|".join(sorted(SITE, key=len, reverse=True)) + r")\b")


def _in_the_lab(text: str) -> str:
    return PLACEHOLDER.sub(lambda m: LAB_SITE[m[1]], text)


@pytest.fixture(scope="module")
def listed(govc: Any, under_test: OvaUnderTest) -> dict[str, Any]:
    """What `govc import.spec` prints for the OVA, as the guide runs it."""
    return json.loads(govc("import.spec", str(under_test.ova)))


def _documented() -> dict[str, Any]:
    password = PROPERTY_VALUES["admin_password"]
    return govc_options(load_catalogue(), APPLIANCE_HARDWARE, {"admin_password": password})


def test_the_options_fill_exactly_the_properties_govc_lists(listed: dict[str, Any]) -> None:
    filled = [p["Key"] for p in _documented()["PropertyMapping"]]
    assert filled == [p["Key"] for p in listed["PropertyMapping"]]
    print(
        f"\ngovc import.spec lists {len(filled)} properties, the options fill the same: {', '.join(filled)}"
    )


def test_the_options_use_only_fields_govc_prints(listed: dict[str, Any]) -> None:
    assert set(_documented()) <= set(listed) | {"Name"}
    assert [n["Name"] for n in _documented()["NetworkMapping"]] == [
        n["Name"] for n in listed["NetworkMapping"]
    ]
    assert _documented()["Deployment"] == listed["Deployment"]


def test_the_documented_import_deploys_with_the_documented_values(
    govc: Any, under_test: OvaUnderTest, tmp_path: Path
) -> None:
    options = tmp_path / OPTIONS_FILE
    options.write_text(_in_the_lab(json.dumps(_documented())))
    argv = [_in_the_lab(a) for a in GOVC_IMPORT]
    argv[argv.index(OPTIONS_FILE)] = str(options)
    argv[argv.index(OVA)] = str(under_test.ova)
    govc(*argv)

    (vm,) = json.loads(govc("vm.info", "-json", _documented()["Name"]))["virtualMachines"]
    deployed = {p["id"]: p.get("value") or "" for p in vm["config"]["vAppConfig"]["property"]}
    assert deployed == {p["Key"]: p["Value"] for p in _documented()["PropertyMapping"]}
    # NIC 1 on the documented PORTGROUP, NIC 2 on STORAGE_PORTGROUP (distributed: named by their keys)
    nics = json.loads(govc("device.info", "-json", "-vm", _documented()["Name"], "ethernet-*"))["devices"]
    keys = {
        govc("ls", "-i", f"/{DATACENTER}/network/{name}").strip().rsplit(":", 1)[-1]: name
        for name in PORT_GROUPS
    }
    on = [keys.get(n["backing"]["port"]["portgroupKey"]) for n in nics]
    print(f"\ndeployed NICs on: {on}")
    assert on == [LAB_SITE["PORTGROUP"], LAB_SITE["STORAGE_PORTGROUP"]]
    small = next(o for o in APPLIANCE_HARDWARE.options if o.default)
    assert (vm["config"]["hardware"]["numCPU"], vm["config"]["hardware"]["memoryMB"]) == (
        small.vcpus,
        small.memory_mb,
    )
