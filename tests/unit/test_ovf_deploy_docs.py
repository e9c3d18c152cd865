"""The ovftool, govc and PowerCLI deploys in docs/deploy.md: rendered from properties.yaml and the sizes,
and stale as soon as either changes without `make deploy-docs`."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml

from ovf.cli import main
from ovf.deploy_docs import BEGIN, END, DeployDocsInvalid, govc_options, is_stale, render_block, splice
from ovf.hardware import APPLIANCE_HARDWARE, DeploymentOption
from ovf.properties import PropertyCatalogue, load_catalogue, parse_catalogue

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "deploy.md"


def _catalogue(edit: Any) -> PropertyCatalogue:
    """properties.yaml as shipped, its list of entries changed by `edit`."""
    data = yaml.safe_load(resources.files("ovf").joinpath("properties.yaml").read_text(encoding="utf-8"))
    edit(data["properties"])
    return parse_catalogue(yaml.safe_dump(data))


def _added(**fields: str | bool) -> Any:
    """An edit appending a property to the last category (a category's entries stay together)."""
    entry = {"key": "zz_added", "type": "string", "label": "Added", "description": "a property added"}
    return lambda props: props.append({**entry, "category": props[-1]["category"], **fields})


def _rendered_guide() -> str:
    """A guide rendered from the catalogue as shipped, whatever the committed one holds."""
    return splice(f"# Deploying\n{BEGIN}\n{END}\n", render_block(load_catalogue(), APPLIANCE_HARDWARE))


def test_the_committed_guide_is_what_the_catalogue_renders() -> None:
    assert not is_stale(GUIDE.read_text(), load_catalogue(), APPLIANCE_HARDWARE), "run `make deploy-docs`"


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(_added(), id="property added"),
        pytest.param(lambda props: props.pop(), id="property removed"),
        pytest.param(lambda props: props[0].update(default="appliance-1"), id="default changed"),
    ],
)
def test_a_catalogue_change_makes_the_guide_stale(edit: Any) -> None:
    assert not is_stale(_rendered_guide(), load_catalogue(), APPLIANCE_HARDWARE)
    assert is_stale(_rendered_guide(), _catalogue(edit), APPLIANCE_HARDWARE)


def test_a_size_added_makes_the_guide_stale() -> None:
    xlarge = DeploymentOption(id="xlarge", label="X", description="more", vcpus=16, memory_mb=64 * 1024)
    hardware = APPLIANCE_HARDWARE.model_copy(update={"options": (*APPLIANCE_HARDWARE.options, xlarge)})
    assert is_stale(_rendered_guide(), load_catalogue(), hardware)


def test_check_names_the_command_that_regenerates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "deploy.md"
    fresh = _rendered_guide()
    doc.write_text(fresh.replace("  --prop:role=appliance \\\n", ""))
    assert main(["deploy-docs", "--check", "--doc", str(doc)]) == 1
    assert "stale: run `make deploy-docs`" in capsys.readouterr().err

    assert main(["deploy-docs", "--doc", str(doc)]) == 0
    assert doc.read_text() == fresh
    assert main(["deploy-docs", "--check", "--doc", str(doc)]) == 0


def _forms() -> dict[str, str]:
    block = render_block(load_catalogue(), APPLIANCE_HARDWARE)
    fences = dict(re.findall(r"#### (\w+)\n.*?```\w+\n(.*?)\n```", block, re.DOTALL))
    assert set(fences) == {"ovftool", "govc", "PowerCLI"}
    return fences


@pytest.mark.parametrize("spec", load_catalogue().properties, ids=lambda p: p.key)
def test_every_form_sets_every_property(spec: Any) -> None:
    forms = _forms()
    assert f"$ovfConfig.Common.{spec.key}.Value = " in forms["PowerCLI"]
    assert f'{{"Key": "{spec.key}", "Value": ' in forms["govc"]
    on_the_command_line = f"--prop:{spec.key}=" in forms["ovftool"]
    in_the_config_file = f"prop:{spec.key}=%s" in forms["ovftool"]
    assert (on_the_command_line, in_the_config_file) == (not spec.password, spec.password)


def test_secrets_are_prompted_for_never_written() -> None:
    forms = _forms()
    assert "read -rs -p 'admin_password (Administrator password): ' ARCVSA_ADMIN_PASSWORD" in forms["govc"]
    assert '"$ARCVSA_ADMIN_PASSWORD"' in forms["ovftool"]
    assert "(umask 077; cat > arcvsa-options.json) <<EOF" in forms["govc"]
    assert "Read-Host -AsSecureString" in forms["PowerCLI"]


def test_every_size_is_named_and_the_default_is_chosen() -> None:
    block = render_block(load_catalogue(), APPLIANCE_HARDWARE)
    for option in APPLIANCE_HARDWARE.options:
        assert f"`{option.id}`" in block
    forms = _forms()
    assert "--deploymentOption=small" in forms["ovftool"]
    assert "$ovfConfig.DeploymentOption.Value = 'small'" in forms["PowerCLI"]


def test_the_govc_options_are_json_once_the_shell_fills_in_the_secret() -> None:
    govc = _forms()["govc"]
    body = govc.split("<<EOF\n", 1)[1].split("\nEOF\n", 1)[0]
    options = json.loads(body.replace("$ARCVSA_ADMIN_PASSWORD", "s3cret-value"))
    assert options == govc_options(load_catalogue(), APPLIANCE_HARDWARE, {"admin_password": "s3cret-value"})


def test_a_property_the_admin_cannot_set_is_left_out() -> None:
    hidden = _catalogue(_added(user_configurable=False))
    assert "zz_added" not in render_block(hidden, APPLIANCE_HARDWARE)
    assert "--prop:zz_added=" in render_block(_catalogue(_added()), APPLIANCE_HARDWARE)


def test_a_boolean_default_is_written_as_vsphere_takes_it() -> None:
    block = render_block(_catalogue(_added(type="boolean", default="false")), APPLIANCE_HARDWARE)
    assert "--prop:zz_added=False" in block


def test_a_default_the_here_document_would_change_is_refused() -> None:
    with pytest.raises(DeployDocsInvalid, match="zz_added"):
        render_block(_catalogue(_added(default="a$HOME")), APPLIANCE_HARDWARE)


@pytest.mark.parametrize(
    "document",
    ["no markers", f"{BEGIN}\n{BEGIN}\n{END}", f"{END}\n{BEGIN}", f"{BEGIN}\nx\n{END}\n{END}"],
    ids=["none", "two begins", "end first", "two ends"],
)
def test_splice_wants_exactly_one_block(document: str) -> None:
    with pytest.raises(DeployDocsInvalid):
        splice(document, "text")


def test_splice_keeps_what_surrounds_the_block() -> None:
    assert splice(f"a\n{BEGIN}\nold\n{END}\nb", "new") == f"a\n{BEGIN}\nnew\n{END}\nb"
