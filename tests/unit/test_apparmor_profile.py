"""The api's AppArmor profile: AppArmor's own parser accepts it, its unit names it, and its rules keep
the promises the docs make (no program run, writes only to the api's own places)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from support.host import host_tool

REPO = Path(__file__).resolve().parents[2]
PROFILE = REPO / "appliance/systemd/arcvsa-api.apparmor"
UNIT = REPO / "appliance/systemd/arcvsa-api.service"
# Where the api may write: its folder, its private temporary folders, the control service's socket.
WRITABLE = ("/var/lib/arcvsa/**", "/tmp/**", "/var/tmp/**", "/run/arcvsa-control/control.sock")
FILE_RULE = re.compile(
    r"^\s*(?P<deny>deny\s+)?(?P<owner>owner\s+)?(?P<path>[/@]\S*)\s+(?P<perms>[a-zA-Z]+),\s*$"
)


def parser() -> str:
    found = shutil.which("apparmor_parser") or shutil.which("apparmor_parser", path="/usr/sbin:/sbin")
    if found is None:
        pytest.fail("apparmor_parser not installed: make setup installs Debian's apparmor (mk/security.mk)")
    return found


def parse(text: str, tmp_path: Path) -> tuple[int, str]:
    """AppArmor's parser on ``text``: syntax and semantics checked, nothing loaded into the kernel."""
    path = tmp_path / "profile"
    path.write_text(text, encoding="utf-8")
    return host_tool([parser(), "--skip-kernel-load", "--skip-cache", str(path)])


def rules() -> list[re.Match[str]]:
    return [found for line in PROFILE.read_text().splitlines() if (found := FILE_RULE.match(line))]


def test_apparmor_s_parser_accepts_the_profile(tmp_path: Path) -> None:
    code, said = parse(PROFILE.read_text(), tmp_path)
    assert code == 0, said


def test_the_parser_refuses_a_broken_profile_so_the_check_above_can_fail(tmp_path: Path) -> None:
    broken = PROFILE.read_text().replace("/var/lib/arcvsa/** rwklm,", "/var/lib/arcvsa/** rwklm")
    code, said = parse(broken, tmp_path)
    assert code != 0 and said


def test_the_unit_names_the_profile_the_file_defines() -> None:
    assert re.search(r"^profile arcvsa-api\b", PROFILE.read_text(), re.MULTILINE)
    assert "\nAppArmorProfile=-arcvsa-api\n" in UNIT.read_text()


def test_the_api_may_run_no_program() -> None:
    allowed = [m.group("path") for m in rules() if not m.group("deny") and "x" in m.group("perms")]
    assert allowed == []


def test_the_api_writes_only_its_own_places() -> None:
    writes = {m.group("path") for m in rules() if not m.group("deny") and set("wa") & set(m.group("perms"))}
    assert writes == set(WRITABLE)


def test_system_secrets_are_denied_by_name() -> None:
    denied = {m.group("path") for m in rules() if m.group("deny")}
    assert {"/etc/shadow*", "/etc/gshadow*", "/etc/ssh/*key*", "/var/lib/arcvsa-control/**"} <= denied
