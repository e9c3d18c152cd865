"""The console's text above the login prompt: what it says after each first-boot outcome, and how it
is kept: rendered by first boot and at every boot, agetty told to draw it again only when it changed."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from appliance.firstboot import console
from appliance.firstboot.cli import main as firstboot_cli
from appliance.firstboot.console import FirstBootReport, ReportedError, render_issue, shown
from appliance.upgrade.apply import UNITS
from ovf.environment import make_environment_iso, render_environment
from process import Completed, ProcessFailed

REPO = Path(__file__).resolve().parents[2]
ENV = REPO / "tests" / "fixtures" / "ovf" / "env"
ISSUE = "etc/issue.d/arcvsa.issue"
RELOAD = ("agetty", "--reload")


class Gettys:
    """`agetty --reload` recorded (or failing); any other command refused."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Completed:
        call = tuple(argv)
        assert call == RELOAD, f"unexpected command {call}"
        self.calls.append(call)
        if self.fail:
            raise ProcessFailed(call, 1, "agetty: cannot open /run/agetty.reload")
        return Completed(call, 0, "", "")


def report(
    status: str, errors: Sequence[tuple[str | None, str | None, str]] = (), warnings: Sequence[str] = ()
):
    return FirstBootReport(
        status=status,
        errors=[ReportedError(key=k, label=lb, message=m) for k, lb, m in errors],
        warnings=list(warnings),
    )


def write_report(root: Path, data: dict[str, object] | str) -> None:
    path = root / "var/lib/arcvsa/firstboot.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


def test_after_an_applied_first_boot() -> None:
    assert render_issue("1.4.0", "", report("applied")) == (
        "arcvsa 1.4.0 - virtual storage appliance\n"
        "\n"
        "  Web interface   https://\\4/\n"
        "  First boot      applied\n"
        "\n"
    )


def test_the_fqdn_gets_a_web_address_of_its_own() -> None:
    text = render_issue("1.4.0", "vsa01.example.com", report("applied"))
    assert "  Web interface   https://\\4/\n                  https://vsa01.example.com/\n" in text


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_with_a_storage_network_the_web_address_is_the_management_nics() -> None:
    text = render_issue("1.4.0", "", report("applied"), "ens192", "198.51.100.10/24")
    assert text.splitlines()[2:5] == [
        "  Web interface   https://\\4{ens192}/",
        "  Storage (NFS)   198.51.100.10/24",
        "  First boot      applied",
    ]


def test_the_console_reads_the_networks_first_boot_wrote(tmp_path: Path) -> None:
    config = {
        "management_interface": "ens192",
        "storage_network": {"interface": "ens224", "address": "10.9.0.5/24"},
    }
    write(tmp_path / "etc/arcvsa/appliance.json", config)
    assert console.read_networks(tmp_path) == ("ens192", "10.9.0.5/24")
    write(tmp_path / "etc/arcvsa/appliance.json", {"management_interface": "", "storage_network": None})
    assert console.read_networks(tmp_path) == ("", "")
    write(tmp_path / "etc/arcvsa/appliance.json", {"management_interface": 7, "storage_network": ["x"]})
    assert console.read_networks(tmp_path) == ("", "")


def test_each_refused_property_is_listed_with_its_reason() -> None:
    refused = report(
        "refused",
        [
            ("ipv4_prefix", "IPv4 prefix length", "must be between 1 and 32 (got '33')"),
            ("fqdn", "FQDN", "'-vsa.example.com' has the label '-vsa'"),
        ],
    )
    lines = render_issue("1.4.0", "", refused).splitlines()
    assert lines[3:] == [
        "  First boot      REFUSED 2 vApp properties, so nothing was applied:",
        "                  - ipv4_prefix (IPv4 prefix length): must be between 1 and 32 (got '33')",
        "                  - fqdn (FQDN): '-vsa.example.com' has the label '-vsa'",
        "                  The network is on DHCP and no password is set. Power the VM off, correct the",
        "                  properties in Edit Settings > vApp Options, and power it on.",
        "",
    ]
    assert "https://\\4/" in lines[2], "the DHCP address is shown all the same"


def test_one_refused_property_is_counted_as_one() -> None:
    text = render_issue("1", "", report("refused", [("role", "Role", "must be one of appliance, manager")]))
    assert "REFUSED 1 vApp property, so nothing was applied:" in text


def test_a_failed_first_boot_says_why_and_where_to_look() -> None:
    failed = report("failed", [(None, None, "no OVF environment in guestinfo.ovfEnv nor as ovf-env.xml")])
    lines = render_issue("1", "", failed).splitlines()
    assert lines[3:6] == [
        "  First boot      FAILED, so nothing was applied:",
        "                  - no OVF environment in guestinfo.ovfEnv nor as ovf-env.xml",
        "                  The network is on DHCP and no password is set. journalctl -u arcvsa-firstboot",
    ]


def test_warnings_of_an_applied_first_boot_are_shown() -> None:
    warned = report("applied", warnings=["static IPv4 configuration not usable: using DHCP instead"])
    assert render_issue("1", "", warned).splitlines()[3:5] == [
        "  First boot      applied, with 1 warning:",
        "                  - static IPv4 configuration not usable: using DHCP instead",
    ]


def test_before_first_boot_has_reported() -> None:
    assert "  First boot      not finished yet\n" in render_issue("1", "", None)


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ("a\\4b", "a\\\\4b"),  # agetty prints a doubled backslash as one, and obeys no escape
        ("\\", "\\\\"),
        ("bell\x07", "bell?"),
        ("\x1b[2Jcleared", "?[2Jcleared"),  # no terminal control sequence reaches the console
        ("two\nlines", "two?lines"),
        ("del\x7f", "del?"),
        ("c1\x9b", "c1?"),
        ("plain text: (got '33')", "plain text: (got '33')"),
        ("\xe9t\xe9", "\xe9t\xe9"),
    ],
)
def test_values_are_printed_as_they_are(text: str, printed: str) -> None:
    assert shown(text) == printed


def test_only_the_address_is_an_agetty_escape() -> None:
    hostile = report("refused", [("hostname", "Host name", "'\\e{red}x\\4' is not a valid host name")])
    text = render_issue("1.0\\n", "vsa.example.com", hostile)
    unescaped = text.replace("\\\\", "")
    assert unescaped.count("\\") == 1 and "https://\\4/" in unescaped


def test_no_password_reaches_the_console(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    secret = "Sh0rt!"  # refused: too short
    iso = make_environment_iso(
        render_environment({"hostname": "vsa01", "admin_password": secret, "ipv4_prefix": "33"}),
        tmp_path / "env.iso",
    )
    assert firstboot_cli(["--root", str(root), "--cdrom", str(iso)]) == 2
    text = (root / ISSUE).read_text()
    assert secret not in text
    assert "- admin_password (Administrator password): needs at least 8 characters" in text
    assert "- ipv4_prefix (IPv4 prefix length): must be between 1 and 32 (got '33')" in text


def test_a_refused_fqdn_and_search_list_are_on_the_console_and_in_health(tmp_path: Path) -> None:
    from api.appliance.service import firstboot
    from api.settings import Settings

    root = tmp_path / "root"
    root.mkdir()
    values = {"hostname": "vsa01", "admin_password": "Corr3ct-Horse!", "fqdn": "vsa1.example.com"}
    iso = make_environment_iso(
        render_environment(values | {"dns_search": "a.com,,b.com"}), tmp_path / "e.iso"
    )
    assert firstboot_cli(["--root", str(root), "--cdrom", str(iso)]) == 2
    text = (root / ISSUE).read_text()
    assert "- fqdn (FQDN): starts with 'vsa1', not with the host name 'vsa01'" in text
    assert "- dns_search (DNS search domains): entry 2 of 'a.com,,b.com' is empty" in text
    health = firstboot(Settings(data_dir=root / "var/lib/arcvsa"))
    assert health.status == "refused"
    assert [(e.key, e.message.split(":")[0]) for e in health.errors] == [
        ("fqdn", "starts with 'vsa1', not with the host name 'vsa01'"),
        ("dns_search", "entry 2 of 'a.com,,b.com' is empty (a comma too many?)"),
    ]


def test_first_boot_renders_it_when_it_applies(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    for name in ("shadow", "hosts"):  # what the image ships
        shutil.copy(REPO / "tests/fixtures/ovf/firstboot" / name, root / "etc" / name)
    # arcvsa's ids are the test's own, so that first boot can give it its key file unprivileged
    passwd = (REPO / "tests/fixtures/ovf/firstboot/passwd").read_text()
    (root / "etc/passwd").write_text(passwd.replace(":1000:1000:", f":{os.getuid()}:{os.getgid()}:"))
    iso = make_environment_iso((ENV / "valid-static.xml").read_bytes(), tmp_path / "env.iso")
    assert firstboot_cli(["--root", str(root), "--cdrom", str(iso)]) == 0
    text = (root / ISSUE).read_text()
    assert text.startswith(f"arcvsa {console.running_version()} - virtual storage appliance\n")
    assert "https://\\4/\n                  https://arcvsa-01.example.com/\n" in text
    assert "  First boot      applied\n" in text
    assert (root / ISSUE).stat().st_mode & 0o777 == 0o644
    assert (root / "etc/issue.d").stat().st_mode & 0o777 == 0o755, "agetty --show-issue runs as anyone"


def test_every_boot_renders_it_again_and_reloads_the_gettys_only_on_a_change(tmp_path: Path) -> None:
    root = tmp_path / "root"
    gettys = Gettys()
    assert console.refresh(root, gettys, version="1.0", live=True)
    assert "not finished yet" in (root / ISSUE).read_text() and gettys.calls == [RELOAD]
    assert not console.refresh(root, gettys, version="1.0", live=True)
    assert gettys.calls == [RELOAD], "the same text: no getty redraws"
    write_report(root, {"status": "applied", "errors": [], "warnings": []})
    (root / "etc/arcvsa").mkdir(parents=True)
    (root / "etc/arcvsa/appliance.json").write_text(
        json.dumps({"hostname": "vsa", "fqdn": "vsa.example.com"})
    )
    assert console.refresh(root, gettys, version="1.1", live=True)
    text = (root / ISSUE).read_text()
    assert text.startswith("arcvsa 1.1 ") and "https://vsa.example.com/" in text and "applied" in text
    assert gettys.calls == [RELOAD, RELOAD]


def test_offline_it_tells_no_getty(tmp_path: Path) -> None:
    gettys = Gettys()
    assert console.refresh(tmp_path, gettys, version="1.0", live=False)
    assert gettys.calls == []


def test_a_getty_that_cannot_be_told_fails_no_boot(tmp_path: Path) -> None:
    gettys = Gettys(fail=True)
    assert console.refresh(tmp_path, gettys, version="1.0", live=True)
    assert gettys.calls == [RELOAD]


@pytest.mark.parametrize("bad", ["{", '{"status": 3}', "[]"])
def test_an_unreadable_report_is_shown_as_a_failure(tmp_path: Path, bad: str) -> None:
    write_report(tmp_path, bad)
    got = console.read_report(tmp_path)
    assert got is not None and got.status == "failed"
    assert got.errors[0].message == "/var/lib/arcvsa/firstboot.json is unreadable"


def test_a_report_the_console_may_not_open_is_shown_as_a_failure_not_a_crash(tmp_path: Path) -> None:
    """The console's unit without the capability to read the api's folder: the product and address
    still show, with the outcome unreadable."""
    (tmp_path / "var/lib/arcvsa/firstboot.json").mkdir(parents=True)  # any OSError on open
    got = console.read_report(tmp_path)
    assert got is not None and got.status == "failed"
    assert got.errors[0].message == "/var/lib/arcvsa/firstboot.json is unreadable"


@pytest.mark.parametrize("config", ["", "{", "[]", '{"fqdn": 7}', '{"hostname": "vsa"}', '{"fqdn": ""}'])
def test_no_fqdn_when_appliance_json_has_none(tmp_path: Path, config: str) -> None:
    if config:
        (tmp_path / "etc/arcvsa").mkdir(parents=True)
        (tmp_path / "etc/arcvsa/appliance.json").write_text(config)
    assert console.read_fqdn(tmp_path) == ""


def test_the_module_renders_for_a_root(tmp_path: Path) -> None:
    write_report(
        tmp_path, {"status": "refused", "errors": [{"key": "role", "label": "Role", "message": "bad"}]}
    )
    assert console.main(["--root", str(tmp_path)]) == 0
    assert "- role (Role): bad" in (tmp_path / ISSUE).read_text()


def test_the_version_is_the_installed_releases(monkeypatch: pytest.MonkeyPatch) -> None:
    class Installed:
        version = "0.9.0-12-gabcdef0"

    seen: list[Path] = []
    monkeypatch.setattr(console.release, "read", lambda folder: seen.append(folder) or Installed())
    assert console.running_version() == "0.9.0-12-gabcdef0"
    # the folder above lib/ on the appliance: releases/<version>/lib/appliance/firstboot/console.py
    assert Path(console.__file__).resolve().relative_to(seen[0]).parts[1:] == (
        "appliance",
        "firstboot",
        "console.py",
    )


def test_the_unit_renders_it_after_first_boot_and_before_the_gettys() -> None:
    unit = (REPO / "appliance/systemd/arcvsa-console.service").read_text()
    assert "ExecStart=/opt/arcvsa/venv/bin/python -m appliance.firstboot.console" in unit
    assert "After=arcvsa-firstboot.service" in unit
    assert "Before=getty-pre.target" in unit and "Wants=getty-pre.target" in unit
    assert "ConditionPathExists" not in unit, "every boot: the version changes with an upgrade"
    firstboot = (REPO / "appliance/systemd/arcvsa-firstboot.service").read_text()
    assert "Wants=arcvsa-console.service" in firstboot
    assert "arcvsa-console.service" in UNITS, "an upgrade installs it"
    assert "arcvsa-console.service" in (REPO / "packer/scripts/20-units.sh").read_text()
