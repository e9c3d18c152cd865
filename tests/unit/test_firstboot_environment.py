"""Reading the OVF environment: ovf-env.xml parsing, the ISO reader, guestinfo before CD-ROM."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from appliance.firstboot.environment import parse_environment
from appliance.firstboot.errors import EnvironmentMalformed, EnvironmentNotFound
from appliance.firstboot.iso9660 import IsoError, read_root_file
from appliance.firstboot.source import blank_guestinfo, read_environment
from ovf.environment import make_environment_iso, render_environment
from process import Completed, ProcessFailed, run

ENV = Path(__file__).resolve().parents[1] / "fixtures" / "ovf" / "env"
GET = ("vmtoolsd", "--cmd", "info-get guestinfo.ovfEnv")
SET_BLANK = ("vmtoolsd", "--cmd", "info-set guestinfo.ovfEnv ")


class GuestinfoRunner:
    """vmtoolsd as seen from a VM: answers info-get/info-set, refuses any other argv."""

    def __init__(self, value: str | None) -> None:
        self.value = value
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Completed:
        call = tuple(argv)
        self.calls.append(call)
        if call == GET:
            if self.value is None:
                raise ProcessFailed(call, 1, "No value found")
            return Completed(call, 0, self.value + "\n", "")
        if call == SET_BLANK:
            self.value = ""
            return Completed(call, 0, "", "")
        raise AssertionError(f"unexpected command {call}")


def test_vsphere_style_environment_parses() -> None:
    env = parse_environment((ENV / "valid-static.xml").read_bytes())
    assert env.platform_kind == "VMware ESXi"
    assert env.properties["hostname"] == "arcvsa-01"
    assert env.properties["dns_servers"] == "192.0.2.53, 192.0.2.54"


def test_our_writer_round_trips_through_the_parser() -> None:
    values = {"hostname": "h", "admin_password": "p<&>\"' x", "ipv4_mode": "dhcp"}
    env = parse_environment(render_environment(values))
    assert env.properties == values and env.esx_id == "vm-0"


def test_writer_refuses_unknown_keys() -> None:
    with pytest.raises(KeyError, match="hostnmae"):
        render_environment({"hostnmae": "x"})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "is empty"),
        (b"<Environment", "not well-formed"),
        (b"<Envelope/>", "not {http://schemas.dmtf.org/ovf/environment/1}Environment"),
        (
            b'<Environment xmlns="http://schemas.dmtf.org/ovf/environment/1" '
            b'xmlns:oe="http://schemas.dmtf.org/ovf/environment/1"><PropertySection>'
            b'<Property oe:key="a" oe:value="1"/><Property oe:key="a" oe:value="2"/>'
            b"</PropertySection></Environment>",
            "property 'a' appears twice",
        ),
        (b'<!DOCTYPE x [<!ENTITY e "e">]><x/>', "DOCTYPE"),
    ],
)
def test_malformed_environment_is_refused(data: bytes, message: str) -> None:
    with pytest.raises(EnvironmentMalformed, match=message.replace("{", r"\{").replace("}", r"\}")):
        parse_environment(data)


@pytest.mark.parametrize("joliet", [True, False])
def test_iso_reader_finds_ovf_env_xml(tmp_path: Path, joliet: bool) -> None:
    folder = tmp_path / "content"
    folder.mkdir()
    (folder / "ovf-env.xml").write_bytes(b"<env/>")
    (folder / "other.txt").write_bytes(b"x" * 5000)
    iso = tmp_path / "env.iso"
    argv = ["genisoimage", "-quiet", *(["-J", "-R"] if joliet else []), "-o", str(iso), str(folder)]
    run(argv, timeout=60)
    assert read_root_file(iso, "ovf-env.xml") == b"<env/>"
    with pytest.raises(IsoError, match="not found"):
        read_root_file(iso, "missing.xml")


def test_iso_reader_refuses_non_iso(tmp_path: Path) -> None:
    junk = tmp_path / "junk.iso"
    junk.write_bytes(b"\0" * 40 * 2048)
    with pytest.raises(IsoError, match="CD001"):
        read_root_file(junk, "ovf-env.xml")


def test_guestinfo_comes_first_and_is_blanked(tmp_path: Path) -> None:
    runner = GuestinfoRunner((ENV / "valid-dhcp.xml").read_text())
    doc = read_environment(runner, [tmp_path / "no-cdrom"])
    assert doc.transport == "guestinfo"
    assert parse_environment(doc.data).properties["hostname"] == "arcvsa-lab"
    blank_guestinfo(runner)
    assert runner.calls == [GET, SET_BLANK]


def test_cdrom_when_not_on_vmware(tmp_path: Path) -> None:
    iso = make_environment_iso(render_environment({"hostname": "lab"}), tmp_path / "env.iso")
    doc = read_environment(GuestinfoRunner(None), [tmp_path / "sr0-absent", iso])
    assert (doc.transport, doc.origin) == ("iso", str(iso))
    assert parse_environment(doc.data).properties == {"hostname": "lab"}


def test_no_environment_anywhere(tmp_path: Path) -> None:
    with pytest.raises(EnvironmentNotFound, match=r"no OVF environment in guestinfo\.ovfEnv"):
        read_environment(GuestinfoRunner(None), [tmp_path / "sr0"])
