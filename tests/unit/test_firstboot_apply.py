"""First boot end to end against a temp root: the files it writes, and what it never writes."""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import os
import re
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from cryptography import x509

from appliance.control import sshd
from appliance.firstboot.cli import main as firstboot_cli
from appliance.firstboot.environment import parse_environment
from appliance.firstboot.errors import ApplyFailed, ConfigInvalid
from appliance.firstboot.model import validate_properties
from appliance.firstboot.plan import make_plan
from appliance.firstboot.service import MARKER, run_firstboot
from ovf.environment import make_environment_iso, render_environment
from process import Completed, ProcessFailed, run

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ovf"
ENV = FIXTURES / "env"
GOLDEN = FIXTURES / "golden"
UPDATE = os.environ.get("ARCVSA_UPDATE_GOLDEN") == "1"
PASSWORD = "Corr3ct-Horse!"
NOW = dt.datetime(2025, 6, 1, 12, 0, tzinfo=dt.UTC)
LAB_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJgZyOYvlx1TrA8RKgeMwHlayUyBxJPtvZEiJcZmWzGS lab"
ADMIN_KEY = (
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILyC5cYEYoj6kcVEylYsBU4+LlLBEVjj+VUaKdPa+Ft+ admin@example.com"
)
GET = ("vmtoolsd", "--cmd", "info-get guestinfo.ovfEnv")
SET_BLANK = ("vmtoolsd", "--cmd", "info-set guestinfo.ovfEnv ")
SETTLE = ("udevadm", "settle", "--timeout=60")


SSH_OFF = "etc/ssh/sshd_not_to_be_run"  # Debian's switch file, as packer's seal leaves it


class ApplianceRunner:
    """The tools first boot calls on the appliance: vmtoolsd faked, openssl real, anything else refused."""

    def __init__(self, guestinfo: str | None) -> None:
        self.guestinfo = guestinfo
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Completed:
        call = tuple(argv)
        self.calls.append(call)
        if call == GET:
            if not self.guestinfo:
                raise ProcessFailed(call, 1, "No value found")
            return Completed(call, 0, self.guestinfo, "")
        if call == SETTLE:  # udev has nothing queued in a test's root
            return Completed(call, 0, "", "")
        if call == SET_BLANK:
            self.guestinfo = ""
            return Completed(call, 0, "", "")
        if call == ("openssl", "passwd", "-6", "-stdin"):
            return run(call, timeout=timeout, input_text=input_text)
        if len(call) == 2 and call[0] == "hostname":
            return Completed(call, 0, "", "")
        raise AssertionError(f"unexpected command {call}")


def assert_golden(name: str, actual: bytes) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_bytes(actual)
        return
    assert path.exists(), f"{path} missing: run with ARCVSA_UPDATE_GOLDEN=1 and review it"
    assert actual.decode() == path.read_text(), f"{name} differs from its golden file"


def seeded_root(tmp_path: Path) -> Path:
    """A root with what the image ships: /etc/shadow (root and arcvsa locked), /etc/passwd,
    /etc/hosts, arcvsa's home, the lab's root key, SSH's switch file (SSH off).

    arcvsa's uid and gid are the test's own, so that first boot can give it its key file unprivileged.
    """
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    shutil.copy(FIXTURES / "firstboot" / "shadow", root / "etc" / "shadow")
    (root / "etc" / "shadow").chmod(0o640)
    passwd = (FIXTURES / "firstboot" / "passwd").read_text()
    (root / "etc" / "passwd").write_text(passwd.replace(":1000:1000:", f":{os.getuid()}:{os.getgid()}:"))
    shutil.copy(FIXTURES / "firstboot" / "hosts", root / "etc" / "hosts")
    (root / "home" / "arcvsa").mkdir(parents=True)
    (root / "root" / ".ssh").mkdir(parents=True)
    (root / "root" / ".ssh" / "authorized_keys").write_text(LAB_KEY + "\n")
    (root / "etc" / "ssh").mkdir()
    (root / SSH_OFF).write_text("# the seal's words\n")
    return root


def files_under(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def env_text(name: str) -> str:
    return (ENV / name).read_text()


@pytest.fixture
def applied(tmp_path: Path) -> tuple[Path, ApplianceRunner]:
    root = seeded_root(tmp_path)
    runner = ApplianceRunner(env_text("valid-static.xml"))
    outcome = run_firstboot(root, runner, cdroms=[], now=NOW, live=True)
    assert outcome.status == "applied" and outcome.transport == "guestinfo" and not outcome.warnings
    assert f"/{SSH_OFF}" in outcome.changed
    return root, runner


def test_static_environment_writes_exactly_these_files(applied: tuple[Path, ApplianceRunner]) -> None:
    root, _ = applied
    assert sorted(files_under(root)) == [
        "etc/arcvsa/appliance.json",
        "etc/chrony/sources.d/arcvsa.sources",
        "etc/hostname",
        "etc/hosts",
        "etc/passwd",
        "etc/shadow",
        "etc/systemd/network/10-arcvsa.network",
        "home/arcvsa/.ssh/authorized_keys",
        "root/.ssh/authorized_keys",
        "var/lib/arcvsa/admin-password.argon2",
        "var/lib/arcvsa/firstboot.done",
        "var/lib/arcvsa/tls.crt",
        "var/lib/arcvsa/tls.key",
    ]


@pytest.mark.parametrize(
    ("path", "golden"),
    [
        ("etc/systemd/network/10-arcvsa.network", "firstboot-static.network"),
        ("etc/chrony/sources.d/arcvsa.sources", "firstboot-arcvsa.sources"),
        ("etc/hosts", "firstboot-hosts"),
        ("etc/hostname", "firstboot-hostname"),
        ("etc/arcvsa/appliance.json", "firstboot-appliance.json"),
    ],
)
def test_rendered_files_match_golden(applied: tuple[Path, ApplianceRunner], path: str, golden: str) -> None:
    root, _ = applied
    assert_golden(golden, (root / path).read_bytes())


def test_password_is_stored_only_as_hashes(applied: tuple[Path, ApplianceRunner]) -> None:
    root, _ = applied
    for name, content in files_under(root).items():
        assert PASSWORD.encode() not in content, f"clear password in {name}"
    shadow = (root / "etc/shadow").read_text().splitlines()
    original = (FIXTURES / "firstboot" / "shadow").read_text().splitlines()
    assert shadow[:-1] == original[:-1], "other accounts untouched, root still locked"
    fields = shadow[-1].split(":")
    assert fields[0] == "arcvsa" and fields[2] == "0", "to be changed at the first login"
    assert fields[3:] == original[-1].split(":")[3:]
    match = re.fullmatch(r"\$6\$([^$]+)\$[./0-9A-Za-z]+", fields[1])
    assert match, fields[1]
    again = run(
        ["openssl", "passwd", "-6", "-salt", match.group(1), "-stdin"], timeout=30, input_text=PASSWORD + "\n"
    )
    assert again.stdout.strip() == fields[1], "the shadow hash verifies against the given password"
    assert (root / "etc/shadow").stat().st_mode & 0o777 == 0o640
    api_hash = (root / "var/lib/arcvsa/admin-password.argon2").read_text().strip()
    assert PasswordHasher().verify(api_hash, PASSWORD)
    assert (root / "var/lib/arcvsa/admin-password.argon2").stat().st_mode & 0o777 == 0o600


def test_ssh_key_goes_to_the_admin_account_alone_and_turns_ssh_on(
    applied: tuple[Path, ApplianceRunner],
) -> None:
    root, runner = applied
    keys, ssh_dir = root / "home/arcvsa/.ssh/authorized_keys", root / "home/arcvsa/.ssh"
    assert keys.read_text() == f"{ADMIN_KEY}\n"
    assert ssh_dir.stat().st_mode & 0o777 == 0o700
    assert keys.stat().st_mode & 0o777 == 0o600
    assert (keys.stat().st_uid, keys.stat().st_gid) == (os.getuid(), os.getgid()), "arcvsa's, from passwd"
    assert (ssh_dir.stat().st_uid, ssh_dir.stat().st_gid) == (os.getuid(), os.getgid())
    # root's key login stays off (the image's sshd drop-in keeps root out): its keys are not touched
    assert (root / "root/.ssh/authorized_keys").read_text() == f"{LAB_KEY}\n", "root's kept as they were"
    assert not (root / sshd.ROOT_FILE.lstrip("/")).exists()
    # the image has SSH off by its switch file: removed, and no systemctl (ssh.service, ordered after
    # first boot, tests the file when its turn comes in this boot)
    assert not (root / SSH_OFF).exists()
    assert not any(c[0] == "systemctl" for c in runner.calls)


def test_root_login_asked_for_gives_root_the_key_and_lets_it_in(tmp_path: Path) -> None:
    root = seeded_root(tmp_path)
    env = env_text("valid-static.xml").replace(
        '<Property oe:key="fqdn"',
        '<Property oe:key="ssh_root_login" oe:value="True"/>\n<Property oe:key="fqdn"',
    )
    run_firstboot(root, ApplianceRunner(env), cdroms=[], now=NOW)
    keys = root / "root/.ssh/authorized_keys"
    assert keys.read_text() == f"{LAB_KEY}\n{ADMIN_KEY}\n", "added next to root's own"
    assert keys.stat().st_mode & 0o777 == 0o600
    assert (root / sshd.ROOT_FILE.lstrip("/")).read_text() == sshd.ROOT_TEXT
    assert (root / "home/arcvsa/.ssh/authorized_keys").read_text() == f"{ADMIN_KEY}\n"


def test_ssh_key_is_added_next_to_the_accounts_keys(tmp_path: Path) -> None:
    root = seeded_root(tmp_path)
    (root / "home/arcvsa/.ssh").mkdir()
    (root / "home/arcvsa/.ssh/authorized_keys").write_text(LAB_KEY + "\n")
    run_firstboot(root, ApplianceRunner(env_text("valid-static.xml")), cdroms=[], now=NOW)
    assert (root / "home/arcvsa/.ssh/authorized_keys").read_text() == f"{LAB_KEY}\n{ADMIN_KEY}\n"


def test_plan_gives_the_key_file_to_the_account_in_passwd(tmp_path: Path) -> None:
    root = seeded_root(tmp_path)
    shutil.copy(FIXTURES / "firstboot" / "passwd", root / "etc" / "passwd")
    given = parse_environment(env_text("valid-static.xml").encode()).properties
    plan = make_plan(validate_properties(given), root=root, runner=ApplianceRunner(None), now=NOW)
    (admin,) = [c for c in plan.files if c.path.name == "authorized_keys"]
    assert str(admin.path) == "/home/arcvsa/.ssh/authorized_keys"
    assert (admin.owner, admin.mode, admin.parent_mode) == ((1000, 1000), 0o600, 0o700)
    assert plan.ssh
    props = validate_properties({**given, "ssh_root_login": "true"})
    plan = make_plan(props, root=root, runner=ApplianceRunner(None), now=NOW)
    _, superuser = [c for c in plan.files if c.path.name == "authorized_keys"]
    assert str(superuser.path) == "/root/.ssh/authorized_keys" and superuser.owner == (0, 0)
    assert (superuser.mode, superuser.parent_mode) == (0o600, 0o700)


def test_a_root_password_found_set_is_locked(tmp_path: Path) -> None:
    root = seeded_root(tmp_path)
    shadow = root / "etc" / "shadow"
    shadow.write_text(shadow.read_text().replace("root:*:20000:", "root:$6$salt$hash:20100:"))
    run_firstboot(root, ApplianceRunner(env_text("valid-static.xml")), cdroms=[], now=NOW)
    assert shadow.read_text().splitlines()[0] == "root:!$6$salt$hash:20100:0:99999:7:::"


def test_an_image_without_the_admin_account_gets_nothing(tmp_path: Path) -> None:
    root = seeded_root(tmp_path)
    shadow = root / "etc" / "shadow"
    shadow.write_text("".join(line for line in shadow.read_text().splitlines(True) if "arcvsa" not in line))
    before = files_under(root)
    with pytest.raises(ApplyFailed, match="the account 'arcvsa' has no entry in /etc/shadow"):
        run_firstboot(root, ApplianceRunner(env_text("valid-static.xml")), cdroms=[], now=NOW)
    assert files_under(root) == before


def test_tls_certificate_names_fqdn_host_and_address(applied: tuple[Path, ApplianceRunner]) -> None:
    root, _ = applied
    cert = x509.load_pem_x509_certificate((root / "var/lib/arcvsa/tls.crt").read_bytes())
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert san.get_values_for_type(x509.DNSName) == ["arcvsa-01.example.com", "arcvsa-01", "localhost"]
    assert cert.subject.get_attributes_for_oid(x509.NameOID.COMMON_NAME)[0].value == "arcvsa-01.example.com"
    assert ipaddress.IPv4Address("192.0.2.10") in san.get_values_for_type(x509.IPAddress)
    assert (root / "var/lib/arcvsa/tls.key").stat().st_mode & 0o777 == 0o600


def test_guestinfo_is_blanked_and_hostname_set_live(applied: tuple[Path, ApplianceRunner]) -> None:
    _, runner = applied
    assert runner.calls[0] == GET
    assert SET_BLANK in runner.calls
    assert ("hostname", "arcvsa-01") in runner.calls
    assert runner.guestinfo == ""


def test_once_only_marker_is_honoured(applied: tuple[Path, ApplianceRunner]) -> None:
    root, _ = applied
    before = files_under(root)
    runner = ApplianceRunner(
        render_environment({"hostname": "other", "admin_password": "another-pass"}).decode()
    )
    outcome = run_firstboot(root, runner, cdroms=[], now=NOW)
    assert outcome.status == "skipped"
    assert runner.calls == [], "a finished first boot reads nothing"
    assert files_under(root) == before


def test_existing_certificate_is_kept(tmp_path: Path) -> None:
    root = seeded_root(tmp_path)
    (root / "var/lib/arcvsa").mkdir(parents=True)
    (root / "var/lib/arcvsa/tls.crt").write_text("admin's own certificate\n")
    (root / "var/lib/arcvsa/tls.key").write_text("admin's own key\n")
    run_firstboot(root, ApplianceRunner(env_text("valid-static.xml")), cdroms=[], now=NOW)
    assert (root / "var/lib/arcvsa/tls.crt").read_text() == "admin's own certificate\n"


@pytest.mark.parametrize("name", sorted(p.name for p in ENV.glob("invalid-*.xml")))
def test_invalid_environment_writes_nothing(tmp_path: Path, name: str) -> None:
    root = tmp_path / "root"
    root.mkdir()
    runner = ApplianceRunner(env_text(name))
    with pytest.raises(ConfigInvalid) as caught:
        run_firstboot(root, runner, cdroms=[], now=NOW, live=True)
    assert caught.value.errors
    assert list(root.rglob("*")) == [], "the root must stay empty"
    assert SET_BLANK in runner.calls, "guestinfo is blanked even when refused"
    assert not any(c[0] in ("hostname", "openssl") for c in runner.calls)


def test_contradictory_static_config_falls_back_to_dhcp(tmp_path: Path) -> None:
    root = seeded_root(tmp_path)
    env = env_text("valid-static.xml").replace('"192.0.2.1"', '"198.51.100.1"')
    outcome = run_firstboot(root, ApplianceRunner(env), cdroms=[], now=NOW)
    assert outcome.warnings == (
        "static IPv4 configuration not usable (the gateway 198.51.100.1 is outside 192.0.2.0/24): "
        "using DHCP instead",
    )
    # DHCP, and the search domains still the admin's
    assert_golden("firstboot-fallback.network", (root / "etc/systemd/network/10-arcvsa.network").read_bytes())


def test_dhcp_environment_from_the_lab_iso(tmp_path: Path) -> None:
    root = seeded_root(tmp_path)
    iso = make_environment_iso((ENV / "valid-dhcp.xml").read_bytes(), tmp_path / "ovf-env.iso")
    runner = ApplianceRunner(None)
    outcome = run_firstboot(root, runner, cdroms=[tmp_path / "no-sr0", iso], now=NOW)
    assert (outcome.transport, outcome.origin) == ("iso", str(iso))
    assert SET_BLANK not in runner.calls, "nothing to blank on the iso transport"
    assert_golden("firstboot-dhcp.network", (root / "etc/systemd/network/10-arcvsa.network").read_bytes())
    assert not (root / "home/arcvsa/.ssh").exists(), "no key given: no key file"
    assert (root / "root/.ssh/authorized_keys").read_text() == LAB_KEY + "\n"
    assert (root / SSH_OFF).exists(), "no key given: SSH stays off"


def test_cli_reports_a_refused_environment(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "root"
    root.mkdir()
    iso = make_environment_iso((ENV / "invalid-several.xml").read_bytes(), tmp_path / "env.iso")
    code = firstboot_cli(["--root", str(root), "--cdrom", str(iso)])
    assert code == 2
    err = capsys.readouterr().err
    assert "admin_password (Administrator password): needs at least 8 characters" in err
    assert "nothing applied" in err
    assert sorted(files_under(root)) == ["etc/issue.d/arcvsa.issue", "var/lib/arcvsa/firstboot.json"]
    report = json.loads((root / "var/lib/arcvsa/firstboot.json").read_text())
    assert report["status"] == "refused"
    assert [e["key"] for e in report["errors"]] == [
        "hostname",
        "role",
        "admin_password",
        "ssh_authorized_key",
        "ipv4_address",
        "ipv4_prefix",
    ]
    assert "short" not in (root / "var/lib/arcvsa/firstboot.json").read_text()


def test_cli_applies_then_skips(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = seeded_root(tmp_path)
    iso = make_environment_iso((ENV / "valid-dhcp.xml").read_bytes(), tmp_path / "env.iso")
    assert firstboot_cli(["--root", str(root), "--cdrom", str(iso)]) == 0
    report = json.loads((root / "var/lib/arcvsa/firstboot.json").read_text())
    assert report["status"] == "applied" and report["transport"] == "iso"
    assert firstboot_cli(["--root", str(root), "--cdrom", str(iso)]) == 0
    assert "already done" in capsys.readouterr().out


def test_systemd_unit_runs_once_before_the_network() -> None:
    unit = (Path(__file__).resolve().parents[2] / "appliance/systemd/arcvsa-firstboot.service").read_text()
    assert f"ConditionPathExists=!{MARKER}" in unit
    assert "ExecStart=/opt/arcvsa/venv/bin/python -m appliance.firstboot" in unit
    before = " ".join(line.split("=", 1)[1] for line in unit.splitlines() if line.startswith("Before="))
    for service in ("systemd-networkd.service", "chrony.service", "ssh.service", "arcvsa-api.service"):
        assert service in before.split()
    assert "StandardOutput=journal+console" in unit, "a refusal must reach the console"
