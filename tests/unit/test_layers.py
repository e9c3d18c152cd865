"""Imports only look down: api → provisioning | appliance → system tools; zfs_tuning, process (the one
process runner, which every package may use) and pki (the one certificate builder) import none of them."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"api", "provisioning", "appliance", "zfs_tuning", "ovf", "lab", "process", "pki"}
SKIP = {".venv", ".git", "web", "tests", "build", "var", "dist", "node_modules"}

# What each package may import of the others (anything not named is forbidden).
ALLOWED = {
    "api": {"provisioning", "appliance", "zfs_tuning", "ovf", "process", "pki"},
    "provisioning": {"zfs_tuning", "ovf", "process", "pki"},
    "appliance": {"zfs_tuning", "ovf", "process", "pki"},
    "ovf": {"process", "pki"},
    "zfs_tuning": {"process"},
    "process": set(),
    "pki": set(),
    # The lab stands in for vSphere and the SAN; it may drive the product like a user would.
    "lab": {"api", "provisioning", "appliance", "ovf", "zfs_tuning", "process", "pki"},
}


def _package_dirs() -> dict[str, Path]:
    found = {}
    # Packages sit at the top or one folder down (zfs-tuning/zfs_tuning). Never walk build/ or var/:
    # they hold root trees and VMs that change while the tests run.
    folders = [ROOT, *(d for d in ROOT.iterdir() if d.is_dir() and d.name not in SKIP)]
    for top in (folder / name for folder in folders for name in PACKAGES):
        if (top / "__init__.py").is_file() and not (top.parent / "__init__.py").exists():
            found[top.name] = top
    return found


def _imported_packages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names & PACKAGES


def test_packages_exist() -> None:
    assert {"api", "provisioning"} <= set(_package_dirs())


def test_imports_only_look_down() -> None:
    bad = []
    for pkg, directory in _package_dirs().items():
        for source in directory.rglob("*.py"):
            for imported in _imported_packages(source) - {pkg} - ALLOWED[pkg]:
                bad.append(f"{source.relative_to(ROOT)} imports {imported}")
    assert not bad, "\n".join(bad)


def test_the_checker_sees_a_violation(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("from api.app import create_app\nimport provisioning.session\n")
    assert _imported_packages(probe) == {"api", "provisioning"}
