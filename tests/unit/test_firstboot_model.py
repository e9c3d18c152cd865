"""The first-boot model: derived from ovf/properties.yaml, refusing bad values field by field."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from appliance.firstboot.environment import parse_environment
from appliance.firstboot.errors import ConfigInvalid
from appliance.firstboot.formats import CHECKS, host_list, hostname, ipv4_list, ssh_public_key
from appliance.firstboot.model import build_model, properties_model, validate_properties
from ovf.properties import Format, PropertyCatalogue, load_catalogue, parse_catalogue

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
        "fqdn": "arcvsa-01.example.com",
        "role": "manager",
        "ssh_authorized_key": ADMIN_KEY,
        "ssh_root_login": False,
        "ntp_servers": "ntp1.example.com,192.0.2.123",
        "ipv4_mode": "static",
        "ipv4_address": "192.0.2.10",
        "ipv4_prefix": 24,
        "ipv4_gateway": "192.0.2.1",
        "dns_servers": "192.0.2.53,192.0.2.54",
        "dns_search": "example.com,lab.example.com",
        "management_networks": "10.0.10.0/24,192.0.2.7/32",
        "storage_mode": "none",
        "storage_address": "",
        "storage_prefix": 24,
        "storage_mtu": 1500,
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


def _refusals(**values: str) -> list[str]:
    """The refusals of the shipped catalogue for a valid password plus ``values``; [] when accepted."""
    try:
        validate_properties({"admin_password": PASSWORD} | values)
    except ConfigInvalid as caught:
        return [str(e) for e in caught.errors]
    return []


def test_defaults_fill_every_absent_property() -> None:
    props = validate_properties({"admin_password": PASSWORD})
    assert props.public() == {
        "hostname": "arcvsa",
        "fqdn": "",
        "role": "appliance",
        "ssh_authorized_key": "",
        "ssh_root_login": False,
        "ntp_servers": "",
        "ipv4_mode": "dhcp",
        "ipv4_address": "",
        "ipv4_prefix": 24,
        "ipv4_gateway": "",
        "dns_servers": "",
        "dns_search": "",
        "management_networks": "",
        "storage_mode": "none",
        "storage_address": "",
        "storage_prefix": 24,
        "storage_mtu": 1500,
        "nfs_backend": "ganesha",
    }
    assert props.secret("admin_password") == PASSWORD


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("hostname", "a" * 63),
        ("hostname", "a"),
        ("admin_password", "x" * 8),
        ("admin_password", "x" * 128),
        ("ipv4_prefix", "1"),
        ("ipv4_prefix", "32"),
        ("ipv4_prefix", " 7 "),
        ("role", "manager"),
        ("nfs_backend", "knfsd"),
        ("ipv4_gateway", "192.0.2.254"),
        ("dns_servers", "192.0.2.53"),
        ("ntp_servers", "ntp.example.com"),
        ("ssh_authorized_key", ADMIN_KEY),
        ("fqdn", "arcvsa." + ".".join(["d" * 63] * 3) + "." + "d" * 54),  # 253 characters
        ("fqdn", "arcvsa." + "d" * 63),
        ("dns_search", "example.com,lab.example.com"),
        ("dns_search", ",".join(["d" * 63 + ".com"] * 15)),  # 1019 characters
        ("storage_mtu", "1280"),
        ("storage_mtu", "9000"),
        ("storage_prefix", "32"),
        ("storage_mode", "none"),
    ],
)
def test_values_at_the_edges_are_accepted(key: str, value: str) -> None:
    assert _refusals(**{key: value}) == []


@pytest.mark.parametrize(
    ("key", "value", "refusal"),
    [
        ("hostname", "", "hostname (Host name): is empty; it needs at least 1 characters"),
        ("hostname", "a" * 64, "hostname (Host name): may have at most 63 characters"),
        ("hostname", "arc.vsa", "hostname (Host name): 'arc.vsa' is not a valid host name"),
        ("role", "admin", "role (Role): must be one of appliance, manager (got 'admin')"),
        ("role", "", "role (Role): must be one of appliance, manager (got '')"),
        ("admin_password", "x" * 7, "admin_password (Administrator password): needs at least 8 characters"),
        (
            "admin_password",
            "",
            "admin_password (Administrator password): is empty; it needs at least 8 characters",
        ),
        (
            "admin_password",
            "x" * 129,
            "admin_password (Administrator password): may have at most 128 characters",
        ),
        (
            "ssh_authorized_key",
            "x" * 16385,
            "ssh_authorized_key (SSH public key): may have at most 16384 characters",
        ),
        ("ssh_authorized_key", "x", "ssh_authorized_key (SSH public key): is not an OpenSSH public key line"),
        ("ntp_servers", "a" * 1025, "ntp_servers (NTP servers): may have at most 1024 characters"),
        (
            "ntp_servers",
            "bad_host",
            "ntp_servers (NTP servers): 'bad_host' is neither a host name nor an IPv4",
        ),
        ("ipv4_mode", "manual", "ipv4_mode (IPv4 configuration): must be one of dhcp, static (got 'manual')"),
        ("ipv4_address", "1" * 16, "ipv4_address (IPv4 address): may have at most 15 characters"),
        ("ipv4_address", "192.0.2.256", "ipv4_address (IPv4 address): '192.0.2.256' is not an IPv4 address"),
        ("ipv4_prefix", "0", "ipv4_prefix (IPv4 prefix length): must be between 1 and 32 (got '0')"),
        ("ipv4_prefix", "33", "ipv4_prefix (IPv4 prefix length): must be between 1 and 32 (got '33')"),
        ("ipv4_prefix", "abc", "ipv4_prefix (IPv4 prefix length): must be a whole number (got 'abc')"),
        ("ipv4_gateway", "1" * 16, "ipv4_gateway (IPv4 gateway): may have at most 15 characters"),
        ("ipv4_gateway", "192.0.2.256", "ipv4_gateway (IPv4 gateway): '192.0.2.256' is not an IPv4 address"),
        ("dns_servers", "1" * 256, "dns_servers (DNS servers): may have at most 255 characters"),
        ("dns_servers", "192.0.2.1,x", "dns_servers (DNS servers): 'x' is not an IPv4 address"),
        ("nfs_backend", "", "nfs_backend (NFS server): must be one of ganesha, knfsd (got '')"),
        (
            "fqdn",
            "arcvsa." + ".".join(["d" * 63] * 3) + "." + "d" * 55,
            "fqdn (FQDN): 'arcvsa.ddd",  # 254 characters: the format says so, with the figure
        ),
        ("fqdn", "a" * 255, "fqdn (FQDN): may have at most 254 characters"),
        ("fqdn", "arcvsa." + "d" * 64, "fqdn (FQDN): 'arcvsa.ddd"),
        ("fqdn", "-arcvsa.example.com", "fqdn (FQDN): '-arcvsa.example.com' has the label '-arcvsa'"),
        ("fqdn", "arcvsa", "fqdn (FQDN): 'arcvsa' is one label"),
        ("fqdn", "vsa01.example.com", "fqdn (FQDN): starts with 'vsa01', not with the host name 'arcvsa'"),
        ("dns_search", "example.com,", "dns_search (DNS search domains): entry 2 of 'example.com,' is empty"),
        ("dns_search", "lab..example.com", "dns_search (DNS search domains): entry 1, 'lab..example.com'"),
        ("dns_search", "a" * 1025, "dns_search (DNS search domains): may have at most 1024 characters"),
        ("storage_mode", "dhcp", "storage_mode (Storage network): must be one of none, static (got 'dhcp')"),
        ("storage_mtu", "1279", "storage_mtu (Storage MTU): must be between 1280 and 9000 (got '1279')"),
        ("storage_mtu", "9001", "storage_mtu (Storage MTU): must be between 1280 and 9000 (got '9001')"),
        ("storage_prefix", "0", "storage_prefix (Storage prefix length): must be between 1 and 32 (got '0')"),
        (
            "storage_address",
            "10.0.0.256",
            "storage_address (Storage IPv4 address): '10.0.0.256' is not an IPv4",
        ),
    ],
)
def test_one_bad_property_is_refused_alone(key: str, value: str, refusal: str) -> None:
    (said,) = _refusals(**{key: value})
    assert said.startswith(refusal)


def test_an_fqdn_of_253_characters_is_accepted_and_254_refused() -> None:
    longest = "arcvsa." + ".".join(["d" * 63] * 3) + "." + "d" * 54
    assert len(longest) == 253
    assert validate_properties({"admin_password": PASSWORD, "fqdn": longest}).text("fqdn") == longest
    (said,) = _refusals(fqdn=longest + "d")
    assert said.endswith("is 254 characters long; a DNS name has at most 253"), said


def test_the_fqdn_follows_the_host_name() -> None:
    assert _refusals(hostname="vsa01", fqdn="VSA01.Example.com.") == []
    props = validate_properties(
        {"admin_password": PASSWORD, "hostname": "VSA01", "fqdn": "vsa01.example.com"}
    )
    assert (props.text("hostname"), props.text("fqdn")) == ("vsa01", "vsa01.example.com")
    assert _refusals(hostname="vsa01", fqdn="vsa1.example.com") == [
        "fqdn (FQDN): starts with 'vsa1', not with the host name 'vsa01': "
        "it must be the host name followed by its domain, like vsa01.example.com"
    ]
    # a host name of its own refused: the FQDN is not compared with it, nor blamed
    assert _refusals(hostname="vsa_01", fqdn="vsa01.example.com") == [
        "hostname (Host name): 'vsa_01' is not a valid host name: use 1-63 letters, digits or hyphens, "
        "not starting or ending with a hyphen (no dots, no underscores)"
    ]


def test_root_login_needs_the_ssh_key() -> None:
    refused = "ssh_root_login (SSH as root with the key): is on, but no SSH public key (ssh_authorized_key) is given"
    assert _refusals(ssh_root_login="True", ssh_authorized_key=ADMIN_KEY) == []
    assert _refusals(ssh_root_login="false") == []
    assert _refusals(ssh_root_login="") == []  # blank: the default, off
    assert [r[: len(refused)] for r in _refusals(ssh_root_login="True")] == [refused]
    assert [r[: len(refused)] for r in _refusals(ssh_root_login="true", ssh_authorized_key="  ")] == [refused]
    # a value refused on its own is not blamed twice
    (alone,) = _refusals(ssh_root_login="maybe")
    assert alone.startswith("ssh_root_login (SSH as root with the key): Input should be a valid boolean")
    props = validate_properties(
        {"admin_password": PASSWORD, "ssh_root_login": "True", "ssh_authorized_key": ADMIN_KEY}
    )
    assert props.flag("ssh_root_login") is True


def test_other_refusals_do_not_hide_the_fqdns() -> None:
    mismatch = (
        "fqdn (FQDN): starts with 'other', not with the host name 'arcvsa': "
        "it must be the host name followed by its domain, like arcvsa.example.com"
    )
    assert _refusals(ipv4_mode="static", fqdn="other.example.com") == [
        mismatch,
        "ipv4_address (IPv4 address): is required when ipv4_mode is static",
    ]
    assert _refusals(ipv4_prefix="33", fqdn="other.example.com") == [
        mismatch,
        "ipv4_prefix (IPv4 prefix length): must be between 1 and 32 (got '33')",
    ]


def test_an_empty_host_name_is_refused_alone() -> None:
    assert _refusals(hostname="", fqdn="other.example.com") == [
        "hostname (Host name): is empty; it needs at least 1 characters"
    ]


def test_a_refused_password_is_never_repeated() -> None:
    for value in ("Sh0rt!", "Sh0rt!" * 30):
        (said,) = _refusals(admin_password=value)
        assert value not in said and "got" not in said


def test_static_mode_needs_an_address_but_dhcp_does_not() -> None:
    assert _refusals(ipv4_mode="static") == [
        "ipv4_address (IPv4 address): is required when ipv4_mode is static"
    ]
    assert _refusals(ipv4_mode="static", ipv4_address="   ") == [
        "ipv4_address (IPv4 address): '   ' is not an IPv4 address (like 192.0.2.10)"
    ]
    assert _refusals(ipv4_mode="static", ipv4_address="192.0.2.10") == []
    assert _refusals(ipv4_mode="dhcp") == []
    # an empty prefix takes its default (24), so static mode is complete without one
    assert _refusals(ipv4_mode="static", ipv4_address="192.0.2.10", ipv4_prefix="") == []


def test_a_static_storage_network_needs_its_address_and_none_does_not() -> None:
    assert _refusals(storage_mode="static") == [
        "storage_address (Storage IPv4 address): is required when storage_mode is static"
    ]
    assert _refusals(storage_mode="static", storage_address="198.51.100.10") == []
    assert _refusals(storage_mode="none", storage_address="") == []


def test_unknown_properties_are_ignored() -> None:
    props = validate_properties({"admin_password": PASSWORD, "vmware_extra": "x"})
    assert "vmware_extra" not in props.public()


def test_refusals_are_listed_in_catalogue_order() -> None:
    assert [
        s.split(" ", 1)[0] for s in _refusals(nfs_backend="x", ipv4_prefix="0", role="x", hostname="")
    ] == [
        "hostname",
        "role",
        "ipv4_prefix",
        "nfs_backend",
    ]


def test_the_model_is_frozen_and_named() -> None:
    model = properties_model()
    assert model.__name__ == "OvfProperties"
    props = validate_properties({"admin_password": PASSWORD})
    with pytest.raises(ValidationError):
        props.model.hostname = "other"  # type: ignore[attr-defined]


def test_typed_accessors_refuse_the_wrong_kind() -> None:
    props = validate_properties({"admin_password": PASSWORD})
    assert props.text("role") == "appliance" and props.integer("ipv4_prefix") == 24
    with pytest.raises(TypeError, match="ipv4_prefix is int, not a string"):
        props.text("ipv4_prefix")
    with pytest.raises(TypeError, match="hostname is str, not an integer"):
        props.integer("hostname")
    with pytest.raises(TypeError, match="hostname is not a password property"):
        props.secret("hostname")
    with pytest.raises(KeyError, match="'hostnme' is not a property"):
        props.text("hostnme")
    assert props.flag("ssh_root_login") is False
    with pytest.raises(TypeError, match="hostname is str, not a boolean"):
        props.flag("hostname")
    assert "admin_password" not in props.public()


def _catalogue(*extra: dict[str, object]) -> PropertyCatalogue:
    data = yaml.safe_load((Path(__file__).resolve().parents[2] / "ovf" / "properties.yaml").read_text())
    data["properties"].extend({"category": "Storage", "description": "A test property.", **e} for e in extra)
    return parse_catalogue(yaml.safe_dump(data))


def test_boolean_properties_take_their_default_and_parse_ovf_spellings() -> None:
    catalogue = _catalogue(
        {"key": "on_flag", "type": "boolean", "label": "On", "default": "True"},
        {"key": "off_flag", "type": "boolean", "label": "Off", "default": "false"},
    )
    props = validate_properties({"admin_password": PASSWORD}, catalogue)
    assert props.public()["on_flag"] is True and props.public()["off_flag"] is False
    props = validate_properties(
        {"admin_password": PASSWORD, "on_flag": "false", "off_flag": "true"}, catalogue
    )
    assert props.public()["on_flag"] is False and props.public()["off_flag"] is True
    with pytest.raises(ConfigInvalid) as caught:
        validate_properties({"admin_password": PASSWORD, "on_flag": "maybe"}, catalogue)
    (error,) = caught.value.errors
    assert error.key == "on_flag" and error.message.endswith("(got 'maybe')")
    assert error.message.startswith("Input should be a valid boolean")


def test_a_required_property_without_qualifiers_is_refused_when_blank() -> None:
    catalogue = _catalogue(
        {"key": "site", "type": "string", "label": "Site", "default": "", "required": True}
    )
    with pytest.raises(ConfigInvalid) as caught:
        validate_properties({"admin_password": PASSWORD, "site": "  "}, catalogue)
    assert [str(e) for e in caught.value.errors] == ["site (Site): is empty; it is required"]
    assert validate_properties({"admin_password": PASSWORD, "site": "lab"}, catalogue).text("site") == "lab"


def test_an_integer_without_default_is_required_even_when_blank() -> None:
    catalogue = _catalogue({"key": "port", "type": "uint16", "label": "Port", "min_value": 1, "max_value": 9})
    for raw in ({}, {"port": " "}):
        with pytest.raises(ConfigInvalid) as caught:
            validate_properties({"admin_password": PASSWORD} | raw, catalogue)
        assert [str(e) for e in caught.value.errors] == ["port (Port): is required but was not given"]
    assert validate_properties({"admin_password": PASSWORD, "port": "9"}, catalogue).integer("port") == 9


def test_a_dependency_on_an_absent_property_without_default_is_not_met() -> None:
    catalogue = _catalogue(
        {"key": "zone", "type": "string", "label": "Zone"},
        {
            "key": "zone_x_note",
            "type": "string",
            "label": "Note",
            "default": "",
            "required_when": {"zone": "X"},
        },
    )
    with pytest.raises(ConfigInvalid) as caught:
        validate_properties({"admin_password": PASSWORD}, catalogue)
    assert [e.key for e in caught.value.errors] == ["zone"]
    with pytest.raises(ConfigInvalid) as caught:
        validate_properties({"admin_password": PASSWORD, "zone": "X"}, catalogue)
    assert [str(e) for e in caught.value.errors] == ["zone_x_note (Note): is required when zone is X"]


def test_the_labs_properties_pass_first_boots_checks() -> None:
    from lab.appliance_env import LAB_FQDN, LAB_SEARCH, lab_properties

    props = validate_properties(lab_properties(PASSWORD, ADMIN_KEY))
    assert props.text("fqdn") == LAB_FQDN
    assert props.text("dns_search") == ",".join(LAB_SEARCH)
