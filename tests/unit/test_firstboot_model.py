"""The first-boot model: derived from ovf/properties.yaml, refusing bad values field by field."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest
import yaml

from appliance.firstboot.environment import parse_environment
from appliance.firstboot.errors import ConfigInvalid
from appliance.firstboot.formats import CHECKS, host_list, hostname, ipv4_list, ssh_public_key
from appliance.firstboot.model import build_model, properties_model, validate_properties
from ovf.properties import Format, load_catalogue, parse_catalogue

ENV = Path(__file__).resolve().parents[1] / "fixtures" / "ovf" / "env"
PASSWORD = "Corr3ct-Horse!"
ADMIN_KEY = (
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILyC5cYEYoj6kcVEylYsBU4+LlLBEVjj+VUaKdPa+Ft+ admin@example.com"
)


def _values(name: str) -> dict[str, str]:
    return parse_environment((ENV / name).read_bytes()).properties


def test_model_fields_are_the_catalogue_keys() -> None:
    catalogue = load_catalogue()
    fields = properties_model().model_fields
    assert list(fields) == [p.key for p in catalogue.properties]
    for spec in catalogue.properties:
        assert fields[spec.key].title == spec.label
        assert fields[spec.key].description == spec.description


def test_a_new_yaml_property_becomes_a_model_field() -> None:
    data = yaml.safe_load((Path(__file__).resolve().parents[2] / "ovf" / "properties.yaml").read_text())
    data["properties"].append(
        {
            "key": "syslog_port",
            "category": "Storage",
            "type": "uint16",
            "label": "Syslog port",
            "description": "Port of the remote syslog server.",
            "default": "514",
            "min_value": 1,
            "max_value": 65535,
        }
    )
    catalogue = parse_catalogue(yaml.safe_dump(data))
    model = build_model(catalogue)
    assert "syslog_port" in model.model_fields
    values = {"admin_password": PASSWORD, "syslog_port": "70000"}
    with pytest.raises(ConfigInvalid, match=r"syslog_port .* must be between 1 and 65535"):
        validate_properties(values, catalogue)
    assert validate_properties({"admin_password": PASSWORD}, catalogue).integer("syslog_port") == 514


def test_every_format_has_a_check() -> None:
    assert set(CHECKS) == set(typing.get_args(Format))


@pytest.mark.parametrize("name", sorted(p.name for p in ENV.glob("valid-*.xml")))
def test_valid_fixtures_parse(name: str) -> None:
    props = validate_properties(_values(name))
    assert props.text("hostname")
    assert len(props.secret("admin_password")) >= 8


def test_static_fixture_values() -> None:
    props = validate_properties(_values("valid-static.xml"))
    assert props.public() == {
        "hostname": "arcvsa-01",
        "role": "manager",
        "ssh_authorized_key": ADMIN_KEY,
        "ntp_servers": "ntp1.example.com,192.0.2.123",
        "ipv4_mode": "static",
        "ipv4_address": "192.0.2.10",
        "ipv4_prefix": 24,
        "ipv4_gateway": "192.0.2.1",
        "dns_servers": "192.0.2.53,192.0.2.54",
        "nfs_backend": "knfsd",
    }
    assert PASSWORD not in repr(props.model)


@pytest.mark.parametrize(
    ("name", "key", "message"),
    [
        ("invalid-prefix33.xml", "ipv4_prefix", "must be between 1 and 32 (got '33')"),
        ("invalid-empty-password.xml", "admin_password", "is empty; it needs at least 8 characters"),
        ("invalid-hostname.xml", "hostname", "'-arc_vsa.01' is not a valid host name"),
        ("invalid-nfs-backend.xml", "nfs_backend", "must be one of ganesha, knfsd (got 'nfsd')"),
        ("invalid-address.xml", "ipv4_address", "'192.0.2.300' is not an IPv4 address"),
    ],
)
def test_invalid_fixture_is_refused_naming_the_field(name: str, key: str, message: str) -> None:
    with pytest.raises(ConfigInvalid) as caught:
        validate_properties(_values(name))
    assert [e.key for e in caught.value.errors] == [key]
    assert message in caught.value.errors[0].message
    assert f"{key} (" in str(caught.value)


def test_every_refused_field_is_listed_once() -> None:
    with pytest.raises(ConfigInvalid) as caught:
        validate_properties(_values("invalid-several.xml"))
    by_key = {e.key: e.message for e in caught.value.errors}
    assert list(by_key) == [
        "hostname",
        "role",
        "admin_password",
        "ssh_authorized_key",
        "ipv4_address",
        "ipv4_prefix",
    ]
    assert by_key["ipv4_address"] == "is required when ipv4_mode is static"
    assert by_key["admin_password"] == "needs at least 8 characters"
    assert "short" not in str(caught.value), "a password must never be echoed"


def test_missing_password_is_reported() -> None:
    with pytest.raises(ConfigInvalid, match=r"admin_password .* is required but was not given"):
        validate_properties({"hostname": "a"})


def test_empty_prefix_in_dhcp_mode_takes_the_default() -> None:
    assert validate_properties(_values("valid-dhcp.xml")).integer("ipv4_prefix") == 24


@pytest.mark.parametrize("bad", ["arc.vsa", "arc_vsa", "-arc", "a" * 64, "arc vsa"])
def test_hostname_check_refuses(bad: str) -> None:
    with pytest.raises(ValueError, match="not a valid host name"):
        hostname(bad)


def test_list_checks_normalise() -> None:
    assert ipv4_list(" 192.0.2.1 ,192.0.2.2  ") == "192.0.2.1,192.0.2.2"
    assert host_list("NTP.Example.com., 192.0.2.9") == "ntp.example.com,192.0.2.9"
    with pytest.raises(ValueError, match="neither a host name nor an IPv4"):
        host_list("192.0.2.999")


def test_ssh_key_check() -> None:
    key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILyC5cYEYoj6kcVEylYsBU4+LlLBEVjj+VUaKdPa+Ft+ me"
    assert ssh_public_key(key) == key
    with pytest.raises(ValueError, match="is a 'ssh-ed25519' key, but the line says 'ssh-rsa'"):
        ssh_public_key(key.replace("ssh-ed25519", "ssh-rsa", 1))
    with pytest.raises(ValueError, match="single line"):
        ssh_public_key(key + "\n" + key)
