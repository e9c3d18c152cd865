"""The OVA as govc (VMware's own client, the govmomi release vcsim is built from) sees it:
`import.spec` lists our properties and deployment options, and `import.ova -options` with a filled
spec deploys it into a vcsim started here, with those property values and that option's hardware."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.ova import PROPERTY_VALUES, OvaUnderTest

from lab.vcsim import DATACENTER
from ovf.hardware import APPLIANCE_HARDWARE
from ovf.properties import load_catalogue

pytestmark = pytest.mark.integration

# knfsd, not the default, so a value the spec leaves alone cannot pass for one it was given.
VALUES = {**PROPERTY_VALUES, "nfs_backend": "knfsd"}
OPTION = "medium"


@pytest.fixture(scope="module")
def spec(govc: Any, under_test: OvaUnderTest) -> dict[str, Any]:
    return json.loads(govc("import.spec", "-verbose", str(under_test.ova)))


def _shown(kind: str, default: str | None) -> str:
    """A default as govc lists it: a boolean as vSphere spells it (True/False), whatever xs:boolean
    spelling the descriptor has."""
    if default is None:
        return ""
    return str(default.lower() in ("true", "1")) if kind == "boolean" else default


def test_import_spec_lists_our_properties_with_their_defaults(spec: dict[str, Any]) -> None:
    catalogue = load_catalogue().properties
    listed = {p["Key"]: p["Value"] for p in spec["PropertyMapping"]}
    assert list(listed) == [p.key for p in catalogue]
    assert listed == {p.key: _shown(p.type, p.default) for p in catalogue}
    labels = {p["Key"]: p["Spec"]["Label"] for p in spec["PropertyMapping"]}
    assert labels == {p.key: p.label for p in catalogue}


def test_import_spec_lists_our_deployment_options_default_first(spec: dict[str, Any]) -> None:
    options = APPLIANCE_HARDWARE.options
    default = next(o.id for o in options if o.default)
    assert spec["Deployment"] == default
    assert spec["AllDeploymentOptions"] == [default] + [o.id for o in options if not o.default]


def test_import_ova_deploys_with_the_filled_spec(
    govc: Any, spec: dict[str, Any], under_test: OvaUnderTest, tmp_path: Path
) -> None:
    name = "arcvsa-govc"
    filled = {k: v for k, v in spec.items() if not k.startswith("All")}
    filled["PropertyMapping"] = [
        {"Key": p["Key"], "Value": VALUES.get(p["Key"], p["Value"])} for p in spec["PropertyMapping"]
    ]
    filled["Deployment"] = OPTION
    filled["NetworkMapping"] = [{"Name": n["Name"], "Network": "VM Network"} for n in spec["NetworkMapping"]]
    filled["Name"] = name
    options = tmp_path / "options.json"
    options.write_text(json.dumps(filled))
    pool = f"/{DATACENTER}/host/vdi-cluster/Resources"
    # No -m: vcsim reports an upload's SHA-1 only, and govc then refuses any SHA256 manifest.
    govc("import.ova", "-options", str(options), "-pool", pool, str(under_test.ova))

    info = json.loads(govc("vm.info", "-json", name))
    (vm,) = info.get("virtualMachines") or info["VirtualMachines"]
    config = vm["config"]
    deployed = {p["id"]: p.get("value") or "" for p in config["vAppConfig"]["property"]}
    assert deployed == {p["Key"]: VALUES.get(p["Key"], p["Value"]) for p in spec["PropertyMapping"]}
    medium = next(o for o in APPLIANCE_HARDWARE.options if o.id == OPTION)
    assert (config["hardware"]["numCPU"], config["hardware"]["memoryMB"]) == (medium.vcpus, medium.memory_mb)
