"""The Packer template: validated by packer 1.6.6 itself, variables typed and described, no secrets."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from lab.appliance_vm import TCG

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "packer" / "arcvsa.pkr.hcl"
EXAMPLE = ROOT / "packer" / "arcvsa.pkrvars.hcl.example"
SECRETS = {"vcenter_password", "root_password"}


def _variables() -> dict[str, str]:
    """variable name -> its block body (the template has no nested braces inside variable blocks
    except validation {...}, which the pattern allows once)."""
    pattern = re.compile(r'variable "([a-z_]+)" \{((?:[^{}]|\{[^{}]*\})*)\}', re.S)
    return dict(pattern.findall(TEMPLATE.read_text()))


def test_every_variable_is_typed_and_described() -> None:
    variables = _variables()
    assert len(variables) > 15
    for name, body in variables.items():
        assert re.search(r"^\s*type\s*=", body, re.M), f"{name} has no type"
        assert re.search(r'^\s*description\s*=\s*"[^"]{10,}', body, re.M), f"{name} has no description"


def test_secrets_are_sensitive_and_have_no_default() -> None:
    variables = _variables()
    for name in SECRETS:
        assert re.search(r"sensitive\s*=\s*true", variables[name]), name
        assert "default" not in variables[name], name


def test_only_the_example_is_committed() -> None:
    assert not list((ROOT / "packer").glob("*.pkrvars.hcl"))
    example_hosts = re.findall(r'"([a-z0-9.-]+\.[a-z]+)"', EXAMPLE.read_text())
    assert all(h.endswith(".invalid") or h.endswith(".local") for h in example_hosts), example_hosts
    assert "*.pkrvars.hcl" in (ROOT / ".gitignore").read_text()


def test_qemu_source_forwards_ssh_on_loopback_only() -> None:
    text = TEMPLATE.read_text()
    assert "hostfwd=tcp:127.0.0.1:{{ .SSHHostPort }}-:22" in text
    for setting in ("disk_image       = true", 'accelerator      = "tcg"', 'iso_checksum     = "none"'):
        assert setting in text


def test_the_build_vm_has_the_labs_cpu() -> None:
    cpu = TCG[TCG.index("-cpu") + 1]
    assert f'["-cpu", "{cpu}"]' in TEMPLATE.read_text()


@pytest.mark.timeout(120)
def test_packer_validate_passes() -> None:
    make, packer = shutil.which("make"), shutil.which("packer")
    assert make and packer, "make and packer are needed (make ova-setup installs packer)"
    done = subprocess.run(
        [make, "-f", "mk/ova.mk", "packer-validate"], cwd=ROOT, capture_output=True, text=True, timeout=110
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Packer v1.6.6" in done.stdout
